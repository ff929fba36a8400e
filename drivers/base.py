"""What every device driver shares: a link opened from a URL, a ``HostSession``, reconnection, health.

A driver is handed a URL and an ``emit`` callback. ``pump(timeout)`` does one step of I/O: (re)open the
link when it is down and the backoff has passed, read what the device sent (waiting at most ``timeout``),
feed it to the session, write what the session has due (acks, retransmits, heartbeats), and turn each
application message into events through ``emit``. ``run()`` pumps on a thread until stopped.

Identity comes from the handshake: the device's HELLO names its kind and serial number; the configured
:class:`~drivers.config.SeatMap` gives its seat, sent back in WELCOME. A device of the wrong kind is
refused; a device with no seat is admitted but unbound (its input becomes ``UNBOUND_DEVICE`` events).

Reconnection: when the link fails (``LinkClosed``: unplugged, peer closed) the driver closes it, emits
``DISCONNECTED`` and tries to reopen the URL after a backoff that doubles from ``backoff[0]`` to
``backoff[1]`` seconds and resets after a handshake. The ``HostSession`` is kept across reopenings, so a
device that re-HELLOs with the same session id resumes: nothing in flight is lost or delivered twice.

Time is injectable (``clock`` in seconds, ``sleep``), so a simulated table can run on a virtual clock.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from firmware_host import Binding, DeviceKind, ErrorMessage, HostSession, LinkState, Message, Refusal, SessionConfig
from firmware_host.constants import ErrorCode

from .config import SeatMap
from .errors import LinkError
from .link import Link, open_link
from .notices import DeviceNotice, unbound_device

log = logging.getLogger(__name__)

Emit = Callable[[Any], None]

KIND_NAMES = {DeviceKind.SEAT_READER: "seat-reader", DeviceKind.BIDDING_BOX: "bidding-box",
              DeviceKind.BIDDING_SCREEN: "bidding-screen", DeviceKind.DEALER: "dealer"}


class DeviceDriver:
    KINDS: tuple[DeviceKind, ...] = ()

    def __init__(self, url: str, emit: Emit, seats: SeatMap | None = None, *,
                 config: SessionConfig | None = None,
                 opener: Callable[[str], Link] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep,
                 backoff: tuple[float, float] = (0.05, 2.0)) -> None:
        self.url = url
        self._emit_fn = emit
        self.seats = seats if seats is not None else SeatMap()
        self.session = HostSession(config, admit=self._admit)
        self._opener = opener or open_link
        self.clock = clock
        self.sleep = sleep
        self.backoff = backoff
        self._delay = backoff[0]
        self._retry_at = 0.0
        self.link: Link | None = None
        self._lock = threading.RLock()
        self._handshakes = 0
        self._connected = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # called just before the link is closed: whoever watches its descriptor lets go of it first (a
        # selector must not keep a closed descriptor whose number the next opened link may get)
        self.on_link_closing: Callable[[DeviceDriver], None] | None = None
        # health
        self.opens = 0
        self.open_failures = 0
        self.disconnects = 0
        self.events_emitted = 0
        self.errors_emitted = 0
        self.last_seen: float | None = None
        self.last_error: str | None = None

    # ------------------------------------------------------------------ identity
    @property
    def serial(self) -> str | None:
        return self.session.peer.serial if self.session.peer is not None else None

    @property
    def seat(self) -> str | None:
        s = self.serial
        return self.seats.seat_of(s) if s is not None else None

    @property
    def name(self) -> str:
        return self.serial or self.url

    @property
    def source(self) -> str:
        kind = KIND_NAMES.get(self.session.peer.kind, "device") if self.session.peer is not None else "device"
        return f"{kind}:{self.name}"

    @property
    def connected(self) -> bool:
        return self.link is not None and self.session.state is LinkState.READY

    def _admit(self, hello: Any) -> Binding | Refusal:
        if self.KINDS and hello.kind not in self.KINDS:
            return Refusal(ErrorCode.DEVICE_REFUSED,
                           f"this port expects a {KIND_NAMES.get(self.KINDS[0], 'device')}, not a "
                           f"{KIND_NAMES.get(hello.kind, str(hello.kind))}")
        return Binding(self.seats.seat_of(hello.serial), self.seats.table)

    # ------------------------------------------------------------------ I/O
    @staticmethod
    def _ms(now: float) -> int:
        return int(now * 1000 + 1e-6)          # the session's millisecond clock (robust to float error)

    def pump(self, timeout: float = 0.05, read: bool = True, flush: bool = True) -> int:
        """One I/O step; returns the number of application messages handled. ``read=False`` skips the
        read (a pool pumping for a timer when the link's descriptor did not turn readable);
        ``flush=False`` leaves the writing to a later :meth:`flush`."""
        now = self.clock()
        if self.link is None:
            if now < self._retry_at:
                self.sleep(max(0.0, min(timeout, self._retry_at - now)))
                return 0
            if not self._connect(now):
                return 0
        link = self.link
        assert link is not None
        msgs: list[Message] = []
        if read:
            wait = timeout
            deadline = self.session.next_deadline()
            if deadline is not None:           # in milliseconds, the session's own resolution
                wait = max(0.0, min(wait, (deadline - self._ms(now)) / 1000.0))
            try:
                data = link.read(4096, wait)
            except LinkError as err:
                self._lost(err)
                return 0
            if data:
                with self._lock:
                    now = self.clock()
                    msgs = self.session.receive(data, self._ms(now))
                    self.last_seen = now
                    self._check_state()        # CONNECTED comes before the new link's first message
        # Hand the messages on before their acknowledgement is written: the write is then off the path
        # from frame to table, and an event is acknowledged only once it has been passed on.
        for msg in msgs:
            self._dispatch(msg)
        if flush:
            self.flush()
        return len(msgs)

    def flush(self) -> None:
        """Run the session's timers and write what is due: ACKs, retransmissions, heartbeats, replies."""
        if self.link is None:
            return
        with self._lock:
            out = self.session.poll(self._ms(self.clock()))
            if out and not self._write(out):
                return
            self._check_state()

    def _write(self, out: bytes) -> bool:
        link = self.link
        if link is None:
            return False
        try:
            link.write(out)
            return True
        except LinkError as err:
            self._lost(err)
            return False

    def fileno(self) -> int | None:
        """The open link's file descriptor (for a pool's selector), or None."""
        link = self.link
        return link.fileno() if link is not None else None

    def next_due(self) -> float | None:
        """When (``clock`` seconds) this driver must be pumped again even if its link stays silent."""
        if self.link is None:
            return self._retry_at
        deadline = self.session.next_deadline()
        return deadline / 1000.0 if deadline is not None else None

    def send(self, msg: Message, reliable: bool = True) -> None:
        """Send a host -> device message (queued by the session while the device is away)."""
        with self._lock:
            out = self.session.send(msg, reliable, now_ms=self._ms(self.clock()))
            if out:
                self._write(out)

    def _connect(self, now: float) -> bool:
        try:
            link = self._opener(self.url)
        except LinkError as err:
            self.open_failures += 1
            self.last_error = str(err)
            self._schedule_retry(now)
            log.debug("%s: open failed: %s", self.url, err)
            return False
        self.link = link
        self.opens += 1
        with self._lock:
            self._write(self.session.start(self._ms(now)))     # a lone delimiter: resynchronise the device
        return self.link is not None

    def _schedule_retry(self, now: float) -> None:
        self._retry_at = now + self._delay
        self._delay = min(self._delay * 2, self.backoff[1])

    def _lost(self, err: Exception) -> None:
        self._close_link()
        self.disconnects += 1
        self.last_error = str(err)
        self._schedule_retry(self.clock())
        log.info("%s: link lost (%s); reconnecting", self.name, err)
        if self._connected:
            self._connected = False
            self._emit(DeviceNotice("DISCONNECTED", self.name, f"link lost: {err}", seat=self.seat))

    def _check_state(self) -> None:
        hs = self.session.health.handshakes
        if hs != self._handshakes:
            self._handshakes = hs
            self._delay = self.backoff[0]
            self._connected = True
            peer = self.session.peer
            detail = (f"{KIND_NAMES.get(peer.kind, peer.kind)} {peer.serial} firmware {peer.firmware}"
                      f" on {self.url}" if peer is not None else self.url)
            self._emit(DeviceNotice("CONNECTED", self.name, detail, seat=self.seat))
        elif self._connected and self.session.state is LinkState.LOST:
            self._connected = False
            err = self.session.last_error
            self._emit(DeviceNotice("DISCONNECTED", self.name, f"device silent: {err}", seat=self.seat))

    # ------------------------------------------------------------------ events
    def _emit(self, event: Any) -> None:
        if isinstance(event, DeviceNotice):
            if event.is_error:
                self.errors_emitted += 1
        else:
            self.events_emitted += 1
        self._emit_fn(event)

    def _dispatch(self, msg: Message) -> None:
        if isinstance(msg, ErrorMessage):
            self._emit(DeviceNotice("DEVICE_ERROR", self.name, f"device error 0x{int(msg.code):04X}: {msg.text}",
                                   seat=self.seat))
            return
        if not self.on_message(msg):
            log.debug("%s: ignored %s", self.name, msg)

    def on_message(self, msg: Message) -> bool:
        """Turn one application message into events; return False if the message means nothing here."""
        return False

    def unbound(self, what: str) -> None:
        self._emit(unbound_device(self.name, what))

    # ------------------------------------------------------------------ lifecycle
    def run(self, poll: float = 0.05) -> None:
        """Pump until :meth:`stop` (meant for a thread of its own)."""
        while not self._stop.is_set():
            try:
                self.pump(poll)
            except Exception:               # a driver bug must not kill the thread silently
                log.exception("%s: driver step failed", self.name)
                self.sleep(poll)

    def start(self, poll: float = 0.05) -> threading.Thread:
        self._stop.clear()
        self._thread = threading.Thread(target=self.run, args=(poll,), name=f"driver-{self.url}", daemon=True)
        self._thread.start()
        return self._thread

    def request_stop(self) -> None:
        """Ask the thread to stop without waiting (stop many drivers at once, then ``stop()`` each)."""
        self._stop.set()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        self._thread = None

    def close(self) -> None:
        self.stop()
        self._close_link()

    def _close_link(self) -> None:
        """Close the link, telling ``on_link_closing`` first (while its descriptor is still open)."""
        link = self.link
        if link is None:
            return
        hook = self.on_link_closing
        if hook is not None:
            try:
                hook(self)
            except Exception:                   # the link is closed whatever the watcher thinks
                log.exception("%s: on_link_closing failed", self.name)
        self.link = None
        link.close()

    def health(self) -> dict[str, Any]:
        """Link health for the director: state, identity, last seen, error counts."""
        h = self.session.health
        return {"url": self.url, "serial": self.serial, "seat": self.seat, "state": str(self.session.state),
                "connected": self.connected, "last_seen": self.last_seen, "opens": self.opens,
                "open_failures": self.open_failures, "disconnects": self.disconnects,
                "handshakes": h.handshakes, "resumes": h.resumes, "frames_in": h.frames_in,
                "frames_out": h.frames_out, "frame_errors": h.frame_errors, "crc_errors": h.crc_errors,
                "retransmits": h.retransmits, "duplicates": h.duplicates, "links_lost": h.links_lost,
                "events": self.events_emitted, "errors": self.errors_emitted, "last_error": self.last_error}
