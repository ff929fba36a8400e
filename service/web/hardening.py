"""What every HTTP request meets before a route: a body limit, strict JSON, security headers.

``RequestGuard`` (an ASGI middleware) sees every request as the routes will: a header that frames or
attributes the request (``FRAMING``) given twice is refused with 400, since the guard and a route could each
read another copy; a body longer than ``Settings.max_body_bytes`` is refused with 413 (from its
``Content-Length`` before reading a byte, or as soon as a streamed body passes the limit); every body is read
here, and one that FastAPI would not read as JSON (``is_json_type``: the same rule) is refused with 415, since
every route takes JSON; a JSON body is parsed here strictly: ``NaN``, ``Infinity``, a lone surrogate
(``"\\ud800"``), nesting deeper than ``MAX_DEPTH`` or bytes that are not UTF-8 are refused with 422 before any
route sees them. Every answer, pages and API alike, carries the security headers (``HEADERS``).

The 422 for a request that does not fit the schema is ``service/web/validation_errors.py``; how credentials
travel (a WebSocket's subprotocol, logs that never show one) is ``service/web/credential_transport.py``.
"""
from __future__ import annotations

import email.message
import json
import math
import re
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Given twice, the guard and a route could each read another copy (the body's type, its length, the caller).
FRAMING = (b"content-type", b"content-length", b"transfer-encoding", b"content-encoding", b"host", b"authorization")
MAX_DEPTH = 32           # no request of the API nests deeper than a few levels
ECHO = 120               # characters of a rejected value echoed in a 422
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "connect-src 'self' {ws}; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = {
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
}
# A browser obeys Cross-Origin-Opener-Policy only from a trustworthy origin (https, or the machine itself) and
# logs an error on every page for it over plain http on the club's LAN: sent only where it takes effect.
COOP = {"cross-origin-opener-policy": "same-origin"}
LOOPBACK = re.compile(r"(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?")


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


def is_json_type(content_type: str | None) -> bool:
    """Whether FastAPI reads a body of this ``Content-Type`` as JSON (``fastapi.routing``: none given, or
    ``application/json`` or ``application/*+json``, parameters aside)."""
    if not content_type:
        return True
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (subtype == "json" or subtype.endswith("+json"))


def _duplicated(headers: list[tuple[bytes, bytes]]) -> str | None:
    seen: set[bytes] = set()
    for name, _ in headers:
        name = name.lower()
        if name in FRAMING:
            if name in seen:
                return name.decode("latin-1")
            seen.add(name)
    return None


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
        host = next((v for k, v in scope["headers"] if k.lower() == b"host"), b"").decode("latin-1")
        ws = f"ws://{host} wss://{host}" if re.fullmatch(r"[A-Za-z0-9.\-:\[\]]+", host) else ""
        trusted = scope.get("scheme") == "https" or LOOPBACK.fullmatch(host) is not None
        return {**HEADERS, **(COOP if trusted else {}), "content-security-policy": CSP.format(ws=ws).replace("  ", " ")}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.headers(scope)
        headers = dict(scope["headers"])        # each of ``FRAMING`` at most once, so every reader sees the same
        twice = _duplicated(scope["headers"])
        if twice is not None:
            await _answer(send, 400, f"the {twice} header is given more than once", extra)
            return
        length = headers.get(b"content-length")
        if length is not None and (not re.fullmatch(rb"[0-9]{1,20}", length) or int(length) > self.max_body):
            await _answer(send, 413, f"the body is larger than {self.max_body} bytes", extra)
            return
        if scope["method"] not in ("GET", "HEAD", "OPTIONS") or length not in (None, b"0") \
                or b"transfer-encoding" in headers:     # a body, or the room for one: read it within the limit
            body = b""
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
                ctype = headers.get(b"content-type", b"").decode("latin-1")
                if not is_json_type(ctype):
                    await _answer(send, 415, f"the body must be JSON (Content-Type: application/json), not "
                                             f"{ctype[:ECHO]!r}", extra)
                    return
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
