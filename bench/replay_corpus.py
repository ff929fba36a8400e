"""Replay the whole PBN corpus through the law engine, beside endplay's PBN parser on the same files.

    python bench/replay_corpus.py [--corpus DIR] [--limit N] [--no-write]

Prints boards/s and peak memory for both, in the same run (each phase in a fresh child process so
that peak RSS is its own), measures the memory of a live table model, checks the engine's verdicts
against what the files record, and writes:

- ``docs/corpus-report.md``: every record that disagrees with its file, with the reason;
- the figures into ``docs/PERFORMANCE.md`` (between the ``corpus-bench`` markers).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from table.agreement import analyse  # noqa: E402


def corpus_files(corpus: Path, limit: int | None) -> list[Path]:
    files = sorted(f for f in (corpus / "pbn-corpus").rglob("*") if f.suffix.lower() == ".pbn")
    return files[:limit] if limit else files


def phase_ours(files: list[Path], out_path: str) -> dict:
    from table.replay import replay_paths
    t0 = time.perf_counter()
    boards = 0
    with open(out_path, "w", encoding="utf-8") as out:
        for v in replay_paths(files, complete=True):     # the report's run: unfinished plays completed DD
            boards += v["board"] is not None or v["contract"] is not None
            out.write(json.dumps(v) + "\n")
    dt = time.perf_counter() - t0
    return {"boards": boards, "seconds": dt, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}


def phase_ours_nowrite(files: list[Path], jobs: int = 1) -> dict:
    """Throughput without the JSON dump: read + law check + scoring."""
    from table.replay import replay_paths
    t0 = time.perf_counter()
    boards = sum(1 for v in replay_paths(files, jobs=jobs) if v["board"] is not None or v["contract"] is not None)
    dt = time.perf_counter() - t0
    return {"boards": boards, "seconds": dt, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}


def phase_endplay(files: list[Path]) -> dict:
    from endplay.parsers import pbn
    boards = failed = 0
    t0 = time.perf_counter()
    for f in files:
        try:
            with open(f, encoding="latin-1") as fh:
                boards += len(pbn.load(fh))
        except Exception:          # endplay rejects a whole file on any error: count it and go on
            failed += 1
    dt = time.perf_counter() - t0
    return {"boards": boards, "seconds": dt, "failed_files": failed,
            "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}


def phase_interleaved(files: list[Path], chunk: int = 25) -> dict:
    """Both readers in one process, alternating every ``chunk`` files (endplay first on even chunks, ours
    first on odd ones): on this shared VM the CPU's speed drifts by 20-30 % from one minute to the next, so
    two phases run one after the other can compare different machines. Interleaved, both see the same."""
    from endplay.parsers import pbn

    from table.replay import replay_paths
    ours_s = ep_s = 0.0
    ours_n = ep_n = 0

    def run_endplay(part: list[Path]) -> tuple[float, int]:
        n = 0
        t0 = time.perf_counter()
        for f in part:
            try:
                with open(f, encoding="latin-1") as fh:
                    n += len(pbn.load(fh))
            except Exception:
                pass
        return time.perf_counter() - t0, n

    def run_ours(part: list[Path]) -> tuple[float, int]:
        t0 = time.perf_counter()
        n = sum(1 for v in replay_paths(part) if v["board"] is not None or v["contract"] is not None)
        return time.perf_counter() - t0, n

    for i in range(0, len(files), chunk):
        part = files[i:i + chunk]
        order = (run_endplay, run_ours) if (i // chunk) % 2 == 0 else (run_ours, run_endplay)
        for fn in order:
            dt, n = fn(part)
            if fn is run_ours:
                ours_s, ours_n = ours_s + dt, ours_n + n
            else:
                ep_s, ep_n = ep_s + dt, ep_n + n
    return {"ours_boards": ours_n, "ours_seconds": ours_s, "endplay_boards": ep_n, "endplay_seconds": ep_s}


def table_memory(files: list[Path], n: int = 500) -> float:
    """Bytes per live Table holding a board in mid-play (tracemalloc, after a warm-up)."""
    from table.machine import Table
    from table.replay import read_records
    sample = []
    for f in files:
        for r in read_records(f):
            if r.error is None and sum(e.type == "card" for e in r.events) >= 24:
                sample.append(r)
            if len(sample) >= n:
                break
        if len(sample) >= n:
            break
    prefixes = []
    for r in sample:
        cut, cards = 0, 0
        for i, e in enumerate(r.events):
            cards += e.type == "card"
            if cards == 24:
                cut = i + 1
                break
        prefixes.append(r.events[:cut])
    warm = Table()
    for e in prefixes[0]:
        warm.apply(e)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    tables = []
    for events in prefixes:
        t = Table()
        for e in events:
            t.apply(e)
        tables.append(t)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    size = sum(s.size_diff for s in after.compare_to(before, "filename"))
    return size / len(tables)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=os.environ.get("BRIDGETABLE_CORPUS", str(ROOT.parent / "shared" / "data")))
    ap.add_argument("--limit", type=int)
    ap.add_argument("--phase", choices=["ours", "ours-nowrite", "ours-2jobs", "endplay", "interleaved"])
    ap.add_argument("--out")
    ap.add_argument("--no-write", action="store_true", help="do not update the docs")
    args = ap.parse_args()
    files = corpus_files(Path(args.corpus), args.limit)
    if args.phase == "ours":
        print(json.dumps(phase_ours(files, args.out)))
        return
    if args.phase == "ours-nowrite":
        print(json.dumps(phase_ours_nowrite(files)))
        return
    if args.phase == "ours-2jobs":
        print(json.dumps(phase_ours_nowrite(files, jobs=2)))
        return
    if args.phase == "endplay":
        print(json.dumps(phase_endplay(files)))
        return
    if args.phase == "interleaved":
        print(json.dumps(phase_interleaved(files)))
        return

    def child(*extra: str) -> dict:
        cmd = [sys.executable, __file__, "--corpus", args.corpus, *(["--limit", str(args.limit)] if args.limit else []),
               *extra]
        return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()[-1])

    tmp = tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False).name
    print(f"{len(files)} PBN files")
    endplay = child("--phase", "endplay")
    ours = child("--phase", "ours-nowrite")
    mixed = [child("--phase", "interleaved") for _ in range(3)]
    par = child("--phase", "ours-2jobs")
    endplay2 = child("--phase", "endplay")            # the --jobs 2 line is compared with this one, next to it
    child("--phase", "ours", "--out", tmp)
    ratios = [(m["ours_boards"] / m["ours_seconds"]) / (m["endplay_boards"] / m["endplay_seconds"]) for m in mixed]
    ep_rate = endplay["boards"] / endplay["seconds"]
    our_rate = ours["boards"] / ours["seconds"]
    per_table = table_memory(files)
    with open(tmp, encoding="utf-8") as fh:
        stats, disagreements = analyse(json.loads(line) for line in fh)
    os.unlink(tmp)
    par_rate = par["boards"] / par["seconds"]
    ep2_rate = endplay2["boards"] / endplay2["seconds"]
    lines = [
        "| | boards | boards/s | peak RSS |",
        "|---|---:|---:|---:|",
        f"| endplay {_version('endplay')} `pbn.load` (parse only; {endplay['failed_files']} files rejected whole) "
        f"| {endplay['boards']} | {ep_rate:,.0f} | {endplay['maxrss_kb'] / 1024:.0f} MB |",
        f"| bridgetable replay (parse + laws + scoring) | {ours['boards']} | {our_rate:,.0f} | "
        f"{ours['maxrss_kb'] / 1024:.0f} MB |",
        f"| bridgetable replay `--jobs 2` (both cores; RSS of the parent only) | {par['boards']} | "
        f"{par_rate:,.0f} | {par['maxrss_kb'] / 1024:.0f} MB |",
        f"| endplay again, right after the `--jobs 2` run | {endplay2['boards']} | {ep2_rate:,.0f} | |",
        "",
        f"Throughput ratio bridgetable / endplay, one process each, both in one process alternating every 25 "
        f"files (three runs; this VM's speed drifts by 20-30 % between minutes, so phases run one after the "
        f"other are not comparable): **{' / '.join(f'{r:.2f}x' for r in ratios)}** (target ≥ 2x); phases "
        f"above, one after the other: {our_rate / ep_rate:.2f}x. "
        f"bridgetable on both cores / endplay on one (the runs next to each other): **{par_rate / ep2_rate:.2f}x**.",
        f"Memory per live table model (a board in mid-play, tracemalloc over 500 tables): "
        f"**{per_table / 1024:.1f} KB** (target ≤ 20 KB).",
    ]
    s = stats
    pct = lambda a, b: f"{100 * s.get(a, 0) / s[b]:.2f}%" if s.get(b) else "n/a"
    agreement = [
        f"- records read: {s['records']} ({s.get('error_records', 0)} with status error)",
        f"- records with a deal and an auction: {s.get('with_deal_and_auction', 0)}; with a contract: "
        f"{s.get('contract', 0)} ({pct('contract', 'with_deal_and_auction')}; target ≥ 99.5%)",
        f"- numeric Result and play complete or claimed: {s.get('result_comparable', 0)}; tricks equal: "
        f"{s.get('tricks_equal', 0)} ({pct('tricks_equal', 'result_comparable')}; target ≥ 99.5%)",
        f"- records with a Score: {s.get('score_comparable', 0)}; score equal: {s.get('score_equal', 0)} "
        f"({pct('score_equal', 'score_comparable')}; target ≥ 99%)",
        f"- of those, records whose result the file gives (a Result, a claim or the whole play), so the engine "
        f"can score them: {s.get('score_scored', 0)}; score equal: {pct('score_equal', 'score_scored')}",
        f"- records whose play stops with no claim and no Result, completed double dummy from the last recorded "
        f"card (an inference, `replay --complete-dd`; table/completion.py): {s.get('completion_records', 0)}; "
        f"the completion's score equals the file's Score: {s.get('completion_equal', 0)}",
        f"- score equal counting those completions: {s.get('score_equal', 0) + s.get('completion_equal', 0)} of "
        f"{s.get('score_comparable', 0)} ("
        + (f"{100 * (s.get('score_equal', 0) + s.get('completion_equal', 0)) / s['score_comparable']:.2f}%"
           if s.get("score_comparable") else "n/a") + ")",
    ]
    print("\n".join(lines + [""] + agreement))
    print("irregularities flagged:", json.dumps(s["irregularities"], indent=1))
    if args.no_write or args.limit:
        return
    date = time.strftime("%Y-%m-%d")
    block = "\n".join(["<!-- corpus-bench:start -->", f"Measured {date} on this machine "
                       f"({os.cpu_count()} cores, Python {sys.version.split()[0]}), `make bench`, pure Python:", "",
                       *lines, "", "Agreement with the files:", "", *agreement, "<!-- corpus-bench:end -->"])
    perf = ROOT / "docs" / "PERFORMANCE.md"
    text = perf.read_text() if perf.exists() else "# Performance\n\n## Corpus replay\n\n"
    if "<!-- corpus-bench:start -->" in text:
        text = re.sub(r"<!-- corpus-bench:start -->.*<!-- corpus-bench:end -->", lambda _m: block, text, flags=re.S)
    else:
        text += "\n## Corpus replay (law engine)\n\n" + block + "\n"
    perf.write_text(text)
    report = ROOT / "docs" / "corpus-report.md"
    irr = "\n".join(f"| {k} | {n} |" for k, n in s["irregularities"].items())
    # bench/edition_diff.py owns the law editions' section (between its markers): carried over as it is
    old = report.read_text() if report.exists() else ""
    editions = old[old.find("<!-- BEGIN EDITIONS -->"):] if "<!-- BEGIN EDITIONS -->" in old else ""
    report.write_text(
        f"# Corpus report\n\nWritten by `bench/replay_corpus.py` on {date} over "
        f"`shared/data/pbn-corpus` ({len(files)} files).\n\n" + "\n".join(agreement)
        + "\n\n## Irregularities flagged\n\n| code (law) | records |\n|---|---:|\n" + irr
        + f"\n\n## Every record that disagrees with its file ({len(disagreements)})\n\n"
        + "\n".join(disagreements) + "\n" + ("\n" + editions if editions else ""))
    print(f"wrote {perf} and {report}")


def _version(pkg: str) -> str:
    from importlib.metadata import version
    return version(pkg)


if __name__ == "__main__":
    main()
