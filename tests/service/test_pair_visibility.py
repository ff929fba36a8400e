"""Visibility by pair, over real HTTP and WebSocket (Laws 16B, 90B4; docs/security.md): a credential of the
next round sees nothing of the board its table was left on; a board started and replaced is not played; a
release of a board in play needs the director's explicit word and never reaches a pair that still has to play
it; late play hides a board scored "not played" again; a vugraph table shows its play, never its hands or its
result, while another table still has the board.

Mitchell, 3 tables, 2 boards a round: table 1 plays boards 1-2 (NS 1 v EW 4) in round 1 and 3-4 (NS 1 v EW 6)
in round 2; EW 6 plays boards 1-2 at table 2 in round 3. Board 1: table 1 in round 1, table 3 in round 2,
table 2 in round 3."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
from service_harness import ServerProcess, ServiceThread
from websockets.sync.client import connect

from service.sim.dealing import deal_for
from table.board import dealer_for

SEATS = "NESW"
EVENT = {"name": "Pairs", "scoring": "MP", "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2}}
TABLES = [{"id": "1"}, {"id": "2"}, {"id": "3"}]


def config(**regulation: Any) -> dict[str, Any]:
    return {"regulation": {"spectators": {"delay_s": 0}, **regulation}, "tables": TABLES, "event": EVENT}


def post(d: httpx.Client, table: str, body: dict[str, Any]) -> None:
    r = d.post(f"/api/tables/{table}/events", json=body)
    assert r.status_code == 200, r.text


def deal(d: httpx.Client, table: str, board: int) -> None:
    post(d, table, {"type": "board", "board": board, "deal": deal_for(1, board).to_pbn()})


def bid(d: httpx.Client, table: str, board: int, passes: int = 3) -> None:
    """The dealer opens 1C and ``passes`` passes follow (3: the auction is over, 1C is the contract)."""
    first = SEATS.index(str(dealer_for(board)))
    post(d, table, {"type": "call", "seat": SEATS[first], "call": "1C"})
    for i in range(1, passes + 1):
        post(d, table, {"type": "call", "seat": SEATS[(first + i) % 4], "call": "Pass"})


def pass_out(d: httpx.Client, table: str, board: int) -> None:
    """Deal ``board`` at ``table`` and pass it out: a complete board with a result."""
    deal(d, table, board)
    first = SEATS.index(str(dealer_for(board)))
    for i in range(4):
        post(d, table, {"type": "call", "seat": SEATS[(first + i) % 4], "call": "Pass"})


def shows(state: dict[str, Any]) -> bool:
    """Whether a live view shows anything of its board beyond "board n in play"."""
    return bool(state.get("hands") or state.get("result") or state.get("contract")
                or (state.get("auction") or {}).get("calls"))


def traveller(c: httpx.Client, board: int) -> dict[str, Any]:
    return next(b for b in c.get("/api/public/results").json()["boards"] if b["board"] == board)


def greeting(srv: ServerProcess, path: str, table: str) -> dict[str, Any]:
    """The first state of ``table`` a WebSocket stream sends."""
    with connect(f"{srv.ws_base}{path}", open_timeout=10) as ws:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            m = json.loads(ws.recv(timeout=10))
            if m["type"] == "state" and m["table"] == table:
                return m["state"]  # type: ignore[no-any-return]
    raise AssertionError(f"no state of table {table} on {path}")


def test_the_next_rounds_credential_sees_nothing_of_the_board_the_table_was_left_on(tmp_path: Path) -> None:
    """Finding 1: after "advance all tables" table 1 is still on board 2 (complete); its round-2 East is EW 6,
    who plays board 2 at table 2 in round 3: nothing of it over REST nor in the WebSocket greeting."""
    with ServiceThread(tmp_path, config()) as srv, srv.client(srv.token) as d:
        pass_out(d, "1", 1)
        pass_out(d, "1", 2)
        east_r1 = d.get("/api/tables/1/tokens").json()["E"]["token"]
        with srv.client(east_r1) as e1:                     # EW 4 played board 2: it sees it complete
            assert e1.get("/api/tables/1").json()["hands"]
        assert d.post("/api/event/advance", json={}).status_code == 200
        assert d.get("/api/event").json()["progress"][0]["round"] == 2
        tokens = d.get("/api/tables/1/tokens").json()
        assert tokens["E"]["round"] == 2
        east, north = tokens["E"]["token"], tokens["N"]["token"]
        with srv.client(east) as e2:
            state = e2.get("/api/tables/1").json()
            assert state["board"]["number"] == 2 and state.get("withheld") and not shows(state), state
            assert e2.get("/api/tables/1/boards/2").status_code == 403
            assert all("result" not in e for e in e2.get("/api/tables/1/boards").json() if e["board"] in (1, 2))
        ws_state = greeting(srv, f"/ws/tables/1?token={east}", "1")
        assert ws_state.get("withheld") and not shows(ws_state), ws_state
        # NS 1 stays at table 1: board 2 is not a board it plays there in round 2 either, so only "in play"
        with srv.client(north) as n2:
            assert not shows(n2.get("/api/tables/1").json())
        # the round-2 boards: once table 1 starts board 3, its round-2 pairs see it
        deal(d, "1", 3)
        bid(d, "1", 3, passes=1)
        with srv.client(east) as e2:
            state = e2.get("/api/tables/1").json()
            assert not state.get("withheld") and "E" in state["hands"] and state["auction"]["calls"]


def test_a_board_started_and_replaced_is_not_played(tmp_path: Path) -> None:
    """Finding 3: table 1 starts board 1 and puts it back (board 2 is started instead); tables 3 and 2 play
    board 1 to the end. Board 1 is not public: table 1 has still to play it (and its pairs see nothing of it)."""
    with ServiceThread(tmp_path, config()) as srv, srv.client(srv.token) as d, srv.client() as anon:
        deal(d, "1", 1)
        bid(d, "1", 1, passes=1)                             # the wrong board: put back mid-auction
        pass_out(d, "1", 2)
        pass_out(d, "3", 1)
        pass_out(d, "2", 1)
        assert not traveller(anon, 1)["visible"], "a replaced board counted as played"
        assert all(b["board"] != 1 for b in anon.get("/api/results").json())
        listed = anon.get("/api/tables/3/boards").json()
        assert [e["board"] for e in listed] == [1] and "result" not in listed[0]
        assert anon.get("/api/tables/3/boards/1").status_code == 401
        state = anon.get("/api/tables/3").json()
        assert state["board"]["number"] == 1 and state.get("withheld") and not shows(state)
        # table 1 plays board 1 after all: now it is public
        pass_out(d, "1", 1)
        assert traveller(anon, 1)["visible"]
        assert anon.get("/api/tables/3/boards/1").status_code == 200


def test_a_release_never_reaches_a_pair_that_still_has_to_play_the_board(tmp_path: Path) -> None:
    """Finding 4: releasing board 1 while tables 3 and 2 still have to play it is refused, naming them; with
    ``force`` the public sees it, a pair that still has to play it does not."""
    with ServiceThread(tmp_path, config()) as srv, srv.client(srv.token) as d, srv.client() as anon:
        pass_out(d, "1", 1)
        refused = d.post("/api/boards/1/release")
        assert refused.status_code == 409 and refused.json()["tables"] == ["2", "3"], refused.text
        assert not traveller(anon, 1)["visible"]
        forced = d.post("/api/boards/1/release?force=true")
        assert forced.status_code == 200 and forced.json()["forced"]
        assert traveller(anon, 1)["visible"]
        # NS 3 at table 3 in round 1 plays board 1 at table 3 in round 2 (it stays): it sees nothing of it
        north3 = d.get("/api/tables/3/tokens").json()["N"]["token"]
        with srv.client(north3) as n3:
            assert not n3.get("/api/public/results").json()["boards"][0].get("travellers")
            assert all(b["board"] != 1 for b in n3.get("/api/results").json())
            assert n3.get("/api/tables/1/boards/1").status_code == 403


def test_late_play_hides_a_board_scored_not_played_again(tmp_path: Path) -> None:
    """Finding 4: an artificial "not played" score ends table 3's obligation on board 1 (public once tables 1
    and 2 played it); granting late play makes it hidden again (a release withdrawn) until table 3 plays it."""
    with ServiceThread(tmp_path, config()) as srv, srv.client(srv.token) as d, srv.client() as anon:
        pass_out(d, "1", 1)
        pass_out(d, "2", 1)
        r = d.post("/api/tables/3/boards/1/adjustment", json={"kind": "artificial", "ns": "A", "ew": "A"})
        assert r.status_code == 200, r.text
        assert traveller(anon, 1)["visible"], "every table played or was scored"
        assert d.post("/api/boards/1/release").status_code == 200          # nobody owes it: no force needed
        assert d.post("/api/tables/3/late-play", json={"board": 1}).status_code == 200
        assert not traveller(anon, 1)["visible"], "late play granted: table 3 has board 1 to play again"
        assert all(b["board"] != 1 for b in anon.get("/api/results").json())
        north3 = d.get("/api/tables/3/tokens").json()["N"]["token"]
        with srv.client(north3) as n3:
            assert all(b["board"] != 1 for b in n3.get("/api/results").json())
        assert d.post("/api/boards/1/release").status_code == 409
        pass_out(d, "3", 1)
        assert traveller(anon, 1)["visible"]


def test_a_vugraph_table_shows_its_play_but_no_hands_or_result_of_a_board_in_play_elsewhere(tmp_path: Path) -> None:
    """Finding 5: under ``immediate`` release with the delayed view's hands, vugraph table 1's audience sees the
    auction of board 1 but neither hands nor result while tables 3 and 2 still have it to play."""
    cfg = config(results_release="immediate")
    cfg["regulation"]["spectators"] = {"delay_s": 0.2, "hands": "delayed"}
    with ServiceThread(tmp_path, cfg) as srv, srv.client(srv.token) as d, srv.client() as anon:
        assert d.post("/api/tables/1/vugraph", json={"on": True}).status_code == 200
        deal(d, "1", 1)
        bid(d, "1", 1, passes=1)
        time.sleep(0.6)
        state = anon.get("/api/tables/1").json()
        assert state["auction"]["calls"] and not state["hands"], state
        pass_out(d, "1", 2)                       # board 1 put back; then board 1 again, to the end
        pass_out(d, "1", 1)
        time.sleep(0.6)
        for state in (anon.get("/api/tables/1").json(), greeting(srv, "/ws/club", "1")):
            assert state["board"]["number"] == 1 and state["auction"]["calls"], state
            assert not state["hands"] and not state.get("result"), state
        assert not traveller(anon, 1)["visible"]
        pass_out(d, "3", 1)
        pass_out(d, "2", 1)
        time.sleep(0.6)
        state = anon.get("/api/tables/1").json()
        assert state["hands"] and state["result"], "played everywhere: public"
