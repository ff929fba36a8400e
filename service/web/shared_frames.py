"""WebSockets whose frames the application may write itself: the same bytes to every socket of an audience.

Through ASGI every ``send_text`` is encoded, framed (and, with permessage-deflate, compressed) for one socket:
a results push to a thousand spectators did that a thousand times, one task per socket, and health requests
queued behind the burst. ``SharedFrameProtocol`` is uvicorn's WebSocket protocol (websockets' sans-I/O
implementation) that puts a ``FrameWriter`` into the connection's scope (``scope["extensions"]
["bridgetable.frames"]``): the fan-out (``service/live/fanout.py``) builds a message's frame once and writes
it to each socket's transport.

Per-message deflate is off (``serve`` in ``service/web/connection_guard.py``): a compressed frame depends on each
connection's own compression context, so no two sockets could share one. Browsers connect as before (a server
that declines the extension is the plain protocol; the pages open plain ``new WebSocket``); the frames are
larger on the wire.

The writer writes only whole frames and only while the connection is open with no extension negotiated; the
protocol's own writes (pings, the close) are whole frames too, so the two never interleave inside a frame.
"""
from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import State

EXTENSION = "bridgetable.frames"


class FrameWriter:
    __slots__ = ("_proto",)

    def __init__(self, proto: WebSocketsSansIOProtocol) -> None:
        self._proto = proto

    def ready(self) -> bool:
        p = self._proto
        return (p.handshake_complete and not p.close_sent and not p.disconnected and p.writable.is_set()
                and p.conn.state is State.OPEN and not p.conn.extensions and not p.transport.is_closing())

    def write(self, frame: bytes) -> None:
        self._proto.transport.write(frame)

    async def writable(self) -> bool:
        """Wait until the socket's send buffer has drained below the low-water mark; False: the connection has
        ended (or is ending) instead."""
        p = self._proto
        while not self.ready():
            if not p.handshake_complete or p.close_sent or p.disconnected or p.transport.is_closing() \
                    or p.conn.state is not State.OPEN or p.conn.extensions:
                return False
            await p.writable.wait()
        return True


class SharedFrameProtocol(WebSocketsSansIOProtocol):
    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope: Any = getattr(self, "scope", None)           # set only when the handshake goes on to the app
        if scope is not None:
            scope["extensions"][EXTENSION] = FrameWriter(self)


def frame_writer(scope: Any) -> FrameWriter | None:
    """The writer of a WebSocket's scope, if the server offers one (not under a test client, not another
    server)."""
    extensions = scope.get("extensions") or {}
    writer = extensions.get(EXTENSION)
    return writer if isinstance(writer, FrameWriter) else None
