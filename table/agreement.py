"""How far the engine's verdicts agree with what the files themselves record (Result, Score)."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .board import vulnerability_for
from .scoring import parse_contract, score_ns

Verdict = dict[str, Any]      # one verdict of table.replay.verdict, as its JSON line has it

_NUM = re.compile(r"^[+-]?\d+$")


def recorded_tricks(v: Verdict) -> int | None:
    """The file's Result as declarer side's tricks ("9", "^9", "NS 9", "EW 4")."""
    res = (v["recorded"].get("result") or "").replace("^", "").strip()
    if not res:
        return None
    m = re.match(r"^(NS|EW)\s*(\d+)$", res)
    if m:
        if v["declarer"] is None:
            return None
        n = int(m.group(2))
        decl_side = "NS" if v["declarer"] in "NS" else "EW"
        return n if m.group(1) == decl_side else 13 - n
    return int(res) if _NUM.match(res) and 0 <= int(res) <= 13 else None


def recorded_score_ns(v: Verdict) -> int | None:
    """The file's Score from North-South's side: "NS 620", "EW -50", or a bare number from declarer's side."""
    sc = (v["recorded"].get("score") or "").replace(" ", "")
    m = re.match(r"^(NS|EW)([+-]?\d+)$", sc)
    if m:
        n = int(m.group(2))
        return n if m.group(1) == "NS" else -n
    if _NUM.match(sc) and v["declarer"]:
        n = int(sc)
        return n if v["declarer"] in "NS" else -n
    return None


def score_reason(v: Verdict, recorded: int) -> str:
    """Why the engine's NS score differs from the file's, as far as the record itself shows."""
    codes = sorted({i["code"] for i in v["irregularities"]})
    if v["tricks"] is None:
        return "no result: the play stops without a claim and the file has no Result"
    rc = (v["recorded"].get("contract") or "").replace(" ", "").upper().replace("NT", "N")
    ours = (v["contract"] or "").upper().replace("NT", "N")
    if rc and ours and rc.rstrip("*") != ours and rc != ours.replace("XX", "**").replace("X", "*"):
        return f"the file's Contract tag {v['recorded']['contract']!r} differs from its auction"
    rt = recorded_tricks(v)
    if rt is not None and rt != v["tricks"]:
        return f"tricks differ ({', '.join(codes) or 'no irregularity flagged'})"
    if v["contract"] not in (None, "PASS") and v["board"]:
        c = parse_contract(v["contract"], declarer=v["declarer"])
        if score_ns(c, vulnerability_for(v["board"]), v["tricks"]) == recorded:
            return "the Score fits the board number's vulnerability (Law 2), not the Vulnerable tag"
        if -v["score_ns"] == recorded:
            return "the Score has the opposite sign"
    return ", ".join(codes) or "the file's Score does not fit its own contract, result and vulnerability"


def analyse(verdicts: Iterable[Verdict]) -> tuple[dict[str, Any], list[str]]:
    """Counts of agreement between verdicts and what their files record, and one line per disagreement."""
    c: Counter[str] = Counter()
    disagreements: list[str] = []
    irregular: Counter[tuple[str, str]] = Counter()
    for v in verdicts:
        where = f"{Path(v['source']).parent.name}/{Path(v['source']).name}#{v['record']} (board {v['board']})"
        c["records"] += 1
        if v["status"] == "error":
            c["error_records"] += 1
        for i in v["irregularities"]:
            irregular[(i["code"], i["law"])] += 1
        rs = recorded_score_ns(v)
        if rs is not None:                       # every record with a Score, auction or not
            c["score_comparable"] += 1
            if v["score_ns"] is not None:        # ... of which the record lets the engine score
                c["score_scored"] += 1
            dd = v.get("completion") if v["score_ns"] is None else None
            if dd is not None:                   # an unfinished play, completed double dummy on request
                c["completion_records"] += 1
                c["completion_equal"] += dd["score_ns"] == rs
            if v["score_ns"] == rs:
                c["score_equal"] += 1
            else:
                inferred = "" if dd is None else (
                    f"; double-dummy completion: {dd['tricks']} tricks, NS {dd['score_ns']}, "
                    + ("agrees" if dd["score_ns"] == rs else "differs"))
                disagreements.append(f"- {where}: NS score {v['score_ns']} vs Score {v['recorded']['score']!r} "
                                     f"({v['contract']} by {v['declarer']}, {v['tricks']} tricks, "
                                     f"vul {v['vulnerable']}; {score_reason(v, rs)}{inferred})")
        if not (v.get("calls", 0) > 0 and v.get("has_deal", False)):
            continue
        c["with_deal_and_auction"] += 1
        if v["contract"] is not None:
            c["contract"] += 1
        else:
            disagreements.append(f"- {where}: no contract — {v['error'] or 'auction did not close'}")
        rt = recorded_tricks(v)
        if rt is not None and v["status"] in ("complete", "claimed"):
            c["result_comparable"] += 1
            if v["tricks"] == rt:
                c["tricks_equal"] += 1
            else:
                reason = ", ".join(sorted({i["code"] for i in v["irregularities"]})) or "no irregularity flagged"
                disagreements.append(f"- {where}: tricks {v['tricks']} vs Result {v['recorded']['result']!r} "
                                     f"({v['contract']} by {v['declarer']}; {reason})")
    counts: dict[str, Any] = dict(c)
    counts["irregularities"] = dict(sorted((f"{k[0]} ({k[1]})", n) for k, n in irregular.items()))
    return counts, disagreements


