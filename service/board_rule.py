"""The movement's visibility rule (Laws 16B, 90B4): which boards a viewer may see nothing of.

* the **director** sees everything;
* a **seat** (a table and a seat; its pair is the movement's pair at that table and seat in the token's
  round, else in the table's current round) sees nothing of a board its pair still has to play (a board of
  one of its sittings that the sitting's table has not completed), nor of one its table still has to play;
  the board in play at its own table is shown as ``service/visibility.py`` says for a seat when the token
  is of the table's current round or the board is one its pair plays at that table;
* an **anonymous** viewer sees nothing of a board any table still has to play (unless the director
  released it), and only through the spectators' delayed copies; the director can mark a table as a
  **vugraph table** (a team match's open room, a final) whose live view, delayed, is the one exception.

Without an event (no movement) every table is taken to play every board and a seat's pair to stay at its
table. Every REST route, WebSocket stream and page's data asks this rule (``hidden`` for records, results and
exports; ``hidden_at`` for a table's live view). The vugraph marks are journalled (``kind = "vugraph"`` rows of
the club), so they survive a restart.
"""
from __future__ import annotations

import asyncio
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Any

from table.events import TableEvent

from .club import Club
from .errors import NotFound
from .journal import CLUB, Row, utcnow
from .public_results import in_play, pair_still_to_play, still_to_play, unmapped
from .runtime import TableRuntime
from .tournament import LiveTournament
from .visibility import NOTHING, Viewer


class ClubBoardRule:
    def __init__(self, club: Club, event: LiveTournament | None = None) -> None:
        self.club = club
        self.event = event
        self.vugraph: set[str] = set()
        self._anonymous: frozenset[int] | None = None
        self._cache: tuple[tuple[int, int, int], tuple[dict[str, set[int]], dict[str, set[int]]]] | None = None
        club.listeners.append(self._on_row)

    def load(self, club_rows: Iterable[Row]) -> ClubBoardRule:
        """The journalled vugraph marks (start-up)."""
        for row in club_rows:
            if row.table_id == CLUB and row.kind == "vugraph":
                self._apply(row.body)
        return self

    def set_event(self, event: LiveTournament | None) -> None:
        """Follow another event (the director set one up from the console)."""
        self.event = event
        self._cache = None
        self._anonymous = None
        self.refresh()

    # ------------------------------------------------------------------ the rule
    def _state(self) -> tuple[dict[str, set[int]], dict[str, set[int]]]:
        """Completed and started boards per table, recomputed only after a journal row (sequence numbers only
        grow, so their sum changes with every row)."""
        key = (self.club.club_seq, len(self.club.tables), sum(rt.seq for rt in self.club.tables.values()))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        completed: dict[str, set[int]] = {}
        started: dict[str, set[int]] = {}
        for tid, rt in self.club.tables.items():
            started[tid] = set(rt.boards)
            completed[tid] = {n for n in rt.boards if rt.completed(n)}
        self._cache = (key, (completed, started))
        return completed, started

    def in_play(self) -> set[int]:
        """Boards some table still has to play."""
        completed, started = self._state()
        if self.event is not None:
            return in_play(self.event.schedule, completed, started)
        every = {b for bs in started.values() for b in bs}
        return {b for b in every if not all(b in done for done in completed.values())}

    def anonymous(self) -> frozenset[int]:
        return frozenset(self.in_play() - self.club.director_released)

    def pair_sittings(self, table_id: str, seat: str, rnd: int | None) -> tuple[list[tuple[str, tuple[int, ...]]],
                                                                                 tuple[int, ...]]:
        """The sittings of the pair at ``table_id``/``seat`` in round ``rnd`` (default: the table's current
        round) as (service table, boards), and the boards of that sitting (empty without an event or pair)."""
        ev = self.event
        if ev is None or table_id not in ev.where:
            return [], ()
        plan, mt = ev.where[table_id]
        mv = plan.movement
        rnd = rnd if rnd is not None else ev.rounds[table_id]
        here = next((s for s in mv.sittings if s.table == mt and s.round == rnd), None)
        if here is None or here.sit_out:
            return [], ()
        pair = here.ns if seat in ("N", "S") else here.ew
        by_number = {m: tid for tid, m in plan.tables.items()}
        mine = [(by_number.get(s.table, unmapped(plan.id, s.table)), s.boards) for s in mv.sittings
                if not s.sit_out and pair in (s.ns, s.ew)]
        return mine, here.boards

    def _seat(self, viewer: Viewer) -> tuple[set[int], set[int]]:
        """The boards a seat may see nothing of, and the boards its pair plays at its own table."""
        table = viewer.table or ""
        completed, started = self._state()
        sittings, now = self.pair_sittings(table, viewer.seat or "", viewer.round)
        if self.event is not None and table in self.event.where:
            own = still_to_play(table, self.event.schedule, completed, started)
        else:                                     # no movement: the table plays every board
            own = {b for bs in started.values() for b in bs} - completed.get(table, set())
        here = {b for tid, boards in sittings if tid == table for b in boards}
        return (pair_still_to_play(sittings, completed) | own) - set(now), here

    def hidden(self, viewer: Viewer) -> AbstractSet[int]:
        if viewer.role == "director":
            return NOTHING
        if viewer.role == "seat":
            return frozenset(self._seat(viewer)[0])
        return self.anonymous()

    def hidden_at(self, table_id: str, viewer: Viewer) -> AbstractSet[int]:
        if viewer.role == "director":
            return NOTHING
        if viewer.role == "spectator":
            return NOTHING if table_id in self.vugraph else self.anonymous()
        hidden, here = self._seat(viewer)
        rt = self.club.tables.get(table_id)
        ev = self.event
        in_round = viewer.round is None or ev is None or table_id not in ev.where or viewer.round == ev.rounds[table_id]
        if viewer.table == table_id and rt is not None and rt.board_number is not None \
                and (in_round or rt.board_number in here):
            hidden.discard(rt.board_number)        # the board the seat's pair is playing at its table
        return frozenset(hidden)

    # ------------------------------------------------------------------ vugraph tables
    def _apply(self, body: dict[str, Any]) -> None:
        tid = str(body.get("table"))
        if body.get("on"):
            self.vugraph.add(tid)
        else:
            self.vugraph.discard(tid)

    async def set_vugraph(self, table_id: str, on: bool, actor: str = "director") -> Row:
        """The director marks (or unmarks) ``table_id`` as a vugraph table; journalled."""
        if table_id not in self.club.tables:
            raise NotFound(f"no table {table_id!r}")
        row = Row(CLUB, self.club.club_seq + 1, utcnow(), actor, "vugraph", {"table": table_id, "on": bool(on)})
        await asyncio.shield(self.club.write(row))
        self.club.club_seq = row.seq
        self._apply(row.body)
        self.club.hub.publish_state(self.club.feeds[table_id].replica, ("spectator",))
        return row

    # ------------------------------------------------------------------ following the club
    def _on_row(self, rt: TableRuntime, row: Row, event: TableEvent | None) -> None:
        """When the anonymous rule changes (a board completed everywhere, a release), every spectator view
        is sent again."""
        self.refresh()

    def refresh(self) -> None:
        now = self.anonymous()
        if now == self._anonymous:
            return
        self._anonymous = now
        for replica in (f.replica for f in self.club.feeds.values()):
            self.club.hub.publish_state(replica, ("spectator",))
