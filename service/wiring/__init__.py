"""The running service's parts as one object, and putting an event in place among them."""
