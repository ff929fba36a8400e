"""The service: journal, REST/WebSocket API, director console and live pages over the law engine.

``create_app(settings)`` builds the FastAPI application; ``bridgetable serve`` runs it under uvicorn.
"""
from service.app import create_app
from service.config.loading import load_settings
from service.config.settings import Settings
from service.live.visibility import Viewer, visible_state

__all__ = ["create_app", "Settings", "load_settings", "Viewer", "visible_state"]
