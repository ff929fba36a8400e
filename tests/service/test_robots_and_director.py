"""The simulated tables' robots and the director at the same table (``service/sim/simulate.py``): a board the
director puts on the table while the robots pause before their next board is the board they play. The robots once
started their own next board over it, and the director's board was left unplayed (the leak checker's Mitchell
then never ended)."""
from __future__ import annotations

import time
from pathlib import Path

from service_harness import ServiceThread

from service.sim.dealing import deal_for

# one robot table at a slow pace: between two boards the robots pause 1-3 s (twice the pace, give or take half)
CONFIG = {"simulation": {"tables": 1, "pace_s": 1.0, "irregularity_rate": 0.0, "seed": 3}}


def test_the_robots_play_the_board_the_director_put_on_the_table_during_their_pause(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d:
        # the director plays board 1 to its end at once (a contract and an accepted claim) ...
        for body in ({"type": "board", "board": 1, "deal": deal_for(3, 1).to_pbn()},
                     {"type": "contract", "contract": "4S", "declarer": "N"},
                     {"type": "claim", "seat": "N", "tricks": 10},
                     {"type": "claim_response", "seat": "E", "accept": True},
                     {"type": "claim_response", "seat": "W", "accept": True}):
            r = d.post("/api/tables/1/events", json=body)
            assert r.status_code == 200, (body, r.text)
        assert d.get("/api/tables/1").json()["phase"] == "board_complete"
        # ... and puts board 5 on the table while the robots pause before the next
        r = d.post("/api/tables/1/events", json={"type": "board", "board": 5, "deal": deal_for(3, 5).to_pbn()})
        assert r.status_code == 200, r.text
        time.sleep(4.0)                         # longer than the robots' longest pause
        state = d.get("/api/tables/1").json()
        boards = [e["board"] for e in d.get("/api/tables/1/boards").json()]
        assert state["board"]["number"] == 5 and state["phase"] != "board_complete", (state["phase"], boards)
        assert boards == [1, 5], boards         # no board of the robots' own started over it
