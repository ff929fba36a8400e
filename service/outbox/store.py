"""The outbox's SQL store: result versions (``outbox_message``) and their delivery state per target
(``outbox``), in the journal's SQLite file (tables in ``service/store/migrations.py``).

Every method runs on the outbox's one database thread (``service/outbox/delivery.py``). The connection uses
``synchronous=NORMAL``: a later ``FULL`` journal commit puts the outbox's earlier WAL frames on disk too, and a
delivery state lost to a power cut means one more delivery, which the receiver's idempotency absorbs.
"""
from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from service.store.migrations import migrate

T = TypeVar("T")

_DUE = """
SELECT o.id, o.key, o.table_id, o.board, o.version, o.attempts, m.payload, m.lin
FROM outbox o JOIN outbox_message m ON m.key = o.key
WHERE o.target = ? AND o.status = 'pending' AND o.held = 0 {when}
  AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.target = o.target AND p.table_id = o.table_id
                  AND p.board = o.board AND p.status = 'pending' AND p.version < o.version)
"""


def canonical(d: dict[str, Any]) -> str:
    return json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass
class Message:
    key: str
    table_id: str
    board: int
    version: int
    seq: int
    supersedes: str | None
    content: str
    payload: dict[str, Any]
    lin: str
    released: bool                        # at derivation: whether the board's result was public


@dataclass
class Due:
    id: int
    key: str
    table_id: str
    board: int
    version: int
    attempts: int
    payload: dict[str, Any]
    lin: str


@dataclass
class LastVersion:
    key: str
    version: int
    content: str


@dataclass
class TargetHistory:
    last_success_at: float | None
    last_error: str | None
    last_error_at: float | None


class OutboxStore:
    def __init__(self, path: str) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None

    @property
    def db(self) -> sqlite3.Connection:
        assert self._db is not None, "the outbox is not open"
        return self._db

    def _tx(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            out = fn(db)
            db.execute("COMMIT")
            return out
        except BaseException:
            db.execute("ROLLBACK")
            raise

    # ------------------------------------------------------------------ opening and closing
    def open(self) -> str:
        """Open (and migrate) the file; returns the database's source id, made once per database."""
        path = self.path
        # an in-memory journal cannot be shared with a second connection: the outbox then keeps its own
        self._db = db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            if path != ":memory:":
                db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=10000")
            migrate(db, path)
        except BaseException:
            self.close()
            raise
        db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('outbox_source', ?)", (secrets.token_hex(6),))
        return str(db.execute("SELECT value FROM meta WHERE key = 'outbox_source'").fetchone()[0])

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def last_versions(self) -> dict[tuple[str, int], LastVersion]:
        """The latest stored version of every (table, board)."""
        rows = self.db.execute(
            "SELECT m.table_id, m.board, m.key, m.version, m.content FROM outbox_message m "
            "JOIN (SELECT table_id, board, MAX(version) AS v FROM outbox_message GROUP BY table_id, board) x "
            "ON x.table_id = m.table_id AND x.board = m.board AND x.v = m.version")
        return {(tid, board): LastVersion(key, version, content) for tid, board, key, version, content in rows}

    def history(self, target: str) -> TargetHistory:
        """A target's last success and last error, as stored by earlier runs."""
        db = self.db
        success = db.execute("SELECT MAX(delivered_at) FROM outbox WHERE target = ?", (target,)).fetchone()[0]
        r = db.execute("SELECT last_error, last_attempt_at FROM outbox WHERE target = ? AND status != 'delivered' "
                       "AND last_error IS NOT NULL ORDER BY last_attempt_at DESC LIMIT 1", (target,)).fetchone()
        return TargetHistory(success, *(r or (None, None)))

    # ------------------------------------------------------------------ storing versions
    def backfill(self, holds: Mapping[str, bool]) -> None:
        """A target added to the configuration gets the latest version of every result already made;
        ``holds``: target -> whether it holds a board until its release."""
        now = time.time()

        def go(db: sqlite3.Connection) -> None:
            for name, held in holds.items():
                db.execute("INSERT OR IGNORE INTO outbox (target, key, table_id, board, version, held, next_at, "
                           "created_at) SELECT ?, m.key, m.table_id, m.board, m.version, ?, ?, ? FROM outbox_message m "
                           "WHERE m.version = (SELECT MAX(version) FROM outbox_message x "
                           "WHERE x.table_id = m.table_id AND x.board = m.board)",
                           (name, int(held), now, now))
        self._tx(go)

    def insert(self, msgs: list[Message], holds: Mapping[str, bool]) -> None:
        """Store ``msgs`` and queue each for every target (held until released where the target says so)."""
        now = time.time()

        def go(db: sqlite3.Connection) -> None:
            for m in msgs:
                db.execute("INSERT OR IGNORE INTO outbox_message (key, table_id, board, version, seq, supersedes, "
                           "content, payload, lin, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                           (m.key, m.table_id, m.board, m.version, m.seq, m.supersedes, m.content,
                            canonical(m.payload), m.lin, now))
                for name, only_released in holds.items():
                    held = only_released and not m.released
                    db.execute("INSERT OR IGNORE INTO outbox (target, key, table_id, board, version, held, next_at, "
                               "created_at) VALUES (?,?,?,?,?,?,?,?)",
                               (name, m.key, m.table_id, m.board, m.version, int(held), now, now))
        self._tx(go)

    # ------------------------------------------------------------------ delivery state
    def due(self, target: str, feed: bool, now: float, limit: int, flying: tuple[str, ...]) -> list[Due]:
        """Up to ``limit`` messages due for ``target``, never a key in ``flying``; ``feed``: the target shows
        one text per board (LIN)."""
        skip = f" AND o.key NOT IN ({','.join('?' * len(flying))})" if flying else ""
        if feed:
            # a feed shows one text per board: an older version not yet written never will be (written after
            # the newer one it would replace it), so it is marked superseded instead of sent
            self.db.execute("UPDATE outbox SET status = 'superseded' WHERE target = ? "
                            "AND status IN ('pending', 'failed') AND EXISTS (SELECT 1 FROM outbox n "
                            "WHERE n.target = outbox.target AND n.table_id = outbox.table_id "
                            "AND n.board = outbox.board AND n.version > outbox.version)"
                            + skip.replace("o.key", "key"), (target, *flying))
        rows = self.db.execute(_DUE.format(when="AND o.next_at <= ?" + skip) + " ORDER BY o.next_at, o.id LIMIT ?",
                               (target, now, *flying, limit)).fetchall()
        return [Due(i, k, t, b, v, a, json.loads(p), lin) for i, k, t, b, v, a, p, lin in rows]

    def next_at(self, target: str, flying: tuple[str, ...]) -> float | None:
        skip = f" AND o.key NOT IN ({','.join('?' * len(flying))})" if flying else ""
        sql = _DUE.replace("SELECT o.id, o.key, o.table_id, o.board, o.version, o.attempts, m.payload, m.lin",
                           "SELECT MIN(o.next_at)").format(when=skip)
        value = self.db.execute(sql, (target, *flying)).fetchone()[0]
        return None if value is None else float(value)

    def mark(self, target: str, key: str, status: str, attempts: int, now: float, next_at: float,
             error: str | None) -> None:
        """Record an attempt's outcome (one autocommit UPDATE: the status of one row)."""
        self.db.execute("UPDATE outbox SET status = ?, attempts = ?, last_attempt_at = ?, next_at = ?, "
                        "delivered_at = CASE WHEN ? = 'delivered' THEN ? ELSE delivered_at END, "
                        "last_error = COALESCE(?, last_error) WHERE target = ? AND key = ?",
                        (status, attempts, now, next_at, status, now, error, target, key))

    def unhold(self, targets: list[str], pairs: list[tuple[str, int]]) -> None:
        """``targets`` may now send the (table, board) ``pairs`` (their results were released)."""
        self._tx(lambda db: db.executemany(
            "UPDATE outbox SET held = 0, next_at = MAX(next_at, ?) WHERE target = ? AND held = 1 AND table_id = ? "
            "AND board = ?", [(time.time(), n, t, b) for n in targets for t, b in pairs]))

    def retry(self, target: str) -> int:
        cur = self.db.execute("UPDATE outbox SET status = 'pending', attempts = 0, next_at = ? "
                              "WHERE target = ? AND status = 'failed'", (time.time(), target))
        return cur.rowcount

    def counts(self) -> dict[str, dict[str, Any]]:
        """Per target: messages per state, attempts, the oldest pending, the last failures."""
        out: dict[str, dict[str, Any]] = {}
        for target, status, held, n, oldest, attempts in self.db.execute(
                "SELECT target, status, held, COUNT(*), MIN(created_at), SUM(attempts) FROM outbox "
                "GROUP BY target, status, held"):
            c = out.setdefault(target, {"attempts": 0})
            c["attempts"] += attempts or 0
            bucket = "held" if status == "pending" and held else status
            c[bucket] = c.get(bucket, 0) + n
            if bucket == "pending":
                c["oldest_pending"] = oldest
        for target in out:
            out[target]["recent_failures"] = [
                {"key": k, "table": t, "board": b, "error": e} for k, t, b, e in self.db.execute(
                    "SELECT key, table_id, board, last_error FROM outbox WHERE target = ? AND status = 'failed' "
                    "ORDER BY id DESC LIMIT 5", (target,))]
        return out
