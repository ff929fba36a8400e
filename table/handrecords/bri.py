"""BRI: the fixed-record file of the Duplimate-era dealing software (``.bri``).

Layout (our description of sample files; see ``docs/dealing.md``): one 128-byte record per
board, boards numbered by position from 1. A record is 39 two-digit ASCII card numbers — North's 13
cards, then East's, then South's; West holds the other 13 — then 32 spaces and 18 zero bytes. Card
number ``n`` (01..52) is index ``n - 1`` of S A..2, H A..2, D A..2, C A..2.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..cards import ALL_CARDS, SEATS, Seat
from ..texts import Text
from .base import CARD_INDEX, NO_BOARDS, HandRecordBoard, HandRecordError, make_deal, require_positional, standard

NAME = "BRI"
SUFFIXES = (".bri",)
RECORD = 128
CARDS_LEN = 78                      # 39 numbers of two digits
_PAD = b" " * 32 + b"\0" * 18


def decode_cards(chunk: bytes, source: str, board: int) -> dict[Seat, list[str]]:
    """North, East and South from 78 digits; West gets the rest."""
    text = chunk[:CARDS_LEN]
    if len(text) < CARDS_LEN or not text.isdigit():
        raise HandRecordError(source, Text("records.bri_digits", "expected 78 digits (39 card numbers), found {found}",
                                           found=repr(bytes(text)[:40])), board)
    hands: dict[Seat, list[str]] = {s: [] for s in SEATS}
    for k in range(39):
        n = int(text[2 * k:2 * k + 2])
        if not 1 <= n <= 52:
            raise HandRecordError(source, Text("records.bri_number", "card number {number} is not 01..52",
                                               number=f"{n:02d}"), board)
        hands[SEATS[k // 13]].append(ALL_CARDS[n - 1])
    used = {c for cs in hands.values() for c in cs}
    if len(used) != 39:
        raise HandRecordError(source, Text("records.bri_twice", "a card number appears twice"), board)
    hands[Seat.W] = [c for c in ALL_CARDS if c not in used]
    return hands


def encode_cards(b: HandRecordBoard) -> bytes:
    return "".join(f"{CARD_INDEX[c] + 1:02d}" for s in SEATS[:3]
                   for c in sorted(b.deal.hands[s], key=CARD_INDEX.__getitem__)).encode("ascii")


def read(data: bytes, source: str) -> list[HandRecordBoard]:
    boards = []
    for k in range(0, len(data), RECORD):
        rec = data[k:k + RECORD]
        board = k // RECORD + 1
        if not rec.strip(b" \0\r\n\x1a"):
            break                                    # padding after the last board
        if len(rec) < CARDS_LEN:
            raise HandRecordError(source, Text("records.bri_truncated", "truncated record ({size} bytes, a board needs "
                                               "{need})", size=len(rec), need=CARDS_LEN), board)
        boards.append(standard(board, make_deal(decode_cards(rec, source, board), source, board)))
    if not boards:
        raise HandRecordError(source, NO_BOARDS)
    return boards


def write(boards: Sequence[HandRecordBoard], source: str) -> bytes:
    require_positional(boards, NAME, source)
    return b"".join(encode_cards(b) + _PAD for b in boards)
