"""Writes firmware/vectors/frames.json, the golden frames shared by firmware_host and the firmware's C code.

Run from the repository root: ``python tests/firmware/make_vectors.py``. The file is committed; the tests in
tests/firmware/test_vectors.py check both implementations against it (and so against each other).

Each vector: ``wire`` (hex, as on the line), ``frames`` (what a receiver makes of it, in order: a frame with its
header, payload and message verdict, or an ``error`` kind), and optionally ``message`` (the firmware_host class
and fields of the frame's message: Python encodes it to ``wire`` and decodes ``wire`` to it) and ``c_encode``
(the command of firmware/tools/vectors.c that must print ``wire``).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from firmware_host import MESSAGE_TYPES, DecodeError, Frame, FrameDecoder, decode_message, encode_frame
from firmware_host.errors import MalformedPayload, UnknownMessageType

OUT = Path(__file__).resolve().parents[2] / "firmware" / "vectors" / "frames.json"
RELIABLE, RETRANSMIT, FROM_HOST = 1, 2, 4
CLASSES = {cls.__name__: cls for cls in MESSAGE_TYPES.values()}


def build_message(spec: dict[str, Any]) -> Any:
    fields = {k: (bytes.fromhex(v) if k == "uid" else tuple(bytes.fromhex(u) for u in v) if k == "uids"
                  else tuple(v) if isinstance(v, list) else v)
              for k, v in spec["fields"].items()}
    return CLASSES[spec["class"]](**fields)


def receive(wire: bytes) -> list[dict[str, Any]]:
    """What firmware_host's stream decoder makes of ``wire``, in order."""
    out: list[dict[str, Any]] = []

    def on_error(e: DecodeError) -> None:
        out.append({"error": e.kind.name})
    dec = FrameDecoder(on_error=on_error)
    for i in range(len(wire)):                        # byte by byte: errors and frames interleave in order
        for f in dec.feed(wire[i:i + 1]):
            try:
                decode_message(f.type, f.payload)
                verdict = "OK"
            except UnknownMessageType:
                verdict = "UNKNOWN_MESSAGE"
            except MalformedPayload:
                verdict = "MALFORMED_PAYLOAD"
            out.append({"type": f.type, "flags": f.flags, "seq": f.seq, "ack": f.ack, "payload": f.payload.hex(),
                        "message": verdict})
    return out


def vector(name: str, wire: bytes, message: dict[str, Any] | None = None, c_encode: str | None = None) -> dict:
    v: dict[str, Any] = {"name": name, "wire": wire.hex(), "frames": receive(wire)}
    if message is not None:
        v["message"] = message
    if c_encode is not None:
        v["c_encode"] = c_encode
    return v


def message_vector(name: str, cls: str, fields: dict[str, Any], *, flags: int = 0, seq: int = 0, ack: int = 0,
                   c_encode: str | None = None) -> dict:
    spec = {"class": cls, "fields": fields, "flags": flags, "seq": seq, "ack": ack}
    msg = build_message(spec)
    wire = encode_frame(Frame(msg.TYPE, seq, ack, flags, msg.encode()))
    return vector(name, wire, spec, c_encode)


def raw_frame(type_: int, payload: bytes, *, flags: int = FROM_HOST, seq: int = 0, ack: int = 0) -> bytes:
    return encode_frame(Frame(type_, seq, ack, flags, payload))


def corrupt_header(frame: bytes, offset: int, value: int) -> bytes:
    """Re-encode ``frame`` (a wire frame) with decoded byte ``offset`` set to ``value`` and a correct CRC."""
    from firmware_host import cobs, crc
    raw = bytearray(cobs.decode(frame[:-1]))
    raw[offset] = value & 0xFF
    if offset == 5:
        raw[6] = (value >> 8) & 0xFF
    body = bytes(raw[:-4])
    return cobs.encode(body + crc.crc32(body).to_bytes(4, "little")) + b"\x00"


def vectors() -> list[dict[str, Any]]:
    uid7 = "04a1b2c3d4e5f6"
    device = [
        message_vector("heartbeat from a device (docs/protocol.md §12 frame 1)", "Heartbeat", {"clock_ms": 0x12345678},
                       c_encode="msg heartbeat 0 0 0 0x12345678"),
        message_vector("CALL_PRESSED 1NT alerted (§12 frame 2)", "CallPressed",
                       {"call": "1NT", "ts": 1000, "alert": True}, flags=RELIABLE, seq=5, ack=2,
                       c_encode="msg call_pressed 1 5 2 7 1 1000"),
        message_vector("HELLO of a seat reader (§12 frame 3)", "Hello",
                       {"kind": 1, "serial": "SR-000123", "firmware": "1.4.2", "versions": [1], "capabilities": 0xC0,
                        "session_id": 0x01020304, "rx_next": 0},
                       c_encode="msg hello 0 0 0 1 0xC0 0x01020304 0 SR-000123 1.4.2"),
        message_vector("HELLO of a bidding box, resuming (rx_next 9), 24-character serial", "Hello",
                       {"kind": 2, "serial": "BB-TABLE-0012-SOUTH-0001", "firmware": "seatunit-1.0.0",
                        "versions": [1], "capabilities": 4, "session_id": 0xDEADBEEF, "rx_next": 9},
                       c_encode="msg hello 0 0 0 2 4 0xDEADBEEF 9 BB-TABLE-0012-SOUTH-0001 seatunit-1.0.0"),
        message_vector("CARD_READ, 7-byte UID, RSSI not measured", "CardRead",
                       {"zone": 0, "uid": uid7, "ts": 123456, "rssi": None},
                       flags=RELIABLE, seq=0, ack=3, c_encode=f"msg card_read 1 0 3 0 123456 -128 {uid7}"),
        message_vector("CARD_READ, 4-byte UID in dummy's zone, RSSI -40, retransmitted", "CardRead",
                       {"zone": 1, "uid": "00ff0001", "ts": 0, "rssi": -40},
                       flags=RELIABLE | RETRANSMIT, seq=255, ack=0, c_encode="msg card_read 3 255 0 1 0 -40 00ff0001"),
        message_vector("HAND_READ part 2 of 4 of a hand, four 7-byte UIDs", "HandScan",
                       {"zone": 2, "ts": 12345, "part": 1, "parts": 4,
                        "uids": ["04a1b2c3d4e5f6", "0401020304050a", "04ffeeddccbbaa", "04000000000001"]},
                       flags=RELIABLE, seq=7, ack=0),
        message_vector("HAND_READ whole, one part, no tags", "HandScan", {"zone": 2, "ts": 0, "part": 0,
                       "parts": 1, "uids": []}, flags=RELIABLE, seq=8, ack=0),
        message_vector("READER_STATUS OK", "ReaderStatus", {"status": 0, "ts": 42, "antennas": 1, "tags_in_field": 1},
                       flags=RELIABLE, seq=1, ack=0, c_encode="msg reader_status 1 1 0 0 1 1 42"),
        message_vector("READER_STATUS antenna fault", "ReaderStatus",
                       {"status": 1, "ts": 0xFFFFFFFF, "antennas": 0, "tags_in_field": 0},
                       flags=RELIABLE, seq=2, ack=1, c_encode="msg reader_status 1 2 1 1 0 0 0xFFFFFFFF"),
        message_vector("UNIT_STATUS after a watchdog reset", "UnitStatus",
                       {"reset_cause": 8, "stack_peak": 259, "reader_resets": 2, "ts": 1500},
                       flags=RELIABLE, seq=3, ack=1, c_encode="msg unit_status 1 3 1 8 259 2 1500"),
        message_vector("CALL_PRESSED Pass", "CallPressed", {"call": "Pass", "ts": 0},
                       flags=RELIABLE, seq=0, ack=0, c_encode="msg call_pressed 1 0 0 0 0 0"),
        message_vector("CALL_PRESSED XX", "CallPressed", {"call": "XX", "ts": 77},
                       flags=RELIABLE, seq=128, ack=127, c_encode="msg call_pressed 1 128 127 2 0 77"),
        message_vector("CALL_PRESSED 7NT", "CallPressed", {"call": "7NT", "ts": 65536},
                       flags=RELIABLE, seq=9, ack=9, c_encode="msg call_pressed 1 9 9 37 0 65536"),
        message_vector("UNDO 2H", "Undo", {"call": "2H", "ts": 5000},
                       flags=RELIABLE, seq=3, ack=0, c_encode="msg undo 1 3 0 10 5000"),
        message_vector("STOP_CARD", "StopCard", {"ts": 1}, flags=RELIABLE, seq=4, ack=0,
                       c_encode="msg stop_card 1 4 0 1"),
        message_vector("DIRECTOR_CALL", "DirectorCall", {"ts": 90061}, flags=RELIABLE, seq=5, ack=1,
                       c_encode="msg director_call 1 5 1 90061"),
        message_vector("ACK from a device", "Ack", {}, ack=17, c_encode="msg ack 0 0 17"),
        message_vector("NACK of a malformed host frame", "Nack", {"seq": 3, "code": 0x0103}, ack=4,
                       c_encode="msg nack 0 0 4 3 0x0103"),
        message_vector("ERROR hardware fault", "ErrorMessage", {"code": 0x0201, "text": "antenna_open"},
                       flags=RELIABLE, seq=6, ack=2, c_encode="msg error 1 6 2 0x0201 antenna_open"),
    ]
    seats = "NESW" * 13
    host = [
        message_vector("WELCOME (§12 frame 4)", "Welcome",
                       {"version": 1, "session_id": 0x01020304, "resumed": False, "rx_next": 0, "seat": "N",
                        "table": 12}, flags=FROM_HOST),
        message_vector("WELCOME resumed, host timings of a simulated table, unbound", "Welcome",
                       {"version": 1, "session_id": 0xFFFFFFFF, "resumed": True, "rx_next": 7, "seat": None,
                        "table": 0, "heartbeat_ms": 1000, "link_timeout_ms": 20000, "retransmit_ms": 40,
                        "max_retries": 60}, flags=FROM_HOST),
        message_vector("RESET NOT_CONNECTED with reboot", "Reset", {"reason": 0x0106, "reboot": True}, flags=FROM_HOST),
        message_vector("BIND to East, table 12", "Bind", {"seat": "E", "table": 12}, flags=FROM_HOST | RELIABLE,
                       seq=0, ack=5),
        message_vector("BIND to no seat", "Bind", {"seat": None, "table": 0}, flags=FROM_HOST | RELIABLE, seq=1, ack=5),
        message_vector("ACK from the host", "Ack", {}, flags=FROM_HOST, ack=200),
        message_vector("HEARTBEAT from the host, clock 0", "Heartbeat", {"clock_ms": 0}, flags=FROM_HOST, ack=1),
        message_vector("SHOW_AUCTION of 300 calls (several COBS blocks)", "ShowAuction",
                       {"dealer": "W", "calls": ["Pass", "1C", "X", "XX"] * 75,
                        "alerts": [False, True, False, False] * 75}, flags=FROM_HOST | RELIABLE, seq=2, ack=0),
        message_vector("SHOW_CONTRACT 4S doubled by South", "ShowContract", {"contract": "4SX", "declarer": "S"},
                       flags=FROM_HOST | RELIABLE, seq=3, ack=0),
        message_vector("SHOW_CONTRACT passed out", "ShowContract", {"contract": "PASS"},
                       flags=FROM_HOST | RELIABLE, seq=4, ack=0),
        message_vector("SHOW_TURN nobody, idle", "ShowTurn", {"seat": None, "phase": 2},
                       flags=FROM_HOST | RELIABLE, seq=5, ack=0),
        message_vector("SHOW_ERROR with UTF-8 text", "ShowError",
                       {"code": 0x0301, "text": "Insufficient bid — call the director ♠"},
                       flags=FROM_HOST | RELIABLE, seq=6, ack=0),
        message_vector("SET_MODE prevent, 3 s undo window", "SetMode", {"mode": 1, "undo_window_ms": 3000},
                       flags=FROM_HOST | RELIABLE, seq=7, ack=0),
        message_vector("REFUSE_CALL 1C out of rotation", "RefuseCall",
                       {"call": "1C", "code": 0x0302, "text": "not your turn"}, flags=FROM_HOST | RELIABLE, seq=8),
        message_vector("DEAL_BOARD 1 (52 pockets, zero bytes)", "DealBoard", {"board": 1, "pockets": list(seats)},
                       flags=FROM_HOST | RELIABLE, seq=9, ack=0),
        message_vector("ERROR refusing a HELLO (unreliable)", "ErrorMessage",
                       {"code": 0x0107, "text": "unknown serial"}, flags=FROM_HOST),
        message_vector("NACK from the host", "Nack", {"seq": 12, "code": 0x0102}, flags=FROM_HOST, ack=13),
    ]
    good = bytes.fromhex(device[0]["wire"])
    welcome = bytes.fromhex(host[0]["wire"])
    flipped = bytearray(good)
    flipped[8] ^= 0x01                                  # a payload bit: the CRC catches it
    errors = [
        vector("bad CRC (one flipped bit)", bytes(flipped)),
        vector("bad COBS (a code byte points past the end)", bytes.fromhex("05010203") + b"\x00"),
        vector("too short (4 bytes)", bytes.fromhex("0501020304") + b"\x00"),
        vector("unsupported version 2", corrupt_header(good, 0, 2)),
        vector("length field over 512 (oversize)", corrupt_header(good, 5, 600)),
        vector("length field disagrees with the bytes", corrupt_header(good, 5, 3)),
        vector("more than 526 encoded bytes, then a good frame", b"\x07" * 600 + b"\x00" + good),
        vector("garbage, then padding zeros, then a good frame", bytes.fromhex("deadbeef") + b"\x00\x00\x00" + good),
        vector("half a frame (a device reset mid-frame) joins the next one; the one after decodes",
               good[:8] + welcome + welcome),
        vector("unknown message type 0x09", raw_frame(0x09, b"", flags=FROM_HOST | RELIABLE)),
        vector("malformed: CALL_PRESSED with call code 38",
               raw_frame(0x20, bytes([38, 0, 0, 0, 0, 0]), flags=RELIABLE)),
        vector("malformed: WELCOME with a reserved flag bit", raw_frame(0x02, bytes.fromhex(
            "0102040302010000" + "0c00e803ac0dfa0005"))),
        vector("malformed: SHOW_ERROR text not UTF-8", raw_frame(0x43, bytes.fromhex("0103" + "02c328"),
                                                                 flags=FROM_HOST | RELIABLE)),
        vector("malformed: BIND with a trailing byte", raw_frame(0x08, bytes.fromhex("01000000"),
                                                                 flags=FROM_HOST | RELIABLE)),
        vector("malformed: HAND_READ part 4 of 4 (parts count from 0)",
               raw_frame(0x11, bytes.fromhex("02" "00000000" "04" "04" "00"), flags=RELIABLE)),
        vector("malformed: CARD_READ with a 3-byte UID", raw_frame(0x10, bytes.fromhex("00000000008003010203"),
                                                                   flags=RELIABLE)),
    ]
    return device + host + errors


def main() -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"about": "golden frames: docs/protocol.md; written by tests/firmware/make_vectors.py",
                               "vectors": vectors()}, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
