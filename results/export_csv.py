"""Session results -> CSV: travellers (one row per table result) and rankings (one row per entrant).

Names come from the players' own seats: a cell a spreadsheet would take for a formula (``=HYPERLINK(...)``,
``+``, ``-``, ``@``, a tab or a carriage return first) is written with a leading ``'``, as OWASP recommends for
CSV injection; a plain number (a negative score) is left as it is, and ``cell_text`` reads a cell back.

Pairs are numbered as the results page numbers them (:meth:`results.Movement.number`): a two-field Mitchell's
East-West pairs are 1..T like its North-South pairs (``label`` says "EW 1"), not T+1..2T."""
from __future__ import annotations

import csv
import io
import re
from typing import Any

from .scoring import award_text
from .session import Scoring, Session

__all__ = ["travellers_csv", "ranking_csv", "cell_text"]

TRAVELLER_FIELDS = ["section", "board", "table", "round", "ns", "ew", "kind", "contract", "declarer", "tricks",
                    "lead", "score_ns", "assigned_ns", "assigned_ew", "award_ns", "award_ew", "group",
                    "ns_value", "ew_value", "ns_percent", "ew_percent", "datum"]
RANKING_FIELDS = ["section", "field", "place", "entrant", "label", "names", "boards", "total", "top", "score"]


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?")


def _cell(value: Any) -> str:
    text = str(value)
    if text.startswith(FORMULA_START) and not NUMBER.fullmatch(text):
        return "'" + text
    return text


def cell_text(cell: str) -> str:
    """What was written to ``cell`` (the leading ``'`` that kept it from being a formula taken off)."""
    return cell[1:] if cell.startswith("'") and cell[1:].startswith(FORMULA_START) else cell


def _row(values: dict[str, Any]) -> dict[str, str]:
    return {k: _cell(v) for k, v in values.items()}


def _fmt(v: float | None) -> str:
    return "" if v is None else f"{v:.2f}"


def travellers_csv(session: Session, section: str | None = None) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, TRAVELLER_FIELDS, lineterminator="\n")
    w.writeheader()
    for sec in ([session.section(section)] if section else session.sections.values()):
        for tr in session.travellers(sec.id):
            b = tr.board
            for r, ls in zip(tr.results, tr.scores):
                w.writerow(_row({"section": sec.id, "board": b, "table": r.table or "", "round": r.round or "",
                                 "ns": sec.movement.number(r.ns), "ew": sec.movement.number(r.ew),
                                 "kind": r.kind, "contract": r.contract or "",
                                 "declarer": r.declarer or "", "tricks": "" if r.tricks is None else r.tricks,
                                 "lead": r.lead or "", "score_ns": "" if r.score_ns is None else r.score_ns,
                                 "assigned_ns": r.assigned[0] if r.assigned else "",
                                 "assigned_ew": r.assigned[1] if r.assigned else "",
                                 "award_ns": award_text(r.artificial[0]) if r.artificial else "",
                                 "award_ew": award_text(r.artificial[1]) if r.artificial else "",
                                 "group": r.group or "", "ns_value": _fmt(ls.ns), "ew_value": _fmt(ls.ew),
                                 "ns_percent": _fmt(ls.ns_percent), "ew_percent": _fmt(ls.ew_percent),
                                 "datum": "" if ls.datum is None else ls.datum}))
    return buf.getvalue()


def ranking_csv(session: Session, section: str | None = None) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, RANKING_FIELDS, lineterminator="\n")
    w.writeheader()
    for sec in ([session.section(section)] if section else session.sections.values()):
        for rr in session.ranking(sec.id):
            top = _fmt(rr.top) if session.scoring is Scoring.MATCHPOINTS else ""
            w.writerow(_row({"section": sec.id, "field": rr.field, "place": rr.place_text,
                             "entrant": sec.movement.number(rr.entrant),
                             "label": rr.label, "names": rr.display, "boards": rr.boards, "total": _fmt(rr.total),
                             "top": top, "score": _fmt(rr.score)}))
    return buf.getvalue()
