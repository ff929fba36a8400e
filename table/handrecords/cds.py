"""CDS: numbered two-bits-per-card boards (``.cds``).

Layout: 14 bytes per board, no header: the board number (one byte, 1..255), then the 13-byte body of
RZD (``rzd.decode_body``) with every owner stored plus one: 1 N, 2 E, 3 S, 0 W.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..texts import Text
from .base import NO_BOARDS, HandRecordBoard, HandRecordError, check_set, not_whole, require_positional, standard
from .rzd import decode_body, encode_body

NAME = "CDS"
SUFFIXES = (".cds",)
RECORD = 14


def read(data: bytes, source: str) -> list[HandRecordBoard]:
    if not data:
        raise HandRecordError(source, NO_BOARDS)
    if len(data) % RECORD:
        raise HandRecordError(source, not_whole(len(data), RECORD))
    boards = []
    for k in range(0, len(data), RECORD):
        n = data[k]
        if n == 0:
            raise HandRecordError(source, Text("records.cds_zero", "record {record} has board number 0",
                                               record=k // RECORD + 1))
        boards.append(standard(n, decode_body(data[k + 1:k + RECORD], source, n, offset=1)))
    return check_set(boards, source)


def write(boards: Sequence[HandRecordBoard], source: str) -> bytes:
    require_positional(boards, NAME, source, limit=255, consecutive=False)
    return b"".join(bytes([b.board]) + encode_body(b.deal, offset=1) for b in boards)
