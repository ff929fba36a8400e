"""Results across tables: scores, Law 12 adjusted scores, matchpoints (Law 78A) per board.

An artificial adjusted score (12C1) gives each side a percentage: average plus, average or average minus
(``results.scoring.award_percent``), or any percentage the director sets; an assigned adjusted score (12C2)
is a contract and a number of tricks, scored as if played. Assigned scores are matchpointed with the real
ones (``results.scoring.matchpoint_board``); artificial ones stand outside the comparison with their
percentages. The journal keeps an adjustment as the JSON of its ``TypedDict`` below.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, TypedDict

from results import ResultsError
from results.scoring import Line, award_percent, matchpoint_board, parse_award
from service.live.runtime import TableRuntime
from table.board import Vulnerability
from table.scoring import parse_contract, score_ns
from table.texts import Text


class AdjustmentError(ValueError):
    """A director's adjustment that cannot be accepted; the message says why."""


class ArtificialAdjustment(TypedDict):
    """Law 12C1, as journalled: each side's award as a percentage of the top."""
    kind: Literal["artificial"]
    law: Literal["12C1"]
    ns: float
    ew: float
    note: str


class AssignedAdjustment(TypedDict):
    """Law 12C2, as journalled: the assigned contract and its score from North-South's side."""
    kind: Literal["assigned"]
    law: Literal["12C2"]
    contract: str
    declarer: str | None
    tricks: int | None
    score_ns: int
    note: str


class CancelAdjustment(TypedDict):
    kind: Literal["cancel"]
    note: str


Adjustment = ArtificialAdjustment | AssignedAdjustment | CancelAdjustment


class TableResult(TypedDict):
    """One table's result on a board, as ``GET /api/results`` shows it."""
    table: str
    contract: str | None
    declarer: str | None
    tricks: int | None
    score_ns: int | None
    status: str | None
    complete: bool
    adjustment: dict[str, Any] | None
    ns_percent: float | None
    ew_percent: float | None


def _percent(value: Any) -> float:
    """A side's artificial award (``A+``, ``A=``/``A``, ``A-`` or a percentage) as a percentage of the top."""
    try:
        award = parse_award(value) if isinstance(value, str) else float(value)
    except (ResultsError, TypeError, ValueError):
        raise AdjustmentError(Text("refusal.adjust_award", "{value} is not A+, A=, A- or a percentage",
                                   value=repr(value))) from None
    pct = award_percent(award)
    if not 0 <= pct <= 100:
        raise AdjustmentError(Text("refusal.adjust_percent", "a percentage is 0..100"))
    return pct


def adjustment(body: dict[str, Any], vulnerable: str) -> Adjustment:
    """Validate a director's adjustment and complete it (the assigned score from North-South's side)."""
    kind = body.get("kind")
    note = str(body.get("note") or "")[:500]
    if kind == "cancel":
        return {"kind": "cancel", "note": note}
    if kind == "artificial":
        ns, ew = _percent(body.get("ns", "A")), _percent(body.get("ew", "A"))
        return {"kind": "artificial", "law": "12C1", "ns": ns, "ew": ew, "note": note}
    if kind == "assigned":
        decl = str(body.get("declarer") or "").upper()
        try:
            c = parse_contract(str(body.get("contract") or ""), declarer=decl or None)
        except ValueError as err:
            raise AdjustmentError(err.args[0]) from None          # the scoring's own Text: a page words it
        if c is None:
            return {"kind": "assigned", "law": "12C2", "contract": "PASS", "declarer": None, "tricks": None,
                    "score_ns": 0, "note": note}
        if decl not in ("N", "E", "S", "W"):
            raise AdjustmentError(Text("refusal.adjust_declarer", "an assigned contract needs its declarer (N, E, S "
                                       "or W)"))
        tricks = body.get("tricks")
        if isinstance(tricks, bool) or not isinstance(tricks, int) or not 0 <= tricks <= 13:
            raise AdjustmentError(Text("event.result_tricks", "tricks is the declarer side's total, 0..13"))
        s = score_ns(c, Vulnerability(vulnerable) if vulnerable else Vulnerability("None"), tricks)
        return {"kind": "assigned", "law": "12C2", "contract": str(c), "declarer": decl, "tricks": tricks,
                "score_ns": s, "note": note}
    raise AdjustmentError(Text("refusal.adjust_kind", "kind is artificial, assigned or cancel"))


def board_results(number: int, tables: Iterable[TableRuntime]) -> list[TableResult]:
    """One entry per table that played ``number``, with matchpoint percentages where computable: the
    complete and assigned scores matchpointed among themselves (:func:`results.scoring.matchpoint_board`,
    unfactored), an artificial score at its awards."""
    entries: list[TableResult] = []
    for rt in tables:
        rec = rt.boards.get(number)
        if rec is None:
            continue
        res = rt.result(number) or {}
        adj = rec.adjustment
        e: TableResult = {"table": rt.id, "contract": res.get("contract"), "declarer": res.get("declarer"),
                          "tricks": res.get("tricks"), "score_ns": res.get("score_ns"),
                          "status": res.get("status"), "complete": rt.completed(number)
                          and (rec is rt.current or res.get("score_ns") is not None),
                          "adjustment": adj, "ns_percent": None, "ew_percent": None}
        if adj and adj.get("kind") == "assigned":
            e["score_ns"] = adj["score_ns"]
        if adj and adj.get("kind") == "artificial":
            e["ns_percent"], e["ew_percent"] = adj["ns"], adj["ew"]
        entries.append(e)
    scored = [e for e in entries if e["ns_percent"] is None and e["score_ns"] is not None
              and (e["complete"] or (e["adjustment"] or {}).get("kind") == "assigned")]
    if len(scored) >= 2:
        lines = [Line.table(int(e["score_ns"] or 0)) for e in scored]
        for e, sc in zip(scored, matchpoint_board(lines, factor=False)):
            ns_percent = round(sc.ns_percent or 0.0, 2)
            e["ns_percent"], e["ew_percent"] = ns_percent, round(100 - ns_percent, 2)
    return entries
