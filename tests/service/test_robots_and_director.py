"""The simulated tables' robots and the director at the same table (``service/sim/simulate.py``): a board the
director puts on the table while the robots pause before their next board is the board they play. The robots once
started their own next board over it, and the director's board was left unplayed (the leak checker's Mitchell
then never ended)."""
from __future__ import annotations

import time
from pathlib import Path

from service_harness import ServiceThread

from service.sim.dealing import deal_for

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
