"""Replay the corpus under both law editions and report every record whose verdict differs, with the law
that makes the difference; write it as the "Law editions" section of docs/corpus-report.md.

    python bench/edition_diff.py PATH... [--baseline VERDICTS.jsonl] [--write docs/corpus-report.md]

Also checks that the 2017 replay has no error the 1997 replay does not have. With ``--baseline`` (a
1997 ``bridgetable replay --jsonl`` of the same paths made before the edition work), lists the 1997
verdicts that changed and why (the both-sides-revoked correction). Sources are compared as given.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bridgetable.verdict_output import expand
from table.replay import replay_paths

BEGIN, END = "<!-- BEGIN EDITIONS -->", "<!-- END EDITIONS -->"
_TRANSFERRED = re.compile(r"tricks_transferred=(\d+)")

# why a difference arises, by the 2017 law that makes it (docs/laws.md, "Law editions")
WHY = {
    "64B7": "both sides revoked: no automatic transfer under either edition; 64C (1997, 2001 WBFLC minute) "
            "vs 64B7 (2017) is the law cited",
    "36A": "an inadmissible X/XX condoned by LHO's call: 1997 35A and 2017 36A give the same effect",
    "30B1": "a pass out of rotation at partner's (or, with no prior call, LHO's) turn: 2017 30B1 (a comparable "
            "call decides; partner free) vs 1997 30A/30B2; accepted here, so only the law cited differs",
    "64A2": "a revoke not won by the offender: 1997 64A2 adds a trick won later with a card that could have been "
            "played to the revoke trick; 2017 64A2 does not",
    "wording": "option and detail wording only: the 2017 texts cite Law 72C (not 23), 26B (not 26) and the "
               "27B1(b) comparable call",
}


def _irr_key(i: dict[str, Any]) -> tuple[Any, ...]:
    return i["code"], i["law"], i.get("disposition"), i.get("disposition_law")


def reasons(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The laws that make two verdicts of one record differ (``old`` 1997, ``new`` 2017)."""
    out: list[str] = []
    a, b = old["irregularities"], new["irregularities"]
    ka, kb = Counter(map(_irr_key, a)), Counter(map(_irr_key, b))
    for key in sorted((kb - ka).keys(), key=str):
        out.append(next((law for law in (key[3], key[1]) if law in WHY), f"{key[0]} {key[1]}"))
    if not out:
        ta = [int(m.group(1)) for i in a for m in [_TRANSFERRED.search(i.get("detail", ""))] if m]
        tb = [int(m.group(1)) for i in b for m in [_TRANSFERRED.search(i.get("detail", ""))] if m]
        if ta != tb:
            out.append("64A2")
        elif a != b:
            out.append("wording")
    if not out and old != new:
        out.append("other: " + ", ".join(k for k in old if old[k] != new.get(k)))
    return sorted(set(out))


def compare(paths: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    old = list(replay_paths(paths, laws="1997"))
    new = list(replay_paths(paths, laws="2017"))
    return old, new


def section(old: list[dict[str, Any]], new: list[dict[str, Any]], baseline: list[dict[str, Any]] | None) -> str:
    rows, per_law, new_errors = [], Counter[str](), []
    for x, y in zip(old, new, strict=True):
        y = {k: v for k, v in y.items() if k != "laws"}
        if y.get("error") and y["error"] != x.get("error"):
            new_errors.append(f"{x['source']}#{x['record']}: {y['error']}")
        if x == y:
            continue
        why = reasons(x, y)
        per_law.update(why)
        score = "" if x["score_ns"] == y["score_ns"] else f"{x['score_ns']} → {y['score_ns']}"
        rows.append(f"| {x['source']} | {x['record']} | {x['board']} | {x['contract']} | {score} | "
                    f"{', '.join(why)} |")
    lines = [BEGIN, "## Law editions: 1997 and 2017 verdicts compared", "",
             "Written by `bench/edition_diff.py` (the whole corpus replayed with `--laws 1997` and `--laws 2017`). "
             "The engine's rules per edition are in docs/laws.md (\"Law editions\").", "",
             f"- records: {len(old)}; verdicts that differ: **{len(rows)}**; "
             f"2017 errors the 1997 replay does not have: **{len(new_errors)}**",
             f"- differing scores: {sum(1 for r in rows if '→' in r.split('|')[5])}", "",
             "| law making the difference | records | why |", "|---|---|---|"]
    lines += [f"| {law} | {n} | {WHY.get(law, '')} |" for law, n in sorted(per_law.items())]
    lines += [""] + [f"- {e}" for e in new_errors]
    lines += ["", "| source | record | board | contract | NS score 1997 → 2017 | law |", "|---|---|---|---|---|---|"]
    lines += rows
    if baseline is not None:
        changed = []
        for b, x in zip(baseline, old, strict=True):
            if {k: v for k, v in b.items() if k != "source"} != {k: v for k, v in x.items() if k != "source"}:
                cause = "both sides revoked → director (64C)" if any(
                    i["code"] == "BOTH_SIDES_REVOKED" for i in x["irregularities"]) else "other"
                score = "" if b["score_ns"] == x["score_ns"] else f"{b['score_ns']} → {x['score_ns']}"
                changed.append(f"| {x['source']} | {x['record']} | {x['board']} | {x['contract']} | {score} "
                               f"| {cause} |")
        lines += ["", "### 1997 verdicts changed by the edition work", "",
                  f"{len(changed)} records: both sides revoked on the board. The seed's digest processed each "
                  "revoke mechanically; the 2017 delta corrects it (a 2001 WBF Laws Committee minute already sent "
                  "both-sides revokes to the director under 64C), so the engine now flags BOTH_SIDES_REVOKED and "
                  "transfers nothing. A changed score is the table result without the former transfers.", "",
                  "| source | record | board | contract | NS score before → now | why |", "|---|---|---|---|---|---|"]
        lines += changed
    lines += [END, ""]
    return "\n".join(lines)


def write(report: Path, text: str) -> None:
    body = report.read_text(encoding="utf-8") if report.exists() else ""
    if BEGIN in body and END in body:
        body = body[:body.index(BEGIN)] + text + body[body.index(END) + len(END) + 1:]
    else:
        body = body.rstrip("\n") + "\n\n" + text
    report.write_text(body, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--baseline", help="a 1997 verdicts file (jsonl) made before the edition work")
    ap.add_argument("--write", help="the corpus report to update (its Law editions section)")
    args = ap.parse_args(argv)
    paths = [str(p) for p in expand(tuple(args.paths))]
    old, new = compare(paths)
    baseline = None
    if args.baseline:
        baseline = [json.loads(line) for line in Path(args.baseline).read_text(encoding="utf-8").splitlines()]
    text = section(old, new, baseline)
    if args.write:
        write(Path(args.write), text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
