"""Replay game records through a ``Table`` and produce one verdict per record."""
from __future__ import annotations

import gc
import io
import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .completion import completion
from .editions import DEFAULT, edition
from .events import EventError, TableEvent, read_jsonl
from .machine import Table, TableError
from .record import GameRecord, Recorded
from .scoring import score_ns

log = logging.getLogger(__name__)


def read_records(path: str | Path) -> Iterator[GameRecord]:
    """Records of any supported file, chosen by extension (.pbn, .lin, .jsonl); never raises for bad content."""
    p = Path(path)
    ext = p.suffix.lower()
    if ext == ".pbn":
        from .formats.pbn import read_pbn
        yield from read_pbn(p, source=str(path))
    elif ext == ".lin":
        from .formats.lin import read_lin
        yield from read_lin(p, source=str(path))
    elif ext in (".jsonl", ".json", ".log"):
        yield from read_event_log(p, source=str(path))
    else:
        yield GameRecord(str(path), 0, error=f"unknown file type {ext!r} (expected .pbn, .lin or .jsonl)")


def read_event_log(path: Path, source: str) -> Iterator[GameRecord]:
    """A table-event log: each ``board`` event starts a new record."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        yield GameRecord(source, 0, error=f"cannot read: {err}")
        return
    record: GameRecord | None = None
    index = 0
    try:
        for event in read_jsonl(io.StringIO(text)):
            if event.type == "board":
                if record is not None:
                    yield record
                    index += 1
                record = GameRecord(source, index)
            if record is None:
                record = GameRecord(source, index, error="events before the first board event")
            record.events.append(event)
    except EventError as err:
        if record is None:
            record = GameRecord(source, index)
        record.error = str(err)
    if record is not None:
        yield record


def replay_events(table: Table, events: Iterable[TableEvent]) -> str | None:
    """Apply events; returns an error message if an event could not be applied (the table keeps its state)."""
    try:
        table.apply_all(events if isinstance(events, (list, tuple)) else list(events))
    except TableError as err:
        return str(err)
    except Exception as err:            # an engine bug: report it on this record, keep the run going
        log.exception("engine failed (%s)", "; ".join(getattr(err, "__notes__", ())))
        return f"engine error: {err!r}"
    return None


def verdict(record: GameRecord, table: Table | None = None, complete: bool = False) -> dict[str, Any]:
    """The engine's verdict on one record, beside what the file itself claims. ``complete``: a play that
    stops with no claim and no result also gets a double-dummy ``completion`` (table/completion.py)."""
    own = table is None
    table = table or Table()
    error = record.error
    try:
        if not record.events or record.events[0].type != "board":
            return {"source": record.source, "record": record.index, "board": None, "dealer": None,
                    "vulnerable": None, "contract": None, "declarer": None, "tricks": None, "score_ns": None,
                    "status": "error", "irregularities": [], "error": error or "record has no board",
                    "recorded": record.recorded.to_dict()}
        run_error = replay_events(table, record.events)
        b = table.board
        assert b is not None
        # Table.contract / .status / .score_ns, each read once (a replay spends a tenth of its time here)
        tricks = table.tricks
        contract: str | None = None
        declarer: str | None = None
        score: int | None = None
        if table.passed_out:
            contract, score, status = "PASS", 0, "passed_out"
        else:
            c = table.contract
            if c is not None:
                contract, declarer = str(c), c.declarer
                if tricks is not None:
                    score = score_ns(c, b.vulnerable, tricks)
            status = "incomplete" if tricks is None else "claimed" if table.claimed else "complete"
        if run_error and tricks is None and contract is None:
            status = "error"
        auction = table.auction
        out: dict[str, Any] = {
            "source": record.source, "record": record.index, "board": b.board, "dealer": str(b.dealer),
            "vulnerable": str(b.vulnerable), "contract": contract, "declarer": declarer, "tricks": tricks,
            "score_ns": score, "status": status, "irregularities": [i.to_dict() for i in table.irregularities],
            "error": f"{error}; {run_error}" if error and run_error else error or run_error or None,
            "recorded": record.recorded.to_dict(), "state": table.state, "has_deal": table.deal is not None,
            "calls": len(auction.calls) if auction else 0}
        if table.edition is not DEFAULT:
            out["laws"] = table.edition.name        # (absent under the default 1997 edition)
        if complete and tricks is None and table.play is not None:
            out["completion"] = completion(table)
    finally:
        if own:
            table.close()
    return out


@contextmanager
def _batch_gc(threshold: int = 10_000) -> Iterator[None]:
    """A replay allocates millions of short-lived objects that reference counting frees at once; the
    cyclic collector's default young-generation threshold (700) makes it rescan them ~70 times a second
    for nothing. A larger threshold cuts the replay's CPU time by ~8% (bench/replay_corpus.py); memory stays
    flat because the engine makes no cycles per record. The previous thresholds come back afterwards."""
    old = _raise_gc_threshold(threshold)
    try:
        yield
    finally:
        gc.set_threshold(*old)


def _raise_gc_threshold(threshold: int = 10_000) -> tuple[int, ...]:
    old = gc.get_threshold()
    gc.set_threshold(max(threshold, old[0]), *old[1:])
    return old


def replay_paths(paths: Iterable[str | Path], jobs: int = 1, complete: bool = False,
                 laws: str | None = None) -> Iterator[dict[str, Any]]:
    """One verdict per record of every file, in file order. One Table serves a whole run (boards are
    sequential); with ``jobs > 1`` files are spread over that many worker processes. ``laws``: the edition
    ("1997" default, "2017"); a board event of an event log may name its own."""
    edition(laws)                     # an unknown edition is refused before any work starts
    if jobs > 1:
        import multiprocessing
        with multiprocessing.get_context("spawn").Pool(jobs, initializer=_worker_init) as pool:
            work = [(str(p), complete, laws) for p in paths]
            for verdicts in pool.imap(_replay_file, work, chunksize=4):
                yield from verdicts
        return
    table = Table(laws=laws)
    try:
        with _batch_gc():
            for path in paths:
                yield from _replay_one(path, table, complete)
    finally:
        table.close()


def _worker_init() -> None:
    _raise_gc_threshold()             # a worker process only replays: no need to put it back


_worker_tables: dict[str | None, Table] = {}


def _replay_file(work: tuple[str, bool, str | None]) -> list[dict[str, Any]]:
    table = _worker_tables.get(work[2])
    if table is None:
        table = _worker_tables[work[2]] = Table(laws=work[2])
    return list(_replay_one(work[0], table, work[1]))


def _replay_one(path: str | Path, table: Table, complete: bool = False) -> Iterator[dict[str, Any]]:
    """A file's records are all read before the first is replayed: reading and replaying one after the
    other keeps each one's code and tables warm in the CPU's caches, where taking turns record by record
    evicts them (the whole replay takes ~5 % less time). The verdicts are the same, in the same order."""
    records: list[GameRecord] = []
    failed: Exception | None = None
    try:
        for record in read_records(path):
            records.append(record)
    except Exception as err:
        failed = err
    try:
        for record in records:
            yield verdict(record, table, complete)
        if failed is not None:
            raise failed
    except Exception as err:          # a reader bug must not stop the run; report it as a record
        log.exception("reading %s failed", path)
        yield verdict(GameRecord(str(path), -1, error=f"reader failed: {err!r}"), table)


__all__ = ["read_records", "replay_paths", "verdict", "Recorded"]
