"""Every message of protocol v1 as a frozen dataclass (docs/protocol.md §8).

``msg.encode() -> bytes`` gives the payload; ``decode_message(type_code, payload) -> Message`` is the
registry, raising :class:`UnknownMessageType` or :class:`MalformedPayload` (both ``ProtocolError``).
Constructing a message with a value the wire cannot carry raises :class:`InvalidField`.

Each class declares its payload once, as ``WIRE``: its fields in wire order (``fields.py``). One encoder,
one decoder and one constructor check (all in :class:`Message`) read that list.

``ts`` fields are the device's millisecond clock (u32, wraps after 49.7 days). Calls, seats and cards use
the strings of the table-event vocabulary (see ``codes``).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from .codes import CALL_CODES, CALL_TO_CODE, CARDS, SEATS, card_code, seat_code
from .constants import (
    MAX_HAND_TAGS,
    SUPPORTED_VERSIONS,
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
from .fields import (
    Auction,
    Bits,
    Call,
    Card,
    Contract,
    EnumField,
    ErrorCodeField,
    Field,
    Ident,
    PartOf,
    Pockets,
    Reader,
    Rssi,
    Seat,
    Text,
    Uid,
    UidList,
    UInt,
    Versions,
)

__all__ = [
    "Message", "decode_message", "MESSAGE_TYPES", "CALL_CODES", "CALL_TO_CODE", "CARDS", "SEATS",
    "Hello", "Welcome", "Ack", "Nack", "Heartbeat", "ErrorMessage", "Reset", "Bind",
    "CardRead", "HandScan", "ReaderStatus",
    "CallPressed", "Undo", "StopCard", "TrayPassed", "DirectorCall",
    "CardDealt", "BoardNumberRead", "Jam", "UnreadableCard", "DealDone",
    "ShowAuction", "ShowContract", "ShowTurn", "ShowError", "SetMode", "RefuseCall", "DealBoard",
    "EnterBootloader", "ENTER_CONFIRM",
]

M = TypeVar("M", bound="Message")


def _u8(name: str, lo: int = 0, hi: int = 0xFF) -> UInt:
    return UInt(name, 1, lo, hi)


def _u16(name: str, lo: int = 0, hi: int = 0xFFFF) -> UInt:
    return UInt(name, 2, lo, hi)


def _u32(name: str) -> UInt:
    return UInt(name, 4)


TS = _u32("ts")
CARDS_DEALT = _u8("cards_dealt", 0, 52)
BOARD = _u16("board", 1)


# -- base ------------------------------------------------------------------------------------------------
class Message:
    """Base of every message. Class attributes describe it; instances are frozen dataclasses."""
    __slots__ = ()
    TYPE: ClassVar[MessageType]
    NAME: ClassVar[str]
    DIRECTION: ClassVar[Direction]
    CONTROL: ClassVar[bool] = False      # produced and consumed by the session, never sent by applications
    UNRELIABLE: ClassVar[bool] = False   # always sent unreliable, whatever send() is asked
    WIRE: ClassVar[tuple[Field, ...]] = ()   # the payload: fields in wire order, covering every attribute

    def __post_init__(self) -> None:
        for f in self.WIRE:
            for name, value in zip(f.names, f.check(tuple(getattr(self, n) for n in f.names))):
                object.__setattr__(self, name, value)

    def encode(self) -> bytes:
        return b"".join(f.write(tuple(getattr(self, n) for n in f.names)) for f in self.WIRE)

    @classmethod
    def decode(cls: type[M], payload: bytes) -> M:
        r = Reader(bytes(payload), cls.NAME)
        values: dict[str, Any] = {}
        try:
            for f in cls.WIRE:
                values.update(zip(f.names, f.read(r)))
            msg = cls(**values)
        except MalformedPayload:
            raise
        except (InvalidField, ValueError) as err:
            raise MalformedPayload(f"{cls.NAME}: {err}") from err
        r.end()
        return msg


def _message(type_: MessageType, direction: Direction, *, control: bool = False,
             unreliable: bool = False) -> Callable[[type[M]], type[M]]:
    def wrap(cls: type[M]) -> type[M]:
        cls.TYPE, cls.NAME, cls.DIRECTION = type_, type_.name, direction
        cls.CONTROL, cls.UNRELIABLE = control, unreliable
        attributes = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
        on_wire = [n for f in cls.WIRE for n in f.names]
        if sorted(attributes) != sorted(on_wire):
            raise TypeError(f"{cls.__name__}.WIRE carries {on_wire}, the class has {attributes}")
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
    WIRE = (EnumField("kind", DeviceKind), EnumField("capabilities", Capability, 4), _u32("session_id"),
            _u8("rx_next"), Versions("versions"), Ident("serial"), Ident("firmware"))


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
    WIRE = (_u8("version", 1), Bits("resumed"), _u32("session_id"), _u8("rx_next"), Seat("seat", optional=True),
            _u16("table"), _u16("heartbeat_ms", 1), _u16("link_timeout_ms", 1), _u16("retransmit_ms", 1),
            _u8("max_retries"))


@_message(MessageType.ACK, Direction.BOTH, control=True)
@dataclass(frozen=True, slots=True)
class Ack(Message):
    """Explicit acknowledgement; the value is the frame header's ``ack`` field. Empty payload."""


@_message(MessageType.NACK, Direction.BOTH, control=True)
@dataclass(frozen=True, slots=True)
class Nack(Message):
    """The reliable frame ``seq`` arrived intact but was refused (``code``); it will not be resent."""
    seq: int
    code: int
    WIRE = (_u8("seq"), ErrorCodeField("code"))


@_message(MessageType.HEARTBEAT, Direction.BOTH, control=True)
@dataclass(frozen=True, slots=True)
class Heartbeat(Message):
    """Sent when nothing else was sent for a heartbeat interval; carries the sender's ms clock."""
    clock_ms: int = 0
    WIRE = (_u32("clock_ms"),)


@_message(MessageType.ERROR, Direction.BOTH)
@dataclass(frozen=True, slots=True)
class ErrorMessage(Message):
    """ERROR(code, text): an error report; also the host's refusal of a HELLO."""
    code: int
    text: str = ""
    WIRE = (ErrorCodeField("code"), Text("text"))


@_message(MessageType.RESET, Direction.TO_DEVICE, unreliable=True)
@dataclass(frozen=True, slots=True)
class Reset(Message):
    """Host → device: drop the session and send HELLO again (resuming); with ``reboot`` restart the hardware."""
    reason: int = ErrorCode.NONE
    reboot: bool = False
    WIRE = (ErrorCodeField("reason"), Bits("reboot"))


@_message(MessageType.BIND, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class Bind(Message):
    """Host → device: the seat and table this device now serves (after WELCOME, when it changes)."""
    seat: str | None
    table: int = 0
    WIRE = (Seat("seat", optional=True), _u16("table"))


# -- seat reader → host ------------------------------------------------------------------------------------
@_message(MessageType.CARD_READ, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class CardRead(Message):
    """A tag seen in a zone: a card played (own or dummy zone) or seen at hand pickup."""
    zone: Zone
    uid: bytes
    ts: int
    rssi: int | None = None      # dBm, -127..127; None = not measured
    WIRE = (EnumField("zone", Zone), TS, Rssi("rssi"), Uid("uid"))


@_message(MessageType.HAND_READ, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class HandScan(Message):
    """HAND_READ: every tag seen at once (a hand taken out of the board), in no particular order; sent whole
    (``parts`` 1) or in parts, part ``part`` (0-based) of ``parts`` of the hand read at ``ts`` each carrying
    some of its tags (:class:`firmware_host.hands.HandAssembler` puts them together)."""
    uids: tuple[bytes, ...]
    ts: int
    zone: Zone = Zone.HAND
    part: int = 0
    parts: int = 1
    WIRE = (EnumField("zone", Zone), TS, PartOf("part", "parts", MAX_HAND_TAGS), UidList("uids"))


@_message(MessageType.READER_STATUS, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class ReaderStatus(Message):
    """Reader health: a status code, which zone antennas work (bit = Zone value), tags in the field."""
    status: ReaderStatusCode
    ts: int
    antennas: int = 0b111
    tags_in_field: int = 0
    WIRE = (EnumField("status", ReaderStatusCode), _u8("antennas", 0, 0b111), _u8("tags_in_field"), TS)


@_message(MessageType.UNIT_STATUS, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class UnitStatus(Message):
    """The seat unit's own health, sent once after each handshake on the reader link: the cause of its last
    reset (ResetCause bits, the ATmega's MCUSR), the deepest its stack went since that reset (bytes), and how
    often its card reader chip had to be set up again since then."""
    reset_cause: int
    stack_peak: int
    reader_resets: int
    ts: int
    WIRE = (_u8("reset_cause", 0, 0x1F), _u16("stack_peak"), _u16("reader_resets"), TS)


# -- bidding box / screen → host --------------------------------------------------------------------------
@_message(MessageType.CALL_PRESSED, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class CallPressed(Message):
    call: str
    ts: int
    alert: bool = False
    WIRE = (Call("call"), Bits("alert"), TS)


@_message(MessageType.UNDO, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class Undo(Message):
    """The player withdrew ``call`` inside the device's undo window (inadvertent call, Law 25A)."""
    call: str
    ts: int
    WIRE = (Call("call"), TS)


@_message(MessageType.STOP_CARD, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class StopCard(Message):
    ts: int
    WIRE = (TS,)


@_message(MessageType.DIRECTOR_CALL, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class DirectorCall(Message):
    """The player pressed the Director key: the director is called to the table (Law 9B1)."""
    ts: int
    WIRE = (TS,)


@_message(MessageType.TRAY_PASSED, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class TrayPassed(Message):
    """The screen's tray passed under the screen (Law 80E screen regulations)."""
    ts: int
    direction: TrayDirection = TrayDirection.AWAY
    WIRE = (EnumField("direction", TrayDirection), TS)


# -- dealer → host ------------------------------------------------------------------------------------------
@_message(MessageType.CARD_DEALT, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class CardDealt(Message):
    """A card dropped into ``pocket``; ``card`` as the dealer identified it (None if it cannot)."""
    uid: bytes
    pocket: str
    ts: int
    card: str | None = None
    WIRE = (Card("card"), Seat("pocket"), TS, Uid("uid"))


@_message(MessageType.BOARD_NUMBER_READ, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class BoardNumberRead(Message):
    board: int
    ts: int
    WIRE = (BOARD, TS)


@_message(MessageType.JAM, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class Jam(Message):
    """The dealer stopped: a card is stuck (``pocket`` None = in the feeder)."""
    ts: int
    pocket: str | None = None
    cards_dealt: int = 0
    WIRE = (Seat("pocket", optional=True), CARDS_DEALT, TS)


@_message(MessageType.UNREADABLE_CARD, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class UnreadableCard(Message):
    """A card whose tag could not be read; the dealer set it aside (reject slot) and stopped."""
    ts: int
    cards_dealt: int = 0
    WIRE = (CARDS_DEALT, TS)


@_message(MessageType.DEAL_DONE, Direction.TO_HOST)
@dataclass(frozen=True, slots=True)
class DealDone(Message):
    board: int
    cards_dealt: int
    ts: int
    WIRE = (BOARD, CARDS_DEALT, TS)


# -- host → display devices ------------------------------------------------------------------------------
@_message(MessageType.SHOW_AUCTION, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class ShowAuction(Message):
    """The calls this seat may see, in order from ``dealer``; ``alerts[i]`` marks call i as alerted."""
    dealer: str
    calls: tuple[str, ...] = ()
    alerts: tuple[bool, ...] = ()     # empty = nothing alerted; otherwise one flag per call
    WIRE = (Seat("dealer"), Auction("calls", "alerts"))


@_message(MessageType.SHOW_CONTRACT, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class ShowContract(Message):
    """The final contract (``"PASS"`` for a passed-out board) and its declarer."""
    contract: str
    declarer: str | None = None
    WIRE = (Contract("contract", "declarer"),)


@_message(MessageType.SHOW_TURN, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class ShowTurn(Message):
    """Whose turn it is (None: nobody's) and in which phase."""
    seat: str | None
    phase: Phase = Phase.AUCTION
    WIRE = (Seat("seat", optional=True), EnumField("phase", Phase))


@_message(MessageType.SHOW_ERROR, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class ShowError(Message):
    """Show a message to the player (an irregularity, "call the director")."""
    code: int
    text: str
    WIRE = (ErrorCodeField("code"), Text("text"))


@_message(MessageType.SET_MODE, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class SetMode(Message):
    """Flag or prevent (Law 80E regulation), and the inadvertent-call undo window (0 = no undo)."""
    mode: Mode
    undo_window_ms: int = 0
    WIRE = (EnumField("mode", Mode), _u16("undo_window_ms"))


@_message(MessageType.REFUSE_CALL, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class RefuseCall(Message):
    """Prevent mode: the host refuses ``call``; the device withdraws it and lets the player call again."""
    call: str
    code: int
    text: str = ""
    WIRE = (Call("call"), ErrorCodeField("code"), Text("text"))


# -- host → dealer ------------------------------------------------------------------------------------------
@_message(MessageType.DEAL_BOARD, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class DealBoard(Message):
    """Deal ``board``: ``pockets[i]`` is the pocket (seat) of card ``CARDS[i]`` (SA, SK, ... C2)."""
    board: int
    pockets: tuple[str, ...]
    WIRE = (BOARD, Pockets("pockets"))

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


# -- the update path ---------------------------------------------------------------------------------------
ENTER_CONFIRM = int.from_bytes(b"BOOT", "little")


@_message(MessageType.ENTER_BOOTLOADER, Direction.TO_DEVICE)
@dataclass(frozen=True, slots=True)
class EnterBootloader(Message):
    """Host → seat reader: restart into the boot loader (firmware/boot/boot_proto.h). ``session_id`` repeats
    the one in the unit's HELLO: a frame meant for another unit or an earlier session restarts nothing."""
    session_id: int
    confirm: int = ENTER_CONFIRM
    WIRE = (UInt("session_id", 4), UInt("confirm", 4, ENTER_CONFIRM, ENTER_CONFIRM))


MESSAGE_TYPES: dict[int, type[Message]] = {cls.TYPE: cls for cls in (
    Hello, Welcome, Ack, Nack, Heartbeat, ErrorMessage, Reset, Bind,
    CardRead, HandScan, ReaderStatus, UnitStatus,
    CallPressed, Undo, StopCard, TrayPassed, DirectorCall,
    CardDealt, BoardNumberRead, Jam, UnreadableCard, DealDone,
    ShowAuction, ShowContract, ShowTurn, ShowError, SetMode, RefuseCall,
    DealBoard, EnterBootloader,
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
