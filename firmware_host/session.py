"""Link sessions as pure state objects: handshake, seq/ack/retransmit, heartbeats (docs/protocol.md §5-7).

No I/O and no clock: the caller writes the bytes these methods return, feeds what it reads to
``receive``, and passes its millisecond clock to ``poll``. One object per link and role:

- :class:`HostSession` — the host end (drivers);
- :class:`DeviceSession` — the device end (hw_sim, or a reference for firmware authors).

Usage (either role)::

    out = s.start(now)                 # device: HELLO (host: a lone delimiter)
    write(out)
    loop:
        msgs = s.receive(read(), now)  # application messages, in order, exactly once
        write(s.poll(now))             # replies, retransmissions, acks, heartbeats — call after receive
        write(s.send(msg))             # reliable by default; queued until the link is ready

Every method that returns bytes returns *all* bytes due, in the order they must be written.
"""
from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from .constants import (
    HANDSHAKE_VERSION,
    MAX_TEXT,
    MAX_WINDOW,
    SUPPORTED_VERSIONS,
    Capability,
    DeviceKind,
    Direction,
    ErrorCode,
    FrameFlags,
    MessageType,
)
from .errors import (
    HandshakeRefused,
    InvalidConfig,
    LinkLost,
    MessageError,
    NoCommonVersion,
    NotSendable,
    ProtocolError,
    QueueFull,
)
from .frame import DecodeError, DecodeFailure, Frame, FrameDecoder, encode_frame
from .messages import MESSAGE_TYPES, Bind, ErrorMessage, Heartbeat, Hello, Message, Nack, Reset, Welcome, decode_message

log = logging.getLogger(__name__)

__all__ = ["LinkState", "SessionConfig", "LinkHealth", "Binding", "Refusal", "HostSession", "DeviceSession"]

# plain ints on the hot path (enum arithmetic costs microseconds)
_HELLO, _WELCOME, _ACK = int(MessageType.HELLO), int(MessageType.WELCOME), int(MessageType.ACK)
_HEARTBEAT, _ERROR = int(MessageType.HEARTBEAT), int(MessageType.ERROR)
_RESET, _NACK = int(MessageType.RESET), int(MessageType.NACK)
_RELIABLE, _RETRANSMIT = int(FrameFlags.RELIABLE), int(FrameFlags.RETRANSMIT)
_FROM_HOST = int(FrameFlags.FROM_HOST)
_RX_TYPES = {d: frozenset(int(t) for t, cls in MESSAGE_TYPES.items() if cls.DIRECTION & d)
             for d in (Direction.TO_HOST, Direction.TO_DEVICE)}


class LinkState(StrEnum):
    IDLE = "idle"              # device before start()
    CONNECTING = "connecting"  # handshake not (yet) done
    READY = "ready"            # handshake done, peer alive
    LOST = "lost"              # was ready; peer silent or frames unacknowledged (device: re-handshaking)
    REFUSED = "refused"        # device: the host refused the HELLO (see last_error); start() to retry


@dataclass(frozen=True, slots=True)
class SessionConfig:
    """Timings and limits. The host's values for the first four are sent to the device in WELCOME."""
    heartbeat_ms: int = 1000       # send HEARTBEAT when nothing else was sent for this long
    link_timeout_ms: int = 3500    # nothing valid received for this long: the peer is gone (LOST)
    retransmit_ms: int = 250       # an unacknowledged reliable frame is resent after this long
    max_retries: int = 5           # resends of one frame before the link is LOST
    window: int = MAX_WINDOW       # reliable frames unacknowledged at once (1 = stop-and-wait)
    hello_interval_ms: int = 500   # device: HELLO resend period; host: RESET rate limit
    ack_delay_ms: int = 0          # wait this long for a frame to piggyback an ack on before an ACK
    max_queue: int = 1024          # reliable messages waiting (queued + in flight) before QueueFull

    def __post_init__(self) -> None:
        if not 1 <= self.window <= MAX_WINDOW:
            raise InvalidConfig(f"window must be 1..{MAX_WINDOW}")
        for name in ("heartbeat_ms", "link_timeout_ms", "retransmit_ms"):
            if not 1 <= getattr(self, name) <= 0xFFFF:
                raise InvalidConfig(f"{name} must be 1..65535")
        if not 0 <= self.max_retries <= 255:
            raise InvalidConfig("max_retries must be 0..255")
        if self.hello_interval_ms < 1 or self.ack_delay_ms < 0 or self.max_queue < 1:
            raise InvalidConfig("hello_interval_ms >= 1, ack_delay_ms >= 0, max_queue >= 1")


@dataclass(slots=True)
class LinkHealth:
    frames_in: int = 0
    frames_out: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    frame_errors: int = 0          # frames the decoder rejected (any reason)
    crc_errors: int = 0            # ... of which bad CRC
    malformed: int = 0             # good frame, bad payload (NACKed if reliable)
    unexpected: int = 0            # message for the other direction / a control message sent reliable
    duplicates: int = 0            # reliable frames already delivered, dropped
    out_of_order: int = 0          # reliable frames ahead of the next expected, dropped
    retransmits: int = 0
    bad_acks: int = 0              # acks for frames never sent
    nacks_sent: int = 0
    nacks_received: int = 0
    heartbeats_sent: int = 0
    hellos: int = 0                # HELLO sent (device) / received (host)
    handshakes: int = 0            # times the session became READY
    resumes: int = 0               # ... of which resumed the previous session
    refusals: int = 0
    links_lost: int = 0
    echoes: int = 0                # our own frames read back (half-duplex echo), dropped
    ignored: int = 0               # valid frames that mean nothing in the current state
    dropped_unreliable: int = 0    # unreliable sends while not READY
    last_seen_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Binding:
    """Where the host puts a device: its seat (None = not known) and table number (0 = not known)."""
    seat: str | None = None
    table: int = 0


@dataclass(frozen=True, slots=True)
class Refusal:
    """The host's answer to a HELLO it does not accept."""
    code: int = ErrorCode.DEVICE_REFUSED
    text: str = ""


@dataclass(slots=True)
class _Outgoing:
    type: int
    payload: bytes
    seq: int = 0
    sent_at: int = 0
    tries: int = 0


def _short(text: str) -> str:
    return text.encode("utf-8")[:MAX_TEXT].decode("utf-8", "ignore")


class _Session:
    """What both roles share: the reliable channel, acks, retransmission, heartbeats, liveness."""
    _IS_HOST: ClassVar[bool]
    _TX_DIRECTION: ClassVar[Direction]
    _RX_DIRECTION: ClassVar[Direction]

    def __init__(self, config: SessionConfig | None, versions: Iterable[int]) -> None:
        self.config = config or SessionConfig()
        vs = tuple(sorted(set(versions)))
        if not vs or not all(1 <= v <= 255 for v in vs):
            raise InvalidConfig(f"versions must be 1..255, at least one: {vs!r}")
        self.versions: tuple[int, ...] = vs
        self.health = LinkHealth()
        self.state = LinkState.IDLE
        self.version: int | None = None
        self.last_error: ProtocolError | None = None
        self.peer_clock: tuple[int, int] | None = None   # (peer's HEARTBEAT clock_ms, our now_ms then)
        self._decoder = FrameDecoder(versions=set(vs) | {HANDSHAKE_VERSION}, on_error=self._on_decode_error)
        self._dir_flag = _FROM_HOST if self._IS_HOST else 0
        c = self.config
        self._heartbeat_ms, self._link_timeout_ms = c.heartbeat_ms, c.link_timeout_ms
        self._retransmit_ms, self._max_retries = c.retransmit_ms, c.max_retries
        self._now = 0
        self._fresh_time = True
        self._seen_pending = False
        self._last_rx = 0
        self._last_tx = 0
        self._tx_next = 0
        self._rx_next = 0
        self._inflight: deque[_Outgoing] = deque()
        self._queue: deque[_Outgoing] = deque()
        self._ack_due: int | None = None
        self._out = bytearray()

    # -- public ------------------------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        return self.state is LinkState.READY

    @property
    def pending(self) -> int:
        """Reliable messages not yet acknowledged (queued or in flight)."""
        return len(self._queue) + len(self._inflight)

    @property
    def in_flight(self) -> int:
        return len(self._inflight)

    def send(self, msg: Message, reliable: bool = True, *, now_ms: int | None = None) -> bytes:
        """Bytes to write for ``msg`` (and anything else due first).

        Reliable messages are queued while the link is not ready or the window is full and go out
        from a later ``poll``; they survive a re-handshake. Unreliable ones are dropped (and counted)
        when the link is not ready. RESET is always unreliable. Control messages raise NotSendable.
        """
        if now_ms is not None:
            self._tick(now_ms)
        if msg.CONTROL:
            raise NotSendable(f"{msg.NAME} is sent by the session itself")
        if not msg.DIRECTION & self._TX_DIRECTION:
            raise NotSendable(f"{msg.NAME} does not go {'host → device' if self._IS_HOST else 'device → host'}")
        payload = msg.encode()
        unreliable = msg.UNRELIABLE or not reliable
        if not unreliable and self.pending >= self.config.max_queue:
            raise QueueFull(f"{self.pending} reliable messages already waiting")
        out = self._drain()
        if unreliable:
            if self.state is not LinkState.READY:
                self.health.dropped_unreliable += 1
                return bytes(out)
            ack = 0 if msg.TYPE == _RESET else None
            out += self._emit(msg.TYPE, payload, ack=ack)
            return bytes(out)
        self._queue.append(_Outgoing(msg.TYPE, payload))
        if self.state is LinkState.READY:
            out += self._pump()
        return bytes(out)

    def receive(self, data: bytes, now_ms: int | None = None) -> list[Message]:
        """Feed bytes read from the link; returns application messages in order, each once.

        Handshake, ACK and HEARTBEAT frames are consumed here; ERROR, NACK, RESET and BIND are
        returned too. Replies this causes (WELCOME, ACK, NACK, RESET) come out of the next
        ``poll``/``send``/``data_to_send``. Never raises on input bytes.
        """
        if now_ms is not None:
            self._tick(now_ms)
        self._fresh_time = now_ms is not None
        self.health.bytes_in += len(data)
        delivered: list[Message] = []
        for frame in self._decoder.feed(data):
            self._on_frame(frame, delivered)
        if self.state is LinkState.READY and self._queue:
            self._out += self._pump()
        return delivered

    def poll(self, now_ms: int) -> bytes:
        """Everything due at ``now_ms``: queued replies, HELLO resends, retransmissions, ACK, HEARTBEAT.

        Also where the link is declared LOST. Call it after every ``receive`` and at least by
        ``next_deadline()``.
        """
        self._tick(now_ms)
        now = self._now
        if self._seen_pending:
            self._seen_pending = False
            self._last_rx = now
            self.health.last_seen_ms = now
        out = self._drain()
        out += self._poll_handshake(now)
        if self.state is not LinkState.READY:
            return bytes(out)
        if now - self._last_rx >= self._link_timeout_ms:
            self._lose(LinkLost(f"nothing received for {now - self._last_rx} ms"))
            out += self._poll_handshake(now)
            return bytes(out)
        inflight = self._inflight
        if inflight and now - inflight[0].sent_at >= self._retransmit_ms:
            oldest = inflight[0]
            if oldest.tries > self._max_retries:
                self._lose(LinkLost(f"frame seq {oldest.seq} unacknowledged after {oldest.tries} transmissions"))
                out += self._poll_handshake(now)
                return bytes(out)
            out += self._retransmit_all()
        out += self._pump()
        if self._ack_due is not None and now >= self._ack_due:
            out += self._emit(_ACK, b"")
        if now - self._last_tx >= self._heartbeat_ms:
            self.health.heartbeats_sent += 1
            out += self._emit(_HEARTBEAT, Heartbeat(now & 0xFFFFFFFF).encode())
        return bytes(out)

    def data_to_send(self) -> bytes:
        """Bytes queued by ``receive`` (replies, window refills) without running the timers."""
        return bytes(self._drain())

    def next_deadline(self) -> int | None:
        """The latest time by which ``poll`` must be called again (None: only on input)."""
        if self._out:
            return self._now
        times: list[int] = []
        hs = self._handshake_deadline()
        if hs is not None:
            times.append(hs)
        if self.state is LinkState.READY:
            times += [self._last_rx + self._link_timeout_ms, self._last_tx + self._heartbeat_ms]
            if self._ack_due is not None:
                times.append(self._ack_due)
            if self._inflight:
                times.append(self._inflight[0].sent_at + self._retransmit_ms)
            if self._queue and len(self._inflight) < self.config.window:
                times.append(self._now)
        return min(times) if times else None

    def discard_queued(self) -> int:
        """Drop reliable messages not yet transmitted (those in flight must complete). Returns how many."""
        n = len(self._queue)
        self._queue.clear()
        return n

    # -- internals ---------------------------------------------------------------------------------------
    def _tick(self, now_ms: int) -> None:
        if now_ms > self._now:
            self._now = now_ms

    def _drain(self) -> bytearray:
        out, self._out = self._out, bytearray()
        return out

    def _emit(self, type_: int, payload: bytes, *, seq: int = 0, reliable: bool = False,
              retransmit: bool = False, version: int | None = None, ack: int | None = None) -> bytes:
        flags = self._dir_flag | (_RELIABLE if reliable else 0) | (_RETRANSMIT if retransmit else 0)
        if ack is None:
            ack = self._rx_next
            self._ack_due = None          # piggybacked
        data = encode_frame(Frame(type_, seq, ack, flags, payload, version or self.version or HANDSHAKE_VERSION))
        self._last_tx = self._now
        h = self.health
        h.frames_out += 1
        h.bytes_out += len(data)
        return data

    def _pump(self) -> bytearray:
        out = bytearray()
        window = self.config.window
        while self._queue and len(self._inflight) < window:
            p = self._queue.popleft()
            p.seq, self._tx_next = self._tx_next, (self._tx_next + 1) & 0xFF
            p.tries, p.sent_at = 1, self._now
            self._inflight.append(p)
            out += self._emit(p.type, p.payload, seq=p.seq, reliable=True)
        return out

    def _retransmit_all(self) -> bytearray:
        """Go-back-N: resend every unacknowledged frame, oldest first."""
        out = bytearray()
        for p in self._inflight:
            p.tries += 1
            p.sent_at = self._now
            self.health.retransmits += 1
            out += self._emit(p.type, p.payload, seq=p.seq, reliable=True, retransmit=True)
        return out

    def _requeue_fresh(self) -> None:
        """New session: unacknowledged frames go back to the queue, renumbered from 0."""
        items = list(self._inflight) + list(self._queue)
        for p in items:
            p.tries = 0
        self._inflight.clear()
        self._queue = deque(items)
        self._tx_next = 0
        self._rx_next = 0
        self._ack_due = None

    def _process_ack(self, ack: int) -> None:
        inflight = self._inflight
        if not inflight:
            d = (ack - self._tx_next) & 0xFF
            if 0 < d < 128:
                self.health.bad_acks += 1
            return
        n = (ack - inflight[0].seq) & 0xFF
        if n == 0 or n >= 128:           # nothing new, or a stale ack from before the oldest in flight
            return
        if n > len(inflight):
            self.health.bad_acks += 1
            return
        for _ in range(n):
            inflight.popleft()

    def _on_decode_error(self, err: DecodeError) -> None:
        self.health.frame_errors += 1
        if err.kind is DecodeFailure.BAD_CRC:
            self.health.crc_errors += 1

    def _alive(self) -> None:
        self._last_rx = self._now
        self.health.last_seen_ms = self._now
        if not self._fresh_time:
            self._seen_pending = True

    def _lose(self, err: ProtocolError) -> None:
        log.info("link lost: %s", err)
        self.state = LinkState.LOST
        self.last_error = err
        self.health.links_lost += 1
        self._ack_due = None
        self._on_lost()

    def _become_ready(self, resumed: bool) -> None:
        self.state = LinkState.READY
        self.last_error = None
        self.health.handshakes += 1
        self.health.resumes += resumed
        self._last_rx = self._now
        for p in self._inflight:
            p.tries = 0
        self._out += self._retransmit_all()
        self._out += self._pump()

    def _on_frame(self, frame: Frame, delivered: list[Message]) -> None:
        h = self.health
        h.frames_in += 1
        if bool(frame.flags & _FROM_HOST) == self._IS_HOST:
            h.echoes += 1
            return
        self._alive()
        t = frame.type
        if t == _HELLO or t == _WELCOME or self.state is not LinkState.READY:
            self._handshake_frame(frame, delivered)
            return
        if frame.version != self.version:
            h.ignored += 1
            return
        if self._special_frame(frame, delivered):
            return
        self._process_ack(frame.ack)
        reliable = frame.flags & _RELIABLE
        if reliable:
            d = (frame.seq - self._rx_next) & 0xFF
            if d:
                if d < 128:
                    h.out_of_order += 1
                else:
                    h.duplicates += 1
                self._ack_due = self._now        # tell the sender where we are at once
                return
            self._rx_next = (self._rx_next + 1) & 0xFF
            if self._ack_due is None:
                self._ack_due = self._now + self.config.ack_delay_ms
        try:
            msg = decode_message(t, frame.payload)
        except MessageError as err:
            h.malformed += 1
            log.debug("malformed frame type 0x%02X: %s", t, err)
            if reliable:
                self._nack(frame.seq, err.code)
            return
        if t not in _RX_TYPES[self._RX_DIRECTION] or (reliable and msg.CONTROL):
            h.unexpected += 1
            if reliable:
                self._nack(frame.seq, ErrorCode.UNEXPECTED_MESSAGE)
            return
        if t == _ACK:
            return
        if t == _HEARTBEAT:
            self.peer_clock = (msg.clock_ms, self._now)  # type: ignore[attr-defined]
            return
        if t == _NACK:
            h.nacks_received += 1
        self._deliver(msg, delivered)

    def _nack(self, seq: int, code: int) -> None:
        self.health.nacks_sent += 1
        self._out += self._emit(_NACK, Nack(seq, code).encode())

    def _deliver(self, msg: Message, delivered: list[Message]) -> None:
        delivered.append(msg)

    # role hooks
    def _handshake_frame(self, frame: Frame, delivered: list[Message]) -> None:
        raise NotImplementedError

    def _special_frame(self, frame: Frame, delivered: list[Message]) -> bool:
        return False

    def _poll_handshake(self, now: int) -> bytes:
        return b""

    def _handshake_deadline(self) -> int | None:
        return None

    def _on_lost(self) -> None:
        pass


AdmitFn = Callable[[Hello], Binding | Refusal]


class HostSession(_Session):
    """The host end of one link. Waits for HELLO; ``peer`` is the device's HELLO once it arrives.

    ``admit(hello)`` decides on each HELLO: return a :class:`Binding` (seat/table to send in WELCOME)
    or a :class:`Refusal` (sent as ERROR). Default: admit, seat not known.
    """
    _IS_HOST = True
    _TX_DIRECTION = Direction.TO_DEVICE
    _RX_DIRECTION = Direction.TO_HOST

    def __init__(self, config: SessionConfig | None = None, *, versions: Iterable[int] = SUPPORTED_VERSIONS,
                 admit: AdmitFn | None = None) -> None:
        super().__init__(config, versions)
        self.admit = admit
        self.peer: Hello | None = None
        self.binding: Binding | None = None
        self.state = LinkState.CONNECTING
        self._last_reset: int | None = None

    def start(self, now_ms: int = 0) -> bytes:
        """Optional for the host: returns a lone delimiter, which clears a device's partial frame."""
        self._tick(now_ms)
        return bytes(self._drain()) + b"\x00"

    def _handshake_frame(self, frame: Frame, delivered: list[Message]) -> None:
        h = self.health
        if frame.type == _HELLO:
            h.hellos += 1
            try:
                hello = decode_message(_HELLO, frame.payload)
            except MessageError as err:
                h.malformed += 1
                self._refuse(err.code, f"bad HELLO: {err}", err)
                return
            self._on_hello(hello)  # type: ignore[arg-type]
            return
        if frame.type == _WELCOME:
            h.unexpected += 1
            return
        # a device talking to us outside a session: ask it to handshake again (rate-limited)
        h.ignored += 1
        if self._last_reset is None or self._now - self._last_reset >= self.config.hello_interval_ms:
            self._last_reset = self._now
            self._out += self._emit(_RESET, Reset(ErrorCode.NOT_CONNECTED).encode(), version=frame.version, ack=0)

    def _on_hello(self, hello: Hello) -> None:
        common = set(self.versions) & set(hello.versions)
        if not common:
            self._refuse(ErrorCode.VERSION_UNSUPPORTED,
                         f"no common protocol version: host speaks {list(self.versions)}, "
                         f"device {list(hello.versions)}",
                         NoCommonVersion(f"device {hello.serial} speaks {list(hello.versions)}, "
                                         f"host {list(self.versions)}"))
            return
        version = max(common)
        decision = self.admit(hello) if self.admit is not None else Binding()
        if isinstance(decision, Refusal):
            self._refuse(decision.code, decision.text,
                         HandshakeRefused(decision.text or f"device {hello.serial} refused", code=decision.code))
            return
        prev = self.peer
        resumed = (prev is not None and hello.session_id != 0 and hello.session_id == prev.session_id
                   and hello.serial == prev.serial and hello.kind == prev.kind and version == self.version)
        if resumed:
            self._process_ack(hello.rx_next)
        else:
            self._requeue_fresh()
        self.peer, self.binding, self.version = hello, decision, version
        c = self.config
        welcome = Welcome(version, hello.session_id, resumed, self._rx_next, decision.seat, decision.table,
                          c.heartbeat_ms, c.link_timeout_ms, c.retransmit_ms, c.max_retries)
        self._out += self._emit(_WELCOME, welcome.encode(), version=HANDSHAKE_VERSION, ack=0)
        log.info("device %s %s (fw %s) %s, protocol v%d", hello.kind.name, hello.serial, hello.firmware,
                 "resumed" if resumed else "connected", version)
        self._become_ready(resumed)

    def _refuse(self, code: int, text: str, err: ProtocolError) -> None:
        self.health.refusals += 1
        self.last_error = err
        log.warning("device refused: %s", err)
        if self.state is LinkState.READY:
            self.state = LinkState.CONNECTING
        self._out += self._emit(_ERROR, ErrorMessage(code, _short(text)).encode(), version=HANDSHAKE_VERSION, ack=0)


class DeviceSession(_Session):
    """The device end of one link: sends HELLO from ``start()`` until WELCOME; ``peer`` is the WELCOME.

    ``session_id`` (random by default) identifies this boot: a re-HELLO after a lost link carries
    the same id, so the host resumes the session and nothing in flight is lost or repeated.
    """
    _IS_HOST = False
    _TX_DIRECTION = Direction.TO_HOST
    _RX_DIRECTION = Direction.TO_DEVICE

    def __init__(self, kind: DeviceKind | int, serial: str, firmware: str, *, capabilities: int = 0,
                 versions: Iterable[int] = SUPPORTED_VERSIONS, config: SessionConfig | None = None,
                 session_id: int | None = None) -> None:
        super().__init__(config, versions)
        if session_id is None:
            session_id = int.from_bytes(os.urandom(4), "little") or 1
        self.kind = DeviceKind(kind)
        self.serial = serial
        self.firmware = firmware
        self.capabilities = Capability(capabilities)
        self.session_id = session_id
        self.hello()                           # validates the identity now (InvalidField)
        self.peer: Welcome | None = None
        self.binding: Binding | None = None
        self._last_hello: int | None = None

    def hello(self) -> Hello:
        return Hello(self.kind, self.serial, self.firmware, self.versions, int(self.capabilities),
                     self.session_id, self._rx_next)

    def start(self, now_ms: int = 0) -> bytes:
        """Begin (or restart after REFUSED) the handshake: returns a delimiter and a HELLO."""
        self._tick(now_ms)
        self.state = LinkState.CONNECTING
        self.last_error = None
        out = self._drain() + b"\x00"
        out += self._send_hello()
        return bytes(out)

    def _send_hello(self) -> bytes:
        self._last_hello = self._now
        self.health.hellos += 1
        return self._emit(_HELLO, self.hello().encode(), version=HANDSHAKE_VERSION, ack=0)

    def _poll_handshake(self, now: int) -> bytes:
        if self.state in (LinkState.CONNECTING, LinkState.LOST) and (
                self._last_hello is None or now - self._last_hello >= self.config.hello_interval_ms):
            return self._send_hello()
        return b""

    def _handshake_deadline(self) -> int | None:
        if self.state in (LinkState.CONNECTING, LinkState.LOST):
            return self._now if self._last_hello is None else self._last_hello + self.config.hello_interval_ms
        return None

    def _on_lost(self) -> None:
        self._last_hello = None                # HELLO (resume) at once

    def _handshake_frame(self, frame: Frame, delivered: list[Message]) -> None:
        h = self.health
        t = frame.type
        handshaking = self.state in (LinkState.CONNECTING, LinkState.LOST)
        if t == _WELCOME and handshaking:
            try:
                welcome = decode_message(_WELCOME, frame.payload)
            except MessageError:
                h.malformed += 1
                return
            if welcome.session_id != self.session_id:  # type: ignore[attr-defined]
                h.ignored += 1
                return
            self._on_welcome(welcome)  # type: ignore[arg-type]
            return
        if t == _ERROR and handshaking:
            try:
                err = decode_message(_ERROR, frame.payload)
            except MessageError:
                h.malformed += 1
                return
            code = err.code  # type: ignore[attr-defined]
            cls = NoCommonVersion if code == ErrorCode.VERSION_UNSUPPORTED else HandshakeRefused
            self.last_error = cls(err.text or "refused by the host", code=code)  # type: ignore[attr-defined]
            self.state = LinkState.REFUSED
            h.refusals += 1
            delivered.append(err)
            return
        if t == _RESET:
            self._special_frame(frame, delivered)
            return
        if t == _HELLO:
            h.unexpected += 1
            return
        h.ignored += 1

    def _special_frame(self, frame: Frame, delivered: list[Message]) -> bool:
        """RESET is handled before acks: its ack field is not an acknowledgement."""
        if frame.type != _RESET:
            return False
        try:
            msg = decode_message(_RESET, frame.payload)
        except MessageError:
            self.health.malformed += 1
            return True
        if self.state is LinkState.READY:
            self.state = LinkState.CONNECTING
            self._ack_due = None
            self._out += self._send_hello()
        delivered.append(msg)
        return True

    def _on_welcome(self, w: Welcome) -> None:
        if w.version not in self.versions:
            self.last_error = NoCommonVersion(f"host chose version {w.version}, device speaks {list(self.versions)}")
            self.state = LinkState.REFUSED
            self.health.refusals += 1
            return
        if w.resumed:
            self._process_ack(w.rx_next)
        else:
            self._requeue_fresh()
        self.version, self.peer, self.binding = w.version, w, Binding(w.seat, w.table)
        self._heartbeat_ms, self._link_timeout_ms = w.heartbeat_ms, w.link_timeout_ms
        self._retransmit_ms, self._max_retries = w.retransmit_ms, w.max_retries
        self._become_ready(w.resumed)

    def _deliver(self, msg: Message, delivered: list[Message]) -> None:
        if isinstance(msg, Bind):
            self.binding = Binding(msg.seat, msg.table)
        delivered.append(msg)
