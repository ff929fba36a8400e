"""Connection limits below the application, where uvicorn leaves a gap (``docs/security.md``, "Limits").

uvicorn (h11) has no deadline for a request's head: a client that opens connections and sends a few bytes of a
request line, never the end of its headers (slowloris), holds each one for ever, until the process runs out of
open files and every new client is refused (asyncio then logs a traceback per accept). ``limit_concurrency``
does not help: it answers 503 only once a request's head is complete. ``ConnectionGuard.protocol()`` is uvicorn's
H11 protocol with

* a deadline: a connection that has not sent a whole request (head and body) within ``header_timeout_s`` of
  its opening (of the next request's first byte, once kept alive) is closed; a WebSocket's handshake ends it
  (uvicorn hands the connection to the WebSocket's protocol before h11 has seen the request's end, so the
  request would look unfinished for ever);
* a cap on open connections per client address (answered 429) and in total (answered 503), the total kept
  below the open-file limit (``resource.getrlimit``) with room for the journal, devices and one batch of
  accepts (asyncio accepts up to ``accept_batch`` connections at a time before any of them is looked at);
* a deep listen queue (``listen_backlog``): asyncio sets the socket's queue to the accept batch, so a burst of
  connections (an attack's, or a room of phones at once) overflowed it and the system dropped the next
  client's connection attempt, which it retried only a second later; the queue holds no open file;
* a quiet log (``service/quiet_log.py``): refusals, and uvicorn's and asyncio's per-connection complaints, are
  summed up per client and period instead of written one by one.

``guarded_server(app, ...)`` is uvicorn so (``bridgetable serve`` runs it), its WebSockets without per-message
deflate and with frames the application may write once for many sockets (``service/web/shared_frames.py``).
"""
from __future__ import annotations

import asyncio
import logging
import os
import resource
import socket
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from service.config.settings import LimitsConfig
from service.quiet_log import ANY_CLIENT, QuietLog
from service.web.shared_frames import SharedFrameProtocol

log = logging.getLogger(__name__)
RESERVED_FILES = 96      # the journal (database, WAL, shared memory), the outbox, devices, logs, the loop itself
LINGER_S = 0.5           # a refused connection stays half-closed this long, so its client reads the answer
MAX_LINGERING = 32       # beyond this many at once, refused connections are closed at once
# Messages uvicorn and asyncio log once per connection: counted by the quiet log instead.
NOISY = ("Invalid HTTP request received.", "Exceeded concurrency limit.", "Unsupported upgrade request.",
         "socket.accept() out of system resource")


def connection_cap(limits: LimitsConfig) -> int:
    """Open connections allowed in total: the configured number, never more than the open-file limit leaves."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    room = (1 << 20) if soft == resource.RLIM_INFINITY else max(16, soft - limits.accept_batch - RESERVED_FILES)
    return min(limits.connections, room) if limits.connections else room


def _answer(status: int, phrase: str, text: str) -> bytes:
    body = text.encode()
    return (f"HTTP/1.1 {status} {phrase}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {len(body)}"
            f"\r\nretry-after: 10\r\nconnection: close\r\n\r\n").encode() + body


def _host(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else "local"


class _Quieten(logging.Filter):
    """Counts the per-connection messages of ``NOISY`` in the quiet log instead of letting each through."""

    def __init__(self, quiet: QuietLog) -> None:
        super().__init__()
        self.quiet = quiet

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message.startswith(NOISY):
            try:
                self.quiet.refused(ANY_CLIENT, message)
            except RuntimeError:                 # no running loop to schedule the summary on: let it through
                return True
            return False
        return True


class ConnectionGuard:
    def __init__(self, limits: LimitsConfig) -> None:
        self.header_timeout_s = limits.header_timeout_s
        self.per_address = limits.connections_per_address
        self.total = connection_cap(limits)
        self.quiet = QuietLog(log, limits.refusal_log_s)
        self._open: dict[str, set[asyncio.BaseTransport]] = {}
        self._count = 0
        self.lingering = 0

    @property
    def open(self) -> int:
        return self._count

    def _prune(self, host: str) -> None:
        """Forget ``host``'s closed connections (a WebSocket's end is seen only this way: its protocol is not
        ours)."""
        held = self._open.get(host)
        if held is None:
            return
        closed = {t for t in held if t.is_closing()}
        held -= closed
        self._count -= len(closed)
        if not held:
            del self._open[host]

    def admit(self, host: str, transport: asyncio.BaseTransport) -> bytes | None:
        """Count a new connection in, or the answer that refuses it."""
        self._prune(host)
        if self._count >= self.total:
            for other in list(self._open):
                self._prune(other)
        if self._count >= self.total:
            self.quiet.refused(ANY_CLIENT, f"{self.total} connections are open in total (the cap)")
            return _answer(503, "Service Unavailable", "too many connections; try again later\n")
        if len(self._open.get(host, ())) >= self.per_address:
            self.quiet.refused(host, f"{self.per_address} connections from this address are open (the cap)")
            return _answer(429, "Too Many Requests", "too many connections from this address\n")
        self._open.setdefault(host, set()).add(transport)
        self._count += 1
        return None

    def release(self, host: str, transport: asyncio.BaseTransport) -> None:
        held = self._open.get(host)
        if held is not None and transport in held:
            held.discard(transport)
            self._count -= 1
            if not held:
                del self._open[host]

    def quieten(self) -> None:
        """Route uvicorn's and asyncio's per-connection messages through the quiet log (their filters survive
        uvicorn's logging set-up, which replaces handlers only)."""
        for name in ("uvicorn.error", "asyncio"):
            logger = logging.getLogger(name)
            if not any(isinstance(f, _Quieten) for f in logger.filters):
                logger.addFilter(_Quieten(self.quiet))

    def protocol(self) -> type[H11Protocol]:
        """uvicorn's H11 protocol under this guard's limits."""
        guard = self

        class GuardedH11Protocol(H11Protocol):
            _refused = False
            _lingers = False
            _deadline: asyncio.TimerHandle | None = None
            _host = "local"

            def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
                self._host = _host(transport)
                refusal = guard.admit(self._host, transport)
                if refusal is None:
                    super().connection_made(transport)
                    self._arm()
                    return
                self._refused = True
                self.transport = transport
                transport.write(refusal)
                if guard.lingering >= MAX_LINGERING or not transport.can_write_eof():
                    transport.close()
                    return
                transport.write_eof()        # the answer, then FIN; closing with unread input would reset it
                guard.lingering += 1
                self._lingers = True
                self._deadline = self.loop.call_later(LINGER_S, transport.close)

            def data_received(self, data: bytes) -> None:
                if self._refused:
                    self.transport.close()   # its request has been read: closing now sends no reset
                    return
                super().data_received(data)
                if self.transport.get_protocol() is not self:   # upgraded: a WebSocket's protocol has it now
                    self._disarm()
                    return
                waiting = self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing()
                if not waiting:
                    self._disarm()
                elif self._deadline is None:   # the first byte of a next request on a kept-alive connection
                    self._arm()

            def connection_lost(self, exc: Exception | None) -> None:
                self._disarm()
                if self._refused:
                    guard.lingering -= self._lingers
                    return
                guard.release(self._host, self.transport)
                super().connection_lost(exc)

            def _arm(self) -> None:
                self._deadline = self.loop.call_later(guard.header_timeout_s, self._too_slow)

            def _disarm(self) -> None:
                if self._deadline is not None:
                    self._deadline.cancel()
                    self._deadline = None

            def _too_slow(self) -> None:
                self._deadline = None
                if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
                    guard.quiet.refused(self._host, f"a request not complete within {guard.header_timeout_s:g} s")
                    self.transport.close()

        return GuardedH11Protocol


class _Server(uvicorn.Server):
    """uvicorn's server with a listen queue deeper than the accept batch asyncio gives it."""

    def __init__(self, config: uvicorn.Config, listen_backlog: int, quiet: QuietLog) -> None:
        super().__init__(config)
        self.listen_backlog = listen_backlog
        self.quiet = quiet

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        for server in getattr(self, "servers", []):
            for listening in server.sockets:
                with socket.socket(fileno=os.dup(listening.fileno())) as same:   # the same socket, another fd
                    same.listen(self.listen_backlog)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await super().shutdown(sockets)
        self.quiet.flush()                       # the refusals counted since the last summary (after this, uvicorn
                                                 # re-raises the signal that stopped it: nothing else runs)


def guarded_server(app: Any, *, host: str, port: int, log_level: str, limits: LimitsConfig) -> uvicorn.Server:
    """The uvicorn server of ``app`` with these limits (not started: ``serve`` runs one; ``bridgetable serve``
    runs a second beside it in the same loop, the scoring program's Data Connector)."""
    guard = ConnectionGuard(limits)
    guard.quieten()
    log.info("connection limits: %d open in total, %d per address, a request within %g s", guard.total,
             guard.per_address, guard.header_timeout_s)
    # WebSockets without per-message deflate, whose frames the fan-out writes once for every socket
    # (``service/web/shared_frames.py``)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, http=guard.protocol(),
                            ws=SharedFrameProtocol, ws_per_message_deflate=False, backlog=limits.accept_batch)
    return _Server(config, limits.listen_backlog, guard.quiet)
