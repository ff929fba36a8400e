"""The service: journal, REST/WebSocket API, director console and live pages over the law engine.

``create_app(settings)`` builds the FastAPI application; ``bridgetable serve`` runs it under uvicorn.
"""
from .app import create_app
from .configuration import load_settings
from .settings import Settings
from .visibility import Viewer, visible_state

__all__ = ["create_app", "Settings", "load_settings", "Viewer", "visible_state"]
