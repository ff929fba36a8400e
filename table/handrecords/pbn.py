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
from ..texts import Text
from .base import HandRecordBoard, HandRecordError, check_set

NAME = "PBN"
SUFFIXES = (".pbn",)


def read(data: bytes, source: str) -> list[HandRecordBoard]:
    boards = []
    for rec in read_pbn(io.BytesIO(data), source=source):
        start = rec.events[0] if rec.events and isinstance(rec.events[0], BoardStarted) else None
        number = start.board if start is not None else None
        if start is None or number is None:
            # the game's own complaint (the PBN reader's, table/formats/pbn.py) follows in brackets
            raise HandRecordError(source, Text("records.pbn_no_number", "game {game} has no board number",
                                               game=rec.index + 1) + ((" (" + rec.error + ")") if rec.error else ""))
        if not start.deal:
            raise HandRecordError(source, Text("records.pbn_no_deal", "has no usable Deal tag")
                                  + ((" (" + rec.error + ")") if rec.error else ""), number)
        try:
            deal = Deal.from_pbn(start.deal)
        except CardError as err:
            raise HandRecordError(source, Text("records.pbn_deal", "unusable deal {deal}: ", deal=repr(start.deal))
                                  + err.args[0], number) from None
        if any(len(h) != 13 for h in deal.hands.values()):
            raise HandRecordError(source, Text("records.pbn_incomplete", "the deal {deal} does not give all four hands",
                                               deal=repr(start.deal)), number)
        boards.append(HandRecordBoard(number, deal, start.dealer, start.vulnerable))
    if not boards:
        raise HandRecordError(source, Text("records.pbn_none", "no games with a deal in the file"))
    return check_set(boards, source)


def write(boards: Sequence[HandRecordBoard], source: str) -> bytes:
    out = io.StringIO()
    write_pbn((GameRecord(source, k, [b.to_event()]) for k, b in enumerate(boards)), out)
    return out.getvalue().encode("utf-8")
