"""The ``bridgetable`` command line."""
from __future__ import annotations

import json
import sys

import click

from .convert_cli import convert
from .deal_cli import deal
from .score_cli import score
from .serve_cli import serve
from .sim_cli import register_commands
from .verdict_output import expand, human


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
@click.option("--laws", type=click.Choice(["1997", "2017"]), default="1997", show_default=True,
              help="the law edition: the 1997 WBF Laws (1999 CBA edition) or the 2017 WBF Laws; a board event "
                   "of an event log may name its own")
def replay(paths: tuple[str, ...], jsonl: bool, jobs: int, complete_dd: bool, laws: str) -> None:
    """Replay PBN, LIN or table-event logs through the law engine; one verdict per record."""
    from table.replay import replay_paths
    out = sys.stdout
    counts: dict[str, int] = {}
    # what json.dumps(v, ensure_ascii=False) writes, from one encoder (dumps builds one per call when given an
    # option); a verdict holds no cycle to look for
    to_json = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode
    # Lines go out in blocks of a few hundred kilobytes: written line by line through the 8 KB stream buffer,
    # a pipe (`| jq`, a parent process) cost a system call and a context switch per 8 KB, 1.1 s of system
    # time over the PBN corpus against 0.2 s (docs/PERFORMANCE.md).
    block: list[str] = []
    try:
        for v in replay_paths(list(expand(paths)), jobs=jobs, complete=complete_dd, laws=laws):
            counts[v["status"]] = counts.get(v["status"], 0) + 1
            block.append(to_json(v) if jsonl else human(v))
            if len(block) >= 500:
                out.write("\n".join(block) + "\n")
                block.clear()
    finally:                    # an interruption still writes every verdict made
        if block:
            out.write("\n".join(block) + "\n")
        out.flush()
    if not jsonl:
        summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        click.echo(f"{sum(counts.values())} records: {summary}", err=True)


# subcommands of the other layers, registered here so `bridgetable --help` lists them all
register_commands(main)          # devices, sim
main.add_command(serve)
main.add_command(deal)
main.add_command(convert)
main.add_command(score)

if __name__ == "__main__":
    main()
