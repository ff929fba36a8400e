"""The device wire protocol (firmware_host, docs/protocol.md): COBS, CRC, frames, the stream decoder,
every message, the handshake, and the reliable channel over a lossy link."""
from __future__ import annotations

import ast
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_host import cobs
from firmware_host.codes import CALL_CODES, CALL_TO_CODE, CARDS
from firmware_host.constants import (
    MAX_ENCODED,
    MAX_PAYLOAD,
    Capability,
    DeviceKind,
    ErrorCode,
    FrameFlags,
    MessageType,
    Mode,
    Phase,
    ReaderStatusCode,
    ResetCause,
    TrayDirection,
    Zone,
)
from firmware_host.crc import CRC32_CHECK, CRC32_RESIDUE, crc32, crc32_reference
from firmware_host.errors import (
    CobsError,
    CrcMismatch,
    FrameError,
    FrameTooLarge,
    FrameTooShort,
    HandshakeRefused,
    InvalidField,
    LengthMismatch,
    LinkLost,
    MalformedPayload,
    MessageError,
    NoCommonVersion,
    NotSendable,
    ProtocolError,
    QueueFull,
    UnknownMessageType,
    UnsupportedVersion,
)
from firmware_host.frame import DecodeFailure, Frame, FrameDecoder, decode_frame, encode_frame
from firmware_host.messages import (
    MESSAGE_TYPES,
    Ack,
    Bind,
    BoardNumberRead,
    CallPressed,
    CardDealt,
    CardRead,
    DealBoard,
    DealDone,
    DirectorCall,
    EnterBootloader,
    ErrorMessage,
    HandScan,
    Heartbeat,
    Hello,
    Jam,
    Message,
    Nack,
    ReaderStatus,
    RefuseCall,
    Reset,
    SetMode,
    ShowAuction,
    ShowContract,
    ShowError,
    ShowTurn,
    StopCard,
    TrayPassed,
    Undo,
    UnitStatus,
    UnreadableCard,
    Welcome,
    decode_message,
)
from firmware_host.session import Binding, DeviceSession, HostSession, LinkState, Refusal, SessionConfig

PKG = Path(__file__).resolve().parents[2] / "firmware_host"


# == sans-I/O ==============================================================================================
FORBIDDEN = {"serial", "usb", "asyncio", "time", "socket", "select", "selectors", "threading", "table",
             "drivers", "hw_sim", "subprocess"}


def test_firmware_host_imports_no_io_no_clock_and_no_table():
    found = {}
    for path in sorted(PKG.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                if name.split(".")[0] in FORBIDDEN:
                    found.setdefault(path.name, []).append(name)
    assert found == {}


def test_importing_firmware_host_loads_no_io_module():
    code = ("import sys, firmware_host, firmware_host.session; "
            "print(sorted(m for m in ('serial', 'usb', 'asyncio', 'socket', 'table', 'drivers', 'hw_sim') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PKG.parent).stdout.strip()
    assert out == "[]"


# == COBS ==================================================================================================
COBS_VECTORS = [  # Wikipedia "Consistent Overhead Byte Stuffing", examples 1-11, plus the empty string
    (b"", b"\x01"),
    (b"\x00", b"\x01\x01"),
    (b"\x00\x00", b"\x01\x01\x01"),
    (b"\x00\x11\x00", b"\x01\x02\x11\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255))),
    (bytes(range(0, 255)), b"\x01\xff" + bytes(range(1, 255))),
    (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff"),
    (bytes(range(2, 256)) + b"\x00", b"\xff" + bytes(range(2, 256)) + b"\x01\x01"),
    (bytes(range(3, 256)) + b"\x00\x01", b"\xfe" + bytes(range(3, 256)) + b"\x02\x01"),
]


@pytest.mark.parametrize("raw,enc", COBS_VECTORS)
def test_cobs_vectors(raw, enc):
    assert cobs.encode(raw) == enc
    assert cobs.decode(enc) == raw


def test_cobs_decoder_accepts_the_non_minimal_trailing_block():
    assert cobs.decode(b"\xff" + bytes(range(1, 255)) + b"\x01") == bytes(range(1, 255))


@pytest.mark.parametrize("bad", [b"", b"\x05\x11\x22", b"\x02\x00", b"\x03\x11\x22\x05"])
def test_cobs_rejects_broken_encodings(bad):
    with pytest.raises(CobsError):
        cobs.decode(bad)


@given(st.binary(max_size=2000))
def test_cobs_round_trip_has_no_zero_and_bounded_overhead(data):
    enc = cobs.encode(data)
    assert 0 not in enc
    assert len(enc) <= cobs.max_encoded_size(len(data))
    assert cobs.decode(enc) == data


# == CRC ===================================================================================================
def test_crc32_check_value_and_residue():
    assert crc32(b"123456789") == CRC32_CHECK == 0xCBF43926
    assert crc32_reference(b"123456789") == CRC32_CHECK
    data = b"bridgetable"
    assert crc32(data + crc32(data).to_bytes(4, "little")) == CRC32_RESIDUE


@given(st.binary(max_size=300))
def test_crc32_reference_equals_zlib(data):
    assert crc32_reference(data) == crc32(data)
    assert crc32(data + crc32(data).to_bytes(4, "little")) == CRC32_RESIDUE


# == frames ================================================================================================
# Golden vectors (also printed in docs/protocol.md §12): a firmware must produce exactly these bytes.
GOLDEN = [
    (Frame(MessageType.HEARTBEAT, 0, 0, 0, Heartbeat(0x12345678).encode()),
     "030105010102040978563412b0bf985900"),
    (Frame(MessageType.CALL_PRESSED, 5, 2, FrameFlags.RELIABLE, CallPressed("1NT", 1000, alert=True).encode()),
     "07012001050206050701e8030105fcbf053400"),
    (Frame(MessageType.HELLO, 0, 0, 0, Hello(DeviceKind.SEAT_READER, "SR-000123", "1.4.2", (1,),
                                             Capability.DUMMY_ZONE | Capability.HAND_READ, 0x01020304).encode()),
     "0301010101021c0301c0010105040302011701010953522d30303031323305312e342e32fb5b4c9900"),
    (Frame(MessageType.WELCOME, 0, 0, FrameFlags.FROM_HOST, Welcome(1, 0x01020304, False, 0, "N", 12).encode()),
     "040102040102110201050403020101020c06e803ac0dfa06056ae75a0200"),
]


@pytest.mark.parametrize("frame,hexbytes", GOLDEN)
def test_golden_frames(frame, hexbytes):
    assert encode_frame(frame).hex() == hexbytes
    assert decode_frame(bytes.fromhex(hexbytes)) == frame


def frames_strategy(max_payload: int = MAX_PAYLOAD):
    return st.builds(Frame, type=st.integers(0, 255), seq=st.integers(0, 255), ack=st.integers(0, 255),
                     flags=st.integers(0, 255), payload=st.binary(max_size=max_payload))


@given(frames_strategy())
def test_frame_round_trip(frame):
    wire = encode_frame(frame)
    assert wire.endswith(b"\x00") and 0 not in wire[:-1]
    assert len(wire) - 1 <= MAX_ENCODED
    assert decode_frame(wire) == frame
    assert FrameDecoder().feed(wire) == [frame]


def sample_frames() -> list[Frame]:
    return [Frame(MessageType.CARD_READ, 1, 2, FrameFlags.RELIABLE,
                  CardRead(Zone.PLAY, b"\x04\x00\x11\x22", 7).encode()),
            Frame(MessageType.ACK, 0, 9),
            Frame(MessageType.SHOW_AUCTION, 200, 1, FrameFlags.RELIABLE | FrameFlags.FROM_HOST,
                  ShowAuction("N", ("1C", "Pass", "1NT"), (False, False, True)).encode()),
            Frame(MessageType.DEAL_BOARD, 255, 255, 5, bytes(300))]


def test_partial_frames_split_at_every_byte_boundary():
    frames = sample_frames()
    stream = b"".join(encode_frame(f) for f in frames)
    for i in range(len(stream) + 1):
        d = FrameDecoder()
        got = d.feed(stream[:i]) + d.feed(stream[i:])
        assert got == frames, i
        assert d.stats.errors == 0 and d.pending == 0
    d = FrameDecoder()
    assert [f for b in stream for f in d.feed(bytes([b]))] == frames


def test_garbage_before_and_between_frames_is_skipped_at_the_next_delimiter():
    a, b, c, _ = sample_frames()
    rng = random.Random(1)
    garbage = bytes(rng.randrange(256) for _ in range(300))
    stream = garbage + b"\x00" + encode_frame(a) + garbage + b"\x00" + encode_frame(b) + b"\x00\x00" + encode_frame(c)
    errors = []
    d = FrameDecoder(on_error=errors.append)
    assert d.feed(stream) == [a, b, c]
    assert d.stats.errors == len(errors) >= 2
    assert all(e.size > 0 for e in errors)


def test_a_half_frame_costs_only_the_frame_it_merges_with():
    a, b, c, _ = sample_frames()
    half = encode_frame(a)[:9]
    d = FrameDecoder()
    # the half frame has no delimiter, so it swallows the next frame; the one after is decoded
    assert d.feed(half + encode_frame(b) + encode_frame(c)) == [c]
    assert d.stats.errors == 1
    # a sender that leads with a delimiter (as DeviceSession.start does) loses nothing
    d = FrameDecoder()
    assert d.feed(half + b"\x00" + encode_frame(b)) == [b]


def test_every_corrupted_byte_is_rejected_and_the_next_frame_still_decodes():
    frames = sample_frames()
    for frame in frames[:3]:
        wire = encode_frame(frame)
        good = encode_frame(frames[1])
        for i in range(len(wire) - 1):
            for x in (0x01, 0x80, 0x5A, 0xFF):
                bad = bytearray(wire)
                bad[i] ^= x
                d = FrameDecoder()
                got = d.feed(bytes(bad) + b"\x00" + good)
                assert got == [frames[1]], (i, x)
                assert d.stats.errors >= 1


def _raw_frame(raw_without_crc: bytes) -> bytes:
    return cobs.encode(raw_without_crc + crc32(raw_without_crc).to_bytes(4, "little")) + b"\x00"


def test_oversize_frames_are_rejected_without_buffering_them():
    with pytest.raises(FrameTooLarge):
        encode_frame(Frame(1, payload=bytes(MAX_PAYLOAD + 1)))
    errors = []
    d = FrameDecoder(on_error=errors.append)
    good = encode_frame(Frame(MessageType.ACK))
    # a run of non-zero bytes longer than any frame: rejected once, then skipped to the delimiter
    assert d.feed(b"\x01" * 400) == [] and d.feed(b"\x01" * 400) == []
    assert d.pending == 0
    assert d.feed(b"\x01" * 10 + b"\x00" + good) == [Frame(MessageType.ACK)]
    assert [e.kind for e in errors] == [DecodeFailure.OVERSIZE]
    # a frame whose length field says more than MAX_PAYLOAD, with a correct CRC
    raw = bytes([1, 0x10, 0, 0, 0]) + (600).to_bytes(2, "little") + bytes(range(1, 200)) * 3
    d = FrameDecoder()
    assert d.feed(_raw_frame(raw[:7 + 500])) == []
    assert d.stats.oversize == 1
    # a device with little RAM lowers the limit
    d = FrameDecoder(max_payload=16)
    assert d.feed(encode_frame(Frame(1, payload=bytes(17)))) == []
    assert d.feed(encode_frame(Frame(1, payload=bytes(16)))) == [Frame(1, payload=bytes(16))]


def test_bad_version_length_and_short_frames_are_classified():
    errors = []
    d = FrameDecoder(on_error=errors.append)
    assert d.feed(encode_frame(Frame(1, version=2))) == []
    assert d.feed(_raw_frame(bytes([1, 3, 0, 0, 0, 5, 0]) + b"abc")) == []      # length says 5, 3 present
    assert d.feed(cobs.encode(b"\x01\x02\x03") + b"\x00") == []
    assert d.feed(b"\x05\x01\x00") == []                                           # COBS block overruns
    assert [e.kind for e in errors] == [DecodeFailure.BAD_VERSION, DecodeFailure.BAD_LENGTH,
                                        DecodeFailure.TOO_SHORT, DecodeFailure.COBS]
    assert (d.stats.version_errors, d.stats.length_errors, d.stats.too_short, d.stats.cobs_errors) == (1, 1, 1, 1)
    assert isinstance(errors[0].exception(), UnsupportedVersion)
    assert FrameDecoder(versions=(1, 2)).feed(encode_frame(Frame(1, version=2))) == [Frame(1, version=2)]


def test_decode_frame_raises_the_specific_frame_error():
    wire = bytearray(encode_frame(Frame(MessageType.ACK, 1, 2)))
    wire[1] ^= 0x10                                          # a data byte (wire[0] is a COBS code)
    with pytest.raises(CrcMismatch):
        decode_frame(bytes(wire))
    with pytest.raises(UnsupportedVersion):
        decode_frame(encode_frame(Frame(1, version=3)))
    with pytest.raises(LengthMismatch):
        decode_frame(_raw_frame(bytes([1, 3, 0, 0, 0, 9, 0]) + b"abc"))
    with pytest.raises(FrameTooShort):
        decode_frame(cobs.encode(b"\x01\x02") + b"\x00")
    with pytest.raises(CobsError):
        decode_frame(b"\x09\x01")
    with pytest.raises(FrameError):
        encode_frame(Frame(1, seq=256))
    assert issubclass(FrameError, ProtocolError)


def test_consecutive_delimiters_are_empty_frames_not_errors():
    d = FrameDecoder()
    assert d.feed(b"\x00\x00\x00" + encode_frame(Frame(3)) + b"\x00") == [Frame(3)]
    assert d.stats.errors == 0 and d.stats.empty == 4


# == messages ==============================================================================================
UID4, UID7, UID10 = b"\x04\x11\x22\x00", bytes(range(1, 8)), bytes(range(0xF0, 0xFA))
HANDS = {"N": CARDS[0:13], "E": CARDS[13:26], "S": CARDS[26:39], "W": CARDS[39:52]}

EXAMPLES: list[Message] = [
    Hello(DeviceKind.SEAT_READER, "SR-000123", "1.4.2-rc1", (1, 2), Capability.DUMMY_ZONE | Capability.HAND_READ,
          0xDEADBEEF, 17),
    Hello(DeviceKind.DEALER, "D", "0"),
    Welcome(1, 0xDEADBEEF, True, 3, "S", 12, 1000, 3500, 250, 5),
    Welcome(2, 1),
    Ack(),
    Nack(200, ErrorCode.MALFORMED_PAYLOAD),
    Nack(0, 0x8123),
    Heartbeat(0xFFFFFFFF),
    ErrorMessage(ErrorCode.HARDWARE_FAULT, "antenne défaillante"),
    ErrorMessage(0),
    Reset(ErrorCode.NOT_CONNECTED), Reset(reboot=True),
    Bind("W", 7), Bind(None),
    CardRead(Zone.PLAY, UID4, 0, -60), CardRead(Zone.DUMMY, UID10, 0xFFFFFFFF), CardRead(Zone.HAND, UID7, 5, 127),
    HandScan(tuple(bytes([i, 1, 2, 3, 4, 5, 6]) for i in range(13)), 99), HandScan((), 0, Zone.PLAY),
    ReaderStatus(ReaderStatusCode.ANTENNA_FAULT, 1234, 0b101, 14), ReaderStatus(ReaderStatusCode.OK, 0),
    UnitStatus(ResetCause.WATCHDOG | ResetCause.POWER_ON, 259, 2, 99), UnitStatus(0, 0, 0, 0),
    CallPressed("Pass", 1), CallPressed("XX", 2, True), CallPressed("7NT", 3),
    Undo("1C", 44), StopCard(45), TrayPassed(46, TrayDirection.TOWARDS), TrayPassed(47), DirectorCall(48),
    CardDealt(UID7, "E", 100, "HT"), CardDealt(UID4, "N", 101),
    BoardNumberRead(65535, 3), BoardNumberRead(1, 0),
    Jam(9, "S", 30), Jam(10), UnreadableCard(11, 51), DealDone(7, 52, 12),
    ShowAuction("E", ("1C", "X", "1H", "Pass", "2NT"), (False, False, True, False, True)),
    ShowAuction("N"), ShowAuction("W", ("Pass",) * 400),
    ShowContract("PASS"), ShowContract("4S", "N"), ShowContract("3NTXX", "W"), ShowContract("7CX", "E"),
    ShowTurn("E", Phase.PLAY), ShowTurn(None, Phase.IDLE),
    ShowError(ErrorCode.INSUFFICIENT_BID, "Insufficient bid — call the director (Law 27)"),
    SetMode(Mode.PREVENT, 3000), SetMode(Mode.FLAG),
    RefuseCall("1D", ErrorCode.INSUFFICIENT_BID, "1D is insufficient after 1H"),
    RefuseCall("X", ErrorCode.INADMISSIBLE_CALL),
    DealBoard.from_hands(17, HANDS), DealBoard(65535, ("W",) * 52),
    EnterBootloader(0xDEADBEEF), EnterBootloader(1),
]


def test_examples_cover_every_message_type():
    assert {type(m) for m in EXAMPLES} == set(MESSAGE_TYPES.values())
    assert set(MESSAGE_TYPES) == set(MessageType)


@pytest.mark.parametrize("msg", EXAMPLES, ids=lambda m: type(m).__name__)
def test_message_round_trip(msg):
    payload = msg.encode()
    assert len(payload) <= MAX_PAYLOAD
    assert decode_message(msg.TYPE, payload) == msg
    frame = Frame(msg.TYPE, 3, 4, FrameFlags.RELIABLE, payload)
    (got,) = FrameDecoder().feed(encode_frame(frame))
    assert decode_message(got.type, got.payload) == msg


@pytest.mark.parametrize("msg", EXAMPLES, ids=lambda m: type(m).__name__)
def test_truncated_or_extended_payload_is_malformed(msg):
    payload = msg.encode()
    for n in range(len(payload)):
        with pytest.raises(MalformedPayload):
            decode_message(msg.TYPE, payload[:n])
    with pytest.raises(MalformedPayload):
        decode_message(msg.TYPE, payload + b"\x00")


@pytest.mark.parametrize("type_code,payload", [
    (MessageType.CARD_READ, bytes([9]) + bytes(4) + b"\x80\x04abcd"),             # zone 9
    (MessageType.CARD_READ, bytes([0]) + bytes(4) + b"\x80\x03abc"),              # 3-byte UID
    (MessageType.CALL_PRESSED, bytes([38, 0]) + bytes(4)),                        # call code 38
    (MessageType.CALL_PRESSED, bytes([3, 2]) + bytes(4)),                         # reserved flag
    (MessageType.SHOW_CONTRACT, bytes([0, 0, 1])),                                # passed out with declarer
    (MessageType.SHOW_CONTRACT, bytes([2, 0, 1])),                                # XX is not a contract
    (MessageType.DEAL_BOARD, (1).to_bytes(2, "little") + bytes([4]) * 52),        # pocket 4
    (MessageType.SHOW_ERROR, bytes([1, 1, 2]) + b"\xff\xfe"),                     # not UTF-8
    (MessageType.HELLO, bytes([9]) + bytes(9) + b"\x01\x01\x01A\x01B"),           # device kind 9
    (MessageType.HELLO, bytes([1]) + bytes(9) + b"\x00\x01A\x01B"),               # no version
])
def test_bad_field_values_on_the_wire_are_malformed(type_code, payload):
    with pytest.raises(MalformedPayload):
        decode_message(type_code, payload)


def test_unknown_type_is_its_own_error():
    with pytest.raises(UnknownMessageType) as e:
        decode_message(0xEE, b"")
    assert e.value.code == ErrorCode.UNKNOWN_MESSAGE and isinstance(e.value, MessageError)


@pytest.mark.parametrize("build", [
    lambda: CallPressed("8NT", 0), lambda: CallPressed("1N", 0), lambda: CardRead(Zone.PLAY, b"abc", 0),
    lambda: CardRead(Zone.PLAY, bytes(11), 0), lambda: CardRead(Zone.PLAY, UID4, -1),
    lambda: CardRead(Zone.PLAY, UID4, 0, rssi=-128), lambda: CardRead(7, UID4, 0),
    lambda: ShowError(1, "x" * 201), lambda: ShowError(0x10000, ""), lambda: Bind("X"),
    lambda: DealBoard(1, ("N",) * 51), lambda: DealBoard(0, ("N",) * 52), lambda: ShowContract("4S"),
    lambda: ShowContract("PASS", "N"), lambda: ShowContract("9S", "N"), lambda: ShowContract("X", "N"),
    lambda: ShowAuction("N", ("1C",), (True, False)), lambda: HandScan((UID4,) * 33, 0),
    lambda: Hello(DeviceKind.DEALER, "", "1"), lambda: Hello(DeviceKind.DEALER, "é", "1"),
    lambda: Hello(DeviceKind.DEALER, "A", "1", versions=()), lambda: Jam(0, cards_dealt=53),
    lambda: DealBoard.from_hands(1, {**HANDS, "W": HANDS["W"][:12]}),
    lambda: DealBoard.from_hands(1, {**HANDS, "W": HANDS["W"][:12] + ("SA",)}),
])
def test_values_the_wire_cannot_carry_are_refused_at_construction(build):
    with pytest.raises(InvalidField):
        build()


def test_call_codes_table():
    assert len(CALL_CODES) == 38
    assert (CALL_CODES[0], CALL_CODES[1], CALL_CODES[2]) == ("Pass", "X", "XX")
    assert (CALL_CODES[3], CALL_CODES[7], CALL_CODES[8], CALL_CODES[37]) == ("1C", "1NT", "2C", "7NT")
    bids = [CALL_CODES[i] for i in range(3, 38)]
    assert bids == [f"{lvl}{s}" for lvl in range(1, 8) for s in ("C", "D", "H", "S", "NT")]
    assert all(CALL_TO_CODE[c] == i for i, c in CALL_CODES.items())


def test_deal_board_hands_round_trip():
    msg = DealBoard.from_hands(3, HANDS)
    assert msg.hands() == {s: tuple(c) for s, c in HANDS.items()}
    assert msg.pockets[CARDS.index("SA")] == "N" and msg.pockets[CARDS.index("C2")] == "W"


@settings(max_examples=300)
@given(st.sampled_from(sorted(MESSAGE_TYPES) + [0, 0x99]), st.binary(max_size=80))
def test_decode_message_raises_only_message_errors(type_code, payload):
    try:
        msg = decode_message(type_code, payload)
    except MessageError:
        return
    assert msg.encode() == payload        # whatever decodes is canonical


# == sessions ==============================================================================================
class Clock:
    def __init__(self) -> None:
        self.now = 0


def connect(host: HostSession, dev: DeviceSession, now: int = 0) -> tuple[list[Message], list[Message]]:
    """Handshake over a perfect link; returns what each side delivered meanwhile (queued messages)."""
    at_host = host.receive(dev.start(now), now)
    at_dev = dev.receive(host.poll(now), now)
    at_host += host.receive(dev.poll(now), now)
    assert host.state is LinkState.READY and dev.state is LinkState.READY
    return at_host, at_dev


def exchange(host: HostSession, dev: DeviceSession, now: int) -> tuple[list[Message], list[Message]]:
    """Move bytes both ways until both sides are quiet (a perfect link)."""
    at_host: list[Message] = []
    at_dev: list[Message] = []
    for _ in range(20):
        a, b = dev.poll(now), host.poll(now)
        if not a and not b:
            break
        at_host += host.receive(a, now)
        at_dev += dev.receive(b, now)
    return at_host, at_dev


def new_pair(host_cfg=None, dev_cfg=None, **host_kw):
    host = HostSession(host_cfg, **host_kw)
    dev = DeviceSession(DeviceKind.BIDDING_BOX, "BB-0042", "2.1.0",
                        capabilities=Capability.DISPLAY | Capability.ALERT, config=dev_cfg, session_id=0xC0FFEE)
    return host, dev


def test_handshake_gives_both_sides_the_other_ones_identity():
    host, dev = new_pair(admit=lambda hello: Binding("E", 4))
    assert dev.state is LinkState.IDLE and host.state is LinkState.CONNECTING
    hello_bytes = dev.start(0)
    assert dev.state is LinkState.CONNECTING
    assert host.receive(hello_bytes, 0) == []
    assert host.state is LinkState.READY
    assert host.peer == Hello(DeviceKind.BIDDING_BOX, "BB-0042", "2.1.0", (1,),
                              Capability.DISPLAY | Capability.ALERT, 0xC0FFEE, 0)
    assert dev.receive(host.poll(0), 1) == []
    assert dev.state is LinkState.READY and dev.version == host.version == 1
    assert dev.peer.seat == "E" and dev.binding == Binding("E", 4)
    assert dev.peer.heartbeat_ms == 1000 and not dev.peer.resumed
    assert host.health.handshakes == dev.health.handshakes == 1


def test_version_negotiation_picks_the_highest_common_version():
    host, _ = new_pair(versions=(1, 2, 4))
    dev = DeviceSession(DeviceKind.DEALER, "DL-1", "1.0", versions=(1, 2, 3), session_id=5)
    connect(host, dev)
    assert host.version == dev.version == 2
    wire = dev.send(DealDone(1, 52, 0))
    (frame,) = FrameDecoder(versions=(1, 2)).feed(wire)
    assert frame.version == 2
    assert host.receive(wire, 1) == [DealDone(1, 52, 0)]


def test_no_common_version_is_refused_with_an_error():
    host = HostSession(versions=(1,))
    dev = DeviceSession(DeviceKind.SEAT_READER, "SR-9", "9.0", versions=(2, 3), session_id=5)
    host.receive(dev.start(0), 0)
    assert host.state is LinkState.CONNECTING and isinstance(host.last_error, NoCommonVersion)
    delivered = dev.receive(host.poll(0), 0)
    assert delivered == [ErrorMessage(ErrorCode.VERSION_UNSUPPORTED, delivered[0].text)]
    assert "host speaks [1]" in delivered[0].text
    assert dev.state is LinkState.REFUSED and isinstance(dev.last_error, NoCommonVersion)
    assert dev.last_error.code == ErrorCode.VERSION_UNSUPPORTED
    assert dev.poll(5000) == b""                            # a refused device stops saying HELLO
    assert host.health.refusals == dev.health.refusals == 1


def test_host_policy_can_refuse_a_device():
    host, dev = new_pair(admit=lambda hello: Refusal(ErrorCode.DEVICE_REFUSED, f"{hello.serial} is not registered"))
    host.receive(dev.start(0), 0)
    (err,) = dev.receive(host.poll(0), 0)
    assert err.text == "BB-0042 is not registered"
    assert dev.state is LinkState.REFUSED and isinstance(dev.last_error, HandshakeRefused)
    assert isinstance(host.last_error, HandshakeRefused) and host.state is LinkState.CONNECTING


def test_hello_is_repeated_until_welcome_arrives():
    host, dev = new_pair()
    dev.start(0)                                             # lost
    assert dev.poll(100) == b""
    again = dev.poll(500)
    assert again and dev.health.hellos == 2
    host.receive(again, 500)
    dev.receive(host.poll(500), 501)
    assert dev.state is LinkState.READY


def test_messages_sent_before_the_handshake_are_queued_not_lost():
    host, dev = new_pair()
    assert dev.send(CallPressed("1C", 1)) == b""
    assert host.send(ShowTurn("N")) == b""
    assert host.send(Reset(), reliable=False) == b""       # unreliable: dropped while not ready
    assert host.health.dropped_unreliable == 1
    at_host, at_dev = connect(host, dev)
    more_host, more_dev = exchange(host, dev, 1)
    assert at_host + more_host == [CallPressed("1C", 1)] and at_dev + more_dev == [ShowTurn("N")]
    assert host.pending == dev.pending == 0


def test_sessions_refuse_to_send_control_messages_and_wrong_direction():
    host, dev = new_pair()
    for msg in (Ack(), Heartbeat(), Nack(1, 1), Welcome(1, 1)):
        with pytest.raises(NotSendable):
            host.send(msg)
    with pytest.raises(NotSendable):
        host.send(CallPressed("1C", 0))
    with pytest.raises(NotSendable):
        dev.send(ShowTurn("N"))
    with pytest.raises(NotSendable):
        dev.send(Hello(DeviceKind.DEALER, "A", "1"))


def test_queue_limit():
    host = HostSession(SessionConfig(max_queue=3))
    for _ in range(3):
        host.send(ShowTurn("N"))
    with pytest.raises(QueueFull):
        host.send(ShowTurn("N"))


def test_duplicate_frame_is_delivered_once_and_reacked():
    host, dev = new_pair()
    connect(host, dev)
    wire = dev.send(CardDealt(UID4, "N", 1, "SA"))
    assert host.receive(wire, 1) == [CardDealt(UID4, "N", 1, "SA")]
    assert host.receive(wire, 2) == []
    assert host.health.duplicates == 1
    dev.receive(host.poll(2), 2)
    assert dev.pending == 0


def test_out_of_order_frames_wait_for_the_retransmission():
    host, dev = new_pair()
    connect(host, dev)
    first = dev.send(StopCard(1), now_ms=10)
    second = dev.send(StopCard(2), now_ms=10)
    assert host.receive(second, 11) == []                   # seq 1 before seq 0: dropped
    assert host.health.out_of_order == 1
    dev.receive(host.poll(11), 11)                          # host acks "still expecting 0"
    assert dev.in_flight == 2
    resent = dev.poll(10 + 250)                             # go-back-N: both again, in order
    assert host.receive(resent, 260) == [StopCard(1), StopCard(2)]
    assert dev.health.retransmits == 2
    dev.receive(host.poll(260), 260)
    assert dev.pending == 0
    del first


def test_ack_is_piggybacked_on_a_data_frame_when_there_is_one():
    host, dev = new_pair()
    connect(host, dev)
    host.receive(dev.send(CallPressed("1H", 5), now_ms=5), 5)
    wire = host.send(ShowAuction("N", ("1H",)), now_ms=5)    # carries ack=1
    assert host.poll(5) == b""                              # so no separate ACK is due
    dev.receive(wire, 6)
    assert dev.pending == 0


def test_window_limits_frames_in_flight():
    host, dev = new_pair(host_cfg=SessionConfig(window=2))
    connect(host, dev)
    wire = b"".join(host.send(ShowTurn("NESW"[i % 4]), now_ms=1) for i in range(5))
    assert host.in_flight == 2 and host.pending == 5
    at_dev = dev.receive(wire, 1)
    assert len(at_dev) == 2
    _, more = exchange(host, dev, 2)
    assert [m.seat for m in at_dev + more] == ["N", "E", "S", "W", "N"]
    assert host.pending == 0


def test_malformed_reliable_frame_is_nacked_and_not_resent():
    class BrokenCardRead(CardRead):
        def encode(self) -> bytes:
            return b"\x00\x01"

    host, dev = new_pair()
    connect(host, dev)
    assert host.receive(dev.send(BrokenCardRead(Zone.PLAY, UID4, 0)), 1) == []
    assert host.health.malformed == 1 and host.health.nacks_sent == 1
    delivered = dev.receive(host.poll(1), 1)
    assert delivered == [Nack(0, ErrorCode.MALFORMED_PAYLOAD)]
    assert dev.pending == 0 and dev.health.nacks_received == 1
    assert host.receive(dev.send(CardRead(Zone.PLAY, UID4, 0)), 2) == [CardRead(Zone.PLAY, UID4, 0)]


def test_a_message_for_the_other_direction_is_nacked():
    host, dev = new_pair()
    connect(host, dev)
    wire = encode_frame(Frame(MessageType.SHOW_TURN, 0, 0, FrameFlags.RELIABLE, ShowTurn("N").encode()))
    assert host.receive(wire, 1) == []
    assert host.health.unexpected == 1
    assert dev.receive(host.poll(1), 1) == [Nack(0, ErrorCode.UNEXPECTED_MESSAGE)]


def test_echoed_frames_are_dropped():
    host, dev = new_pair()
    connect(host, dev)
    wire = host.send(ShowTurn("S"))
    assert host.receive(wire, 1) == [] and host.health.echoes == 1
    assert dev.receive(wire, 1) == [ShowTurn("S")]


def test_bind_updates_the_device_binding():
    host, dev = new_pair()
    connect(host, dev)
    assert dev.receive(host.send(Bind("S", 9)), 1) == [Bind("S", 9)]
    assert dev.binding == Binding("S", 9)


def test_heartbeats_keep_an_idle_link_up_and_their_loss_makes_it_lost():
    host, dev = new_pair()
    connect(host, dev)
    for now in range(0, 10_000, 50):
        exchange(host, dev, now)
    assert host.state is dev.state is LinkState.READY
    assert 8 <= host.health.heartbeats_sent <= 11 and 8 <= dev.health.heartbeats_sent <= 11
    assert host.peer_clock is not None and host.peer_clock[1] >= 9000
    seen = host.health.last_seen_ms
    lost_at = None
    for now in range(10_000, 20_000, 50):                   # the device goes silent (unplugged)
        dev.poll(now)
        host.poll(now)
        if host.state is LinkState.LOST:
            lost_at = now
            break
    assert lost_at is not None and 3500 <= lost_at - seen < 3550
    assert isinstance(host.last_error, LinkLost) and host.health.links_lost == 1


def test_device_without_acks_gives_up_after_max_retries_and_says_hello_again():
    host, dev = new_pair()
    connect(host, dev)
    host.receive(dev.send(StopCard(0), now_ms=0), 0)
    dev.receive(host.poll(0), 0)                            # rx/tx state the resume must carry
    dev.send(StopCard(1), now_ms=0)
    now, out = 0, b""
    while dev.state is LinkState.READY:
        now += 10
        out = dev.poll(now)                                 # the host never hears it, never answers
    assert dev.state is LinkState.LOST and dev.health.retransmits == 5
    assert isinstance(dev.last_error, LinkLost)
    assert now == 6 * 250                                   # 1 send + 5 resends, 250 ms apart
    (hello_frame,) = FrameDecoder().feed(out)               # the loss sends HELLO at once ...
    hello = decode_message(hello_frame.type, hello_frame.payload)
    assert isinstance(hello, Hello) and hello.session_id == 0xC0FFEE   # ... to resume this session
    got = host.receive(out, now)
    assert host.state is LinkState.READY and host.health.resumes == 1
    got += dev.receive(host.poll(now), now)
    got += host.receive(dev.poll(now), now)
    assert got == [StopCard(1)]
    dev.receive(host.poll(now), now)
    assert dev.pending == 0


def test_host_restart_resets_the_device_and_nothing_is_lost():
    host, dev = new_pair()
    connect(host, dev)
    dev.send(CallPressed("1S", 1), now_ms=1)                # never reaches the old host
    host = HostSession()                                    # host process restarted
    got: list[Message] = []
    for now in range(0, 3000, 10):
        got += host.receive(dev.poll(now), now)
        dev.receive(host.poll(now), now)
    assert got == [CallPressed("1S", 1)]
    assert host.state is dev.state is LinkState.READY
    assert dev.health.handshakes == 2


class LossyLink:
    """Carries bytes between a host and a device session, frame by frame, with seeded faults."""

    def __init__(self, seed: int, drop: float, dup: float, corrupt: float, garbage: float = 0.0) -> None:
        self.rng = random.Random(seed)
        self.drop, self.dup, self.corrupt, self.garbage = drop, dup, corrupt, garbage
        self.cut = False
        self.counts = {"drop": 0, "dup": 0, "corrupt": 0, "garbage": 0}

    def carry(self, data: bytes) -> list[bytes]:
        if self.cut or not data:
            return []
        rng = self.rng
        out = bytearray()
        for part in data.split(b"\x00")[:-1]:
            frame = part + b"\x00"
            if rng.random() < self.drop:
                self.counts["drop"] += 1
                continue
            if rng.random() < self.corrupt:
                self.counts["corrupt"] += 1
                b = bytearray(frame)
                i = rng.randrange(len(b))
                b[i] ^= 1 << rng.randrange(8)
                frame = bytes(b)
            if rng.random() < self.garbage:
                self.counts["garbage"] += 1
                out += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
            out += frame
            if rng.random() < self.dup:
                self.counts["dup"] += 1
                out += frame
        chunks, i = [], 0                                   # arbitrary read sizes
        while i < len(out):
            n = rng.randrange(1, 64)
            chunks.append(bytes(out[i:i + n]))
            i += n
        return chunks


def run_link(host, dev, link, to_host, to_dev, *, step=5, limit_ms=600_000, outage=None):
    """Send everything (spread over time), run until all is delivered and acknowledged."""
    got_host: list[Message] = []
    got_dev: list[Message] = []
    rng = random.Random(99)
    pending_h, pending_d = list(to_host), list(to_dev)
    now = 0
    dev.receive(b"", now)
    link_out_d = link.carry(dev.start(now))
    for chunk in link_out_d:
        got_host += host.receive(chunk, now)
    while now < limit_ms:
        now += step
        link.cut = outage is not None and outage[0] <= now < outage[1]
        out_d = bytearray()
        out_h = bytearray()
        for _ in range(rng.randrange(0, 4)):
            if pending_h:
                out_d += dev.send(pending_h.pop(0), now_ms=now)
            if pending_d:
                out_h += host.send(pending_d.pop(0), now_ms=now)
        out_d += dev.poll(now)
        out_h += host.poll(now)
        for chunk in link.carry(bytes(out_d)):
            got_host += host.receive(chunk, now)
        for chunk in link.carry(bytes(out_h)):
            got_dev += dev.receive(chunk, now)
        if (not pending_h and not pending_d and host.pending == 0 and dev.pending == 0
                and len(got_host) >= len(to_host) and len(got_dev) >= len(to_dev)
                and host.state is dev.state is LinkState.READY):
            break
    return got_host, got_dev, now


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_lossy_link_delivers_every_reliable_message_exactly_once_in_order(seed):
    host, dev = new_pair()
    link = LossyLink(seed, drop=0.10, dup=0.05, corrupt=0.05, garbage=0.03)
    to_host = [CardRead(Zone.PLAY, bytes([i % 256, i // 256, 7, 7]), i) for i in range(300)]
    to_dev = [ShowAuction("N", ("Pass",) * (i % 20)) for i in range(120)]
    got_host, got_dev, now = run_link(host, dev, link, to_host, to_dev)
    assert got_host == to_host
    assert [m for m in got_dev if not isinstance(m, Reset)] == to_dev   # RESET: host asked for a re-handshake
    assert host.state is dev.state is LinkState.READY
    assert all(link.counts[k] > 0 for k in link.counts)
    assert host.health.crc_errors + dev.health.crc_errors > 0
    assert host.health.retransmits + dev.health.retransmits > 0
    assert host.health.duplicates + dev.health.duplicates > 0


def test_outage_then_resume_loses_nothing_and_repeats_nothing():
    host, dev = new_pair()
    link = LossyLink(7, drop=0.02, dup=0.01, corrupt=0.01)
    to_host = [CallPressed(CALL_CODES[3 + i % 35], i, alert=bool(i % 3)) for i in range(200)]
    to_dev = [ShowTurn("NESW"[i % 4]) for i in range(80)]
    got_host, got_dev, now = run_link(host, dev, link, to_host, to_dev, outage=(200, 6000))
    assert got_host == to_host and [m for m in got_dev if not isinstance(m, Reset)] == to_dev
    assert host.health.links_lost >= 1 and dev.health.links_lost >= 1
    assert host.health.resumes >= 1 and dev.health.resumes >= 1
    assert host.state is dev.state is LinkState.READY


def test_a_late_duplicate_hello_does_not_disturb_the_running_session():
    host, dev = new_pair()
    hello1 = dev.start(0)
    hello2 = dev.poll(500)                                  # resent: the WELCOME was slow
    host.receive(hello1, 500)
    dev.receive(host.poll(500), 501)                        # WELCOME #1: device READY
    assert dev.receive(host.send(ShowTurn("N"), now_ms=502), 502) == [ShowTurn("N")]
    assert host.receive(dev.send(StopCard(1), now_ms=503), 503) == [StopCard(1)]   # acks ShowTurn
    assert host.pending == 0
    host.receive(hello2, 504)                               # HELLO #2 arrives late (rx_next 0: stale)
    assert host.state is LinkState.READY and host.health.bad_acks == 0
    assert dev.receive(host.poll(504), 504) == []            # WELCOME #2 ignored by a READY device
    assert dev.receive(host.send(ShowTurn("E"), now_ms=505), 505) == [ShowTurn("E")]
    assert host.receive(dev.send(StopCard(2), now_ms=506), 506) == [StopCard(2)]
    assert dev.health.duplicates == host.health.duplicates == 0


def test_reset_makes_the_device_say_hello_again_and_resume():
    host, dev = new_pair()
    connect(host, dev)
    host.send(ShowTurn("W"), now_ms=1)                      # in flight, never delivered
    got = dev.receive(host.send(Reset(ErrorCode.NONE, reboot=True), now_ms=2), 2)
    assert got == [Reset(ErrorCode.NONE, reboot=True)] and dev.state is LinkState.CONNECTING
    host.receive(dev.poll(2), 2)                            # the HELLO
    assert host.health.resumes == 1
    assert dev.receive(host.poll(2), 2) == [ShowTurn("W")]   # WELCOME, then the resend
    assert dev.state is LinkState.READY


def test_device_reboot_starts_a_fresh_session():
    host, dev = new_pair()
    connect(host, dev)
    host.send(ShowTurn("N"), now_ms=1)                       # the device dies before receiving it
    dev2 = DeviceSession(DeviceKind.BIDDING_BOX, "BB-0042", "2.1.0", session_id=0xBEEF)
    host.receive(dev2.start(2), 2)
    assert host.health.resumes == 0 and host.health.handshakes == 2
    at_host, at_dev = exchange(host, dev2, 3)
    assert at_dev == [ShowTurn("N")]                        # renumbered and re-sent in the new session
    assert dev2.receive(host.send(ShowTurn("E")), 4) == [ShowTurn("E")]


def test_next_deadline_tells_the_caller_when_to_poll():
    host, dev = new_pair()
    assert dev.next_deadline() is None
    dev.start(0)
    assert dev.next_deadline() == 500
    connect(host, dev, 0)
    wire = dev.send(StopCard(1), now_ms=10)
    assert dev.next_deadline() == 10 + 250
    host.receive(wire, 11)
    assert host.next_deadline() == 11                        # an ACK is due at once


# == properties ============================================================================================
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.binary(max_size=700), max_size=8))
def test_decoder_never_raises_on_arbitrary_bytes(chunks):
    d = FrameDecoder()
    for c in chunks:
        for f in d.feed(c):
            assert isinstance(f, Frame)
    assert d.pending <= MAX_ENCODED


@settings(max_examples=200)
@given(st.lists(st.binary(max_size=200), max_size=6))
def test_session_receive_never_raises_on_arbitrary_bytes(chunks):
    host, dev = new_pair()
    connect(host, dev)
    for c in chunks:
        host.receive(c, 1)
        dev.receive(c, 1)
        host.poll(2)
        dev.poll(2)


@settings(max_examples=200)
@given(frames_strategy(), st.binary(max_size=50), st.lists(st.integers(0, 2000), max_size=10))
def test_any_frame_survives_arbitrary_chunking(frame, garbage, cuts):
    stream = garbage + b"\x00" + encode_frame(frame)
    points = sorted({c % (len(stream) + 1) for c in cuts})
    d = FrameDecoder()
    got, prev = [], 0
    for p in points + [len(stream)]:
        got += d.feed(stream[prev:p])
        prev = p
    assert got[-1:] == [frame]
    assert d.pending == 0


@settings(max_examples=500)
@given(frames_strategy(max_payload=64), st.data())
def test_a_single_flipped_bit_is_never_accepted(frame, data):
    wire = bytearray(encode_frame(frame))
    bit = data.draw(st.integers(0, len(wire) * 8 - 1))
    wire[bit // 8] ^= 1 << (bit % 8)
    d = FrameDecoder()
    assert d.feed(bytes(wire) + b"\x00") == []
    assert d.stats.errors >= 1
