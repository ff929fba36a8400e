"""A simulated club: tables whose players are robots (``service.sim.robot``), fed into the service at a
human-watchable pace through the same ``Club.submit`` path as devices and the API.

Each simulated table starts board after board with the deal of the evening's hand record (``hand_record``: the
set in the store, which the console shows; ``make run`` puts one there, ``service/wiring/demonstration.py``), or,
for a board the set does not name (past the event's boards), from ``dealing.deal_for``: the same deal on the same
board number at every table, with a seeded irregularity on a share of the boards (an insufficient bid, an
opening lead out of turn, a revoke). When an irregularity waits for a choice, the robots wait up to
``ruling_wait_s`` for the director (or an entitled player) and then play on, which accepts it by action
where the laws allow (27A, 53A ...). A robot starts its next board only if the table is still on the board it looked at
before its pause (``Club.submit(over=...)``, checked under the table's lock): a board the director (or a dealer)
put there meanwhile is the one it plays. A simulated table keeps no
state of its own: after a restart it continues from its replayed journal. When the service runs an event
(``service/event/tournament.py``; ``--simulate N`` makes a Mitchell for the simulated tables when none is
configured), each table plays its movement's boards round by round (``next_board``), then carries on past the
event's boards.
"""
from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable

from service.config.settings import SimulationConfig
from service.errors import Prevented, ServiceError, Superseded
from service.live.club import Club
from service.live.runtime import TableRuntime
from service.sim.dealing import deal_for
from service.sim.robot import FAULTS, next_event

log = logging.getLogger(__name__)

FAULT_CODES = {"insufficient_bid": "INSUFFICIENT_BID", "lead_out_of_turn": "OPENING_LEAD_OUT_OF_TURN",
               "revoke": "REVOKE"}
MAX_EVENTS_PER_BOARD = 250


def fault_for(cfg: SimulationConfig, table_id: str, board: int) -> str | None:
    rng = random.Random(f"fault:{cfg.seed}:{table_id}:{board}")
    return rng.choice(FAULTS) if rng.random() < cfg.irregularity_rate else None


class SimulatedClub:
    def __init__(self, club: Club, cfg: SimulationConfig, table_ids: list[str],
                 next_board: Callable[[str, int], int] | None = None,
                 hand_record: Callable[[int], str | None] | None = None) -> None:
        self.club = club
        self.hand_record = hand_record          # a board's PBN deal in the evening's hand records, if it has one
        # the board after the one a table is on: the event's movement order (service/event/tournament.py), else n + 1
        self.next_board = next_board
        self.cfg = cfg
        self.table_ids = table_ids
        self._tasks: list[asyncio.Task[None]] = []
        self.actions = 0

    def start(self) -> None:
        for tid in self.table_ids:
            self.club.add_table(tid)
            self._tasks.append(asyncio.create_task(self._run(tid), name=f"sim-{tid}"))

    async def stop(self) -> None:
        """Stop the robots; returns once nothing more of theirs can reach the journal. Club.submit shields the
        event it applies, so a robot cancelled in the middle leaves its event to finish: taking each table's lock
        after it (asyncio's locks serve in order) waits for it."""
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        await asyncio.sleep(0)                   # a shielded event just created reaches its table's lock first
        for tid in self.table_ids:
            async with self.club.lock(tid):
                pass

    @staticmethod
    def _played(rt: TableRuntime) -> int:
        """The boards the table has played (not one put back unfinished, nor one the director scored unplayed)."""
        return sum(1 for n in rt.boards if rt.finished(n))

    async def _pause(self, rng: random.Random, factor: float = 1.0) -> None:
        await asyncio.sleep(self.cfg.pace_s * factor * rng.uniform(0.5, 1.5))

    async def _run(self, tid: str) -> None:
        try:
            await self._loop(tid)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("simulated table %s stopped", tid)

    async def _loop(self, tid: str) -> None:
        cfg = self.cfg
        rng = random.Random(f"sim:{cfg.seed}:{tid}:{time.time()}")
        waiting_since: float | None = None
        refused = 0
        suppressed: int | None = None           # a board whose seeded fault the regulation prevented
        while True:
            rt = self.club.table(tid)
            t = rt.table
            number = rt.board_number or 0
            if t.board is None or t.state == "board_complete" or len(rt.current.rows if rt.current else ()) > \
                    MAX_EVENTS_PER_BOARD or refused > 5:
                nxt = self.next_board(tid, number) if self.next_board else number + 1
                if cfg.boards and (self._played(rt) >= cfg.boards if self.next_board else nxt > cfg.boards):
                    return
                current = rt.current
                await self._pause(rng, 2.0 if t.board is not None else 0.2)
                deal = (self.hand_record(nxt) if self.hand_record else None) or deal_for(cfg.seed, nxt).to_pbn()
                try:
                    await self.club.submit(tid, {"type": "board", "board": nxt, "deal": deal}, "dealer:sim",
                                           over=current)
                except Superseded:
                    continue        # the director (or a dealer) put a board on the table meanwhile: play that one
                refused = 0
                waiting_since = None
                continue
            if any(rt.awaits_choice(i) for i in t.irregularities):
                now = time.monotonic()
                waiting_since = waiting_since or now
                if now - waiting_since < cfg.ruling_wait_s:
                    await asyncio.sleep(min(0.25, cfg.ruling_wait_s))
                    continue
            else:
                waiting_since = None
            fault = fault_for(cfg, tid, number)
            if fault and (suppressed == number or any(i.code == FAULT_CODES[fault] for i in t.irregularities)):
                fault = None
            step = next_event(t, rng, fault)
            if step is None:
                refused += 1
                await self._pause(rng)
                continue
            event, seeded = step
            device = "box" if event["type"] == "call" else "reader" if event["type"] == "card" else None
            try:
                await self.club.submit(tid, event, f"robot:{event.get('seat', '')}", device=device)
                self.actions += 1
                refused = 0
            except ServiceError as err:
                if isinstance(err, Prevented):
                    suppressed = number
                else:
                    refused += 1
                    log.info("table %s: robot's %s refused: %s", tid, event, err)
            await self._pause(rng)
