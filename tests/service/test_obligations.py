"""The ledger of who still has to play what (``service/live/obligations.py``), in process: a board event recomputes
only the (table, board) pairs it touches, however many tables the event has; a board put back is not played."""
from __future__ import annotations

import asyncio
from pathlib import Path

from service.config.loading import load_settings
from service.event.board_rule import ClubBoardRule
from service.event.tournament import LiveTournament
from service.live.club import Club
from service.live.hub import Hub
from service.live.visibility import SPECTATOR
from service.sim.dealing import deal_for
from service.store.journal import CLUB, Journal
from table.board import dealer_for

SEATS = "NESW"


def test_a_board_event_costs_the_same_with_5_tables_or_61(tmp_path: Path) -> None:
    async def cost(tables: int) -> tuple[int, int, int]:
        event = {"name": "Cost", "scoring": "MP",
                 "movement": {"kind": "mitchell", "tables": tables, "boards_per_round": 2, "rounds": 3}}
        settings = load_settings(None, database=str(tmp_path / f"{tables}.db"), event=event,
                                 tables=[{"id": str(t)} for t in range(1, tables + 1)],
                                 regulation={"spectators": {"delay_s": 0}})
        journal = Journal(settings.database)
        hub = Hub()
        club = Club(settings, journal, hub)
        club.load()
        assert settings.event is not None
        ev = LiveTournament(settings.event, club)
        ev.attach(journal.rows(CLUB))
        rule = hub.rule = ClubBoardRule(club, ev).load(journal.rows(CLUB))
        journal.start()
        club.start()
        led = club.ledger
        try:
            for tid in ev.where:
                b = ev.expected_boards(tid)[0]
                await club.submit(tid, {"type": "board", "board": b, "deal": deal_for(1, b).to_pbn()}, "director")
            b = ev.expected_boards("1")[0]
            d = SEATS.index(str(dealer_for(b)))
            for i in range(3):
                await club.submit("1", {"type": "call", "seat": SEATS[(d + i) % 4], "call": "Pass"}, "director")
            before = led.work
            await club.submit("1", {"type": "call", "seat": SEATS[(d + 3) % 4], "call": "Pass"}, "director")
            completion = led.work - before
            assert "1" not in led.owed[b] and b in led.played["1"]
            nb = ev.expected_boards("1")[1]
            before = led.work
            await club.submit("1", {"type": "board", "board": nb, "deal": deal_for(1, nb).to_pbn()}, "director")
            start = led.work - before
            # put back: board 3 started at table 2 instead of its board, then its own board again
            own = ev.expected_boards("2")[0]
            before = led.work
            await club.submit("2", {"type": "board", "board": nb, "deal": deal_for(1, nb).to_pbn()}, "director")
            await club.submit("2", {"type": "board", "board": own, "deal": deal_for(1, own).to_pbn()}, "director")
            replaced = led.work - before
            assert nb not in led.played.get("2", set()), "a board put back is not played"
            assert (("2" in led.owed[nb]) == (nb in ev.scheduled_boards("2"))), "owed there only if scheduled there"
            assert nb in rule.anonymous() and nb in rule.hidden_at("2", SPECTATOR)
            return completion, start, replaced
        finally:
            journal.close()
            club.close()

    small, large = asyncio.run(cost(5)), asyncio.run(cost(61))
    assert small == large, (small, large)
    assert small[0] <= 2 and small[1] <= 3 and small[2] <= 6, small
