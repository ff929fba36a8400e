"""Do two versions of the law engine give the same verdicts? Replays the same records through the source of a
git revision and through the working tree, and compares the JSON verdicts record by record.

    python bench/compare_verdicts.py --before 856b382 ../shared/data/pbn-corpus ../shared/data/lin-vugraph

A refactor must print SAME; any difference is listed (source, record, the two verdicts) and the exit status is 1.
Each side runs in its own process with only its own tree on the path, so neither can import the other's modules.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPLAY = ("import sys; from bridgetable.cli import main; "
          "sys.argv = ['bridgetable', 'replay', '--jsonl', *sys.argv[1:]]; main()")


def export_revision(revision: str, into: Path) -> Path:
    """The revision's tree as plain files (git archive), so its modules import from there."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", revision],
                             check=True, capture_output=True).stdout
    tar_path = into / "tree.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def replay(tree: Path, paths: list[str]) -> tuple[list[str], float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", REPLAY, *paths], cwd=tree, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):          # 1: some record was reported as an error, which is a verdict too
        raise SystemExit(f"replay in {tree} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done.stdout.splitlines(), elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="git revision of the engine to compare against")
    parser.add_argument("--show", type=int, default=10, help="differences to print (default 10)")
    parser.add_argument("paths", nargs="+", help="PBN, LIN or JSONL files or folders")
    args = parser.parse_args()
    paths = [str(Path(p).resolve()) for p in args.paths]
    with tempfile.TemporaryDirectory() as tmp:
        before_tree = export_revision(args.before, Path(tmp))
        before, t_before = replay(before_tree, paths)
        after, t_after = replay(ROOT, paths)
    print(f"before ({args.before}): {len(before)} verdicts in {t_before:.1f} s; "
          f"after (working tree): {len(after)} verdicts in {t_after:.1f} s")
    differences = [(i, a, b) for i, (a, b) in enumerate(zip(before, after)) if a != b]
    if len(before) != len(after):
        differences.append((min(len(before), len(after)), "<count>", "<count>"))
    if not differences:
        print(f"SAME: {len(after)} verdicts identical")
        return
    print(f"DIFFERENT: {len(differences)} verdicts differ")
    for i, a, b in differences[: args.show]:
        where = json.loads(a) if a.startswith("{") else {}
        print(f"- #{i} {where.get('source')} record {where.get('record')}\n  before: {a[:400]}\n  after:  {b[:400]}")
    sys.exit(1)


if __name__ == "__main__":
    main()
