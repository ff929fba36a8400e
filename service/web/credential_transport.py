"""How credentials travel without being left behind: a WebSocket's token offered as a subprotocol (a browser
cannot set a WebSocket's headers), its stream closed once the credential ends, and server logs that never show
one (``docs/security.md``).

* ``WebSocketCredentials``: an ASGI middleware for WebSocket handshakes and streams.
* ``RedactCredentials``: a logging filter for uvicorn's access and error logs that blanks the value of any
  credential-bearing query parameter (``token``, ``signin``, in any case or percent-encoding), for clients that
  still put one in a URL.
"""
from __future__ import annotations

import asyncio
import logging
import re
from urllib.parse import parse_qs, quote, unquote_plus

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.errors import ServiceError

CREDENTIALS = frozenset({"token", "signin"})
# A query parameter in a logged line: its name as written (maybe percent-encoded) and its value.
PARAM = re.compile(r"((?:^|[?&;\s])([^=&;\s\"'?#]{1,64})=)[^&;\s\"']*")


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


def _credential_name(written: str) -> bool:
    """Whether a parameter named ``written`` is a credential, however it is spelled: any case, percent-encoded
    (``%74oken``), even more than once (decoded until nothing changes, as a lenient server might)."""
    name = written
    for _ in range(4):
        decoded = unquote_plus(name)
        if decoded == name:
            break
        name = decoded
    return name.strip().lower() in CREDENTIALS


def redact(text: str) -> str:
    """``text`` with the value of every credential parameter blanked."""
    return PARAM.sub(lambda m: m.group(1) + "[redacted]" if _credential_name(m.group(2)) else m.group(0), text)


class RedactCredentials(logging.Filter):
    """Blank credential values in a record's message and arguments (uvicorn logs the path with its query)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True


def redact_server_logs() -> None:
    """Install ``RedactCredentials`` on uvicorn's loggers (once)."""
    for name in ("uvicorn.access", "uvicorn.error", "uvicorn"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactCredentials) for f in logger.filters):
            logger.addFilter(RedactCredentials())
