"""LIN hand records (``.lin``): the ``md`` (deal) and ``sv`` (vulnerability) of each board.

Reading and writing go through ``table.formats.lin``. A vugraph file lists each board once per room;
both copies must carry the same deal.
"""
from __future__ import annotations

import io
from collections.abc import Sequence

from ..cards import CardError, Deal
from ..events import BoardStarted
from ..formats.lin import read_lin, write_lin
from ..record import GameRecord
from ..texts import Text
from .base import NO_BOARDS, HandRecordBoard, HandRecordError, check_set

NAME = "LIN"
SUFFIXES = (".lin",)


def read(data: bytes, source: str) -> list[HandRecordBoard]:
    boards = []
    try:
        records = list(read_lin(io.BytesIO(data), source=source))
    except ValueError as err:                       # LinError: the file as a whole is unusable
        raise HandRecordError(source, err.args[0] if err.args else str(err)) from None   # its Text, when keyed
    for rec in records:
        start = next((e for e in rec.events if isinstance(e, BoardStarted)), None)
        number = start.board if start is not None else None
        if start is None or number is None:
            # the record's own complaint (the game reader's, table/formats/lin.py) follows in brackets
            raise HandRecordError(source, Text("records.lin_no_number", "record {record} has no board number",
                                               record=rec.index + 1) + ((" (" + rec.error + ")") if rec.error else ""))
        try:
            deal = Deal.from_pbn(start.deal) if start.deal else None
        except CardError as err:
            raise HandRecordError(source, Text("records.lin_deal", "unusable deal: ") + err.args[0], number) from None
        if deal is None or any(len(h) != 13 for h in deal.hands.values()):
            raise HandRecordError(source, Text("records.lin_incomplete", "the md tag does not give a complete deal"),
                                  number)
        boards.append(HandRecordBoard(number, deal, start.dealer, start.vulnerable))
    if not boards:
        raise HandRecordError(source, NO_BOARDS)
    return check_set(boards, source)


def write(boards: Sequence[HandRecordBoard], source: str) -> bytes:
    out = io.StringIO()
    write_lin((GameRecord(source, k, [b.to_event()]) for k, b in enumerate(boards)), out)
    return out.getvalue().encode("utf-8")
