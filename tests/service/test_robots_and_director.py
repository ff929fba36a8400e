"""The simulated tables' robots and the director at the same table (``service/sim/simulate.py``): a board the
director puts on the table while the robots pause before their next board is the board they play. The robots once
started their own next board over it, and the director's board was left unplayed (the leak checker's Mitchell
then never ended). A robot's board decided before the director's landed is refused under the table's lock."""
from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from service_harness import ServiceThread

from service.config.loading import load_settings
from service.errors import Superseded
from service.live.club import Club
from service.live.hub import Hub
from service.sim.dealing import deal_for
from service.store.journal import Journal, Row

# One robot table at a slow pace: before their first board the robots pause 0.5-1.5 s (a fifth of the pace, give
# or take half), then 2.5-7.5 s between two actions.
CONFIG = {"simulation": {"tables": 1, "pace_s": 5.0, "irregularity_rate": 0.0, "seed": 3}}


def test_the_robots_play_the_board_the_director_put_on_the_table_during_their_pause(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d:
        # the robots are pausing before their first board (board 1): the director puts board 5 on the table
        r = d.post("/api/tables/1/events", json={"type": "board", "board": 5, "deal": deal_for(3, 5).to_pbn()})
        assert r.status_code == 200, r.text
        time.sleep(3.0)                         # past the robots' longest pause
        state = d.get("/api/tables/1").json()
        listed = d.get("/api/tables/1/boards").json()
        five = next(e for e in listed if e["board"] == 5)
        after = [e["board"] for e in listed if e["board"] != 5 and e["started"] > five["started"]]
        assert state["board"]["number"] == 5 and state["phase"] != "board_complete", (state["phase"], listed)
        assert after == [], f"the robots started board(s) {after} over the director's board 5"


def test_a_robots_board_decided_before_the_directors_landed_is_not_started_over_it(tmp_path: Path) -> None:
    """The narrow case the pause above leaves: the robot looks while the director's board is being written to the
    journal (the table unchanged yet), then asks for its own. The leak checker's Mitchell met it: the director's
    board 4 at 46.824, the robots' board 9 over it at 46.848, and board 4 never played."""
    async def run() -> None:
        settings = load_settings(None, database=str(tmp_path / "journal.db"), tables=[{"id": "1"}])
        journal, club = Journal(settings.database), None
        try:
            club = Club(settings, journal, Hub())
            club.load()
            journal.start()
            club.start()
            written, release = asyncio.Event(), asyncio.Event()
            store = journal.append

            async def slow_append(row: Row) -> None:        # the director's row waits in the journal's write
                written.set()
                await release.wait()
                await store(row)
            journal.append = slow_append                     # type: ignore[method-assign]
            director = asyncio.create_task(club.submit(
                "1", {"type": "board", "board": 5, "deal": deal_for(3, 5).to_pbn()}, "director"))
            await written.wait()
            looked = club.table("1").current                 # the robot looks: no board yet
            assert looked is None
            robot = asyncio.create_task(club.submit(
                "1", {"type": "board", "board": 1, "deal": deal_for(3, 1).to_pbn()}, "dealer:sim", over=looked))
            await asyncio.sleep(0.05)                        # the robot's request waits for the table's lock
            release.set()
            await director
            with pytest.raises(Superseded):
                await robot
            journal.append = store                           # type: ignore[method-assign]
            assert club.table("1").board_number == 5
            assert [r.body["board"] for r in journal.rows("1") if r.body.get("type") == "board"] == [5]
            # the same request once the robot has seen board 5 starts its board
            await club.submit("1", {"type": "board", "board": 1, "deal": deal_for(3, 1).to_pbn()}, "dealer:sim",
                              over=club.table("1").current)
            assert club.table("1").board_number == 1
        finally:
            journal.close()
            if club is not None:
                club.close()
    asyncio.run(run())
