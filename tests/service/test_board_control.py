"""The director's control of every board over real HTTP: the list of every table x round x board of the
movement; an adjustment on a board of a finished round; "not played" (an artificial score on a board the table
never started, counted by the results and rankings, cancellable); late play (a board of an earlier round played
later raises no wrong-board alert, its result counts for the movement's pairs, and the board's results stay
private until it is played). All journalled: a restart keeps them."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from service_harness import ServiceThread

from service.sim.dealing import deal_for
from table.board import dealer_for

CONFIG = {"regulation": {"spectators": {"delay_s": 0}},
          "tables": [{"id": "1"}, {"id": "2"}, {"id": "3"}],
          "event": {"name": "Control night", "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2}}}
SEATS = "NESW"


def pass_out(d: httpx.Client, table: str, board: int) -> None:
    """Deal ``board`` at ``table`` and pass it out (a complete board in five events)."""
    deal = deal_for(1, board).to_pbn()
    r = d.post(f"/api/tables/{table}/events", json={"type": "board", "board": board, "deal": deal})
    assert r.status_code == 200, r.text
    first = SEATS.index(str(dealer_for(board)))
    for i in range(4):
        r = d.post(f"/api/tables/{table}/events", json={"type": "call", "seat": SEATS[(first + i) % 4], "call": "Pass"})
        assert r.status_code == 200, r.text


def boards(d: httpx.Client) -> dict[tuple[str, int], dict[str, Any]]:
    return {(e["table"], e["board"]): e for e in d.get("/api/event/boards").json()}


def traveller(c: httpx.Client, board: int) -> dict[str, Any]:
    return next(b for b in c.get("/api/public/results").json()["boards"] if b["board"] == board)


def wrong_board_alerts(d: httpx.Client) -> list[tuple[str, int]]:
    return [(a["table"], a["board"]) for a in d.get("/api/event").json()["alerts"]]


def test_adjust_any_board_not_played_and_late_play(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, srv.client() as anon:
        listed = boards(d)
        assert len(listed) == 3 * 3 * 2 and anon.get("/api/event/boards").status_code == 401
        t1 = sorted(e["board"] for e in listed.values() if e["table"] == "1" and e["round"] == 1)
        first, second = t1
        pass_out(d, "1", first)
        assert d.post("/api/event/round", json={"round": 2}).status_code == 200
        now = boards(d)
        assert now[("1", first)]["state"] == "complete" and now[("1", first)]["result"]["contract"] == "PASS"
        assert now[("1", second)]["state"] == "not_started" and now[("1", second)]["current_round"] == 2

        # a board of the finished round: an assigned score
        r = d.post(f"/api/tables/1/boards/{first}/adjustment",
                   json={"kind": "assigned", "contract": "4S", "declarer": "N", "tricks": 10})
        assert r.status_code == 200, r.text
        assert boards(d)[("1", first)]["adjustment"]["kind"] == "assigned"
        row = traveller(d, first)["travellers"][0]["rows"][0]
        assert row["adjusted"] == "assigned" and row["score_ns"] in (420, 620)

        # not played: only an artificial score, only a board of this table's movement
        assert d.post(f"/api/tables/1/boards/{second}/adjustment",
                      json={"kind": "assigned", "contract": "3NT", "declarer": "S", "tricks": 9}).status_code == 422
        foreign = max(b for (_t, b) in listed) + 1                      # not a board of the movement
        assert d.post(f"/api/tables/1/boards/{foreign}/adjustment",
                      json={"kind": "artificial", "ns": "A", "ew": "A"}).status_code == 404
        assert d.post(f"/api/tables/1/boards/{second}/adjustment", json={"kind": "cancel"}).status_code == 404
        r = d.post(f"/api/tables/1/boards/{second}/adjustment", json={"kind": "artificial", "ns": "A+", "ew": "A-"})
        assert r.status_code == 200 and r.json()["adjustment"]["not_played"] is True
        assert boards(d)[("1", second)]["state"] == "not_played"
        rows = traveller(d, second)["travellers"][0]["rows"]
        sitting = listed[("1", second)]
        assert [(x["ns"], x["ew"], x["adjusted"]) for x in rows] == [(sitting["ns"], sitting["ew"], "A+/A-")]
        ranking = {x["entrant"]: x for s in d.get("/api/public/results").json()["rankings"] for x in s["rows"]}
        assert ranking[sitting["ns"]]["boards"] == 2                      # the assigned board and the not-played one
        srv.stop()
        srv.start()                                                       # journalled: the same after a restart
        assert boards(d)[("1", second)]["state"] == "not_played"
        assert d.post(f"/api/tables/1/boards/{second}/adjustment", json={"kind": "cancel"}).status_code == 200
        assert boards(d)[("1", second)]["state"] == "not_started"
        assert all(b["board"] != second for b in d.get("/api/public/results").json()["boards"]
                   if b.get("travellers") and b["travellers"][0]["rows"])

        # late play: every other table plays the board in its own round first; the results wait for table 1
        for (tid, b), e in sorted(listed.items()):
            if b == second and tid != "1":
                assert d.post("/api/event/round", json={"round": e["round"], "tables": [tid]}).status_code == 200
                pass_out(d, tid, second)
        assert traveller(anon, second)["visible"] is False
        assert d.post("/api/tables/1/late-play", json={"board": second}).status_code == 200
        assert boards(d)[("1", second)]["state"] == "late"
        assert d.post("/api/tables/1/late-play", json={"board": foreign}).status_code == 422
        before = wrong_board_alerts(d)
        pass_out(d, "1", second)
        assert wrong_board_alerts(d) == before, "late play raises no wrong-board alert"
        assert boards(d)[("1", second)]["state"] == "complete"
        public = traveller(anon, second)
        assert public["visible"] is True
        assert (sitting["ns"], sitting["ew"]) in {(x["ns"], x["ew"]) for x in public["travellers"][0]["rows"]}
        # the control: a board of an earlier round without late play is flagged (Law 15)
        other = sorted(e["board"] for e in listed.values() if e["table"] == "3" and e["round"] == 1)[0]
        assert d.post("/api/event/round", json={"round": 3, "tables": ["3"]}).status_code == 200
        pass_out(d, "3", other)
        assert ("3", other) in wrong_board_alerts(d)
        srv.stop()
        srv.start()
        assert boards(d)[("1", second)]["late"] is True
        assert wrong_board_alerts(d).count(("1", second)) == 0
