"""The live-upload outbox: every board result, durably queued for every configured target, delivered with
retries until the receiver has it (``docs/upload.md``).

**Messages.** A message is one version of a board's result at a table. A version is made when the board
completes (engine state ``board_complete``), when it is left unfinished for the next board (the result is
frozen), when a row after completion changes the result (a late ruling), and by each Law 12 adjustment (or its
cancellation) by the director. A new version of a result already sent carries ``supersedes`` (the previous
key) and a higher ``version``; receivers keep the highest version per (table, board).

**Keys come from the journal.** A version's idempotency key is ``<source>:<table>:<board>:<seq>``: the journal
``seq`` of the row that produced it, and ``source``, an id made once per journal database (so that a new
database never repeats an old one's keys). The outbox lives in the same SQLite file as the journal
(``outbox_message``: one row per version; ``outbox``: one row per version and target, with its delivery state).
At start-up, after the club has replayed its journal, every table's results are derived again and compared with
the last version stored: a result whose insert was lost (a crash between the journal commit and the outbox
insert) is stored then, and one already stored is not stored again (``INSERT OR IGNORE`` on the key, and the
comparison with the last stored version). Live, the club calls ``on_row`` after each committed row, and the
same derivation applies.

**Delivery.** One asyncio task drives every target: up to ``max_in_flight`` requests at once per target,
never two versions of one (table, board) at once and never a version before an older pending one; a LIN
target skips an older version not yet written (``superseded``), so a feed file never goes back to an older
result. Failures back off exponentially with jitter
(``upload_targets.backoff_delay``); ``max_attempts`` (0 = forever) or a permanent answer (4xx) mark a message
``failed``, which the director sees and can retry. A target with ``only_released`` holds a board until its
result is released (Laws 16B, 90B4: a public feed must not show a board other tables still have to play).

All SQLite work runs on one thread of its own (``synchronous=NORMAL`` on its own connection: a later ``FULL``
journal commit puts the outbox's earlier WAL frames on disk too, and a delivery state lost to a power cut
means one more delivery, which the receiver's idempotency absorbs).
"""
from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from table.events import TableEvent

from .journal import Row
from .runtime import BoardRecord, TableRuntime, summarize
from .settings import UploadTarget
from .upload_targets import Outcome, Target, backoff_delay, board_lin, make_target

if TYPE_CHECKING:
    from .club import Club

log = logging.getLogger(__name__)
T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox_message (
    key        TEXT    PRIMARY KEY,
    table_id   TEXT    NOT NULL,
    board      INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    supersedes TEXT,
    content    TEXT    NOT NULL,          -- the result fields compared to detect a new version
    payload    TEXT    NOT NULL,
    lin        TEXT    NOT NULL,
    created_at REAL    NOT NULL,
    UNIQUE (table_id, board, version)
);
CREATE TABLE IF NOT EXISTS outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    target          TEXT    NOT NULL,
    key             TEXT    NOT NULL REFERENCES outbox_message (key),
    table_id        TEXT    NOT NULL,
    board           INTEGER NOT NULL,
    version         INTEGER NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'pending'
                            CHECK (status IN ('pending', 'delivered', 'failed', 'superseded')),
    held            INTEGER NOT NULL DEFAULT 0,      -- waiting for the board's release (only_released)
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_at         REAL    NOT NULL,                -- unix time of the next attempt
    last_error      TEXT,
    last_attempt_at REAL,
    delivered_at    REAL,
    created_at      REAL    NOT NULL,
    UNIQUE (target, key)
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (target, status, held, next_at);
CREATE INDEX IF NOT EXISTS outbox_board ON outbox (target, table_id, board, status, version);
"""

_DUE = """
SELECT o.id, o.key, o.table_id, o.board, o.version, o.attempts, m.payload, m.lin
FROM outbox o JOIN outbox_message m ON m.key = o.key
WHERE o.target = ? AND o.status = 'pending' AND o.held = 0 {when}
  AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.target = o.target AND p.table_id = o.table_id
                  AND p.board = o.board AND p.status = 'pending' AND p.version < o.version)
"""


def _canonical(d: dict[str, Any]) -> str:
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
class _Last:
    key: str
    version: int
    content: str


@dataclass
class _TargetState:
    cfg: UploadTarget
    sender: Target
    in_flight: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    last_error: str | None = None
    last_error_at: float | None = None
    last_success_at: float | None = None
    outcomes: dict[str, int] = field(default_factory=dict)    # attempts by this process, per outcome cause


def result_content(res: dict[str, Any] | None, adj: dict[str, Any] | None) -> dict[str, Any]:
    """The fields of a board's result (``runtime.summarize``) and adjustment whose change makes a new version."""
    res = res or {}
    score = adj["score_ns"] if adj and adj.get("kind") == "assigned" else res.get("score_ns")
    return {"contract": res.get("contract"), "declarer": res.get("declarer"), "tricks": res.get("tricks"),
            "score_ns": score, "table_score_ns": res.get("score_ns"), "status": res.get("status"),
            "complete": bool(res.get("complete")), "adjustment": adj}


def _latest_version(rt: TableRuntime, rec: BoardRecord,
                    freeze: Row | None) -> tuple[dict[str, Any], int, str] | None:
    """(content, seq, at) of the latest version ``on_row`` makes of ``rec``'s result, from its journal rows
    replayed on a scratch table; ``freeze`` is the row that started the next board. None: no version yet."""
    scratch = TableRuntime(rt.id, rt.regulation)
    frozen: dict[str, Any] | None = None
    latest: tuple[dict[str, Any], int, str] | None = None
    try:
        for row in sorted([*rec.rows, *([freeze] if freeze is not None else [])], key=lambda r: r.seq):
            if row is freeze:
                frozen = summarize(scratch.table)
            else:
                scratch.apply_row(row)
                if not (row.kind == "adjustment" or row.kind == "event" and frozen is None
                        and scratch.table.state == "board_complete"):
                    continue
            srec = scratch.boards.get(rec.number)
            content = result_content(frozen or summarize(scratch.table), srec.adjustment if srec else None)
            if latest is None or content != latest[0]:
                latest = (content, row.seq, row.at)
    finally:
        scratch.close()
    return latest


class Outbox:
    def __init__(self, club: Club, path: str, targets: list[UploadTarget],
                 rng: random.Random | None = None) -> None:
        self.club = club
        self.path = path
        self.targets = {t.name: _TargetState(t, make_target(t)) for t in targets}
        self.rng = rng or random.Random()
        self.source = ""
        self._last: dict[tuple[str, int], _Last] = {}
        self._current: dict[str, int | None] = {}       # table -> board in play at the last row seen
        self._released_seen: set[tuple[str, int]] = set()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="outbox-db")
        self._db: sqlite3.Connection | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self.messages_made = 0
        self.stored_at_start = 0          # results whose insert was missing at start-up (see ``rederive``)

    # ------------------------------------------------------------------ thread plumbing
    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

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

    # ------------------------------------------------------------------ start-up and shutdown
    async def start(self) -> None:
        await self._call(self._open)
        msgs = self.rederive()
        # submitted before the listener is added, with no await in between: no row can slip between the
        # derivation and the listener, and live inserts queue behind this one on the outbox thread
        stored = asyncio.get_running_loop().run_in_executor(self._pool, self._insert, msgs) if msgs else None
        self.club.listeners.append(self.on_row)
        if stored is not None:
            await stored
        await self._call(self._backfill)
        self.stored_at_start = len(msgs)
        log.info("outbox: %d targets, %d results stored again at start-up", len(self.targets), len(msgs))
        self._task = asyncio.create_task(self._run(), name="outbox-delivery")

    async def stop(self, grace_s: float = 2.0) -> None:
        """Stop delivering: requests in flight get ``grace_s`` to finish; one cut short stays pending."""
        self._closed = True
        if self.on_row in self.club.listeners:
            self.club.listeners.remove(self.on_row)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        flying = [t for st in self.targets.values() for t in st.in_flight.values()]
        if flying:
            _, late = await asyncio.wait(flying, timeout=grace_s)
            for t in late:
                t.cancel()
            await asyncio.gather(*flying, return_exceptions=True)
        for st in self.targets.values():
            await st.sender.aclose()
        await self._call(self._close_db)
        self._pool.shutdown(wait=True)

    def _open(self) -> None:
        path = self.path
        # an in-memory journal cannot be shared with a second connection: the outbox then keeps its own
        self._db = db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        if path != ":memory:":
            db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA busy_timeout=10000")
        db.executescript(SCHEMA)
        db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('outbox_source', ?)", (secrets.token_hex(6),))
        self.source = db.execute("SELECT value FROM meta WHERE key = 'outbox_source'").fetchone()[0]
        for tid, board, key, version, content in db.execute(
                "SELECT m.table_id, m.board, m.key, m.version, m.content FROM outbox_message m "
                "JOIN (SELECT table_id, board, MAX(version) AS v FROM outbox_message GROUP BY table_id, board) x "
                "ON x.table_id = m.table_id AND x.board = m.board AND x.v = m.version"):
            self._last[(tid, board)] = _Last(key, version, content)
        for name, st in self.targets.items():
            st.last_success_at = db.execute("SELECT MAX(delivered_at) FROM outbox WHERE target = ?",
                                            (name,)).fetchone()[0]
            r = db.execute("SELECT last_error, last_attempt_at FROM outbox WHERE target = ? AND status != 'delivered' "
                           "AND last_error IS NOT NULL ORDER BY last_attempt_at DESC LIMIT 1", (name,)).fetchone()
            if r:
                st.last_error, st.last_error_at = r

    def _close_db(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _backfill(self) -> None:
        """A target added to the configuration gets the latest version of every result already made."""
        now = time.time()

        def go(db: sqlite3.Connection) -> None:
            for name, st in self.targets.items():
                db.execute("INSERT OR IGNORE INTO outbox (target, key, table_id, board, version, held, next_at, "
                           "created_at) SELECT ?, m.key, m.table_id, m.board, m.version, ?, ?, ? FROM outbox_message m "
                           "WHERE m.version = (SELECT MAX(version) FROM outbox_message x "
                           "WHERE x.table_id = m.table_id AND x.board = m.board)",
                           (name, int(bool(st.cfg.only_released)), now, now))
        self._tx(go)

    # ------------------------------------------------------------------ deriving results
    def _derive(self, rt: TableRuntime, rec: BoardRecord, content: dict[str, Any], row_seq: int,
                at: str) -> Message | None:
        """A new version of ``rec``'s result made at journal row ``row_seq``, unless it is the version stored."""
        number = rec.number
        cj = _canonical(content)
        last = self._last.get((rt.id, number))
        if last is not None and last.content == cj:
            return None
        key = f"{self.source}:{rt.id}:{number}:{row_seq}"
        if last is not None and last.key == key:
            return None
        version = last.version + 1 if last else 1
        rows = [r for r in rec.rows if r.seq <= row_seq]
        payload = {"schema": "bridgetable.result/1", "source": self.source, "key": key, "version": version,
                   "supersedes": last.key if last else None, "table": rt.id, "board": number,
                   "dealer": rec.dealer, "vulnerable": rec.vulnerable, **content,
                   "lead": next((r.body.get("card") for r in rows
                                 if r.kind == "event" and r.body.get("type") == "card"), None),
                   "at": at, "seq": row_seq}
        lin = board_lin(payload, [r.body for r in rows if r.kind == "event"])
        self._last[(rt.id, number)] = _Last(key, version, cj)
        self.messages_made += 1
        return Message(key, rt.id, number, version, row_seq, payload["supersedes"], cj, payload, lin,
                       number in rt.released)

    def rederive(self) -> list[Message]:
        """Every table's results as the replayed journal has them, where they differ from what is stored.

        The common case costs a comparison: a board whose result is the version stored. Otherwise (an insert
        lost to a crash, or an outbox added to an existing journal) the board's rows are replayed on a scratch
        table under the rules of ``on_row``, to find the row that made its latest version: the key is then the
        one the live path made, or would have made."""
        out: list[Message] = []
        for rt in self.club.tables.values():
            recs = sorted((r for r in rt.boards.values() if r.rows), key=lambda r: r.rows[0].seq)
            for i, rec in enumerate(recs):
                last = self._last.get((rt.id, rec.number))
                now = _canonical(result_content(rt.result(rec.number), rec.adjustment))
                if last is not None and last.content == now:
                    continue
                freeze = recs[i + 1].rows[0] if rec is not rt.current and i + 1 < len(recs) else None
                latest = _latest_version(rt, rec, freeze)
                if latest is not None:
                    msg = self._derive(rt, rec, *latest)
                    if msg is not None:
                        out.append(msg)
            self._current[rt.id] = rt.board_number
        return out

    def on_row(self, rt: TableRuntime, row: Row, event: TableEvent | None) -> None:
        """The club's listener: called after each journaled row of a table, on the event loop."""
        if self._closed:
            return
        if row.kind == "adjustment":
            numbers = [int(row.body["board"])]
        elif row.kind != "event":
            return
        elif row.body.get("type") == "board":
            prev = self._current.get(rt.id)
            self._current[rt.id] = rt.board_number
            numbers = [prev] if prev is not None and prev != rt.board_number else []
        elif rt.table.state == "board_complete" and rt.board_number is not None:
            numbers = [rt.board_number]
        else:
            return
        msgs = []
        for n in numbers:
            rec = rt.boards.get(n)
            if rec is not None:
                m = self._derive(rt, rec, result_content(rt.result(n), rec.adjustment), row.seq, row.at)
                if m is not None:
                    msgs.append(m)
        if msgs:
            # queued, not awaited: the insert runs on the outbox thread in order, and the event loop goes on
            fut = asyncio.wrap_future(self._pool.submit(self._insert, msgs))
            fut.add_done_callback(lambda f: self._inserted(f, msgs))

    def _inserted(self, fut: asyncio.Future[None], msgs: list[Message]) -> None:
        err = None if fut.cancelled() else fut.exception()
        if err is not None:          # the journal has the rows: the next start-up stores these versions
            log.error("outbox: could not store %s (%s); they are stored again at the next start-up",
                      ", ".join(m.key for m in msgs), err)
        self._wake.set()

    def _insert(self, msgs: list[Message]) -> None:
        now = time.time()

        def go(db: sqlite3.Connection) -> None:
            for m in msgs:
                db.execute("INSERT OR IGNORE INTO outbox_message (key, table_id, board, version, seq, supersedes, "
                           "content, payload, lin, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                           (m.key, m.table_id, m.board, m.version, m.seq, m.supersedes, m.content,
                            _canonical(m.payload), m.lin, now))
                for name, st in self.targets.items():
                    held = bool(st.cfg.only_released) and not m.released
                    db.execute("INSERT OR IGNORE INTO outbox (target, key, table_id, board, version, held, next_at, "
                               "created_at) VALUES (?,?,?,?,?,?,?,?)",
                               (name, m.key, m.table_id, m.board, m.version, int(held), now, now))
        self._tx(go)

    # ------------------------------------------------------------------ delivery
    async def _run(self) -> None:
        while True:
            try:
                timeout = await self._step()
            except asyncio.CancelledError:
                raise
            except Exception:                           # a bug or a locked database: keep the worker alive
                log.exception("outbox delivery loop")
                timeout = 1.0
            flying = [t for st in self.targets.values() for t in st.in_flight.values()]
            waker = asyncio.create_task(self._wake.wait())
            try:
                await asyncio.wait([waker, *flying], timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waker.cancel()
            self._wake.clear()

    async def _step(self) -> float:
        """Release held boards, start what is due; returns how long to sleep at most."""
        released = {(tid, n) for tid, rt in self.club.tables.items() for n in rt.released}
        new = released - self._released_seen
        if new and any(st.cfg.only_released for st in self.targets.values()):
            await self._call(self._unhold, sorted(new))
        self._released_seen |= new
        now = time.time()
        soonest = now + 1.0                             # a director's release is noticed within a second
        for name, st in self.targets.items():
            free = st.cfg.max_in_flight - len(st.in_flight)
            if free > 0:
                for d in await self._call(self._due, name, now, free, tuple(st.in_flight)):
                    st.in_flight[d.key] = asyncio.create_task(self._deliver(st, d), name=f"upload-{name}-{d.key}")
            nxt = await self._call(self._next_at, name, tuple(st.in_flight))
            if nxt is not None:
                soonest = min(soonest, nxt)
        return max(0.01, soonest - time.time())

    async def _deliver(self, st: _TargetState, d: Due) -> None:
        try:
            try:
                outcome = await st.sender.send(d)       # type: ignore[arg-type]
            except Exception as err:                    # a bug in a target: retried, and visible
                log.exception("upload %s: %s", st.cfg.name, d.key)
                outcome = Outcome("retry", f"internal error: {type(err).__name__}: {err}", cause="internal")
            now = time.time()
            cause = outcome.cause or outcome.kind
            st.outcomes[cause] = st.outcomes.get(cause, 0) + 1
            attempts = d.attempts + 1
            status, next_at, error = "delivered", now, None
            if outcome.kind == "delivered":
                st.last_success_at = now
            else:
                error = f"{outcome.detail} (attempt {attempts})"
                st.last_error, st.last_error_at = f"{d.key}: {error}", now
                if outcome.kind == "permanent" or (st.cfg.max_attempts and attempts >= st.cfg.max_attempts):
                    log.warning("upload %s: %s failed for good: %s", st.cfg.name, d.key, error)
                    status = "failed"
                else:
                    delay = backoff_delay(attempts, st.cfg.backoff_base_s, st.cfg.backoff_cap_s, self.rng)
                    if outcome.retry_after is not None:
                        delay = max(delay, min(outcome.retry_after, st.cfg.backoff_cap_s))
                    status, next_at = "pending", now + delay
            try:
                await self._call(self._mark, st.cfg.name, d.key, status, attempts, now, next_at, error)
            except sqlite3.Error as err:     # unrecorded: the message is sent again, the receiver's key absorbs it
                log.error("upload %s: could not record %s as %s: %s", st.cfg.name, d.key, status, err)
        finally:
            st.in_flight.pop(d.key, None)

    def _due(self, target: str, now: float, limit: int, flying: tuple[str, ...]) -> list[Due]:
        skip = f" AND o.key NOT IN ({','.join('?' * len(flying))})" if flying else ""
        if self.targets[target].cfg.kind == "lin":
            # a feed shows one text per board: an older version not yet written never will be (written after
            # the newer one it would replace it), so it is marked superseded instead of sent
            self.db.execute("UPDATE outbox SET status = 'superseded' WHERE target = ? AND status IN ('pending', 'failed') "
                            "AND EXISTS (SELECT 1 FROM outbox n WHERE n.target = outbox.target AND n.table_id = "
                            "outbox.table_id AND n.board = outbox.board AND n.version > outbox.version)"
                            + skip.replace("o.key", "key"), (target, *flying))
        rows = self.db.execute(_DUE.format(when="AND o.next_at <= ?" + skip) + " ORDER BY o.next_at, o.id LIMIT ?",
                               (target, now, *flying, limit)).fetchall()
        return [Due(i, k, t, b, v, a, json.loads(p), lin) for i, k, t, b, v, a, p, lin in rows]

    def _next_at(self, target: str, flying: tuple[str, ...]) -> float | None:
        skip = f" AND o.key NOT IN ({','.join('?' * len(flying))})" if flying else ""
        sql = _DUE.replace("SELECT o.id, o.key, o.table_id, o.board, o.version, o.attempts, m.payload, m.lin",
                           "SELECT MIN(o.next_at)").format(when=skip)
        return self.db.execute(sql, (target, *flying)).fetchone()[0]

    def _mark(self, target: str, key: str, status: str, attempts: int, now: float, next_at: float,
              error: str | None) -> None:
        """Record an attempt's outcome (one autocommit UPDATE: the status of one row)."""
        self.db.execute("UPDATE outbox SET status = ?, attempts = ?, last_attempt_at = ?, next_at = ?, "
                        "delivered_at = CASE WHEN ? = 'delivered' THEN ? ELSE delivered_at END, "
                        "last_error = COALESCE(?, last_error) WHERE target = ? AND key = ?",
                        (status, attempts, now, next_at, status, now, error, target, key))

    def _unhold(self, pairs: list[tuple[str, int]]) -> None:
        names = [n for n, st in self.targets.items() if st.cfg.only_released]
        self._tx(lambda db: db.executemany(
            "UPDATE outbox SET held = 0, next_at = MAX(next_at, ?) WHERE target = ? AND held = 1 AND table_id = ? "
            "AND board = ?", [(time.time(), n, t, b) for n in names for t, b in pairs]))

    # ------------------------------------------------------------------ the director's view
    async def stats(self) -> dict[str, Any]:
        rows = await self._call(self._counts)
        now = time.time()
        out = []
        for name, st in self.targets.items():
            c = rows.get(name, {})
            oldest = c.get("oldest_pending")
            cfg = st.cfg
            out.append({"name": name, "kind": cfg.kind, "destination": cfg.url or cfg.directory,
                        "only_released": cfg.only_released, "pending": c.get("pending", 0), "held": c.get("held", 0),
                        "in_flight": len(st.in_flight), "delivered": c.get("delivered", 0),
                        "failed": c.get("failed", 0), "superseded": c.get("superseded", 0),
                        "attempts": c.get("attempts", 0),
                        "oldest_pending_age_s": round(now - oldest, 1) if oldest else None,
                        "last_error": st.last_error, "last_error_at": st.last_error_at,
                        "last_success_at": st.last_success_at, "recent_failures": c.get("recent_failures", []),
                        "since_start": dict(sorted(st.outcomes.items()))})
        return {"source": self.source, "messages": self.messages_made, "stored_at_start": self.stored_at_start,
                "targets": out}

    def _counts(self) -> dict[str, dict[str, Any]]:
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

    async def retry_failed(self, target: str) -> int:
        """Put a target's permanently failed messages back in the queue (after the receiver was fixed)."""
        if target not in self.targets:
            raise KeyError(target)
        n = await self._call(self._retry, target)
        self._wake.set()
        return n

    def _retry(self, target: str) -> int:
        cur = self.db.execute("UPDATE outbox SET status = 'pending', attempts = 0, next_at = ? "
                              "WHERE target = ? AND status = 'failed'", (time.time(), target))
        return cur.rowcount
