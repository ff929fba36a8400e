"""PBN hand records (``.pbn``): the ``Board``, ``Dealer``, ``Vulnerable`` and ``Deal`` tags of each game.

Reading and writing go through ``table.formats.pbn`` (the project's PBN 2.1 reader and writer); other
tags (double-dummy tables, ``Ability``, ``Minimax`` ...) are ignored. A game must give its board
number and a complete deal (PBN 2.1 allows one hand as ``-``; the reader completes it).
"""
from __future__ import annotations

import io
from collections.abc import Sequence

from ..cards import CardError, Deal
from ..events import BoardStarted
from ..formats.pbn import read_pbn, write_pbn
from ..record import GameRecord
from .base import HandRecordBoard, HandRecordError, check_set

NAME = "PBN"
SUFFIXES = (".pbn",)


def read(data: bytes, source: str) -> list[HandRecordBoard]:
    boards = []
    for rec in read_pbn(io.BytesIO(data), source=source):
        start = rec.events[0] if rec.events and isinstance(rec.events[0], BoardStarted) else None
        number = start.board if start is not None else None
        if start is None or number is None:
            raise HandRecordError(source, f"game {rec.index + 1} has no board number"
                                  + (f" ({rec.error})" if rec.error else ""))
        if not start.deal:
            raise HandRecordError(source, "has no usable Deal tag" + (f" ({rec.error})" if rec.error else ""), number)
        try:
            deal = Deal.from_pbn(start.deal)
        except CardError as err:
            raise HandRecordError(source, f"unusable deal {start.deal!r}: {err}", number) from None
        if any(len(h) != 13 for h in deal.hands.values()):
            raise HandRecordError(source, f"the deal {start.deal!r} does not give all four hands", number)
        boards.append(HandRecordBoard(number, deal, start.dealer, start.vulnerable))
    if not boards:
        raise HandRecordError(source, "no games with a deal in the file")
    return check_set(boards, source)


def write(boards: Sequence[HandRecordBoard], source: str) -> bytes:
    out = io.StringIO()
    write_pbn((GameRecord(source, k, [b.to_event()]) for k, b in enumerate(boards)), out)
    return out.getvalue().encode("utf-8")
