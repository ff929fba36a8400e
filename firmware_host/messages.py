"""Every message of protocol v1 as a frozen dataclass (docs/protocol.md §8).

``msg.encode() -> bytes`` gives the payload; ``decode_message(type_code, payload) -> Message`` is the
registry, raising :class:`UnknownMessageType` or :class:`MalformedPayload` (both ``ProtocolError``).
Constructing a message with a value the wire cannot carry raises :class:`InvalidField`.

Multi-byte integers are little-endian. ``ts`` fields are the device's millisecond clock (u32, wraps
after 49.7 days). Calls, seats and cards use the strings of the table-event vocabulary (see ``codes``).
"""
from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from .codes import (
    CALL_CODES,
    CALL_TO_CODE,
    CARDS,
    SEATS,
    call_code,
    call_from_code,
    card_code,
    card_from_code,
    seat_code,
    seat_from_code,
)
from .constants import (
    MAX_AUCTION,
    MAX_HAND_TAGS,
    MAX_IDENT,
    MAX_TEXT,
    MAX_VERSIONS,
    RSSI_UNKNOWN,
    SUPPORTED_VERSIONS,
    UID_MAX,
    UID_MIN,
    Capability,
    DeviceKind,
    Direction,
    ErrorCode,
    MessageType,
    Mode,
    Phase,
    ReaderStatusCode,
    TrayDirection,
    Zone,
)
from .errors import InvalidField, MalformedPayload, MessageError, UnknownMessageType

__all__ = [
    "Message", "decode_message", "MESSAGE_TYPES", "CALL_CODES", "CALL_TO_CODE", "CARDS", "SEATS",
    "Hello", "Welcome", "Ack", "Nack", "Heartbeat", "ErrorMessage", "Reset", "Bind",
    "CardRead", "HandRead", "ReaderStatus",
    "CallPressed", "Undo", "StopCard", "TrayPassed",
    "CardDealt", "BoardNumberRead", "Jam", "UnreadableCard", "DealDone",
    "ShowAuction", "ShowContract", "ShowTurn", "ShowError", "SetMode", "RefuseCall", "DealBoard",
]

M = TypeVar("M", bound="Message")


# -- field checks (constructors) ------------------------------------------------------------------------
def _int(name: str, v: object, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise InvalidField(f"{name} must be an integer {lo}..{hi}, not {v!r}")
    return int(v)


def _enum(name: str, enum: type, v: object):  # type: ignore[no-untyped-def]
    try:
        return enum(v)
    except (ValueError, TypeError):
        raise InvalidField(f"{name}: {v!r} is not a {enum.__name__}") from None


def _code(v: object) -> int:
    c = _int("code", v, 0, 0xFFFF)
    try:
        return ErrorCode(c)
    except ValueError:
        return c


def _text(name: str, v: object) -> bytes:
    if not isinstance(v, str):
        raise InvalidField(f"{name} must be a string")
    b = v.encode("utf-8")
    if len(b) > MAX_TEXT:
        raise InvalidField(f"{name} is {len(b)} bytes of UTF-8, at most {MAX_TEXT}")
    return b


def _ident(name: str, v: object) -> bytes:
    if not isinstance(v, str) or not 1 <= len(v) <= MAX_IDENT or not all(" " <= ch <= "~" for ch in v):
        raise InvalidField(f"{name} must be 1..{MAX_IDENT} printable ASCII characters, not {v!r}")
    return v.encode("ascii")


def _uid(v: object) -> bytes:
    if not isinstance(v, (bytes, bytearray)) or not UID_MIN <= len(v) <= UID_MAX:
        raise InvalidField(f"a tag UID is {UID_MIN}..{UID_MAX} bytes, not {v!r}")
    return bytes(v)


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


# -- payload reader (decoders) ----------------------------------------------------------------------------
class _Reader:
    __slots__ = ("b", "i", "name")

    def __init__(self, b: bytes, name: str) -> None:
        self.b, self.i, self.name = b, 0, name

    def _take(self, n: int) -> bytes:
        i = self.i
        if i + n > len(self.b):
            raise MalformedPayload(f"{self.name}: payload ends at byte {len(self.b)}, needed {i + n}")
        self.i = i + n
        return self.b[i:i + n]

    def u8(self) -> int:
        i = self.i
        if i >= len(self.b):
            raise MalformedPayload(f"{self.name}: payload ends at byte {len(self.b)}, needed {i + 1}")
        self.i = i + 1
        return self.b[i]

    def i8(self) -> int:
        v = self.u8()
        return v - 256 if v > 127 else v

    def u16(self) -> int:
        return int.from_bytes(self._take(2), "little")

    def u32(self) -> int:
        return int.from_bytes(self._take(4), "little")

    def blob(self) -> bytes:
        return self._take(self.u8())

    def text(self) -> str:
        try:
            return self.blob().decode("utf-8")
        except UnicodeDecodeError as err:
            raise MalformedPayload(f"{self.name}: text is not UTF-8") from err

    def ident(self) -> str:
        try:
            return self.blob().decode("ascii")
        except UnicodeDecodeError as err:
            raise MalformedPayload(f"{self.name}: identifier is not ASCII") from err

    def end(self) -> None:
        if self.i != len(self.b):
            raise MalformedPayload(f"{self.name}: {len(self.b) - self.i} unexpected trailing byte(s)")


def _b(*values: int) -> bytes:
    return bytes(values)


_u16 = struct.Struct("<H").pack
_u32 = struct.Struct("<I").pack


def _len_prefixed(b: bytes) -> bytes:
    return bytes((len(b),)) + b


# -- base ------------------------------------------------------------------------------------------------
class Message:
    """Base of every message. Class attributes describe it; instances are frozen dataclasses."""
    __slots__ = ()
    TYPE: ClassVar[MessageType]
    NAME: ClassVar[str]
    DIRECTION: ClassVar[Direction]
    CONTROL: ClassVar[bool] = False      # produced and consumed by the session, never sent by applications
    UNRELIABLE: ClassVar[bool] = False   # always sent unreliable, whatever send() is asked

    def encode(self) -> bytes:
        raise NotImplementedError

    @classmethod
    def _read(cls: type[M], r: _Reader) -> M:
        raise NotImplementedError

    @classmethod
    def decode(cls: type[M], payload: bytes) -> M:
        r = _Reader(bytes(payload), cls.NAME)
        try:
            msg = cls._read(r)
        except MalformedPayload:
            raise
        except (InvalidField, ValueError) as err:
            raise MalformedPayload(f"{cls.NAME}: {err}") from err
        r.end()
        return msg


def _message(type_: MessageType, direction: Direction, *, control: bool = False, unreliable: bool = False):  # type: ignore[no-untyped-def]
    def wrap(cls):  # type: ignore[no-untyped-def]
        cls.TYPE, cls.NAME, cls.DIRECTION = type_, type_.name, direction
        cls.CONTROL, cls.UNRELIABLE = control, unreliable
        return cls
    return wrap


# -- common ----------------------------------------------------------------------------------------------
@_message(MessageType.HELLO, Direction.TO_HOST, control=True)
@dataclass(frozen=True, slots=True)
class Hello(Message):
    """Device → host, first frame of a session (resent every hello interval until WELCOME)."""
    kind: DeviceKind
    serial: str
    firmware: str
    versions: tuple[int, ...] = SUPPORTED_VERSIONS
    capabilities: int = 0
    session_id: int = 0          # chosen at device boot; the same id on a re-HELLO resumes the session
    rx_next: int = 0             # the device's next expected host sequence number (0 in a new session)

    def __post_init__(self) -> None:
        _set(self, "kind", _enum("kind", DeviceKind, self.kind))
        _ident("serial", self.serial)
        _ident("firmware", self.firmware)
        versions = tuple(self.versions)
        if not 1 <= len(versions) <= MAX_VERSIONS:
            raise InvalidField(f"versions: 1..{MAX_VERSIONS} entries, not {len(versions)}")
        for v in versions:
            _int("version", v, 1, 255)
        _set(self, "versions", versions)
        _set(self, "capabilities", Capability(_int("capabilities", self.capabilities, 0, 0xFFFFFFFF)))
        _int("session_id", self.session_id, 0, 0xFFFFFFFF)
        _int("rx_next", self.rx_next, 0, 255)

    def encode(self) -> bytes:
        return (_b(self.kind) + _u32(self.capabilities) + _u32(self.session_id)
                + _b(self.rx_next, len(self.versions), *self.versions)
                + _len_prefixed(self.serial.encode("ascii")) + _len_prefixed(self.firmware.encode("ascii")))

    @classmethod
    def _read(cls, r: _Reader) -> Hello:
        kind, caps, sid, rx = r.u8(), r.u32(), r.u32(), r.u8()
        versions = tuple(r._take(r.u8()))
        return cls(kind, r.ident(), r.ident(), versions, caps, sid, rx)  # type: ignore[arg-type]


@_message(MessageType.WELCOME, Direction.TO_DEVICE, control=True)
@dataclass(frozen=True, slots=True)
class Welcome(Message):
    """Host → device, answer to HELLO: the chosen version, resume state, seat binding and timings."""
    version: int
    session_id: int
    resumed: bool = False
    rx_next: int = 0             # the host's next expected device sequence number
    seat: str | None = None
    table: int = 0               # 0 = not known
    heartbeat_ms: int = 1000
    link_timeout_ms: int = 3500
    retransmit_ms: int = 250
    max_retries: int = 5

    def __post_init__(self) -> None:
        _int("version", self.version, 1, 255)
        _int("session_id", self.session_id, 0, 0xFFFFFFFF)
        _set(self, "resumed", bool(self.resumed))
        _int("rx_next", self.rx_next, 0, 255)
        seat_code(self.seat, optional=True)
        _int("table", self.table, 0, 0xFFFF)
        _int("heartbeat_ms", self.heartbeat_ms, 1, 0xFFFF)
        _int("link_timeout_ms", self.link_timeout_ms, 1, 0xFFFF)
        _int("retransmit_ms", self.retransmit_ms, 1, 0xFFFF)
        _int("max_retries", self.max_retries, 0, 255)

    def encode(self) -> bytes:
        return (_b(self.version, int(self.resumed)) + _u32(self.session_id)
                + _b(self.rx_next, seat_code(self.seat, optional=True)) + _u16(self.table)
                + _u16(self.heartbeat_ms) + _u16(self.link_timeout_ms) + _u16(self.retransmit_ms)
                + _b(self.max_retries))

    @classmethod
    def _read(cls, r: _Reader) -> Welcome:
        version, flags, sid, rx = r.u8(), r.u8(), r.u32(), r.u8()
        if flags & ~1:
            raise MalformedPayload(f"WELCOME: reserved flag bits set (0x{flags:02X})")
        seat = seat_from_code(r.u8(), optional=True)
        return cls(version, sid, bool(flags & 1), rx, seat, r.u16(), r.u16(), r.u16(), r.u16(), r.u8())


@_message(MessageType.ACK, Direction.BOTH, control=True)
@dataclass(frozen=True, slots=True)
class Ack(Message):
    """Explicit acknowledgement; the value is the frame header's ``ack`` field. Empty payload."""

    def encode(self) -> bytes:
        return b""

    @classmethod
    def _read(cls, r: _Reader) -> Ack:
        return cls()


@_message(MessageType.NACK, Direction.BOTH, control=True)
@dataclass(frozen=True, slots=True)
class Nack(Message):
    """The reliable frame ``seq`` arrived intact but was refused (``code``); it will not be resent."""
    seq: int
    code: int

    def __post_init__(self) -> None:
        _int("seq", self.seq, 0, 255)
        _set(self, "code", _code(self.code))

    def encode(self) -> bytes:
        return _b(self.seq) + _u16(self.code)

    @classmethod
    def _read(cls, r: _Reader) -> Nack:
        return cls(r.u8(), r.u16())


@_message(MessageType.HEARTBEAT, Direction.BOTH, control=True)
@dataclass(frozen=True, slots=True)
class Heartbeat(Message):
    """Sent when nothing else was sent for a heartbeat interval; carries the sender's ms clock."""
    clock_ms: int = 0

    def __post_init__(self) -> None:
        _int("clock_ms", self.clock_ms, 0, 0xFFFFFFFF)

    def encode(self) -> bytes:
        return _u32(self.clock_ms)

    @classmethod
    def _read(cls, r: _Reader) -> Heartbeat:
        return cls(r.u32())


@_message(MessageType.ERROR, Direction.BOTH)
@dataclass(frozen=True, slots=True)
class ErrorMessage(Message):
    """ERROR(code, text): an error report; also the host's refusal of a HELLO."""
    code: int
    text: str = ""

    def __post_init__(self) -> None:
        _set(self, "code", _code(self.code))
        _text("text", self.text)

    def encode(self) -> bytes:
        return _u16(self.code) + _len_prefixed(self.text.encode("utf-8"))

    @classmethod
    def _read(cls, r: _Reader) -> ErrorMessage:
        return cls(r.u16(), r.text())


@_message(MessageType.RESET, Direction.TO_DEVICE, unreliable=True)
@dataclass(frozen=True, slots=True)
class Reset(Message):
    """Host → device: drop the session and send HELLO again (resuming); with ``reboot`` restart the hardware."""
    reason: int = ErrorCode.NONE
    reboot: bool = False

    def __post_init__(self) -> None:
        _set(self, "reason", _code(self.reason))
        _set(self, "reboot", bool(self.reboot))

    def encode(self) -> bytes:
        return _u16(self.reason) + _b(int(self.reboot))

    @classmethod
    def _read(cls, r: _Reader) -> Reset:
        reason, flags = r.u16(), r.u8()
        if flags & ~1:
            raise MalformedPayload(f"RESET: reserved flag bits set (0x{flags:02X})")
        return cls(reason, bool(flags & 1))


@_message(MessageType.BIND, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class Bind(Message):
    """Host → device: the seat and table this device now serves (after WELCOME, when it changes)."""
    seat: str | None
    table: int = 0

    def __post_init__(self) -> None:
        seat_code(self.seat, optional=True)
        _int("table", self.table, 0, 0xFFFF)

    def encode(self) -> bytes:
        return _b(seat_code(self.seat, optional=True)) + _u16(self.table)

    @classmethod
    def _read(cls, r: _Reader) -> Bind:
        return cls(seat_from_code(r.u8(), optional=True), r.u16())


# -- seat reader → host ------------------------------------------------------------------------------------
@_message(MessageType.CARD_READ, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class CardRead(Message):
    """A tag seen in a zone: a card played (own or dummy zone) or seen at hand pickup."""
    zone: Zone
    uid: bytes
    ts: int
    rssi: int | None = None      # dBm, -127..127; None = not measured

    def __post_init__(self) -> None:
        _set(self, "zone", _enum("zone", Zone, self.zone))
        _set(self, "uid", _uid(self.uid))
        _int("ts", self.ts, 0, 0xFFFFFFFF)
        if self.rssi is not None:
            _int("rssi", self.rssi, -127, 127)

    def encode(self) -> bytes:
        rssi = RSSI_UNKNOWN if self.rssi is None else self.rssi
        return _b(self.zone) + _u32(self.ts) + _b(rssi & 0xFF) + _len_prefixed(self.uid)

    @classmethod
    def _read(cls, r: _Reader) -> CardRead:
        zone, ts, rssi = r.u8(), r.u32(), r.i8()
        return cls(zone, r.blob(), ts, None if rssi == RSSI_UNKNOWN else rssi)  # type: ignore[arg-type]


@_message(MessageType.HAND_READ, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class HandRead(Message):
    """Every tag seen at once (a hand taken out of the board), in no particular order."""
    uids: tuple[bytes, ...]
    ts: int
    zone: Zone = Zone.HAND

    def __post_init__(self) -> None:
        uids = tuple(_uid(u) for u in self.uids)
        if len(uids) > MAX_HAND_TAGS:
            raise InvalidField(f"at most {MAX_HAND_TAGS} tags in a HAND_READ, not {len(uids)}")
        _set(self, "uids", uids)
        _int("ts", self.ts, 0, 0xFFFFFFFF)
        _set(self, "zone", _enum("zone", Zone, self.zone))

    def encode(self) -> bytes:
        return _b(self.zone) + _u32(self.ts) + _b(len(self.uids)) + b"".join(_len_prefixed(u) for u in self.uids)

    @classmethod
    def _read(cls, r: _Reader) -> HandRead:
        zone, ts, n = r.u8(), r.u32(), r.u8()
        return cls(tuple(r.blob() for _ in range(n)), ts, zone)  # type: ignore[arg-type]


@_message(MessageType.READER_STATUS, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class ReaderStatus(Message):
    """Reader health: a status code, which zone antennas work (bit = Zone value), tags in the field."""
    status: ReaderStatusCode
    ts: int
    antennas: int = 0b111
    tags_in_field: int = 0

    def __post_init__(self) -> None:
        _set(self, "status", _enum("status", ReaderStatusCode, self.status))
        _int("ts", self.ts, 0, 0xFFFFFFFF)
        _int("antennas", self.antennas, 0, 0b111)
        _int("tags_in_field", self.tags_in_field, 0, 255)

    def encode(self) -> bytes:
        return _b(self.status, self.antennas, self.tags_in_field) + _u32(self.ts)

    @classmethod
    def _read(cls, r: _Reader) -> ReaderStatus:
        status, antennas, tags = r.u8(), r.u8(), r.u8()
        return cls(status, r.u32(), antennas, tags)  # type: ignore[arg-type]


# -- bidding box / screen → host --------------------------------------------------------------------------
@_message(MessageType.CALL_PRESSED, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class CallPressed(Message):
    call: str
    ts: int
    alert: bool = False

    def __post_init__(self) -> None:
        call_code(self.call)
        _int("ts", self.ts, 0, 0xFFFFFFFF)
        _set(self, "alert", bool(self.alert))

    def encode(self) -> bytes:
        return _b(CALL_TO_CODE[self.call], int(self.alert)) + _u32(self.ts)

    @classmethod
    def _read(cls, r: _Reader) -> CallPressed:
        code, flags = r.u8(), r.u8()
        if flags & ~1:
            raise MalformedPayload(f"CALL_PRESSED: reserved flag bits set (0x{flags:02X})")
        return cls(call_from_code(code), r.u32(), bool(flags & 1))


@_message(MessageType.UNDO, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class Undo(Message):
    """The player withdrew ``call`` inside the device's undo window (inadvertent call, Law 25A)."""
    call: str
    ts: int

    def __post_init__(self) -> None:
        call_code(self.call)
        _int("ts", self.ts, 0, 0xFFFFFFFF)

    def encode(self) -> bytes:
        return _b(CALL_TO_CODE[self.call]) + _u32(self.ts)

    @classmethod
    def _read(cls, r: _Reader) -> Undo:
        return cls(call_from_code(r.u8()), r.u32())


@_message(MessageType.STOP_CARD, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class StopCard(Message):
    ts: int

    def __post_init__(self) -> None:
        _int("ts", self.ts, 0, 0xFFFFFFFF)

    def encode(self) -> bytes:
        return _u32(self.ts)

    @classmethod
    def _read(cls, r: _Reader) -> StopCard:
        return cls(r.u32())


@_message(MessageType.TRAY_PASSED, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class TrayPassed(Message):
    """The screen's tray passed under the screen (Law 80E screen regulations)."""
    ts: int
    direction: TrayDirection = TrayDirection.AWAY

    def __post_init__(self) -> None:
        _int("ts", self.ts, 0, 0xFFFFFFFF)
        _set(self, "direction", _enum("direction", TrayDirection, self.direction))

    def encode(self) -> bytes:
        return _b(self.direction) + _u32(self.ts)

    @classmethod
    def _read(cls, r: _Reader) -> TrayPassed:
        d = r.u8()
        return cls(r.u32(), d)  # type: ignore[arg-type]


# -- dealer → host ------------------------------------------------------------------------------------------
def _cards_dealt(v: object) -> int:
    return _int("cards_dealt", v, 0, 52)


@_message(MessageType.CARD_DEALT, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class CardDealt(Message):
    """A card dropped into ``pocket``; ``card`` as the dealer identified it (None if it cannot)."""
    uid: bytes
    pocket: str
    ts: int
    card: str | None = None

    def __post_init__(self) -> None:
        _set(self, "uid", _uid(self.uid))
        seat_code(self.pocket)
        _int("ts", self.ts, 0, 0xFFFFFFFF)
        card_code(self.card)

    def encode(self) -> bytes:
        return _b(card_code(self.card), seat_code(self.pocket)) + _u32(self.ts) + _len_prefixed(self.uid)

    @classmethod
    def _read(cls, r: _Reader) -> CardDealt:
        card, pocket, ts = card_from_code(r.u8()), seat_from_code(r.u8()), r.u32()
        return cls(r.blob(), pocket, ts, card)  # type: ignore[arg-type]


@_message(MessageType.BOARD_NUMBER_READ, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class BoardNumberRead(Message):
    board: int
    ts: int

    def __post_init__(self) -> None:
        _int("board", self.board, 1, 0xFFFF)
        _int("ts", self.ts, 0, 0xFFFFFFFF)

    def encode(self) -> bytes:
        return _u16(self.board) + _u32(self.ts)

    @classmethod
    def _read(cls, r: _Reader) -> BoardNumberRead:
        return cls(r.u16(), r.u32())


@_message(MessageType.JAM, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class Jam(Message):
    """The dealer stopped: a card is stuck (``pocket`` None = in the feeder)."""
    ts: int
    pocket: str | None = None
    cards_dealt: int = 0

    def __post_init__(self) -> None:
        _int("ts", self.ts, 0, 0xFFFFFFFF)
        seat_code(self.pocket, optional=True)
        _cards_dealt(self.cards_dealt)

    def encode(self) -> bytes:
        return _b(seat_code(self.pocket, optional=True), self.cards_dealt) + _u32(self.ts)

    @classmethod
    def _read(cls, r: _Reader) -> Jam:
        pocket, n = seat_from_code(r.u8(), optional=True), r.u8()
        return cls(r.u32(), pocket, n)


@_message(MessageType.UNREADABLE_CARD, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class UnreadableCard(Message):
    """A card whose tag could not be read; the dealer set it aside (reject slot) and stopped."""
    ts: int
    cards_dealt: int = 0

    def __post_init__(self) -> None:
        _int("ts", self.ts, 0, 0xFFFFFFFF)
        _cards_dealt(self.cards_dealt)

    def encode(self) -> bytes:
        return _b(self.cards_dealt) + _u32(self.ts)

    @classmethod
    def _read(cls, r: _Reader) -> UnreadableCard:
        n = r.u8()
        return cls(r.u32(), n)


@_message(MessageType.DEAL_DONE, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class DealDone(Message):
    board: int
    cards_dealt: int
    ts: int

    def __post_init__(self) -> None:
        _int("board", self.board, 1, 0xFFFF)
        _cards_dealt(self.cards_dealt)
        _int("ts", self.ts, 0, 0xFFFFFFFF)

    def encode(self) -> bytes:
        return _u16(self.board) + _b(self.cards_dealt) + _u32(self.ts)

    @classmethod
    def _read(cls, r: _Reader) -> DealDone:
        board, n = r.u16(), r.u8()
        return cls(board, n, r.u32())


# -- host → display devices ------------------------------------------------------------------------------
@_message(MessageType.SHOW_AUCTION, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class ShowAuction(Message):
    """The calls this seat may see, in order from ``dealer``; ``alerts[i]`` marks call i as alerted."""
    dealer: str
    calls: tuple[str, ...] = ()
    alerts: tuple[bool, ...] = ()     # empty = nothing alerted; otherwise one flag per call

    def __post_init__(self) -> None:
        seat_code(self.dealer)
        calls = tuple(self.calls)
        if len(calls) > MAX_AUCTION:
            raise InvalidField(f"at most {MAX_AUCTION} calls, not {len(calls)}")
        for c in calls:
            call_code(c)
        alerts = tuple(bool(a) for a in self.alerts) or (False,) * len(calls)
        if len(alerts) != len(calls):
            raise InvalidField(f"{len(alerts)} alert flags for {len(calls)} calls")
        _set(self, "calls", calls)
        _set(self, "alerts", alerts)

    def encode(self) -> bytes:
        entries = bytes(CALL_TO_CODE[c] | (0x80 if a else 0) for c, a in zip(self.calls, self.alerts))
        return _b(seat_code(self.dealer)) + _u16(len(entries)) + entries

    @classmethod
    def _read(cls, r: _Reader) -> ShowAuction:
        dealer, n = seat_from_code(r.u8()), r.u16()
        entries = r._take(n)
        return cls(dealer, tuple(call_from_code(e & 0x7F) for e in entries),  # type: ignore[arg-type]
                   tuple(bool(e & 0x80) for e in entries))


_RISK = {"": 0, "X": 1, "XX": 2}


def _parse_contract(contract: object) -> tuple[int, int]:
    """``"PASS"`` → (0, 0); ``"4SX"`` → (call code of 4S, 1)."""
    if contract == "PASS":
        return 0, 0
    if isinstance(contract, str):
        for risk in ("XX", "X", ""):
            if contract.endswith(risk) and contract[:len(contract) - len(risk)] in CALL_TO_CODE:
                bid = contract[:len(contract) - len(risk)]
                if bid[0].isdigit():
                    return CALL_TO_CODE[bid], _RISK[risk]
    raise InvalidField(f"not a contract: {contract!r} (\"PASS\", \"4S\", \"4SX\", \"3NTXX\")")


@_message(MessageType.SHOW_CONTRACT, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class ShowContract(Message):
    """The final contract (``"PASS"`` for a passed-out board) and its declarer."""
    contract: str
    declarer: str | None = None

    def __post_init__(self) -> None:
        _parse_contract(self.contract)
        if self.contract == "PASS":
            if self.declarer is not None:
                raise InvalidField("a passed-out board has no declarer")
        else:
            seat_code(self.declarer)

    def encode(self) -> bytes:
        bid, risk = _parse_contract(self.contract)
        return _b(bid, risk, seat_code(self.declarer, optional=True))

    @classmethod
    def _read(cls, r: _Reader) -> ShowContract:
        bid, risk, decl = r.u8(), r.u8(), r.u8()
        if bid == 0:
            if risk or decl != 0xFF:
                raise MalformedPayload("SHOW_CONTRACT: a passed-out board has no risk and no declarer")
            return cls("PASS")
        if not 3 <= bid <= 37 or risk > 2:
            raise MalformedPayload(f"SHOW_CONTRACT: bid code {bid} / risk {risk} out of range")
        return cls(CALL_CODES[bid] + ("", "X", "XX")[risk], seat_from_code(decl))


@_message(MessageType.SHOW_TURN, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class ShowTurn(Message):
    """Whose turn it is (None: nobody's) and in which phase."""
    seat: str | None
    phase: Phase = Phase.AUCTION

    def __post_init__(self) -> None:
        seat_code(self.seat, optional=True)
        _set(self, "phase", _enum("phase", Phase, self.phase))

    def encode(self) -> bytes:
        return _b(seat_code(self.seat, optional=True), self.phase)

    @classmethod
    def _read(cls, r: _Reader) -> ShowTurn:
        return cls(seat_from_code(r.u8(), optional=True), r.u8())  # type: ignore[arg-type]


@_message(MessageType.SHOW_ERROR, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class ShowError(Message):
    """Show a message to the player (an irregularity, "call the director")."""
    code: int
    text: str

    def __post_init__(self) -> None:
        _set(self, "code", _code(self.code))
        _text("text", self.text)

    def encode(self) -> bytes:
        return _u16(self.code) + _len_prefixed(self.text.encode("utf-8"))

    @classmethod
    def _read(cls, r: _Reader) -> ShowError:
        return cls(r.u16(), r.text())


@_message(MessageType.SET_MODE, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class SetMode(Message):
    """Flag or prevent (Law 80E regulation), and the inadvertent-call undo window (0 = no undo)."""
    mode: Mode
    undo_window_ms: int = 0

    def __post_init__(self) -> None:
        _set(self, "mode", _enum("mode", Mode, self.mode))
        _int("undo_window_ms", self.undo_window_ms, 0, 0xFFFF)

    def encode(self) -> bytes:
        return _b(self.mode) + _u16(self.undo_window_ms)

    @classmethod
    def _read(cls, r: _Reader) -> SetMode:
        mode = r.u8()
        return cls(mode, r.u16())  # type: ignore[arg-type]


@_message(MessageType.REFUSE_CALL, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class RefuseCall(Message):
    """Prevent mode: the host refuses ``call``; the device withdraws it and lets the player call again."""
    call: str
    code: int
    text: str = ""

    def __post_init__(self) -> None:
        call_code(self.call)
        _set(self, "code", _code(self.code))
        _text("text", self.text)

    def encode(self) -> bytes:
        return _b(CALL_TO_CODE[self.call]) + _u16(self.code) + _len_prefixed(self.text.encode("utf-8"))

    @classmethod
    def _read(cls, r: _Reader) -> RefuseCall:
        call = call_from_code(r.u8())
        return cls(call, r.u16(), r.text())


# -- host → dealer ------------------------------------------------------------------------------------------
@_message(MessageType.DEAL_BOARD, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class DealBoard(Message):
    """Deal ``board``: ``pockets[i]`` is the pocket (seat) of card ``CARDS[i]`` (SA, SK, ... C2)."""
    board: int
    pockets: tuple[str, ...]

    def __post_init__(self) -> None:
        _int("board", self.board, 1, 0xFFFF)
        pockets = tuple(self.pockets)
        if len(pockets) != 52:
            raise InvalidField(f"pockets: one per card, 52, not {len(pockets)}")
        for p in pockets:
            seat_code(p)
        _set(self, "pockets", pockets)

    @classmethod
    def from_hands(cls, board: int, hands: Mapping[str, Iterable[str]]) -> DealBoard:
        """``{"N": ["SA", ...], "E": [...], ...}`` (13 distinct cards each) → DEAL_BOARD."""
        pockets: dict[str, str] = {}
        for seat, cards in hands.items():
            seat_code(seat)
            for c in cards:
                card_code(c)
                if c in pockets:
                    raise InvalidField(f"card {c} is in two hands")
                pockets[c] = seat
        missing = [c for c in CARDS if c not in pockets]
        if missing:
            raise InvalidField(f"cards in no hand: {' '.join(missing)}")
        return cls(board, tuple(pockets[c] for c in CARDS))

    def hands(self) -> dict[str, tuple[str, ...]]:
        return {s: tuple(c for c, p in zip(CARDS, self.pockets) if p == s) for s in SEATS}

    def encode(self) -> bytes:
        return _u16(self.board) + bytes(seat_code(p) for p in self.pockets)

    @classmethod
    def _read(cls, r: _Reader) -> DealBoard:
        board = r.u16()
        return cls(board, tuple(seat_from_code(b) for b in r._take(52)))  # type: ignore[misc]


MESSAGE_TYPES: dict[int, type[Message]] = {cls.TYPE: cls for cls in (
    Hello, Welcome, Ack, Nack, Heartbeat, ErrorMessage, Reset, Bind,
    CardRead, HandRead, ReaderStatus,
    CallPressed, Undo, StopCard, TrayPassed,
    CardDealt, BoardNumberRead, Jam, UnreadableCard, DealDone,
    ShowAuction, ShowContract, ShowTurn, ShowError, SetMode, RefuseCall,
    DealBoard,
)}
assert set(MESSAGE_TYPES) == set(MessageType), "every MessageType has a class"


def decode_message(type_code: int, payload: bytes) -> Message:
    """The message of a frame. Raises :class:`UnknownMessageType` or :class:`MalformedPayload`."""
    cls = MESSAGE_TYPES.get(type_code)
    if cls is None:
        raise UnknownMessageType(f"unknown message type 0x{type_code:02X}")
    try:
        return cls.decode(payload)
    except MessageError:
        raise
    except Exception as err:  # a decoder bug must still surface as a protocol error, not crash the link
        raise MalformedPayload(f"{cls.NAME}: {err!r}") from err
