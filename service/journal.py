"""The journal: every table event, ruling and director decision, appended to SQLite before it is acknowledged.

One file, WAL mode, ``synchronous=FULL`` by default: a commit returns only once the WAL is on disk, so an
acknowledged row survives a power cut or a SIGKILL. (``NORMAL`` in WAL mode survives a process crash but
may lose the last commits on power loss; it is offered for cheap SD cards, never the default.)

Writes go through one writer thread that takes every row waiting and commits them together (group
commit): a hundred tables pay for one fsync, not a hundred, and the event loop never blocks on the disk.
``append`` returns an awaitable that resolves once the row is durable.

Each row records who (``actor``: ``director``, ``seat:N``, ``device:SR-0001``, ``robot:E`` ...), what
(``kind`` and the JSON ``body``: a table event as ``table.events.to_dict`` writes it, an adjustment, a
release), and when (``at``, the server's UTC time). The tables are those of ``service/schema.py``.

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
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .errors import Unavailable
from .schema import migrate

log = logging.getLogger(__name__)

CLUB = "_club"          # the pseudo-table of club-wide rows (result releases)
NEXT = 0                # a row's ``seq`` before the journal allocates it


class JournalError(Unavailable):
    """The journal could not store a row: nothing was acknowledged."""


def utcnow() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


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
        self._queue: queue.Queue[tuple[Row, asyncio.Future[None], asyncio.AbstractEventLoop] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
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
    def start(self) -> None:
        self._thread = threading.Thread(target=self._writer, name="journal-writer", daemon=True)
        self._thread.start()

    def append(self, row: Row) -> asyncio.Future[None]:
        """Queue ``row``; the returned future resolves once it is committed (raises ``JournalError`` if not)."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        if self._thread is None:
            fut.set_exception(JournalError("the journal is closed"))
        else:
            self._queue.put((row, fut, loop))
        return fut

    def write_now(self, row: Row) -> None:
        """Synchronous append (start-up and tests; never from the event loop while the writer runs)."""
        self._insert([row])

    def _insert(self, rows: list[Row]) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            allocated = []
            for row in rows:
                body = json.dumps(row.body, ensure_ascii=False, separators=(",", ":"))
                if row.seq == NEXT:
                    rid, seq = db.execute(
                        "INSERT INTO journal (table_id, seq, at, actor, kind, body) "
                        "SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ? FROM journal WHERE table_id = ? "
                        "RETURNING id, seq", (row.table_id, row.at, row.actor, row.kind, body, row.table_id)).fetchone()
                    allocated.append((row, rid, seq))
                else:
                    cur = db.execute("INSERT INTO journal (table_id, seq, at, actor, kind, body) VALUES (?,?,?,?,?,?)",
                                     (row.table_id, row.seq, row.at, row.actor, row.kind, body))
                    allocated.append((row, cur.lastrowid, row.seq))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        for row, rid, seq in allocated:             # only once committed: a rolled-back row keeps NEXT
            row.id, row.seq = rid, seq
        self.commits += 1
        self.rows_written += len(rows)

    def _writer(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
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
            try:
                self._insert([r for r, _, _ in batch])
                err: BaseException | None = None
            except sqlite3.Error as e:            # one bad row must not lose the others: retry one by one
                log.error("journal batch failed (%s); writing rows one at a time", e)
                err = e
            for row, fut, loop in batch:
                if err is not None:
                    try:
                        self._insert([row])
                        ok: BaseException | None = None
                    except sqlite3.Error as e:
                        ok = JournalError(f"journal write failed: {e}")
                else:
                    ok = None
                loop.call_soon_threadsafe(_settle, fut, ok)

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


def _settle(fut: asyncio.Future[None], err: BaseException | None) -> None:
    if fut.done():
        return
    if err is None:
        fut.set_result(None)
    else:
        fut.set_exception(err)
