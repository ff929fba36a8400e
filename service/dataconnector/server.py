"""The Data Connector's own HTTP application, on its own port (the protocol's 5079 by default): ``GET /`` answers
the version text the client's connect() looks for; ``POST /dc-scoringprogram`` takes every command. Every answer
is HTTP 200 with the protocol's envelope, a refusal included (a wrong club id or licence key, bad JSON, a command
bridgetable does not implement); nothing here answers 500.
"""
from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from service.errors import ServiceError
from service.wiring.container import Service

from .commands import HANDLERS, credentials_ok, not_implemented
from .connector import DataConnector
from .wire import VERSION_TEXT, DcError, ErrorType, error, parse_request

log = logging.getLogger(__name__)
MAX_BODY = 4_000_000


async def handle(dc: DataConnector, club_id: str, licence_key: str, body: bytes) -> dict[str, Any]:
    """The envelope answering one request body."""
    command = 0
    try:
        if len(body) > MAX_BODY:
            raise DcError(ErrorType.VALIDATION, f"the request is larger than {MAX_BODY} bytes")
        req = parse_request(body)
        command = req.command
        if not credentials_ok(req.club_id, req.licence_key, club_id, licence_key):
            raise DcError(ErrorType.VALIDATION, "Invalid club id or licence key")
        handler = HANDLERS.get(req.command, not_implemented)
        return await handler(dc, req)
    except DcError as err:
        return error(command, err)
    except ServiceError as err:
        return error(command, DcError(ErrorType.VALIDATION, str(err)))
    except Exception as err:                   # a bug must still answer the protocol's way
        log.exception("data connector: command %s failed", command)
        return error(command, DcError(ErrorType.EXCEPTION, f"{type(err).__name__}: {err}"))


def create_dc_app(service: Callable[[], Service]) -> FastAPI:
    """The endpoint over the running service ``service()`` (its ``dataconnector`` built at start-up)."""

    def connector() -> DataConnector:
        dc = service().dataconnector
        assert isinstance(dc, DataConnector)
        return dc

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        dc = connector()
        await dc.start()
        try:
            yield
        finally:
            await dc.stop()

    app = FastAPI(title="bridgetable Data Connector", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)

    @app.get("/", response_class=PlainTextResponse)
    async def version() -> str:
        return VERSION_TEXT

    @app.post("/dc-scoringprogram")
    async def scoring_program(request: Request) -> JSONResponse:
        cfg = service().settings.dataconnector
        assert cfg is not None
        body = b""
        async for chunk in request.stream():          # never more than the limit in memory
            body += chunk
            if len(body) > MAX_BODY:
                break
        return JSONResponse(await handle(connector(), cfg.club_id, cfg.licence_key, body))

    return app
