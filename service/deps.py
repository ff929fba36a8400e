"""FastAPI dependencies: the running service, and who is asking (from a bearer token or ``?token=``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import Depends, HTTPException, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .auth import AuthError
from .visibility import Viewer

if TYPE_CHECKING:
    from .app import Service

bearer = HTTPBearer(auto_error=False, description="the director's token or a seat token")


def service(request: Request) -> Service:
    return request.app.state.service


def token(creds: HTTPAuthorizationCredentials | None = Depends(bearer),
          token: str | None = Query(None, max_length=200, description="token, for links and WebSockets")) -> str | None:
    return creds.credentials if creds is not None else token


def viewer(request: Request, tok: str | None = Depends(token)) -> Viewer:
    try:
        return service(request).tokens.viewer(tok)
    except AuthError as err:
        raise HTTPException(err.status, str(err), headers={"WWW-Authenticate": "Bearer"}) from None


def director(v: Viewer = Depends(viewer)) -> Viewer:
    if v.role == "spectator":
        raise HTTPException(401, "the director's token is required", headers={"WWW-Authenticate": "Bearer"})
    if v.role != "director":
        raise HTTPException(403, "only the director may do this")
    return v
