"""The journal: every table event, ruling and director decision, appended to SQLite before it is acknowledged.

One file, WAL mode, ``synchronous=FULL`` by default: a commit returns only once the WAL is on disk, so an
acknowledged row survives a power cut or a SIGKILL. (``NORMAL`` in WAL mode survives a process crash but
may lose the last commits on power loss; it is offered for cheap SD cards, never the default.)

Writes go through one writer thread that takes every row waiting and commits them together (group
commit): a hundred tables pay for one fsync, not a hundred, and the event loop never blocks on the disk.
``append`` returns an awaitable that resolves once the row is durable.

Each row records who (``actor``: ``director``, ``seat:N``, ``device:SR-0001``, ``robot:E`` ...), what
(``kind`` and the JSON ``body``: a table event as ``table.events.to_dict`` writes it, an adjustment, a
release), and when (``at``, the server's UTC time). The tables are those of ``service/store/migrations.py``.

A row appended with ``seq = NEXT`` gets its sequence number from the journal, inside the transaction that
writes it (``MAX(seq) + 1`` of its table): club-wide rows (releases, rounds, revocations, sign-ins) come from
many requests at once and no counter outside the database can fall behind it. Table rows keep the number
their table's lock gave them.

The database file (and so its WAL and shared-memory files, which SQLite creates with the file's mode) is
made readable by its owner only: it holds the director's token and the secret that signs seat credentials.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from service.errors import Invalid, Unavailable
from service.store.migrations import migrate

log = logging.getLogger(__name__)

CLUB = "_club"          # the pseudo-table of club-wide rows (result releases)
NEXT = 0                # a row's ``seq`` before the journal allocates it


class JournalError(Unavailable):
    """The journal could not store a row: nothing was acknowledged."""


class Unstorable(Invalid, JournalError):
    """A row no journal could hold (a string that is not Unicode text, a value JSON cannot write): the request
    is at fault (422), and the row is refused before the write."""


class WriterBroken(Exception):
    """The writer's connection is in a state no later write can trust: the writer stops for good."""


def utcnow() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


Pending = tuple["Row", "asyncio.Future[None]", asyncio.AbstractEventLoop]


@dataclass(slots=True)
class Row:
    table_id: str
    seq: int
    at: str
    actor: str
    kind: str                      # "event" | "adjustment" | "release"
    body: dict[str, Any]
    id: int | None = None

    @property
    def time(self) -> float:
        return datetime.fromisoformat(self.at).timestamp()

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "table": self.table_id, "seq": self.seq, "at": self.at, "actor": self.actor,
                "kind": self.kind, "body": self.body}


class Journal:
    def __init__(self, path: str, synchronous: str = "FULL") -> None:
        self.path = path
        self.synchronous = synchronous
        self._db = self._connect()
        self._queue: queue.Queue[Pending | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._on_failure: Callable[[str], object] | None = None
        self.failure: str | None = None     # why the writer stopped for good (None: it runs, or never ran)
        self.commits = 0
        self.rows_written = 0

    def _connect(self) -> sqlite3.Connection:
        private_file(self.path)
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal" and self.path != ":memory:":
            raise JournalError(f"{self.path}: cannot switch to WAL mode (got {mode})")
        db.execute(f"PRAGMA synchronous={self.synchronous}")
        db.execute("PRAGMA busy_timeout=5000")
        try:
            migrate(db, self.path)
        except BaseException:
            db.close()
            raise
        return db

    # ------------------------------------------------------------------ reading (at start-up, before writing)
    def rows(self, table_id: str | None = None) -> Iterator[Row]:
        sql = "SELECT id, table_id, seq, at, actor, kind, body FROM journal"
        args: tuple[Any, ...] = ()
        if table_id is not None:
            sql += " WHERE table_id = ?"
            args = (table_id,)
        for rid, tid, seq, at, actor, kind, body in self._db.execute(sql + " ORDER BY id", args):
            yield Row(tid, seq, at, actor, kind, json.loads(body), rid)

    def meta(self, key: str) -> str | None:
        r = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return r[0] if r else None

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def pragma(self, name: str) -> Any:
        return self._db.execute(f"PRAGMA {name}").fetchone()[0]

    # ------------------------------------------------------------------ writing
    def start(self, on_failure: Callable[[str], object] | None = None) -> None:
        """Start the writer. ``on_failure(reason)`` is called (from the writer's thread) if it ever stops for
        good: every waiting and later append then fails at once with ``JournalError``."""
        self._on_failure = on_failure
        self._thread = threading.Thread(target=self._writer, name="journal-writer", daemon=True)
        self._thread.start()

    def append(self, row: Row) -> asyncio.Future[None]:
        """Queue ``row``; the returned future resolves once it is committed (raises ``JournalError`` if not:
        ``Unstorable`` for a row no journal could hold)."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        with self._lock:                            # never queued behind a writer that has stopped
            if self.failure is not None:
                fut.set_exception(JournalError(f"the journal has stopped ({self.failure}): nothing is stored"))
            elif self._thread is None:
                fut.set_exception(JournalError("the journal is closed"))
            else:
                self._queue.put((row, fut, loop))
        return fut

    def write_now(self, row: Row) -> None:
        """Synchronous append (start-up and tests; never from the event loop while the writer runs)."""
        self._insert([(row, encode(row))])

    def _insert(self, rows: list[tuple[Row, tuple[str, str, str, str, str]]]) -> None:
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError:            # busy, locked, a disk error: this write fails, a later one may not
            raise
        except Exception as err:                    # a closed or misused connection: no write can succeed
            raise WriterBroken(f"cannot start a write: {err}") from err
        try:
            allocated = []
            for row, (table_id, at, actor, kind, body) in rows:
                if row.seq == NEXT:
                    rid, seq = db.execute(
                        "INSERT INTO journal (table_id, seq, at, actor, kind, body) "
                        "SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ? FROM journal WHERE table_id = ? "
                        "RETURNING id, seq", (table_id, at, actor, kind, body, table_id)).fetchone()
                    allocated.append((row, rid, seq))
                else:
                    cur = db.execute("INSERT INTO journal (table_id, seq, at, actor, kind, body) VALUES (?,?,?,?,?,?)",
                                     (table_id, row.seq, at, actor, kind, body))
                    allocated.append((row, cur.lastrowid, row.seq))
            db.execute("COMMIT")
        except BaseException:
            try:
                if db.in_transaction:
                    db.execute("ROLLBACK")
            except sqlite3.Error as err:        # the connection is in a state no later write can trust
                raise WriterBroken(f"cannot roll back a failed write: {err}") from err
            raise
        for row, rid, seq in allocated:             # only once committed: a rolled-back row keeps NEXT
            row.id, row.seq = rid, seq
        self.commits += 1
        self.rows_written += len(rows)

    def _writer(self) -> None:
        batch: list[Pending] = []
        try:
            while True:
                batch = self._take()
                if not batch:
                    return
                self._write(batch)
                batch = []
        except BaseException as err:                # a writer that cannot go on says so, and hangs nobody
            self._stop_for_good(f"{type(err).__name__}: {err}", batch)

    def _take(self) -> list[Pending]:
        """Every row waiting (at least one; none once ``close`` asked the writer to stop)."""
        item = self._queue.get()
        if item is None:
            return []
        batch = [item]
        while True:
            try:
                nxt = self._queue.get_nowait()
            except queue.Empty:
                break
            if nxt is None:
                self._queue.put(None)
                break
            batch.append(nxt)
        return batch

    def _write(self, batch: list[Pending]) -> None:
        """Commit ``batch`` together; a row that cannot be stored fails alone and the others are written."""
        ready = []
        for row, fut, loop in batch:
            try:
                ready.append(((row, encode(row)), fut, loop))
            except Unstorable as err:
                log.warning("journal row refused (%s %s by %s): %s", row.kind, row.table_id, row.actor, err)
                loop.call_soon_threadsafe(_settle, fut, err)
        if not ready:
            return
        try:
            self._insert([r for r, _, _ in ready])
            for _, fut, loop in ready:
                loop.call_soon_threadsafe(_settle, fut, None)
            return
        except WriterBroken:
            raise
        except Exception as err:                    # one bad row must not lose the others: retry one by one
            log.error("journal batch failed (%s: %s); writing rows one at a time", type(err).__name__, err)
        for item, fut, loop in ready:
            try:
                self._insert([item])
                ok: BaseException | None = None
            except WriterBroken:
                raise
            except Exception as e:
                ok = JournalError(f"journal write failed: {type(e).__name__}: {e}")
            loop.call_soon_threadsafe(_settle, fut, ok)

    def _stop_for_good(self, reason: str, batch: list[Pending]) -> None:
        log.critical("the journal's writer has stopped: %s; every write is refused from now on", reason)
        with self._lock:
            self.failure = reason
        err = JournalError(f"the journal has stopped ({reason}): nothing is stored")
        waiting = list(batch)
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                waiting.append(item)
        for _, fut, loop in waiting:                # a row already settled keeps its answer (``_settle``)
            try:
                loop.call_soon_threadsafe(_settle, fut, err)
            except RuntimeError:                    # its loop has closed: nobody waits for it
                pass
        if self._on_failure is not None:
            try:
                self._on_failure(reason)
            except Exception:
                log.exception("reporting the journal's failure failed")

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=10)
            self._thread = None
        try:
            self._db.close()
        except sqlite3.Error:
            pass


def private_file(path: str) -> None:
    """Create ``path`` readable and writable by its owner only (0600), or make an existing file so, with its
    WAL and shared-memory files."""
    if path == ":memory:" or path.startswith("file:"):
        return
    os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
    for p in (path, path + "-wal", path + "-shm"):
        try:
            os.chmod(p, 0o600)
        except FileNotFoundError:
            pass
        except OSError as err:                      # another user's file: say so, and use it as it is
            log.warning("%s: cannot make it private (%s)", p, err)


def encode(row: Row) -> tuple[str, str, str, str, str]:
    """The row's text columns (table, at, actor, kind, JSON body), each valid UTF-8, or ``Unstorable``."""
    try:
        body = json.dumps(row.body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as err:
        raise Unstorable(f"the journal cannot write this {row.kind} row: {str(err)[:120]}") from err
    columns = (row.table_id, row.at, row.actor, row.kind, body)
    for text in columns:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as err:
            raise Unstorable(f"the journal cannot store this {row.kind} row: a string holds a lone surrogate "
                             "(not a Unicode character)") from err
        except AttributeError as err:
            raise Unstorable(f"the journal cannot store this {row.kind} row: a {type(text).__name__} is not "
                             "text") from err
    return columns


def _settle(fut: asyncio.Future[None], err: BaseException | None) -> None:
    if fut.done():
        return
    if err is None:
        fut.set_result(None)
    else:
        fut.set_exception(err)
