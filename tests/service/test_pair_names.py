"""Names once per pair for the session, a keyed result corrected until the opponents confirm it, and a lead the
declaring side held refused, over real HTTP and WebSocket (issue 24, items 6 and 10):

* a pair's names entered at its first table stay the pair's: a stationary pair finds them in the next round, a
  moving pair at its next table, after a restart too (the journal), and the results show them;
* partner's page is sent the names on the table's stream (a ``players`` message) when the other phone saves them;
* a scoring-only table's one device enters both pairs' names while the opponents have no device of their own;
* the seat that keyed a result corrects it until the opponents accept it (after a dispute too); then it stands
  (409 in words; the director's adjustment still applies); nobody else corrects it;
* in every lead-check mode, a keyed opening lead that declarer or dummy held per the hand record is refused (409 in
  words), and after two such refusals on a board the director is called and the board is no longer checked."""
from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from service_harness import SeatSignIn, ServerProcess, ServiceThread

from table.cards import Deal, Seat
from table.dealgen import HashDRBG, random_deal
from table.handrecords import HandRecordBoard, to_bytes

EVENT = {"name": "Names", "movement": {"kind": "mitchell", "tables": 3, "rounds": 3, "boards_per_round": 2}}
CONFIG = {"regulation": {"spectators": {"delay_s": 0}}, "tables": [{"id": t} for t in "123"], "event": EVENT}
SET = [HandRecordBoard.of(n, random_deal(HashDRBG(f"pair-names-{n}"))) for n in range(1, 7)]
DEALS = {b.board: Deal.from_pbn(b.deal.to_pbn()) for b in SET}


@pytest.fixture()
def srv(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServiceThread(tmp_path, CONFIG) as s:
        yield s


def ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, (r.request.method, r.request.url, r.status_code, r.text)
    return r.json()


def signed_in(srv: ServerProcess, table: str, seat: str) -> httpx.Client:
    """A player's own device: signed in with his seat's link (the service then knows the seat has one)."""
    auth = SeatSignIn(srv, table, seat)
    auth.sign_in()
    return httpx.Client(base_url=srv.base, auth=auth, timeout=10)


def token_of(c: httpx.Client) -> str:
    auth = c.auth
    assert isinstance(auth, SeatSignIn) and auth.token
    return auth.token


def test_names_once_per_pair_pushed_to_partner_and_kept_when_the_pair_moves(srv: ServerProcess) -> None:
    with srv.client(srv.token) as d, signed_in(srv, "1", "N") as north, signed_in(srv, "1", "S") as south:
        first = ok(d.get("/api/tables/1/players"))
        assert first["NS"] == {"pair": 1, "names": []} and first["round"] == 1
        ew_pair = first["EW"]["pair"]

        async def partner_sees_the_names() -> dict[str, Any]:
            async with websockets.connect(f"{srv.ws_base}/ws/tables/1", open_timeout=10,
                                          subprotocols=["bridgetable", f"bearer.{token_of(south)}"]) as ws:  # type: ignore[list-item]
                assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "state"
                posted = await asyncio.to_thread(north.post, "/api/tables/1/players", json={"N": "Ann Able",
                                                                                              "S": "Bob Baker"})
                assert posted.status_code == 200, posted.text
                while True:
                    m = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if m["type"] == "players":
                        return dict(m)
        pushed = asyncio.run(partner_sees_the_names())
        assert pushed["table"] == "1" and pushed["round"] == 1
        assert pushed["NS"] == {"pair": 1, "names": ["Ann Able", "Bob Baker"]}
        assert pushed["EW"] == {"pair": ew_pair, "names": []}
        assert ok(south.get("/api/tables/1/players"))["NS"]["names"] == ["Ann Able", "Bob Baker"]
        with signed_in(srv, "1", "E") as east:
            ok(east.post("/api/tables/1/players", json={"E": "Cy Cole", "W": "Di Dunn"}))

        # round 2: the stationary NS pair is not asked again; the EW pair finds its names at its new table
        ok(d.post("/api/event/advance", json={}))
        again = ok(north.get("/api/tables/1/players"))         # North's page signs in for round 2 by itself
        assert again["round"] == 2 and again["NS"] == {"pair": 1, "names": ["Ann Able", "Bob Baker"]}
        assert again["EW"]["pair"] != ew_pair and again["EW"]["names"] == []
        moved = next(t for t in "23" if ok(d.get(f"/api/tables/{t}/players"))["EW"]["pair"] == ew_pair)
        assert ok(d.get(f"/api/tables/{moved}/players"))["EW"]["names"] == ["Cy Cole", "Di Dunn"]
        ok(south.post("/api/tables/1/players", json={"S": "Sue Sub"}))      # a substitute: North's name stays

    srv.stop()
    srv.start()
    with srv.client(srv.token) as d:
        assert ok(d.get("/api/tables/1/players"))["NS"]["names"] == ["Ann Able", "Sue Sub"]
        assert ok(d.get(f"/api/tables/{moved}/players"))["EW"]["names"] == ["Cy Cole", "Di Dunn"]
        ranked = {r["entrant"]: r["names"] for rk in ok(d.get("/api/public/results"))["rankings"] for r in rk["rows"]}
        assert ranked[1] == "Ann Able - Sue Sub" and ranked[ew_pair] == "Cy Cole - Di Dunn"


def test_a_scoring_only_device_enters_both_pairs_while_the_opponents_have_no_device(srv: ServerProcess) -> None:
    with srv.client(srv.token) as d, signed_in(srv, "2", "N") as terminal:
        ok(d.post("/api/tables/2/kind", json={"kind": "scoring"}))
        assert ok(terminal.get("/api/tables/2/players"))["may_enter"] == ["NS", "EW"]
        ok(terminal.post("/api/tables/2/players", json={"N": "Ann", "S": "Bob"}))
        out = ok(terminal.post("/api/tables/2/players", json={"E": "Cy", "W": "Di"}))
        assert out["names"] == ["Cy", "Di"]
        shown = ok(d.get("/api/tables/2/players"))
        assert shown["NS"]["names"] == ["Ann", "Bob"] and shown["EW"]["names"] == ["Cy", "Di"]
        ok(terminal.post("/api/tables/2/players", json={"N": "Ann", "E": "x"}), 422)      # one pair at a time
        with signed_in(srv, "2", "W") as west:                  # the opponents now have a device of their own
            assert ok(west.get("/api/tables/2/players"))["may_enter"] == ["EW"]
            assert ok(terminal.get("/api/tables/2/players"))["may_enter"] == ["NS"]
            refused = ok(terminal.post("/api/tables/2/players", json={"E": "Zed"}), 403)
            assert "own pair's names" in refused["detail"] and "device of their own" in refused["detail"]
            ok(west.post("/api/tables/2/players", json={"E": "Cy Cole"}))
        # a table of phones: each pair enters its own names
        with signed_in(srv, "1", "N") as phone:
            assert ok(phone.get("/api/tables/1/players"))["may_enter"] == ["NS"]
            assert "own pair's names" in ok(phone.post("/api/tables/1/players", json={"E": "Eve"}), 403)["detail"]


def key(c: httpx.Client, board: int, tricks: int, lead: str | None = None, contract: str = "3NT",
        declarer: str = "S") -> httpx.Response:
    body: dict[str, Any] = {"type": "result", "contract": contract, "declarer": declarer, "tricks": tricks}
    if lead:
        body["lead"] = lead
    return c.post("/api/tables/2/events", json=body)


def test_the_keyer_corrects_a_result_until_the_opponents_confirm_it(srv: ServerProcess) -> None:
    with srv.client(srv.token) as d, signed_in(srv, "2", "N") as north, signed_in(srv, "2", "E") as east:
        ok(d.post("/api/tables/2/kind", json={"kind": "scoring"}))
        board = ok(d.get("/api/event"))["progress"][1]["boards"][0]
        ok(north.post(f"/api/tables/2/boards/{board}/start", json={"confirm": board}))
        ok(key(north, board, 9))
        assert "keyed by N" in ok(key(east, board, 8), 403)["detail"]        # the opponents dispute instead
        ok(key(north, board, 10))                                             # the keyer's correction
        state = ok(north.get("/api/tables/2"))
        assert (state["result"]["contract"], state["result"]["tricks"]) == ("3NT", 10)
        assert state["confirm"]["answer"] is None and state["confirm"]["side"] == "EW"
        ok(east.post(f"/api/tables/2/boards/{board}/confirm", json={"accept": False}))    # disputed
        ok(key(north, board, 8, contract="4S", declarer="N"))                  # corrected again after the dispute
        state = ok(east.get("/api/tables/2"))
        assert (state["result"]["contract"], state["result"]["declarer"], state["result"]["tricks"]) == ("4S", "N", 8)
        assert state["confirm"]["answer"] is None                             # the new result is answered again
        ok(east.post(f"/api/tables/2/boards/{board}/confirm", json={"accept": True}))
        late = ok(key(north, board, 10), 409)
        assert late["detail"] == (f"the result of board {board} was confirmed by EW: it can no longer be corrected "
                                  "at the table; call the director, who can still change it")
        assert late["code"] == "CONFIRMED"
        assert ok(d.get("/api/tables/2"))["result"]["tricks"] == 8
        rows = ok(d.get("/api/tables/2/events", params={"board": board}))
        assert [r["body"]["tricks"] for r in rows if r["body"].get("type") == "result"] == [9, 10, 8]
        ok(d.post(f"/api/tables/2/boards/{board}/adjustment",               # the director can still change it
                  json={"kind": "assigned", "contract": "4S", "declarer": "N", "tricks": 9}))

    srv.stop()
    srv.start()
    with srv.client(srv.token) as d:                             # the journal gives back the corrected result
        state = ok(d.get("/api/tables/2"))
        assert (state["result"]["contract"], state["result"]["tricks"]) == ("4S", 8)
        assert state["confirm"]["answer"]["accept"] is True and state["adjustment"]["tricks"] == 9


def test_a_lead_the_declaring_side_held_is_refused_in_every_mode(srv: ServerProcess) -> None:
    with srv.client(srv.token) as d, signed_in(srv, "2", "N") as north:
        ok(d.post("/api/tables/2/kind", json={"kind": "scoring"}))
        ok(d.post("/api/event/hand-records", json={"filename": "set.pbn", "content": to_bytes(SET, "PBN").decode()}))
        assert ok(d.get("/api/event/lead-check"))["mode"] == "off"
        first, second = ok(d.get("/api/event"))["progress"][1]["boards"]
        deal = DEALS[first]
        ok(north.post(f"/api/tables/2/boards/{first}/start", json={"confirm": first}))
        declarers = sorted(deal.hands[Seat("S")])[0], sorted(deal.hands[Seat("N")])[0]   # declarer's, dummy's
        r = ok(key(north, first, 9, lead=declarers[0]), 409)
        assert r["code"] == "LEAD_DECLARING_SIDE"
        assert r["detail"] == ("the lead is a card of the declaring side per the hand record, and the opening lead "
                               "is the defenders' (declarer's left-hand opponent leads, Law 41A): check the opening "
                               "lead and the declarer")
        # in keyed pieces (issue 24): a Chinese page words the refusal
        assert [p["key"] for p in r["detail_parts"]] == ["refusal.lead_declaring_side", "refusal.lead_check_both"]
        assert ok(d.get("/api/tables/2"))["phase"] == "board_ready"            # nothing keyed
        r = ok(key(north, first, 9, lead=declarers[1]), 409)                   # dummy's: refused, the director called
        assert r["detail"].endswith(": the director is called")
        assert [p["key"] for p in r["detail_parts"]] == ["refusal.lead_declaring_side", "refusal.lead_called"]
        [call] = [c for c in ok(d.get("/api/director-calls")) if c.get("code") == "LEAD_CHECK"]
        assert call["board"] == first and call["table"] == "2"
        ok(key(north, first, 9, lead=declarers[0]))        # no longer checked on this board (no probing the deal)

        # off: the leader's partner's card is a defender's (a lead out of turn, Law 54): not checked
        ok(d.post("/api/event/lead-check", json={"mode": "warn"}))
        deal = DEALS[second]
        ok(north.post(f"/api/tables/2/boards/{second}/start", json={"confirm": second}))
        r = ok(key(north, second, 9, lead=sorted(deal.hands[Seat("N")])[-1]), 409)   # warn: dummy's still refused
        assert r["code"] == "LEAD_DECLARING_SIDE"
        good = ok(key(north, second, 9, lead=sorted(deal.hands[Seat("W")])[0]))         # the leader's own card
        assert "warning" not in good


def test_a_teams_two_pairs_keep_their_own_names(tmp_path: Path) -> None:
    """In a teams match a team's North-South pair (open room) and its East-West pair (closed room) are two pairs:
    each table shows its own pair's names, the team's entry all four."""
    event = {"name": "Match", "scoring": "IMP", "movement": {"kind": "teams", "boards": 4, "boards_per_round": 2}}
    cfg = {"regulation": {"spectators": {"delay_s": 0}}, "tables": [{"id": "1"}, {"id": "2"}], "event": event}
    with ServiceThread(tmp_path, cfg) as srv, srv.client(srv.token) as d:
        open_room, closed_room = ok(d.get("/api/tables/1/players")), ok(d.get("/api/tables/2/players"))
        team = open_room["NS"]["pair"]
        assert closed_room["EW"]["pair"] == team
        with signed_in(srv, "1", "N") as north, signed_in(srv, "2", "E") as east:
            ok(north.post("/api/tables/1/players", json={"N": "Ann", "S": "Bob"}))
            ok(east.post("/api/tables/2/players", json={"E": "Cy", "W": "Di"}))
        assert ok(d.get("/api/tables/1/players"))["NS"]["names"] == ["Ann", "Bob"]
        assert ok(d.get("/api/tables/2/players"))["EW"]["names"] == ["Cy", "Di"]
        ok(d.post("/api/event/advance", json={}))
        assert ok(d.get("/api/tables/1/players"))["NS"]["names"] == ["Ann", "Bob"]      # the next round too
        ranked = {r["entrant"]: r for rk in ok(d.get("/api/public/results"))["rankings"] for r in rk["rows"]}
        assert ranked[team]["names"] == "Ann - Bob - Cy - Di"
