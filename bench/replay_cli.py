"""The user's view of the engine's speed: ``bridgetable replay --jsonl`` over the whole PBN corpus as a whole process
(interpreter start and imports included), beside endplay's parse-only reading of the same files, and beside the
same command run on the source of an earlier git revision, interleaved round by round in one run.

    python bench/replay_cli.py [--corpus DIR] [--before REV] [--rounds 3]

A round runs the three commands one after the other, in an order that rotates from round to round, so a drift
of this VM's speed between minutes touches every command alike. Prints each run's wall time and the ratios
(bridgetable's boards per second over endplay's; before over now), and appends nothing anywhere: the figures
go into docs/PERFORMANCE.md by hand, with the date.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from compare_verdicts import export_revision  # noqa: E402

ENDPLAY = """
import sys
from pathlib import Path
from endplay.parsers import pbn
boards = 0
for f in sorted(p for p in Path(sys.argv[1]).rglob('*') if p.suffix.lower() == '.pbn'):
    try:
        with open(f, encoding='latin-1') as fh:
            boards += len(pbn.load(fh))
    except Exception:          # endplay rejects a whole file on any error
        pass
print(boards)
"""
REPLAY = ("import sys; from bridgetable.cli import main; "
          "sys.argv = ['bridgetable', 'replay', '--jsonl', sys.argv[1]]; main()")


def timed(argv: list[str], tree: Path | None) -> tuple[float, float, str]:
    """Wall time and CPU time (user + system) of one child process, and what it printed. On a shared VM the
    CPU time is the steadier figure: another process's load stretches the wall time, not the work done."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=tree or ROOT)
    elapsed = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{argv[:3]} failed ({done.returncode}): {done.stderr[-1000:]}")
    return elapsed, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=os.environ.get("BRIDGETABLE_CORPUS", str(ROOT.parent / "shared" / "data")))
    parser.add_argument("--before", help="also time the command on this git revision's source")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    pbn_dir = str(Path(args.corpus, "pbn-corpus").resolve())
    with tempfile.TemporaryDirectory() as tmp:
        before_tree = export_revision(args.before, Path(tmp)) if args.before else None
        commands: dict[str, tuple[list[str], Path | None]] = {
            "bridgetable": ([sys.executable, "-c", REPLAY, pbn_dir], ROOT),
            "endplay": ([sys.executable, "-c", ENDPLAY, pbn_dir], None),
        }
        if before_tree is not None:
            commands[f"bridgetable@{args.before}"] = ([sys.executable, "-c", REPLAY, pbn_dir], before_tree)
            timed(commands[f"bridgetable@{args.before}"][0][:2] + ["pass"], before_tree)   # compile its bytecode
        names = list(commands)
        wall: dict[str, list[float]] = {n: [] for n in names}
        cpu: dict[str, list[float]] = {n: [] for n in names}
        counts: dict[str, int] = {}
        for r in range(args.rounds):
            order = names[r % len(names):] + names[: r % len(names)]
            for name in order:
                argv, tree = commands[name]
                elapsed, used, out = timed(argv, tree)
                wall[name].append(elapsed)
                cpu[name].append(used)
                counts[name] = (int(out.strip()) if name == "endplay"
                                else sum(1 for line in out.splitlines() if json.loads(line)["status"] != "error"))
            print(f"round {r + 1}: " + ", ".join(f"{n} {wall[n][-1]:.1f} s (CPU {cpu[n][-1]:.1f} s)" for n in names),
                  flush=True)
    print(f"\nboards: {counts}")
    for n in names:
        print(f"{n}: median {statistics.median(wall[n]):.1f} s wall, {statistics.median(cpu[n]):.1f} s CPU; "
              f"{counts[n] / statistics.median(wall[n]):,.0f} boards/s wall")
    for label, t in (("wall", wall), ("CPU", cpu)):
        ratio = [counts["bridgetable"] / tb / (counts["endplay"] / te)
                 for tb, te in zip(t["bridgetable"], t["endplay"], strict=True)]
        print(f"bridgetable / endplay, boards per second ({label} time), per round: "
              + ", ".join(f"{x:.2f}x" for x in ratio))
        if before_tree is not None:
            key = f"bridgetable@{args.before}"
            print(f"time now / time at {args.before} ({label}), per round: "
                  + ", ".join(f"{a / b:.3f}" for a, b in zip(t["bridgetable"], t[key], strict=True)))


if __name__ == "__main__":
    main()
