"""The live-upload outbox: every board result, durably queued for every configured target, delivered with
retries until the receiver has it (``docs/upload.md``).

The versions of a result and their keys come from the journal (``service/outbox/versions.py``); they are stored
in the journal's SQLite file (``service/outbox/store.py``, one row per version and one per version and target,
with its delivery state). This module schedules: it stores the versions the club's rows make, and delivers.

**Delivery.** One asyncio task drives every target: up to ``max_in_flight`` requests at once per target,
never two versions of one (table, board) at once and never a version before an older pending one; a LIN
target skips an older version not yet written (``superseded``), so a feed file never goes back to an older
result. Failures back off exponentially with jitter
(``upload_targets.backoff_delay``); ``max_attempts`` (0 = forever) or a permanent answer (4xx) mark a message
``failed``, which the director sees and can retry. A target with ``only_released`` holds a board until its
result is released (Laws 16B, 90B4: a public feed must not show a board other tables still have to play).

All SQLite work runs on one thread of its own, so the event loop never waits for the disk.
"""
from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from service.config.settings import UploadTarget
from service.live.club import Club
from service.live.runtime import TableRuntime
from service.outbox.store import Due, Message, OutboxStore
from service.outbox.targets import Outcome, Target, backoff_delay, make_target
from service.outbox.versions import ResultVersions
from service.store.journal import Row
from table.events import TableEvent

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class _TargetState:
    cfg: UploadTarget
    sender: Target
    in_flight: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    last_error: str | None = None
    last_error_at: float | None = None
    last_success_at: float | None = None
    outcomes: dict[str, int] = field(default_factory=dict)    # attempts by this process, per outcome cause


class Outbox:
    def __init__(self, club: Club, path: str, targets: list[UploadTarget],
                 rng: random.Random | None = None) -> None:
        self.club = club
        self.targets = {t.name: _TargetState(t, make_target(t)) for t in targets}
        self.rng = rng or random.Random()
        self._store = OutboxStore(path)
        self._versions = ResultVersions("", {})
        self._released_seen: set[tuple[str, int]] = set()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="outbox-db")
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self.stored_at_start = 0          # results whose insert was missing at start-up (``rederive``)

    @property
    def source(self) -> str:
        return self._versions.source

    @property
    def messages_made(self) -> int:
        return self._versions.messages_made

    def _holds(self) -> dict[str, bool]:
        return {name: bool(st.cfg.only_released) for name, st in self.targets.items()}

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    # ------------------------------------------------------------------ start-up and shutdown
    async def start(self) -> None:
        await self._call(self._open)
        msgs = self._versions.rederive(list(self.club.tables.values()))
        # submitted before the listener is added, with no await in between: no row can slip between the
        # derivation and the listener, and live inserts queue behind this one on the outbox thread
        stored = (asyncio.get_running_loop().run_in_executor(self._pool, self._store.insert, msgs, self._holds())
                  if msgs else None)
        self.club.listeners.append(self.on_row)
        self.club.club_listeners.append(self.on_club_row)
        if stored is not None:
            await stored
        await self._call(self._store.backfill, self._holds())
        self.stored_at_start = len(msgs)
        log.info("outbox: %d targets, %d results stored again at start-up", len(self.targets), len(msgs))
        self._task = asyncio.create_task(self._run(), name="outbox-delivery")

    async def stop(self, grace_s: float = 2.0) -> None:
        """Stop delivering: requests in flight get ``grace_s`` to finish; one cut short stays pending."""
        self._closed = True
        if self.on_row in self.club.listeners:
            self.club.listeners.remove(self.on_row)
        if self.on_club_row in self.club.club_listeners:
            self.club.club_listeners.remove(self.on_club_row)
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
        await self._call(self._store.close)
        self._pool.shutdown(wait=True)

    def _open(self) -> None:
        source = self._store.open()
        self._versions = ResultVersions(source, self._store.last_versions())
        for name, st in self.targets.items():
            past = self._store.history(name)
            st.last_success_at, st.last_error, st.last_error_at = past.last_success_at, past.last_error, \
                past.last_error_at

    # ------------------------------------------------------------------ new versions
    def on_club_row(self, row: Row) -> None:
        """A director's release: the boards held for it go out now, not at the next look."""
        if row.kind == "release" and not self._closed:
            self._wake.set()

    def on_row(self, rt: TableRuntime, row: Row, event: TableEvent | None) -> None:
        """The club's listener: called after each journaled row of a table, on the event loop."""
        if self._closed:
            return
        msgs = self._versions.on_row(rt, row)
        if msgs:
            # queued, not awaited: the insert runs on the outbox thread in order, and the event loop goes on
            fut = asyncio.wrap_future(self._pool.submit(self._store.insert, msgs, self._holds()))
            fut.add_done_callback(lambda f: self._inserted(f, msgs))

    def _inserted(self, fut: asyncio.Future[None], msgs: list[Message]) -> None:
        err = None if fut.cancelled() else fut.exception()
        if err is not None:          # the journal has the rows: the next start-up stores these versions
            log.error("outbox: could not store %s (%s); they are stored again at the next start-up",
                      ", ".join(m.key for m in msgs), err)
        self._wake.set()

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
            holding = [n for n, st in self.targets.items() if st.cfg.only_released]
            await self._call(self._store.unhold, holding, sorted(new))
        self._released_seen |= new
        now = time.time()
        soonest = now + 1.0                             # a backstop: a director's release wakes the loop at once
        for name, st in self.targets.items():
            free = st.cfg.max_in_flight - len(st.in_flight)
            if free > 0:
                for d in await self._call(self._store.due, name, st.cfg.kind == "lin", now, free,
                                                 tuple(st.in_flight)):
                    st.in_flight[d.key] = asyncio.create_task(self._deliver(st, d), name=f"upload-{name}-{d.key}")
            nxt = await self._call(self._store.next_at, name, tuple(st.in_flight))
            if nxt is not None:
                soonest = min(soonest, nxt)
        return max(0.01, soonest - time.time())

    async def _deliver(self, st: _TargetState, d: Due) -> None:
        try:
            try:
                outcome = await st.sender.send(d)
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
                await self._call(self._store.mark, st.cfg.name, d.key, status, attempts, now, next_at, error)
            except sqlite3.Error as err:     # unrecorded: the message is sent again, the receiver's key absorbs it
                log.error("upload %s: could not record %s as %s: %s", st.cfg.name, d.key, status, err)
        finally:
            st.in_flight.pop(d.key, None)

    # ------------------------------------------------------------------ the director's view
    async def stats(self) -> dict[str, Any]:
        rows = await self._call(self._store.counts)
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

    async def retry_failed(self, target: str) -> int:
        """Put a target's permanently failed messages back in the queue (after the receiver was fixed)."""
        if target not in self.targets:
            raise KeyError(target)
        n = await self._call(self._store.retry, target)
        self._wake.set()
        return n
