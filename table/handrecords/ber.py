"""BER: one owner digit per card (``.ber``).

Layout: 52 ASCII digits per board, boards numbered by position from 1, no separators: digit *i* is the
owner of card *i* (``ALL_CARDS`` order), ``1`` N, ``2`` E, ``3`` S, ``4`` W. Line breaks between boards,
which some tools add, are ignored.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..cards import SEATS
from ..texts import Text
from .base import NO_BOARDS, HandRecordBoard, HandRecordError, deal_from_owners, owners_of, require_positional, standard

NAME = "BER"
SUFFIXES = (".ber",)
_OWNER = {ord(str(i + 1)): s for i, s in enumerate(SEATS)}
_DIGIT = {s: str(i + 1) for i, s in enumerate(SEATS)}


def read(data: bytes, source: str) -> list[HandRecordBoard]:
    text = bytes(b for b in data if b not in b" \t\r\n\x1a\0")
    if not text:
        raise HandRecordError(source, NO_BOARDS)
    boards = []
    for k in range(0, len(text), 52):
        chunk = text[k:k + 52]
        n = k // 52 + 1
        if len(chunk) < 52:
            raise HandRecordError(source, Text("records.ber_truncated", "truncated: {count} owner digits, a board "
                                               "needs 52", count=len(chunk)), n)
        bad = next((b for b in chunk if b not in _OWNER), None)
        if bad is not None:
            raise HandRecordError(source, Text("records.ber_digit", "{byte} is not an owner digit 1-4",
                                               byte=repr(chr(bad))), n)
        boards.append(standard(n, deal_from_owners([_OWNER[b] for b in chunk], source, n)))
    return boards


def write(boards: Sequence[HandRecordBoard], source: str) -> bytes:
    require_positional(boards, NAME, source)
    return "".join(_DIGIT[s] for b in boards for s in owners_of(b.deal)).encode("ascii")
