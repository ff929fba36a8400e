"""A simulated device behind a real pseudo-terminal: the device holds the master side, a driver opens the
slave with ``serial.serial_for_url(path)`` and goes through the real termios code of pyserial.

The device is published under a stable path (a symlink in a directory of your choice, like a udev
``/dev/serial/by-id`` link) that points at the current ``/dev/pts/N``. Unplugging closes both sides of
the pty and removes the link (the driver's reads fail with EIO, exactly as when a USB-serial adapter is
pulled); replugging opens a fresh pty and points the link at it. Without a directory given, the link goes in a
fresh ``hw_sim-*`` folder of the temp dir, removed on close.

Not modelled: baud rate (the pty moves bytes at memory speed), modem lines (DTR/RTS/CTS are ignored),
break conditions, the kernel's 4 KB pty buffer limit beyond what the OS itself does.
"""
from __future__ import annotations

import errno
import logging
import os
import selectors
import shutil
import tempfile
import tty
from pathlib import Path

from .clock import on_monotonic
from .errors import Unplugged
from .port import DevicePort
from .reactor import Reactor, default_reactor

log = logging.getLogger(__name__)

MAX_PENDING = 1 << 16          # a host that never reads loses the oldest bytes, like a UART overrun


class PtyEndpoint:
    def __init__(self, port: DevicePort, link_dir: str | Path | None = None, name: str | None = None,
                 reactor: Reactor | None = None) -> None:
        self.port = port
        self.reactor = reactor or default_reactor()
        self._own_dir = not link_dir                 # a folder made here is removed on close
        self.dir = Path(link_dir) if link_dir else Path(tempfile.mkdtemp(prefix="hw_sim-"))
        self.path = self.dir / (name or port.name)
        self._master: int | None = None
        self._slave: int | None = None
        self._pending = bytearray()
        self._generation = -1
        self._closed = False
        try:
            self.reactor.call_wait(self._open)
        except BaseException:
            self._remove_dir()
            raise
        port.add_listener(self._on_port)
        self.reactor.add(self)

    @property
    def url(self) -> str:
        """What a driver passes to ``serial_for_url``: the stable path."""
        return str(self.path)

    @property
    def tty_name(self) -> str | None:
        return os.ttyname(self._slave) if self._slave is not None else None

    # ------------------------------------------------------------------ reactor thread
    def _open(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)                     # no echo, no line discipline, before any host opens it
        tty.setraw(master)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self._pending.clear()
        self._generation = self.port.generation
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.path)
        self.reactor.register(master, selectors.EVENT_READ, self._on_master)
        log.debug("%s on %s -> %s", self.port.name, self.path, os.ttyname(slave))

    def _close_pty(self) -> None:
        if self._master is not None:
            self.reactor.unregister(self._master)
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None
        self._pending.clear()
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    def _on_master(self, mask: int) -> None:
        if self._master is None:
            return
        if mask & selectors.EVENT_READ:
            try:
                data = os.read(self._master, 65536)
            except BlockingIOError:
                data = b""
            except OSError as err:
                if err.errno != errno.EIO:       # EIO: no host has the slave open; nothing to read
                    log.warning("%s: pty read failed: %s", self.port.name, err)
                data = b""
            if data:
                try:
                    self.port.host_write(data)
                except Unplugged:
                    pass
        if mask & selectors.EVENT_WRITE:
            self._flush()
        self.reactor.mark_local(self)         # serviced (and its timers rescheduled) in this loop turn

    def _flush(self) -> None:
        if self._master is None:
            return
        while self._pending:
            try:
                n = os.write(self._master, self._pending)
            except BlockingIOError:
                break
            except OSError as err:
                log.debug("%s: pty write failed: %s", self.port.name, err)
                self._pending.clear()
                break
            del self._pending[:n]
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if self._pending else 0)
        self.reactor.register(self._master, events, self._on_master)

    def service(self) -> None:
        if self._closed:
            return
        port = self.port
        port.tick()
        if not port.plugged:
            if self._master is not None:
                self._close_pty()
            return
        if self._master is None or self._generation != port.generation:
            self._close_pty()
            self._open()
        try:
            out = port.host_read()
        except Unplugged:
            return
        if out:
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
        try:
            self.reactor.call_wait(self._close_pty)
        except TimeoutError:
            pass
        self._remove_dir()

    def _remove_dir(self) -> None:
        if self._own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __repr__(self) -> str:
        return f"<PtyEndpoint {self.port.name} {self.path}>"


def serve_pty(port: DevicePort, link_dir: str | Path | None = None, name: str | None = None) -> PtyEndpoint:
    """Publish ``port`` on a pty; returns the endpoint (``.url`` is the path for ``serial_for_url``)."""
    return PtyEndpoint(port, link_dir, name)
