"""The Data Connector's state in the running service: the scoring program's event, what it sent, and the
queues it polls, all rebuilt from the journal's club rows (``dc_init``, ``dc_put``, ``dc_queue``,
``dc_accept``) at start-up.

The queues fill from the club as it runs (``Club.listeners`` for table rows, ``Club.club_listeners`` for club
rows): a table's result on a board as it changes (played to the end, keyed and confirmed, adjusted by the
director; an erasure as ``IsDeleted``), names entered at a table, director calls. Law 16B: the queues are the
director's view, read only by the scoring program with the club's licence key; nothing here touches what a
public page shows (a result put by the scoring program is a director's adjustment like any other, released by
the club's rule).
"""
from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable
from typing import Any

from service.live.runtime import TableRuntime
from service.sim.simulate import SimulatedClub
from service.store.journal import CLUB, Row
from service.wiring.container import Service
from service.wiring.demonstration import hand_record_deal
from table.events import TableEvent

from .mapping import LEAD_CARD_ENTRY, Plan, plan_event, result_item, table_result
from .queues import Queues

log = logging.getLogger(__name__)
NUMBERED = re.compile(r"^(?P<name>.*?)\s*\((?P<number>[^()]+)\)$")
SEAT_DIRECTION = {"N": 1, "E": 2, "S": 3, "W": 4}
ACTOR = "scoring-program"          # the journal's actor of what the scoring program sent


class DataConnector:
    def __init__(self, svc: Service) -> None:
        self.svc = svc
        self.plan: Plan | None = None
        self.init: dict[str, Any] | None = None
        self.since = ""                                  # the event's journal time: its boards are this plan's
        self.queues = Queues()
        self.received: dict[str, list[dict[str, Any]]] = {}    # what the scoring program put, by kind
        self.settings: dict[tuple[int, str], dict[str, Any]] = {}  # (2 or 3, section letters) -> its settings
        self._pending: asyncio.Queue[tuple[str, str | None, dict[str, Any]]] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._own_adjustments: set[tuple[str, int]] = set()
        self._seen: dict[str, dict[str, Any]] = {}        # a result key -> its latest content, queued or not

    # ------------------------------------------------------------------ start-up
    def load(self, rows: Iterable[Row]) -> DataConnector:
        """Rebuild from the journal (before it starts writing) and follow the club from now on."""
        for row in rows:
            if row.table_id == CLUB:
                self.apply_row(row)
        self.svc.club.listeners.append(self._on_table_row)
        self.svc.club.club_listeners.append(self._on_club_row)
        return self

    def apply_row(self, row: Row) -> None:
        if row.kind == "dc_init":
            self.init = row.body["init"]
            self.since = str(row.body["since"])
            self.plan = plan_event(row.body["init"])
            self.queues.reset(self.plan.session_guid)
            self._seen = {}
            self.received = {}
            self.settings = {}
        elif row.kind == "dc_put" and self.plan is not None and row.body.get("session") == self.plan.session_guid:
            self._apply_put(str(row.body["kind"]), row.body["items"])
        else:
            self.queues.apply_row(row)

    def _apply_put(self, kind: str, items: list[dict[str, Any]]) -> None:
        self.received.setdefault(kind, []).extend(items)
        if kind == "results" and self.plan is not None:     # at start-up: its own corrections are not sent back
            for item in items:
                at = self.plan.sections.get(str(item.get("SectionLetters") or ""))
                tid = at.tables.get(int(item.get("TableNumber") or 0)) if at is not None else None
                if tid is not None:
                    self._own_adjustments.add((tid, int(item.get("BoardNumber") or 0)))
        if kind in ("bridgemate2", "bridgemate3"):
            for item in items:
                self.settings[(2 if kind == "bridgemate2" else 3, str(item.get("SectionLetters") or ""))] = item

    async def start(self) -> None:
        """Once the service runs: write what the tables did while nobody listened (a crash between a result and
        its queue row), then the robots of a simulated club play the scoring program's event (``create_app``
        starts none while the Data Connector is on)."""
        self._worker = asyncio.create_task(self._write_items(), name="dataconnector-queues")
        self.reconcile()
        if self.plan is not None:
            await self.restart_robots()

    async def stop(self) -> None:
        await self._pending.join()
        if self._worker is not None:
            self._worker.cancel()
            await asyncio.gather(self._worker, return_exceptions=True)

    async def restart_robots(self) -> None:
        """A simulated club (``--simulate N``) plays the event's tables ``1`` .. ``N`` in the movement's order from
        its start; the event's other tables are left to the club's players (seat pages, readers)."""
        svc = self.svc
        if not svc.settings.simulation.tables or svc.tournament is None:
            return
        if svc.simulation is not None:
            await svc.simulation.stop()
        ev = svc.tournament
        ids = [t for t in ev.where if t in {str(i) for i in range(1, svc.settings.simulation.tables + 1)}]

        def next_board(table_id: str, number: int) -> int:
            rt = svc.club.tables[table_id]
            plan, mt = ev.where[table_id]
            for r in plan.movement.rounds:      # the first of the table's boards it has not started in this event
                for b in plan.movement.expected_boards(mt, r) if mt in plan.movement.tables else ():
                    rec = rt.boards.get(b)
                    if rec is None or rec.started_at < ev.since:
                        return b
            return ev.next_board(table_id, number)

        svc.simulation = SimulatedClub(svc.club, svc.settings.simulation, ids, next_board=next_board,
                                       hand_record=hand_record_deal(svc))      # the scoring program's set
        svc.simulation.start()

    # ------------------------------------------------------------------ the lead-card setting, for the tables
    def lead_card_entry(self, section: str) -> str:
        """``off``, ``enter``, ``must comply`` or ``warn``: the scoring program's Bridgemate setting for a
        section (Bridgemate 3's wins over Bridgemate 2's)."""
        bm3 = self.settings.get((3, section))
        if bm3 is not None:
            return LEAD_CARD_ENTRY.get(int(bm3.get("BM3LeadCardEntry") or 0), "off")
        bm2 = self.settings.get((2, section))
        if bm2 is not None and bm2.get("LeadCard"):
            return "must comply" if bm2.get("BM2ValidateLeadCard") else "enter"
        return "off"

    def own_correction(self, table_id: str, n: int, coming: bool = True) -> None:
        """The scoring program's own result for a board is about to be journalled (or was refused): it is not sent
        back to it."""
        if coming:
            self._own_adjustments.add((table_id, n))
        else:
            self._own_adjustments.discard((table_id, n))

    # ------------------------------------------------------------------ filling the queues
    def enqueue(self, queue: str, item: dict[str, Any], key: str | None = None) -> None:
        if self.plan is not None:
            self._pending.put_nowait((queue, key, item))

    async def _write_items(self) -> None:
        while True:
            queue, key, item = await self._pending.get()
            try:
                if self.plan is not None:
                    body = {"session": self.plan.session_guid, "queue": queue, "item": item, "key": key}
                    row = await self.svc.club.append_club("dc_queue", body, "dataconnector")
                    self.queues.apply_row(row)
            except Exception:
                log.exception("the %s queue could not store an item", queue)
            finally:
                self._pending.task_done()

    def _result_key(self, table_id: str, n: int) -> str:
        return f"result:{table_id}:{n}"

    def _check_result(self, rt: TableRuntime, n: int) -> None:
        ev, plan = self.svc.tournament, self.plan
        if ev is None or plan is None or rt.id not in ev.where or ev.since != self.since:
            return
        key = self._result_key(rt.id, n)
        last = self._seen.get(key, self.queues.keys.get(key))
        result = table_result(ev, rt, n)
        if result is None and (last is None or last["IsDeleted"]):      # most rows: a board still in play
            return
        item = result_item(plan, ev, rt.id, n, result)
        if item is None:
            return
        if last is not None and last == item:
            return
        self._seen[key] = item
        if (rt.id, n) in self._own_adjustments:       # the scoring program's own correction: not sent back
            self._own_adjustments.discard((rt.id, n))
            return
        self.enqueue("results", item, key)

    def reconcile(self) -> None:
        ev = self.svc.tournament
        if ev is None or self.plan is None:
            return
        for tid in ev.where:
            rt = self.svc.club.tables[tid]
            for n in sorted(rt.boards):
                self._check_result(rt, n)
        self._own_adjustments.clear()          # what the journal's puts marked is settled now

    def _on_table_row(self, rt: TableRuntime, row: Row, event: TableEvent | None) -> None:
        if row.kind in ("adjustment", "confirmation"):
            self._check_result(rt, int(row.body["board"]))
        elif rt.board_number is not None:
            self._check_result(rt, rt.board_number)
            if row.body.get("type") == "board":           # the board before it is frozen now
                for n in rt.boards:
                    if n != rt.board_number:
                        self._check_result(rt, n)

    def _on_club_row(self, row: Row) -> None:
        plan, ev = self.plan, self.svc.tournament
        if plan is None or ev is None:
            return
        if row.kind == "players" and row.actor != ACTOR:     # its own names are not sent back
            self._names(plan, row)
        elif row.kind in ("director_call", "director_call_answer"):
            # told before the club's list takes the row: a new call is read from the row itself
            call = row.body if row.kind == "director_call" else self.svc.club.calls.get(int(row.body["id"]))
            at = plan.where(str(call["table"])) if call is not None else None
            if call is None or at is None:
                return
            sec, table = at
            when = row.at[11:16]
            self.enqueue("td_calls", {
                "SessionGuid": plan.session_guid, "SectionLetters": sec.letters, "TableNumber": table,
                "RoundNumber": ev.rounds.get(str(call["table"]), 0), "Hour": int(when[:2]),
                "Minute": int(when[3:5]), "Status": 1 if row.kind == "director_call" else 3,
                "ValidationMessages": None})

    def _names(self, plan: Plan, row: Row) -> None:
        at = plan.where(str(row.body["table"]))
        if at is None:
            return
        sec, table = at
        for seat, shown in dict(row.body.get("names") or {}).items():
            m = NUMBERED.match(str(shown))
            name, number = (m.group("name"), m.group("number")) if m else (str(shown), "")
            first, _sp, last = name.rpartition(" ")
            first, last = (first, last) if first else ("", last)
            self.enqueue("participations", {
                "SessionGuid": plan.session_guid, "SectionLetters": sec.letters, "TableNumber": table,
                "Direction": SEAT_DIRECTION[seat], "RoundNumber": int(row.body["round"]), "PlayerNumber": number,
                "IsPlayerSwap": False, "IsRemoval": False, "FirstName": first, "LastName": last,
                "CountryCode": None, "ValidationMessages": None})
            if number:
                self.enqueue("player_data", {
                    "SessionGuid": plan.session_guid, "ClubId": None, "PlayerNumber": number, "FirstName": first,
                    "LastName": last, "CountryCode": None, "ValidationMessages": None})
