"""``bridgetable convert IN OUT``: game records between PBN, LIN and table-event JSONL, by file extension.

Every record of IN is either converted or reported on stderr, with its place (``IN#index``) and why:
a record the reader could not read fully (its error), and whatever the output format has no place for
(a hand read or a ruling in PBN or LIN, a rejected claim, a record without a board). A reported record
is still written as far as it was read and the format allows. ``--strict`` makes any report fatal: OUT
is not written and the exit status is 1. The writers write strict export format (PBN 2.1 export, LIN
as BBO writes it, one JSON event per line).
"""
from __future__ import annotations

import io
import logging
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

import click

if TYPE_CHECKING:
    from table.record import GameRecord

FORMATS = {".pbn": "pbn", ".lin": "lin", ".jsonl": "jsonl"}
# events each format can carry; a record holding any other is reported (LIN's own writer reports the rest)
_PBN_EVENTS = frozenset({"board", "call", "card", "claim", "claim_response", "contract"})


class _Collect(logging.Handler):
    """The writers log what they cannot write: keep those messages as the record's reports."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _format(path: str) -> str:
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise click.BadParameter(f"{path}: the extension must be one of {', '.join(FORMATS)}")
    return fmt


def _losses(rec: GameRecord, fmt: str) -> list[str]:
    """What of the record the output format has no place for (LIN's writer logs its own)."""
    from table.events import ClaimMade, ClaimResponded
    out = []
    if not rec.events or rec.events[0].type != "board":
        out.append("no board event: not written")
    if fmt == "lin" and rec.recorded.contract and not any(e.type in ("call", "contract") for e in rec.events):
        out.append(f"contract {rec.recorded.contract!r} without a declarer: LIN carries a contract only as an "
                   "auction, not written")
    if fmt == "pbn":
        kinds = sorted({e.type for e in rec.events} - _PBN_EVENTS)
        if kinds:
            out.append("PBN has no place for " + ", ".join(kinds) + " events: not written")
        for i, e in enumerate(rec.events):
            if isinstance(e, ClaimMade):
                answers = rec.events[i + 1:i + 3]
                if not all(isinstance(a, ClaimResponded) and a.accept for a in answers):
                    out.append("a claim not agreed by both defenders: not written")
    return out


def _write(records: list[GameRecord], fmt: str, stream: IO[str]) -> None:
    if fmt == "pbn":
        from table.formats.pbn import write_pbn
        write_pbn(records, stream)
    elif fmt == "lin":
        from table.formats.lin import write_lin
        write_lin(records, stream)
    else:
        from table.events import write_jsonl
        for rec in records:
            if rec.events and rec.events[0].type == "board":
                write_jsonl(rec.events, stream)


def convert_records(src: str, fmt: str) -> tuple[str, int, list[str]]:
    """Convert the records of ``src`` to ``fmt``: (text, records converted, reports)."""
    from table.replay import read_records
    records = list(read_records(src))
    reports: list[str] = []
    parts = []
    converted = 0
    for rec in records:
        where = f"{src}#{rec.index}"
        problems = [f"read: {rec.error}"] if rec.error else []
        problems += _losses(rec, fmt)
        buf = io.StringIO()
        handler = _Collect()
        loggers = [logging.getLogger(n) for n in ("table.formats.lin", "table.formats.pbn")]
        for lg in loggers:
            lg.addHandler(handler)
        try:
            _write([rec], fmt, buf)
        finally:
            for lg in loggers:
                lg.removeHandler(handler)
        problems += [m for m in handler.messages if m not in problems]
        text = buf.getvalue()
        if fmt == "pbn":                         # one header for the file, games separated by a blank line
            text = text.removeprefix("% PBN 2.1\n% EXPORT\n")
        if text.strip():
            parts.append(text)
            converted += not problems
        reports += [f"{where}: {p}" for p in problems]
    body = "\n".join(parts) if fmt == "pbn" else "".join(parts)
    if fmt == "pbn":
        body = "% PBN 2.1\n% EXPORT\n" + body
    return body, converted, reports


@click.command("convert")
@click.argument("src", metavar="IN", type=click.Path(exists=True, dir_okay=False))
@click.argument("dst", metavar="OUT", type=click.Path(dir_okay=False, writable=True))
@click.option("--strict", is_flag=True, help="any record not converted in full is fatal: OUT is not written, exit 1")
def convert(src: str, dst: str, strict: bool) -> None:
    """Convert game records between PBN, LIN and table-event JSONL (.pbn, .lin, .jsonl by extension)."""
    _format(src)
    fmt = _format(dst)
    if Path(src).resolve() == Path(dst).resolve():
        raise click.BadParameter("IN and OUT are the same file")
    text, converted, reports = convert_records(src, fmt)
    for r in reports:
        click.echo(r, err=True)
    if strict and reports:
        click.echo(f"{len(reports)} report(s): {dst} not written (--strict)", err=True)
        sys.exit(1)
    Path(dst).write_text(text, encoding="utf-8")
    click.echo(f"{converted} record(s) converted, {len(reports)} report(s)", err=True)
