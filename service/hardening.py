"""What every HTTP request meets before a route: a body limit, strict JSON, security headers; and what the
service answers a malformed request with.

* ``RequestGuard`` (an ASGI middleware): a body longer than ``Settings.max_body_bytes`` is refused with 413
  (from its ``Content-Length`` before reading a byte, or as soon as a streamed body passes the limit); a JSON
  body is parsed once here, strictly: ``NaN``, ``Infinity``, a lone surrogate (``"\\ud800"``), nesting deeper
  than ``MAX_DEPTH`` or bytes that are not UTF-8 are refused with 422 before any route sees them. Every answer,
  pages and API alike, carries the security headers (``HEADERS``).
* ``validation_error_handler``: the 422 for a body or parameter that does not fit the schema, echoing at most
  ``ECHO`` characters of what was sent (never a 5 MB input back, never a value JSON cannot encode).
* ``WebSocketCredentials``: a WebSocket's token offered as a subprotocol, and the stream closed once its
  credential ends.
* ``RedactCredentials``: a logging filter for uvicorn's access and error logs that blanks the value of any
  credential-bearing query parameter (``token``, ``signin``), so no log line carries one.
"""
from __future__ import annotations

import asyncio
import json
import logging
import math
import re
from typing import Any
from urllib.parse import parse_qs, quote

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import ServiceError

MAX_DEPTH = 32           # no request of the API nests deeper than a few levels
ECHO = 120               # characters of a rejected value echoed in a 422
MAX_ERRORS = 20
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "connect-src 'self' {ws}; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = {
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
}
CREDENTIAL_PARAM = re.compile(r"((?:^|[?&;\s])(?:token|signin)=)[^&\s\"']*", re.IGNORECASE)


class BadJSON(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise BadJSON(f"{name} is not a JSON number")


def check_json(raw: bytes) -> None:
    """Raise ``BadJSON`` unless ``raw`` is strict JSON: UTF-8, no NaN or Infinity, no lone surrogate, nesting at
    most ``MAX_DEPTH``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise BadJSON("the body is not UTF-8") from err
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecursionError as err:
        raise BadJSON("the body nests too deeply") from err
    except BadJSON:
        raise
    except ValueError as err:
        raise BadJSON(f"the body is not JSON: {str(err)[:ECHO]}") from err
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BadJSON(f"the body nests deeper than {MAX_DEPTH} levels")
        if isinstance(v, str):
            _check_text(v)
        elif isinstance(v, float) and not math.isfinite(v):
            raise BadJSON("a number beyond the range of a double (1e400 reads as infinity)")
        elif isinstance(v, dict):
            for k, x in v.items():
                _check_text(k)
                stack.append((x, depth + 1))
        elif isinstance(v, list):
            stack.extend((x, depth + 1) for x in v)


def _check_text(s: str) -> None:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as err:
        raise BadJSON("a string holds a lone surrogate (not a Unicode character)") from err


def _json_body(scope: Scope) -> bool:
    if scope["method"] not in ("POST", "PUT", "PATCH"):
        return False
    ctype = dict(scope["headers"]).get(b"content-type", b"").decode("latin-1").lower()
    return not ctype or "json" in ctype


async def _answer(send: Send, status: int, detail: str, headers: dict[str, str]) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")] + [(k.encode(), v.encode()) for k, v in headers.items()]})
    await send({"type": "http.response.body", "body": body})


class RequestGuard:
    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    def headers(self, scope: Scope) -> dict[str, str]:
        host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
        ws = f"ws://{host} wss://{host}" if re.fullmatch(r"[A-Za-z0-9.\-:\[\]]+", host) else ""
        return {**HEADERS, "content-security-policy": CSP.format(ws=ws).replace("  ", " ")}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.headers(scope)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await _answer(send, 413, f"the body is larger than {self.max_body} bytes", extra)
            return
        body = b""
        if _json_body(scope):                   # read it here, within the limit, and check it is strict JSON
            more = True
            while more:
                msg = await receive()
                if msg["type"] == "http.disconnect":
                    return
                body += msg.get("body", b"")
                more = msg.get("more_body", False)
                if len(body) > self.max_body:
                    await _answer(send, 413, f"the body is larger than {self.max_body} bytes", extra)
                    return
            if body:
                try:
                    check_json(body)
                except BadJSON as err:
                    await _answer(send, 422, str(err), extra)
                    return
            receive = _replay(body, receive)
        else:
            receive = _limited(receive, self.max_body)

        async def send_with_headers(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                have = {k.lower() for k, _ in msg.get("headers", [])}
                msg["headers"] = list(msg.get("headers", [])) + [(k.encode(), v.encode()) for k, v in extra.items()
                                                                  if k.encode() not in have]
            await send(msg)

        try:
            await self.app(scope, receive, send_with_headers)
        except BodyTooLarge:
            await _answer(send, 413, f"the body is larger than {self.max_body} bytes", extra)


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` once a streamed body passes the limit (FastAPI passes an ``HTTPException`` on
    from its body reading: the answer is this 413, not its generic 400)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the body is larger than {limit} bytes")


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()
    return again


def _limited(receive: Receive, limit: int) -> Receive:
    seen = 0

    async def counted() -> Message:
        nonlocal seen
        msg = await receive()
        seen += len(msg.get("body", b""))
        if seen > limit:
            raise BodyTooLarge(limit)
        return msg
    return counted


class WebSocketCredentials:
    """A WebSocket's credential: how it arrives, and that it ends.

    A browser cannot set a WebSocket's headers: the page offers its token as the subprotocol ``bearer.<token>``
    next to ``bridgetable``. This hands the token to the routes as they read one (``?token=``, in the routed
    copy of the request only, which no log sees) and accepts with ``bridgetable``. While the stream is open the
    credential is checked every ``RECHECK_S``: once it has ended (a new round, a revocation) the stream is closed
    (code 4401, the reason) as every new request with it is refused."""

    RECHECK_S = 1.0

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        offered = list(scope.get("subprotocols") or ())
        bearer = next((p[len("bearer."):] for p in offered if p.startswith("bearer.")), None)
        if bearer is not None:
            query = [kv for kv in scope.get("query_string", b"").decode("latin-1").split("&")
                     if kv and not kv.startswith("token=")]
            query.append("token=" + quote(bearer, safe=""))
            scope = {**scope, "query_string": "&".join(query).encode("latin-1"),
                     "subprotocols": [p for p in offered if not p.startswith("bearer.")]}
        token = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [None])[-1]
        closed = asyncio.Event()
        watcher: asyncio.Task[None] | None = None

        async def watch() -> None:
            svc = getattr(scope["app"].state, "service", None)
            while svc is not None and token:
                await asyncio.sleep(self.RECHECK_S)
                try:
                    svc.tokens.viewer(token)
                except ServiceError as err:
                    closed.set()
                    await send({"type": "websocket.close", "code": 4401, "reason": str(err)[:120]})
                    return

        async def guarded_send(msg: Message) -> None:
            nonlocal watcher
            if closed.is_set():
                return                              # the stream was ended: the route's late messages go nowhere
            if msg["type"] == "websocket.accept":
                if bearer is not None and not msg.get("subprotocol") and "bridgetable" in offered:
                    msg = {**msg, "subprotocol": "bridgetable"}
                await send(msg)
                if token and token.startswith("seat."):
                    watcher = asyncio.create_task(watch())
                return
            await send(msg)

        async def guarded_receive() -> Message:
            if closed.is_set():
                return {"type": "websocket.disconnect", "code": 4401}
            msg = await receive()
            return {"type": "websocket.disconnect", "code": 4401} if closed.is_set() else msg

        try:
            await self.app(scope, guarded_receive, guarded_send)
        finally:
            if watcher is not None:
                watcher.cancel()


# ---------------------------------------------------------------------------------------------- the 422 answer
def _safe(v: Any, depth: int = 0) -> Any:
    """``v`` made small and encodable: long strings cut, lone surrogates replaced, NaN and infinities named."""
    if depth > 4:
        return "..."
    if isinstance(v, str):
        s = v.encode("utf-8", "replace").decode("utf-8")
        return s if len(s) <= ECHO else s[:ECHO] + f"... ({len(s)} characters)"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if isinstance(v, (bool, int, float)) or v is None:
        return v
    if isinstance(v, dict):
        items = list(v.items())
        out = {str(_safe(k, depth + 1)): _safe(x, depth + 1) for k, x in items[:MAX_ERRORS]}
        if len(items) > MAX_ERRORS:
            out["..."] = f"{len(items) - MAX_ERRORS} more"
        return out
    if isinstance(v, (list, tuple)):
        return [_safe(x, depth + 1) for x in v[:MAX_ERRORS]] + ([f"... {len(v) - MAX_ERRORS} more"]
                                                                 if len(v) > MAX_ERRORS else [])
    return _safe(repr(v), depth)


async def validation_error_handler(request: Request, err: Exception) -> JSONResponse:
    assert isinstance(err, RequestValidationError)
    errors = []
    for e in err.errors()[:MAX_ERRORS]:
        item = {k: e[k] for k in ("type", "loc", "msg") if k in e}
        if "input" in e:
            item["input"] = e["input"]
        errors.append(_safe(item))
    return JSONResponse({"detail": errors}, status_code=422)


# ---------------------------------------------------------------------------------------------- the logs
class RedactCredentials(logging.Filter):
    """Blank credential values in a record's message and arguments (uvicorn logs the path with its query)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = CREDENTIAL_PARAM.sub(r"\1[redacted]", record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(CREDENTIAL_PARAM.sub(r"\1[redacted]", a) if isinstance(a, str) else a
                                for a in record.args)
        return True


def redact_server_logs() -> None:
    """Install ``RedactCredentials`` on uvicorn's loggers (once)."""
    for name in ("uvicorn.access", "uvicorn.error", "uvicorn"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactCredentials) for f in logger.filters):
            logger.addFilter(RedactCredentials())
