"""RZD: two bits per card (``.rzd``); also the 13-byte board body of CDS.

Layout: a 13-byte header (board count as a little-endian u16, then 11 spaces), then 13 bytes per board,
boards numbered by position from 1. Byte *r* (rank A, K, ... 2) holds the owners of the four cards of
that rank, two bits each: spades in the top bits, then hearts, diamonds, clubs in the low bits;
owner 0 N, 1 E, 2 S, 3 W.
"""
from __future__ import annotations

import struct
from collections.abc import Sequence

from ..cards import RANKS, SEATS, SUITS, Deal, Seat
from ..texts import Text
from .base import (
    CARD_INDEX,
    NO_BOARDS,
    HandRecordBoard,
    HandRecordError,
    deal_from_owners,
    not_whole,
    require_positional,
    standard,
)

NAME = "RZD"
SUFFIXES = (".rzd",)
HEADER = 13
BODY = 13
_SEAT_NO = {s: i for i, s in enumerate(SEATS)}


def decode_body(body: bytes, source: str, board: int, offset: int = 0) -> Deal:
    """The deal in 13 bytes; ``offset`` is added to every stored owner (CDS stores N as 1)."""
    owners: list[Seat] = [Seat.N] * 52
    for r, byte in enumerate(body):
        for s in range(3, -1, -1):                  # clubs sit in the low bits
            owners[CARD_INDEX[SUITS[s] + RANKS[r]]] = SEATS[(byte % 4 - offset) % 4]
            byte //= 4
    return deal_from_owners(owners, source, board)


def encode_body(deal: Deal, offset: int = 0) -> bytes:
    out = bytearray()
    for r in RANKS:
        byte = 0
        for s in SUITS:
            byte = byte * 4 + (_SEAT_NO[deal.owner[s + r]] + offset) % 4
        out.append(byte)
    return bytes(out)


def read(data: bytes, source: str) -> list[HandRecordBoard]:
    if len(data) < HEADER:
        raise HandRecordError(source, Text("records.rzd_short", "too short for an RZD header ({size} bytes)",
                                           size=len(data)))
    count = struct.unpack_from("<H", data)[0]
    body = data[HEADER:]
    if len(body) % BODY:
        raise HandRecordError(source, not_whole(len(body), BODY, after_header=True), len(body) // BODY + 1)
    if count != len(body) // BODY:
        raise HandRecordError(source, Text("records.rzd_count", "the header announces {count} boards, the file holds "
                                           "{records}", count=count, records=len(body) // BODY))
    if not count:
        raise HandRecordError(source, NO_BOARDS)
    return [standard(k + 1, decode_body(body[k * BODY:(k + 1) * BODY], source, k + 1)) for k in range(count)]


def write(boards: Sequence[HandRecordBoard], source: str) -> bytes:
    require_positional(boards, NAME, source, limit=0xFFFF)
    return struct.pack("<H", len(boards)) + b" " * 11 + b"".join(encode_body(b.deal) for b in boards)
