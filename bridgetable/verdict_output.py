"""What ``bridgetable replay`` and ``bridgetable sim replay`` share: the record files named on the command
line, and a verdict as one human-readable line."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

SUPPORTED = (".pbn", ".lin", ".jsonl")


def expand(paths: tuple[str, ...]) -> Iterator[Path]:
    """Files as given; folders are searched for supported files, in sorted order."""
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in SUPPORTED)
        else:
            yield p


def human(v: dict[str, Any]) -> str:
    where = f"{v['source']}#{v['record']}"
    if v["status"] == "error":
        return f"{where}: ERROR {v['error']}"
    contract = v["contract"] or "-"
    by = f" by {v['declarer']}" if v["declarer"] else ""
    tricks = "" if v["tricks"] is None else f", {v['tricks']} tricks"
    score = "" if v["score_ns"] is None else f", NS {v['score_ns']:+d}"
    irr = "".join(f"\n    ! {i['code']} (Law {i['law']}) seat {i['seat']}: {i.get('detail', '')}"
                  f" [{i['disposition'] or 'open'}]" for i in v["irregularities"])
    dd = v.get("completion")
    inferred = (f" (double-dummy completion: {dd['tricks']} tricks, NS {dd['score_ns']:+d})" if dd else "")
    return f"{where} board {v['board']}: {contract}{by}{tricks}{score} [{v['status']}]{inferred}{irr}"
