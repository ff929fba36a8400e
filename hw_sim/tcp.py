"""A simulated device served on a loopback TCP port: drivers open ``socket://127.0.0.1:PORT`` (pyserial's
socket handler), as they would a serial-to-Ethernet converter (ser2net, a Moxa box).

One client at a time; a new connection replaces the old one (like reopening a serial port). While the
device is unplugged, connections are accepted and closed at once, and the current client is dropped —
the driver sees "socket disconnected" and must reconnect.

Not modelled: a converter's own buffering and its telnet/RFC 2217 options; output produced while no
client is connected is discarded (as ser2net does).
"""
from __future__ import annotations

import logging
import selectors
import socket

from .clock import on_monotonic
from .errors import Unplugged
from .port import DevicePort
from .reactor import Reactor, default_reactor

log = logging.getLogger(__name__)

MAX_PENDING = 1 << 16


class TcpEndpoint:
    def __init__(self, port: DevicePort, host: str = "127.0.0.1", tcp_port: int = 0,
                 reactor: Reactor | None = None) -> None:
        self.port = port
        self.reactor = reactor or default_reactor()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, tcp_port))
        self._listener.listen(8)
        self._listener.setblocking(False)
        self.host, self.tcp_port = self._listener.getsockname()[:2]
        self._client: socket.socket | None = None
        self._pending = bytearray()
        self._generation = port.generation
        self._closed = False
        self.connections = 0
        self.reactor.call_wait(lambda: self.reactor.register(self._listener.fileno(), selectors.EVENT_READ,
                                                             self._on_accept))
        port.add_listener(self._on_port)
        self.reactor.add(self)

    @property
    def url(self) -> str:
        return f"socket://{self.host}:{self.tcp_port}"

    # ------------------------------------------------------------------ reactor thread
    def _on_accept(self, _mask: int) -> None:
        try:
            conn, _ = self._listener.accept()
        except (BlockingIOError, OSError):
            return
        self.port.tick()
        if not self.port.plugged:
            conn.close()
            return
        self._drop_client()
        conn.setblocking(False)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._client = conn
        self.connections += 1
        self._generation = self.port.generation
        self.port.clear_output()
        self.reactor.register(conn.fileno(), selectors.EVENT_READ, self._on_client)

    def _drop_client(self) -> None:
        if self._client is not None:
            self.reactor.unregister(self._client.fileno())
            try:
                self._client.close()
            except OSError:
                pass
            self._client = None
        self._pending.clear()

    def _on_client(self, mask: int) -> None:
        c = self._client
        if c is None:
            return
        if mask & selectors.EVENT_READ:
            try:
                data = c.recv(65536)
            except BlockingIOError:
                data = None
            except OSError:
                data = b""
            if data == b"":
                self._drop_client()
                return
            if data:
                try:
                    self.port.host_write(data)
                except Unplugged:
                    pass
        if mask & selectors.EVENT_WRITE:
            self._flush()
        self.reactor.mark_local(self)         # serviced (and its timers rescheduled) in this loop turn

    def _flush(self) -> None:
        c = self._client
        if c is None:
            return
        while self._pending:
            try:
                n = c.send(self._pending)
            except BlockingIOError:
                break
            except OSError:
                self._drop_client()
                return
            del self._pending[:n]
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if self._pending else 0)
        self.reactor.register(c.fileno(), events, self._on_client)

    def service(self) -> None:
        if self._closed:
            return
        port = self.port
        port.tick()
        if not port.plugged or self._generation != port.generation:
            if self._client is not None:
                self._drop_client()
            if not port.plugged:
                return
        try:
            out = port.host_read()
        except Unplugged:
            return
        if out and self._client is not None:
            self._pending += out
            if len(self._pending) > MAX_PENDING:
                del self._pending[:len(self._pending) - MAX_PENDING]
            self._flush()

    def next_wakeup(self) -> float | None:
        """When the device's timers are due, on the reactor's clock (``time.monotonic()``)."""
        return on_monotonic(self.port.clock, self.port.next_wakeup())

    # ------------------------------------------------------------------ any thread
    def _on_port(self) -> None:
        self.reactor.mark(self)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.port.remove_listener(self._on_port)
        self.reactor.remove(self)

        def shut() -> None:
            self._drop_client()
            self.reactor.unregister(self._listener.fileno())
            self._listener.close()
        try:
            self.reactor.call_wait(shut)
        except TimeoutError:
            pass

    def __repr__(self) -> str:
        return f"<TcpEndpoint {self.port.name} {self.url}>"


def serve_tcp(port: DevicePort, host: str = "127.0.0.1", tcp_port: int = 0) -> TcpEndpoint:
    """Serve ``port`` on TCP; ``.url`` is the ``socket://`` URL for ``serial_for_url``."""
    return TcpEndpoint(port, host, tcp_port)
