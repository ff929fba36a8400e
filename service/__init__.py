"""The service: journal, REST/WebSocket API, director console and live pages over the law engine.

``create_app(settings)`` builds the FastAPI application; ``bridgetable serve`` runs it under uvicorn.
"""
from .app import create_app
from .settings import Settings, load_settings
from .visibility import Viewer, visible_state

__all__ = ["create_app", "Settings", "load_settings", "Viewer", "visible_state"]
