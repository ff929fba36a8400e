"""DUP: the Duplimate dealing machine's board file (``.dup``).

Layout: one 156-byte record per board, in board order. Bytes 0-77 are the board in BRI form (39 card
numbers, see ``bri``), bytes 78-145 the same board in DGE form (suit markers and ranks, see ``dge``),
bytes 146-155 a header in the first record and zeros in the others. The header is ASCII
``"YN" + first board (2 characters, left-justified) + " 0 " + board count (2 digits) + " "``, e.g.
``"YN1  0 16 "``. The second header byte is read as a "reversed" flag when it is not ``N``; nobody
documents what a reversed set means, so such a file is refused rather than guessed at.

The file says everything twice; reading checks that both halves agree, which catches a damaged file.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from ..texts import Text
from .base import HandRecordBoard, HandRecordError, make_deal, not_whole, require_positional, standard
from .bri import CARDS_LEN, decode_cards, encode_cards
from .dge import decode_hands, encode_hands

NAME = "DUP"
SUFFIXES = (".dup",)
RECORD = 156
HEADER_AT = 146
_NUMBER = re.compile(rb" *[0-9]+ *")


def read(data: bytes, source: str) -> list[HandRecordBoard]:
    if len(data) < RECORD:
        raise HandRecordError(source, Text("records.dup_short", "too short for a DUP file ({size} bytes; one board "
                                           "takes {record})", size=len(data), record=RECORD))
    if len(data) % RECORD:
        raise HandRecordError(source, not_whole(len(data), RECORD),
                              len(data) // RECORD + 1)
    head = data[HEADER_AT:RECORD]
    # only the first board (bytes 2-3) and the count (bytes 7-8) are known to mean something
    if head[0] == 0 or not (_NUMBER.fullmatch(head[2:4]) and _NUMBER.fullmatch(head[7:9])):
        raise HandRecordError(source, Text("records.dup_header", "no DUP header in the first record (found {found})",
                                           found=repr(head)))
    if head[1:2] != b"N":
        raise HandRecordError(source, Text("records.dup_reversed", "the header's 'reversed' flag is set; reversed sets "
                                           "are not supported"))
    first, count = int(head[2:4]), int(head[7:9])
    records = len(data) // RECORD
    if count != records or first < 1:
        raise HandRecordError(source, Text("records.dup_count", "the header announces {count} boards from board "
                                           "{first}, the file holds {records}", count=count, first=first,
                                           records=records))
    boards = []
    for k in range(records):
        rec = data[k * RECORD:(k + 1) * RECORD]
        number = first + k
        one = make_deal(decode_cards(rec[:CARDS_LEN], source, number), source, number)
        two = make_deal(decode_hands(rec[CARDS_LEN:HEADER_AT], source, number), source, number)
        if one != two:
            raise HandRecordError(source, Text("records.dup_copies", "the two copies of the deal in the record "
                                                   "disagree (damaged file)"),
                                  number)
        boards.append(standard(number, one))
    return boards


def write(boards: Sequence[HandRecordBoard], source: str) -> bytes:
    require_positional(boards, NAME, source, first=None, limit=99)
    if len(boards) > 99:
        raise HandRecordError(source, Text("records.dup_limit", "DUP holds at most 99 boards, not {count}",
                                           count=len(boards)))
    header = f"YN{boards[0].board:<2d} 0 {len(boards):02d} ".encode("ascii")
    out = bytearray()
    for k, b in enumerate(boards):
        out += encode_cards(b) + encode_hands(b) + (header if k == 0 else b"\0" * 10)
    return bytes(out)
