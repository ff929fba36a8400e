"""DGE: the fixed-record file with suit symbols (``.dge``).

Layout: one 128-byte record per board, boards numbered by position from 1. A record is the four hands
North, East, South, West, each as four suits, each suit a marker byte followed by its ranks
(``AKQJT98765432`` order); markers are the IBM PC code-page glyph bytes 0x06 ♠, 0x03 ♥, 0x04 ♦,
0x05 ♣. 16 markers + 52 ranks = 68 bytes, then 60 zero bytes.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..cards import SEATS, Seat
from ..texts import Text
from .base import NO_BOARDS, HandRecordBoard, HandRecordError, make_deal, require_positional, standard, suits_of

NAME = "DGE"
SUFFIXES = (".dge",)
RECORD = 128
HANDS_LEN = 68
MARKERS = {6: "S", 3: "H", 4: "D", 5: "C"}
_MARKER_OF = {s: bytes([m]) for m, s in MARKERS.items()}
_RANKS = frozenset(b"AKQJT98765432")


def decode_hands(chunk: bytes, source: str, board: int) -> dict[Seat, list[str]]:
    text = chunk[:HANDS_LEN]
    if len(text) < HANDS_LEN:
        raise HandRecordError(source, Text("records.dge_truncated", "truncated record ({size} bytes, the hands need "
                                           "{need})", size=len(text), need=HANDS_LEN), board)
    if text[0] not in MARKERS:
        raise HandRecordError(source, Text("records.dge_start", "a record starts with a suit marker (0x03-0x06), not "
                                           "0x{byte}", byte=f"{text[0]:02X}"), board)
    hands: dict[Seat, list[str]] = {s: [] for s in SEATS}
    groups = -1
    suit = ""
    for byte in text:
        if byte in MARKERS:
            groups += 1
            suit = MARKERS[byte]
            if groups >= 16:
                raise HandRecordError(source, Text("records.dge_markers_over", "more than 16 suit markers (4 hands "
                                                   "of 4 suits)"), board)
        elif byte in _RANKS:
            hands[SEATS[groups // 4]].append(suit + chr(byte))
        else:
            raise HandRecordError(source, Text("records.dge_byte", "byte 0x{byte} is neither a suit marker nor a rank",
                                               byte=f"{byte:02X}"), board)
    if groups != 15:
        raise HandRecordError(source, Text("records.dge_markers", "{count} suit markers, not 16 (4 hands of 4 suits)",
                                           count=groups + 1), board)
    return hands


def encode_hands(b: HandRecordBoard) -> bytes:
    out = bytearray()
    for s in SEATS:
        for suit, ranks in zip("SHDC", suits_of(b.deal, s)):
            out += _MARKER_OF[suit] + ranks.encode("ascii")
    return bytes(out)


def read(data: bytes, source: str) -> list[HandRecordBoard]:
    boards = []
    for k in range(0, len(data), RECORD):
        rec = data[k:k + RECORD]
        board = k // RECORD + 1
        if not rec.strip(b" \0\r\n\x1a"):
            break
        boards.append(standard(board, make_deal(decode_hands(rec, source, board), source, board)))
    if not boards:
        raise HandRecordError(source, NO_BOARDS)
    return boards


def write(boards: Sequence[HandRecordBoard], source: str) -> bytes:
    require_positional(boards, NAME, source)
    return b"".join(encode_hands(b) + b"\0" * (RECORD - HANDS_LEN) for b in boards)
