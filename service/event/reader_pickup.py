"""Tables with card readers start their boards from the hands picked up, checked before the first call.

Between boards (no board yet, or the last one complete), a hand read at a seat is not a table event yet: it
is kept here, with the other hands of the same pickup, and the hands name their board by themselves
(``table.verify.identify``: 13 cards are one hand of one board of the evening's hand records). Then:

* the board may not be started at this table now (``service/event/start_rule.py``: not its round's, already
  played here): a **wrong board**, ``WRONG_BOARD`` (Law 15) to the director, as soon as two hands name it (or
  every reader has read): one hand of another board among the right ones is a fouled board, not a wrong one;
* once every seat with a reader has read its hand, the four are checked against that board's hand record
  (``table.verify.check_pickup``): a hand of other than 13 cards (Law 13), a hand of another board or cards
  displaced between the hands (``FOULED_BOARD``, Law 87), a hand of another seat (7B1) — each to the director;
* all is well: the board starts (its deal, dealer and vulnerability from the hand record; actor ``pickup``)
  and the hands read are applied to it, as the readers' own events.

Until then the table is **held** (``TableRuntime.held``): calls and cards there are refused with the reason, so an
irregularity is caught before the first call. A hand read again replaces that seat's earlier read (the
players put the wrong board back and take the right one; a corrected board is read again). The director may
also start a board by hand (``POST /api/tables/{id}/events`` ``{"type": "board", ...}``: playing a wrong
board, Law 15A, or a fouled one as it is, 87B): the hold is lifted and the hands already read are applied to it.

A hand of the table's completed board is its return to the pockets: it goes to the engine as before (Law 7C).
Without an event, without hand records or at a table outside the event nothing is kept: hands go to the
engine as they come. The hands of a pickup live in memory only: after a restart the players read them again.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from service.errors import ServiceError
from service.event.hand_records import HandRecords
from service.event.start_rule import why_not_start
from service.event.tournament import LiveTournament
from service.live.club import Club
from service.live.devices import DeviceManager
from service.live.lawtext import statement
from service.live.runtime import TableRuntime
from service.store.journal import Row
from table.cards import SEATS, Deal, Seat
from table.events import HandRead, TableEvent, board_started
from table.irregularity import Irregularity
from table.texts import Text
from table.verify import check_board, check_pickup, identify

log = logging.getLogger(__name__)

PICKUP = "pickup"                      # the actor of a board the hands picked up started


class ReaderPickups:
    def __init__(self, club: Club, devices: DeviceManager, event: Callable[[], LiveTournament | None],
                 records: HandRecords) -> None:
        self.club = club
        self.devices = devices
        self._event = event
        self.records = records
        self.hands: dict[str, dict[Seat, tuple[tuple[str, ...], str]]] = {}   # table -> seat -> (cards, actor)
        self.told: dict[str, set[tuple[str, str | None]]] = {}                # alerts already raised per pickup
        self.wrong: dict[str, int] = {}             # table -> the wrong board its pickup named (Law 15)
        self._deals: tuple[int, dict[int, Deal]] = (-1, {})
        devices.pickup = self.picked_up
        club.listeners.append(self._on_row)

    def deals(self) -> dict[int, Deal]:
        """The running event's hand records as deals (parsed once per set)."""
        recs = self.records.all()
        key = hash(tuple((r.board, r.deal) for r in recs))
        if self._deals[0] != key:
            self._deals = (key, {r.board: Deal.from_pbn(r.deal) for r in recs})
        return self._deals[1]

    # ------------------------------------------------------------------ a hand picked up
    async def picked_up(self, table_id: str, read: HandRead, actor: str) -> bool:
        """``DeviceManager.pickup``: True when the hand belongs to a pickup kept here (else the engine has it)."""
        ev = self._event()
        deals = self.deals() if ev is not None and table_id in ev.where else {}
        rt = self.club.tables.get(table_id)
        if not deals or rt is None or rt.table.state not in ("idle", "board_complete"):
            return False
        if self._going_back(table_id, rt, read, deals):
            return False                                    # the completed board's hand back into its pocket
        own = identify({read.seat: read.cards}, deals)
        if table_id in self.wrong and own != self.wrong[table_id] and own in deals \
                and deals[own].hands[Seat(read.seat)] == frozenset(read.cards):
            self._forget(table_id)                          # the wrong board put back: another one picked up
        pickup = self.hands.setdefault(table_id, {})
        pickup[Seat(read.seat)] = (tuple(read.cards), actor)
        hands = {s: cards for s, (cards, _a) in pickup.items()}
        board = identify(hands, deals)
        assert board is not None and ev is not None
        seats = self.devices.reader_seats.get(table_id, set(SEATS))
        missing = sorted(seats - {str(s) for s in pickup})
        agree = sum(1 for h in hands.values() if frozenset(h) in deals[board].hands.values())
        why = why_not_start(ev, self.club, table_id, board) if agree >= min(2, len(seats)) or not missing else None
        if why is not None:
            self.wrong[table_id] = board
            here = board in self.club.ledger.played.get(table_id, set())
            expected = set(ev.expected_boards(table_id)) - ({board} if here else set())
            irr = check_board(board, expected, table=table_id, round=ev.rounds[table_id], played_here=here)
            assert irr is not None
            irr.detail = why + Text("pickup.caught", ": caught from the hands picked up, before the first call; "
                                    "the board is not started")
            self._tell(table_id, board, irr)
            self._hold(table_id, Text("hold.table", "table {table}: ", table=table_id) + why
                       + Text("hold.wrong_board", " (Law 15): the director is called; the board is not started, no "
                              "call can be made"))
            return True
        if missing:
            waiting: Text = Text("hold.reading", "table {table}: board {board}'s hands are being read (not yet: ",
                                 table=table_id, board=board)
            for i, s in enumerate(missing):
                waiting += (", " if i else "") + Text("hold.seat", "{seat_name}", seat_name=s)
            self._hold(table_id, waiting + Text("hold.reading_end", "): no call before every hand is read"))
            return True
        self.wrong.pop(table_id, None)
        found = check_pickup(hands, deals, board)
        if found:
            for irr in found:
                self._tell(table_id, board, irr)
            laws = ", ".join(sorted({i.law for i in found}))
            self._hold(table_id, Text("hold.mismatch", "table {table}: board {board}'s hands do not match its hand "
                                      "record (Law {laws}): the director is called; the board is not started, no "
                                      "call can be made", table=table_id, board=board, laws=laws))
            return True
        await self._start(table_id, board)
        return True

    def _going_back(self, table_id: str, rt: TableRuntime, read: HandRead, deals: dict[int, Deal]) -> bool:
        """A hand of the table's last board after its play: one of its hands exactly (even while the next
        board is being picked up), or, with no pickup under way, nearer to it than to any other board."""
        current = rt.board_number
        if current is None or current not in deals:
            return False
        if frozenset(read.cards) in deals[current].hands.values():
            return True
        return table_id not in self.hands and identify({read.seat: read.cards}, deals) == current

    async def _start(self, table_id: str, board: int) -> None:
        rec = self.records.hand_record(board)
        assert rec is not None
        try:                                  # the board row ends the pickup and lifts the hold (_on_row)
            await self.club.submit(table_id, board_started(board, dealer=rec.dealer, vulnerable=rec.vulnerable,
                                                           deal=rec.deal), PICKUP)
        except ServiceError as err:
            log.warning("table %s: board %d could not start from its pickup: %s", table_id, board, err)
            self._forget(table_id)
            self._tell_device(table_id, f"board {board} could not start: {err}")

    async def _apply_hands(self, table_id: str, pickup: dict[Seat, tuple[tuple[str, ...], str]]) -> None:
        for seat in SEATS:
            if seat in pickup:
                cards, actor = pickup[seat]
                try:
                    await self.club.submit(table_id, HandRead(seat, cards), actor, device="reader")
                except ServiceError as err:
                    log.info("table %s: the hand read at %s was refused: %s", table_id, seat, err)

    # ------------------------------------------------------------------ following the table
    def _on_row(self, rt: TableRuntime, row: Row, event: TableEvent | None) -> None:
        """A board started (from its pickup, or by the director's hand): the pickup ends, the hold is lifted,
        and the hands read for it are applied to it."""
        if row.kind != "event" or row.body.get("type") != "board":
            return
        pickup = self.hands.get(rt.id)
        self._forget(rt.id)
        if pickup:
            asyncio.get_running_loop().create_task(self._apply_hands(rt.id, pickup), name=f"pickup-{rt.id}")

    def _forget(self, table_id: str) -> None:
        """The pickup ends: its hands, its alerts and the hold go."""
        self.hands.pop(table_id, None)
        self.told.pop(table_id, None)
        self.wrong.pop(table_id, None)
        self._hold(table_id, None)

    # ------------------------------------------------------------------ the director
    def _hold(self, table_id: str, why: str | None) -> None:
        """Hold the table's next board (None: lift the hold); the console's table card shows it."""
        rt = self.club.tables[table_id]
        if rt.held != why:
            rt.held = why
            self.club.hub.publish_state(rt, ("director",))

    def _tell(self, table_id: str, board: int, irr: Irregularity) -> None:
        """A flagged message on the director's stream and in the event's alerts (once per pickup, code and
        seat)."""
        key = (irr.code, irr.seat)                # told once: a half-corrected board is not news
        told = self.told.setdefault(table_id, set())
        if key in told:
            return
        told.add(key)
        d: dict[str, Any] = irr.to_dict()
        d["law_text"] = statement(irr.law)
        d["open"] = True
        msg = {"type": "flagged", "table": table_id, "board": board, "seq": self.club.tables[table_id].seq,
               "source": PICKUP, "irregularity": d}
        ev = self._event()
        if ev is not None:
            msg["round"] = ev.rounds.get(table_id)
            ev.alerts.append(msg)
            ev.revision += 1
        log.warning("table %s: %s (Law %s) %s", table_id, irr.code, irr.law, irr.detail)
        self.club.hub.publish(table_id, msg, roles=("director",))

    def _tell_device(self, table_id: str, detail: str) -> None:
        self.club.hub.publish(table_id, {"type": "device", "table": table_id, "code": "REFUSED", "device": PICKUP,
                                         "detail": detail}, roles=("director",))
