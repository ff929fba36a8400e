"""The HTTP answer to each kind of ``ServiceError`` (``service/errors.py``): one table of status codes, and the
one exception handler ``create_app`` registers (WebSocket handshakes are denied with the same statuses)."""
from __future__ import annotations

from fastapi import Request
from fastapi.responses import JSONResponse

from service.errors import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    ServiceError,
    TooMany,
    Unauthenticated,
    Unavailable,
)
from table.texts import translatable

STATUS: dict[type[ServiceError], int] = {
    Unauthenticated: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    Invalid: 422,
    TooMany: 429,
    Unavailable: 503,
}


def status_of(err: ServiceError) -> int:
    """The status of ``err``'s kind (its nearest class in the table; 500 for none)."""
    return next((STATUS[c] for c in type(err).__mro__ if c in STATUS), 500)


def error_response(err: ServiceError) -> JSONResponse:
    status = status_of(err)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    if isinstance(err, TooMany):
        headers = {"Retry-After": str(max(1, round(err.retry_after)))}
    # a refusal worded as a Text (table/texts.py) also carries its pieces: a page words it in its own language
    message = err.args[0] if err.args else ""
    return JSONResponse({"detail": str(err), **translatable(message, "detail"), **err.extra}, status_code=status,
                        headers=headers)


async def service_error_handler(request: Request, err: Exception) -> JSONResponse:
    assert isinstance(err, ServiceError)
    return error_response(err)
