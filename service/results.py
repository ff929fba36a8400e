"""Results across tables: scores, Law 12 adjusted scores, matchpoints (Law 78A) per board.

An artificial adjusted score (12C1) gives each side a percentage: average plus 60, average 50, average
minus 40 (or any percentage the director sets); an assigned adjusted score (12C2) is a contract and a
number of tricks, scored as if played. Assigned scores are matchpointed with the real ones; artificial ones
stand outside the comparison with their percentages.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from table.board import Vulnerability
from table.scoring import matchpoints, mp_percent, parse_contract, score_ns

from .runtime import TableRuntime

ARTIFICIAL = {"A+": 60.0, "A": 50.0, "A-": 40.0}


class AdjustmentError(ValueError):
    pass


def _pct(v: Any) -> float:
    if isinstance(v, str) and v in ARTIFICIAL:
        return ARTIFICIAL[v]
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise AdjustmentError(f"{v!r} is not A+, A, A- or a percentage") from None
    if not 0 <= f <= 100:
        raise AdjustmentError("a percentage is 0..100")
    return f


def adjustment(body: dict[str, Any], vulnerable: str) -> dict[str, Any]:
    """Validate a director's adjustment and complete it (the assigned score from North-South's side)."""
    kind = body.get("kind")
    note = str(body.get("note") or "")[:500]
    if kind == "cancel":
        return {"kind": "cancel", "note": note}
    if kind == "artificial":
        ns, ew = _pct(body.get("ns", "A")), _pct(body.get("ew", "A"))
        return {"kind": "artificial", "law": "12C1", "ns": ns, "ew": ew, "note": note}
    if kind == "assigned":
        decl = str(body.get("declarer") or "").upper()
        try:
            c = parse_contract(str(body.get("contract") or ""), declarer=decl or None)
        except ValueError as err:
            raise AdjustmentError(str(err)) from None
        if c is None:
            return {"kind": "assigned", "law": "12C2", "contract": "PASS", "declarer": None, "tricks": None,
                    "score_ns": 0, "note": note}
        if decl not in ("N", "E", "S", "W"):
            raise AdjustmentError("an assigned contract needs its declarer (N, E, S or W)")
        tricks = body.get("tricks")
        if isinstance(tricks, bool) or not isinstance(tricks, int) or not 0 <= tricks <= 13:
            raise AdjustmentError("tricks is the declarer side's total, 0..13")
        s = score_ns(c, Vulnerability(vulnerable) if vulnerable else Vulnerability("None"), tricks)
        return {"kind": "assigned", "law": "12C2", "contract": str(c), "declarer": decl, "tricks": tricks,
                "score_ns": s, "note": note}
    raise AdjustmentError("kind is artificial, assigned or cancel")


def board_results(number: int, tables: Iterable[TableRuntime]) -> list[dict[str, Any]]:
    """One entry per table that played ``number``, with matchpoint percentages where computable."""
    entries: list[dict[str, Any]] = []
    for rt in tables:
        rec = rt.boards.get(number)
        if rec is None:
            continue
        res = rt.result(number) or {}
        e: dict[str, Any] = {"table": rt.id, "contract": res.get("contract"), "declarer": res.get("declarer"),
                             "tricks": res.get("tricks"), "score_ns": res.get("score_ns"),
                             "status": res.get("status"), "complete": rt.completed(number)
                             and (rec is rt.current or res.get("score_ns") is not None),
                             "adjustment": rec.adjustment, "ns_percent": None, "ew_percent": None}
        adj = rec.adjustment
        if adj and adj.get("kind") == "assigned":
            e["score_ns"] = adj["score_ns"]
        if adj and adj.get("kind") == "artificial":
            e["ns_percent"], e["ew_percent"] = adj["ns"], adj["ew"]
        entries.append(e)
    scored = [e for e in entries if e["ns_percent"] is None and e["score_ns"] is not None
              and (e["complete"] or (e["adjustment"] or {}).get("kind") == "assigned")]
    if len(scored) >= 2:
        mps = matchpoints([e["score_ns"] for e in scored])
        for e, mp in zip(scored, mps):
            e["ns_percent"] = round(mp_percent(mp, len(scored)), 2)
            e["ew_percent"] = round(100 - e["ns_percent"], 2)
    return entries


def released_numbers(policy: str, tables: list[TableRuntime], director_released: set[int]) -> set[int]:
    """Board numbers whose results (and hands) are public under the release policy."""
    out = set(director_released)
    if policy != "all_tables" or not tables:
        return out
    for n in {n for rt in tables for n in rt.boards}:
        if all(rt.completed(n) for rt in tables):
            out.add(n)
    return out


def per_table_released(policy: str, rt: TableRuntime, club_released: set[int]) -> set[int]:
    """Under ``immediate`` a board is public at a table as soon as that table finished it."""
    if policy == "immediate":
        return {n for n in rt.boards if rt.completed(n)} | club_released
    return set(club_released)
