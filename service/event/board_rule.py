"""The movement's visibility rule (Laws 16B, 90B4): which boards a viewer may see nothing of, decided by PAIR.

What each table and pair still has to play is kept by ``service/live/obligations.py`` (``Club.ledger``); this rule
only reads it:

* the **director** sees everything;
* a **seat** stands for a pair: the movement's pair at the seat's table and seat in the credential's round
  (else the table's current round). It sees nothing of a board that pair still has to play this session at
  any table, whatever the director released; in its table's live view it sees the live board only if that
  pair plays it at that table in that round (or later, by the director's late play) — so a credential of the
  next round sees nothing of the board the table was left on, and a pair that sits out or arrives early
  sees no live board. Without an event (or at a table outside it) the seat's pair stays at its table and
  plays every board: it sees nothing of a board its table still has to play, except its live board;
* an **anonymous** viewer sees nothing of a board any table still has to play unless the director released
  it (with ``force`` if some table still had to play it), and only through the spectators' delayed copies.
  The director can mark a table as a **vugraph table** (a team match's open room, a final): its delayed
  live play (calls and cards) is the one exception; its hands and result stay hidden while another table
  still has the board to play (``Viewer`` spectator, ``TableRuntime.embargoed``, ``service/live/visibility.py``).

Every REST route, WebSocket stream and page's data asks this rule (``hidden`` for records, results and
exports; ``hidden_at`` for a table's live view). The vugraph marks are journalled (``kind = "vugraph"`` rows of
the club), so they survive a restart.
"""
from __future__ import annotations

import asyncio
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Any

from results import ResultsError
from service.errors import NotFound
from service.event.tournament import LiveTournament
from service.live.club import Club
from service.live.obligations import Pair
from service.live.runtime import TableRuntime
from service.live.visibility import NOTHING, Viewer
from service.store.journal import CLUB, Row, utcnow
from table.events import TableEvent
from table.texts import Text


class ClubBoardRule:
    def __init__(self, club: Club, event: LiveTournament | None = None) -> None:
        self.club = club
        self.event = event
        self.vugraph: set[str] = set()
        self._anonymous: frozenset[int] | None = None
        self._memo: tuple[tuple[int, int, int], frozenset[int]] | None = None
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
        self._anonymous = None
        self._memo = None
        self.refresh()

    # ------------------------------------------------------------------ the rule
    def anonymous(self) -> frozenset[int]:
        """Boards some table still has to play and the director did not release (memoised until the ledger
        or the club's rows move)."""
        led = self.club.ledger
        key = (led.changes, self.club.club_seq, len(self.club.director_released))
        if self._memo is None or self._memo[0] != key:
            self._memo = (key, frozenset(b for b, ts in led.owed.items()
                                         if ts and b not in self.club.director_released))
        return self._memo[1]

    def pair_of(self, viewer: Viewer) -> tuple[Pair | None, frozenset[int]]:
        """The seat's pair (section, entrant) at its table and seat in its round (default: the table's
        current round), and the boards that pair plays at that table in that round or late by the director's
        leave; (None, ...) without an event, at a table outside it, or at an empty seat."""
        ev, table = self.event, viewer.table or ""
        if ev is None or table not in ev.where:
            return None, frozenset()
        plan, mt = ev.where[table]
        rnd = viewer.round if viewer.round is not None else ev.rounds[table]
        try:
            here = plan.movement.at(mt, rnd)
        except ResultsError:
            return None, frozenset()
        entrant = here.ns if viewer.seat in ("N", "S") else here.ew
        if entrant is None:
            return None, frozenset()
        pair = (plan.id, entrant)
        seats = self.club.ledger.seats
        boards = set() if here.sit_out else set(here.boards)
        boards |= {b for b in ev.late.get(table, ()) if pair in seats.get((table, b), ())}
        return pair, frozenset(boards)

    def _seat(self, viewer: Viewer) -> tuple[frozenset[int], frozenset[int] | None]:
        """The boards a seat may see nothing of, and the boards it may see live at its table (None: its table's
        live board, whatever it is — no movement decides)."""
        led, table = self.club.ledger, viewer.table or ""
        pair, here = self.pair_of(viewer)
        if pair is not None:
            return frozenset(led.pair_owed.get(pair, ())), here
        if self.event is not None and table in self.event.where:          # an empty seat: sees what the public sees
            return self.anonymous() | led.table_owed.get(table, set()), frozenset()
        return frozenset(led.table_owed.get(table, ())), None

    def hidden(self, viewer: Viewer) -> AbstractSet[int]:
        if viewer.role == "director":
            return NOTHING
        if viewer.role == "seat":
            return self._seat(viewer)[0]
        return self.anonymous()

    def hidden_at(self, table_id: str, viewer: Viewer) -> AbstractSet[int]:
        if viewer.role == "director":
            return NOTHING
        if viewer.role == "spectator":
            return NOTHING if table_id in self.vugraph else self.anonymous()
        hidden, here = self._seat(viewer)
        rt = self.club.tables.get(table_id)
        live = rt.board_number if rt is not None else None
        if live is None:
            return hidden
        if here is None or live in here:
            return hidden - {live}                  # the board the seat's pair is playing at its table
        return hidden | {live}                      # not this pair's board here (this round): nothing of it

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
            raise NotFound(Text("refusal.no_table", "no table '{table}'", table=table_id))
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
        changed = now ^ self._anonymous if self._anonymous is not None else None
        self._anonymous = now
        for replica in (f.replica for f in self.club.feeds.values()):
            if changed is None or replica.board_number in changed:     # only the views that show it
                self.club.hub.publish_state(replica, ("spectator",))
