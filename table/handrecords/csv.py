"""CSV: one row per board (``.csv``), as spreadsheets and the deal-convert tool write it.

Layout: 18 fields, each quoted: the 16 suits of North, East, South, West (each S, H, D, C; ranks as
``AKQJT98765432``, an empty field for a void), the board number, and ``dealer/vulnerability`` with the
vulnerability ``-``, ``NS``, ``EW`` or ``All`` (``N/-``, ``E/NS``). Blank rows are skipped.
"""
from __future__ import annotations

import csv as _csv
import io
from collections.abc import Sequence

from ..board import Vulnerability, parse_vulnerability
from ..cards import SEATS, CardError, seat
from ..texts import Text
from .base import NO_BOARDS, HandRecordBoard, HandRecordError, check_set, hand_from_suits, make_deal, suits_of

NAME = "CSV"
SUFFIXES = (".csv",)
_VUL_TEXT = {Vulnerability.NONE: "-", Vulnerability.NS: "NS", Vulnerability.EW: "EW", Vulnerability.ALL: "All"}


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _markings(row: int, value: str) -> Text:
    return Text("records.csv_markings", "row {row}: {value} is not dealer/vulnerability (e.g. N/-, E/NS)", row=row,
                value=repr(value))


def read(data: bytes, source: str) -> list[HandRecordBoard]:
    boards = []
    try:
        rows = list(_csv.reader(io.StringIO(_text(data).replace("\0", ""), newline="")))
    except _csv.Error as err:
        raise HandRecordError(source, Text("records.not_csv", "not CSV: {why}", why=err)) from None   # Python's words
    for line, row in enumerate(rows, 1):
        if not any(f.strip() for f in row):
            continue
        if len(row) < 18:
            raise HandRecordError(source, Text("records.csv_fields", "row {row} has {count} fields, a board needs 18",
                                               row=line, count=len(row)))
        try:
            n = int(row[16].strip())
        except ValueError:
            raise HandRecordError(source, Text("records.csv_number", "row {row}: board number {value} is not a number",
                                               row=line, value=repr(row[16]))) from None
        if not 1 <= n <= 0xFFFF:
            raise HandRecordError(source, Text("records.csv_range", "row {row}: board number {number} is out of range",
                                               row=line, number=n))
        dealer_text, sep, vul_text = row[17].strip().partition("/")
        try:
            dealer = seat(dealer_text) if dealer_text else None
            vul = parse_vulnerability(vul_text) if sep else None
        except (CardError, ValueError):
            raise HandRecordError(source, _markings(line, row[17]), n) from None
        if dealer is None or vul is None:
            raise HandRecordError(source, _markings(line, row[17]), n)
        hands = {s: hand_from_suits([f.strip() for f in row[4 * k:4 * k + 4]], source, n) for k, s in enumerate(SEATS)}
        boards.append(HandRecordBoard.of(n, make_deal(hands, source, n), dealer, vul))
    if not boards:
        raise HandRecordError(source, NO_BOARDS)
    return check_set(boards, source)


def write(boards: Sequence[HandRecordBoard], source: str) -> bytes:
    out = io.StringIO()
    w = _csv.writer(out, quoting=_csv.QUOTE_ALL, lineterminator="\r\n")
    for b in boards:
        suits = [r for s in SEATS for r in suits_of(b.deal, s)]
        w.writerow(suits + [str(b.board), f"{b.dealer}/{_VUL_TEXT[b.vulnerable]}"])
    return out.getvalue().encode("ascii")
