"""BHG: one line of letters per board (``.bhg``).

Layout: text lines; line *n* holds board *n* (line 0 is empty) and an empty line means "no board with
this number". A board is 52 letters, the four hands in turn from the dealer (Law 2: the number gives
the dealer), 13 letters each; a letter is a card index, ``A``-``Z`` 0-25 and ``a``-``z`` 26-51
(``ALL_CARDS`` order).
"""
from __future__ import annotations

from collections.abc import Sequence

from ..board import dealer_for
from ..cards import ALL_CARDS, SEATS, Seat
from ..texts import Text
from .base import CARD_INDEX, NO_BOARDS, HandRecordBoard, HandRecordError, make_deal, require_positional, standard

NAME = "BHG"
SUFFIXES = (".bhg",)


def _index(ch: str) -> int:
    if "A" <= ch <= "Z":
        return ord(ch) - 65
    if "a" <= ch <= "z":
        return ord(ch) - 97 + 26
    return -1


def _letter(card: str) -> str:
    i = CARD_INDEX[card]
    return chr(65 + i) if i < 26 else chr(97 + i - 26)


def read(data: bytes, source: str) -> list[HandRecordBoard]:
    lines = data.decode("latin-1").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    boards = []
    for n, line in enumerate(lines):
        line = line.strip(" \t\x1a\0")
        if n == 0 or not line:
            continue
        if len(line) != 52:
            raise HandRecordError(source, Text("records.bhg_length", "line {line} has {count} characters, a board "
                                               "needs 52 letters", line=n + 1, count=len(line)), n)
        bad = next((ch for ch in line if _index(ch) < 0), None)
        if bad is not None:
            raise HandRecordError(source, Text("records.bhg_letter", "{letter} is not a card letter (A-Z, a-z)",
                                               letter=repr(bad)), n)
        first = SEATS.index(dealer_for(n))
        hands: dict[Seat, list[str]] = {}
        for k in range(4):                            # hands from the dealer round the table
            hands[SEATS[(first + k) % 4]] = [ALL_CARDS[_index(ch)] for ch in line[13 * k:13 * (k + 1)]]
        boards.append(standard(n, make_deal(hands, source, n)))
    if not boards:
        raise HandRecordError(source, NO_BOARDS)
    return boards


def write(boards: Sequence[HandRecordBoard], source: str) -> bytes:
    require_positional(boards, NAME, source, consecutive=False)
    lines = [""] * (boards[-1].board + 2)          # line 0 and a final empty line, as the files have
    for b in boards:
        first = SEATS.index(b.dealer)
        lines[b.board] = "".join(_letter(c) for k in range(4)
                                 for c in sorted(b.deal.hands[SEATS[(first + k) % 4]], key=CARD_INDEX.__getitem__))
    return "\r\n".join(lines).encode("ascii")
