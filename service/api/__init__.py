"""The HTTP and WebSocket API: one router per resource, request models and dependencies."""
