"""FastAPI dependencies: the running service, and who is asking (from a bearer token or ``?token=``)."""
from __future__ import annotations

from fastapi import Depends, Query
from fastapi.requests import HTTPConnection
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from service.errors import Forbidden, Unauthenticated
from service.live.visibility import Viewer
from service.wiring.container import Service
from table.texts import Text

bearer = HTTPBearer(auto_error=False, description="the director's token or a seat token")


def service(conn: HTTPConnection) -> Service:
    """The service ``create_app`` assembled (a request's or a WebSocket's)."""
    svc: Service = conn.app.state.service
    return svc


def token(creds: HTTPAuthorizationCredentials | None = Depends(bearer),
          token: str | None = Query(None, max_length=200, description="token, for links and WebSockets")) -> str | None:
    return creds.credentials if creds is not None else token


def viewer(svc: Service = Depends(service), tok: str | None = Depends(token)) -> Viewer:
    return svc.tokens.viewer(tok)


def director(v: Viewer = Depends(viewer)) -> Viewer:
    if v.role == "spectator":
        raise Unauthenticated(Text("refusal.director_token", "the director's token is required"))
    if v.role != "director":
        raise Forbidden(Text("refusal.director_only", "only the director may do this"))
    return v
