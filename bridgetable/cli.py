"""The ``bridgetable`` command line."""
from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import click

SUPPORTED = (".pbn", ".lin", ".jsonl")


def expand(paths: tuple[str, ...]) -> Iterator[Path]:
    """Files as given; folders are searched for supported files, in sorted order."""
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in SUPPORTED)
        else:
            yield p


def _human(v: dict) -> str:
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


@click.group()
@click.version_option(package_name="bridgetable")
def main() -> None:
    """Electronic bridge tables: replay records, run simulated devices, serve the director console."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--jsonl", is_flag=True, help="one JSON object per record on stdout")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(1, 64),
              help="worker processes (files are spread over them; output order is kept)")
@click.option("--complete-dd", is_flag=True,
              help="a play that stops with no claim and no result also gets a double-dummy 'completion' "
                   "(an inference, kept apart from the verdict's tricks and score)")
def replay(paths: tuple[str, ...], jsonl: bool, jobs: int, complete_dd: bool) -> None:
    """Replay PBN, LIN or table-event logs through the law engine; one verdict per record."""
    from table.replay import replay_paths
    out = sys.stdout
    counts: dict[str, int] = {}
    for v in replay_paths(list(expand(paths)), jobs=jobs, complete=complete_dd):
        counts[v["status"]] = counts.get(v["status"], 0) + 1
        if jsonl:
            out.write(json.dumps(v, ensure_ascii=False) + "\n")
        else:
            out.write(_human(v) + "\n")
    if not jsonl:
        summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        click.echo(f"{sum(counts.values())} records: {summary}", err=True)


# subcommands of the other layers, registered here so `bridgetable --help` lists them all
from .convert_cli import convert as _convert  # noqa: E402
from .deal_cli import deal as _deal  # noqa: E402
from .score_cli import score as _score  # noqa: E402
from .serve_cli import serve as _serve  # noqa: E402
from .sim_cli import register_commands  # noqa: E402

register_commands(main)          # devices, sim
main.add_command(_serve)
main.add_command(_deal)
main.add_command(_convert)
main.add_command(_score)

if __name__ == "__main__":
    main()
