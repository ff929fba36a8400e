"""``bridgetable deal ...``: generate, convert and print hand records; deal and verify them on a machine.

    bridgetable deal generate N OUT [--seed S] [--first B]
    bridgetable deal convert IN OUT
    bridgetable deal verify SET --machine URL|sim [--faults SPEC] [--seed N] [--on-problem ...]
    bridgetable deal sheets SET OUT.html

Formats come from the file names (``table.handrecords``). Exit status: 0 success, 1 a board needs
attention (verify), 2 unusable input or machine.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:            # imported where used, as the other subcommands do: `bridgetable replay` never needs it
    from table.handrecords import HandRecordBoard


def _read(path: str) -> list[HandRecordBoard]:
    from table.handrecords import HandRecordError, read_hand_records
    try:
        return read_hand_records(path)
    except HandRecordError as err:
        raise click.ClickException(str(err)) from None


def _write(boards: list[HandRecordBoard], path: str) -> None:
    from table.handrecords import HandRecordError, write_hand_records
    try:
        write_hand_records(boards, path)
    except HandRecordError as err:
        raise click.ClickException(str(err)) from None


def _select(boards: list[HandRecordBoard], spec: str | None) -> list[HandRecordBoard]:
    """``--boards 1-16,20``: the boards of the set to use."""
    if not spec:
        return boards
    wanted: set[int] = set()
    try:
        for part in spec.split(","):
            lo, _, hi = part.strip().partition("-")
            wanted.update(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        raise click.BadParameter(f"{spec!r} is not a board list like 1-16,20", param_hint="--boards") from None
    chosen = [b for b in boards if b.board in wanted]
    if not chosen:
        raise click.BadParameter(f"no board of the set is in {spec!r}", param_hint="--boards")
    return chosen


@click.group()
def deal() -> None:
    """Hand records: generate, convert, deal and verify on a dealing machine, print sheets."""


@deal.command()
@click.argument("n", type=click.IntRange(1, 9999))
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("--seed", help="Reproducible set, FOR TESTS ONLY: anyone who knows the seed knows every deal. "
              "Without it the deals come from the operating system's secure random generator.")
@click.option("--first", default=1, show_default=True, type=click.IntRange(1, 65535), help="first board number")
def generate(n: int, out: str, seed: str | None, first: int) -> None:
    """Deal N random boards into OUT (format from its name: .pbn .dup .dlm .bri .dge ...)."""
    from table.dealgen import generate as gen
    seed_value: Any = None
    if seed is not None:
        seed_value = int(seed) if seed.lstrip("-").isdigit() else seed
        click.echo("warning: a seeded set is predictable; never use it for a real session", err=True)
    _write(gen(n, seed_value, first=first), out)
    click.echo(f"{n} boards written to {out}", err=True)


@deal.command()
@click.argument("src", type=click.Path(exists=True, dir_okay=False))
@click.argument("dst", type=click.Path(dir_okay=False))
def convert(src: str, dst: str) -> None:
    """Convert a hand-record file; the formats come from the file names."""
    boards = _read(src)
    _write(boards, dst)
    click.echo(f"{len(boards)} boards: {src} -> {dst}", err=True)


@deal.command()
@click.argument("set_path", metavar="SET", type=click.Path(exists=True, dir_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("--title", help="heading of the page (default: the set's file name)")
def sheets(set_path: str, out: str, title: str | None) -> None:
    """Printable hand-record sheets (HTML) with each board's double-dummy table and par."""
    from table.handrecords.sheets import render
    boards = _read(set_path)
    try:
        page = render(boards, title or Path(set_path).name)
    except ImportError as err:
        raise click.ClickException(f"sheets need endplay (pip install endplay): {err}") from None
    Path(out).write_text(page, encoding="utf-8")
    click.echo(f"{len(boards)} boards written to {out}", err=True)


@deal.command()
@click.argument("set_path", metavar="SET", type=click.Path(exists=True, dir_okay=False))
@click.option("--machine", required=True, help="the dealing machine's URL (a serial device, a pty path, "
              "socket://HOST:PORT, sim://dealer-1) or 'sim' for a simulated machine")
@click.option("--boards", "board_spec", help="only these boards, e.g. 1-16,20")
@click.option("--faults", help="simulated machine only: dealer faults per board, e.g. wrong_pocket=0.1,jam=0.05 "
              "(wrong_pocket duplicate missing foreign unknown wrong_board jam unreadable)")
@click.option("--wire", help="simulated machine only: wire faults, e.g. corrupt=0.001,drop=0.01")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of the simulated faults")
@click.option("--decks", "decks_path", type=click.Path(exists=True, dir_okay=False),
              help="the club's deck registry (JSON): names unidentified cards and catches cards of another deck")
@click.option("--deck", help="with --decks: the deck every board is dealt from")
@click.option("--on-problem", type=click.Choice(["ask", "continue", "redeal", "skip", "abort"]), default="ask",
              show_default=True, help="what to do when a board fails: ask the operator (when on a terminal), or "
              "always the same")
@click.option("--timeout", type=float, default=10.0, show_default=True, help="seconds of silence before giving up")
@click.option("--jsonl", is_flag=True, help="one JSON object per problem and per board on stdout")
def verify(set_path: str, machine: str, board_spec: str | None, faults: str | None, wire: str | None,
           seed: int, decks_path: str | None, deck: str | None, on_problem: str, timeout: float,
           jsonl: bool) -> None:
    """Deal SET on a dealing machine and verify every card against the hand record."""
    from drivers.dealer import BoardStop, DealerDriver, DealerError, Decision, Problem, summary
    from drivers.decks import DeckRegistry
    from drivers.errors import DriverError

    boards = _select(_read(set_path), board_spec)
    sim = None
    kwargs: dict[str, Any] = {}
    if machine == "sim" or machine.startswith("sim://"):
        from hw_sim.dealer_sim import SimulatedDealer
        from hw_sim.errors import DealerFaultError, FaultSpecError
        if machine == "sim":
            try:
                sim = SimulatedDealer("inproc", faults, seed, wire=wire)
            except (DealerFaultError, FaultSpecError) as err:
                raise click.BadParameter(str(err), param_hint="--faults/--wire") from None
            kwargs = sim.driver_kwargs(DeckRegistry())
            machine = sim.url
    elif faults or wire:
        raise click.BadParameter("only a simulated machine (--machine sim) takes faults", param_hint="--faults")
    if decks_path:
        try:
            kwargs["decks"] = DeckRegistry.load(decks_path)
        except DriverError as err:
            raise click.ClickException(str(err)) from None
        if deck:
            kwargs["deck_for"] = lambda _board: deck

    out = sys.stdout
    interactive = on_problem == "ask" and sys.stdin.isatty()

    def problem(p: Problem) -> None:
        if jsonl:
            out.write(json.dumps({"type": "problem", "kind": p.kind, "board": p.board, "card": p.card,
                                  "pocket": p.pocket, "blocking": p.blocking, "message": p.message}) + "\n")
        else:
            click.echo(("\n! " if p.blocking else "\n- ") + p.message)

    def operator(stop: BoardStop) -> Decision:
        if not interactive:
            choice = Decision.SKIP if on_problem == "ask" else Decision(on_problem)
            return choice if choice in stop.choices else Decision.SKIP
        click.echo("\n" + stop.message)
        answer = click.prompt("What now?", type=click.Choice([c.value for c in stop.choices]),
                              default=Decision.CONTINUE.value)
        return Decision(answer)

    driver = DealerDriver(machine, **kwargs)
    try:
        with click.progressbar(length=len(boards), label="Dealing", file=sys.stderr, show_pos=True,
                               hidden=not sys.stderr.isatty()) as bar:
            def progress(done: int, total: int, result: Any) -> None:
                bar.update(1)
                if jsonl:
                    out.write(json.dumps({"type": "board", "board": result.board, "status": result.status,
                                          "attempts": result.attempts,
                                          "problems": [p.kind for p in result.problems]}) + "\n")
            report = driver.deal_set(boards, operator=operator, on_problem=problem, progress=progress,
                                     timeout=timeout)
    except (DealerError, DriverError) as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(2)
    finally:
        driver.close()
        if sim is not None:
            sim.close()
    click.echo(summary(report), err=jsonl)
    sys.exit(0 if report.ok else 1)
