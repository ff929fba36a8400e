"""The table terminal's endpoints over real HTTP (service/api/terminal.py): table kinds, keyed results at a
scoring-only table (table/events.py ``result``), the opponents' confirmation, calls for the director; each with
the hostile input it must refuse."""
from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest
import websockets
from service_harness import ServerProcess, ServiceThread

CONFIG = {"tables": [{"id": "P"}, {"id": "S"}, {"id": "T"}],
          "regulation": {"spectators": {"delay_s": 0}, "results_release": "immediate"}}
DEAL = "N:AKQJ.T98.765.432 T987.AKQJ.432.65 6543.765.AKQJ.T9 2.432.T98.AKQJ87"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServiceThread(tmp_path_factory.mktemp("terminal"), CONFIG) as srv:
        yield srv


@pytest.fixture(scope="module")
def director(server: ServerProcess) -> Iterator[httpx.Client]:
    with server.client(server.token) as c:
        yield c


def seat(server: ServerProcess, director: httpx.Client, table: str, s: str) -> httpx.Client:
    return server.client(director.get(f"/api/tables/{table}/tokens").json()[s]["token"])


def test_only_the_director_sets_a_table_kind(server: ServerProcess, director: httpx.Client) -> None:
    with seat(server, director, "T", "N") as north, server.client() as anyone:
        assert north.post("/api/tables/T/kind", json={"kind": "scoring"}).status_code == 403
        assert anyone.post("/api/tables/T/kind", json={"kind": "scoring"}).status_code == 401
    for bad in ({"kind": "bridgemate"}, {"kind": 1}, {}, {"kind": "scoring", "x": 1}):
        assert director.post("/api/tables/T/kind", json=bad).status_code == 422, bad
    assert director.post("/api/tables/nope/kind", json={"kind": "scoring"}).status_code == 404
    r = director.post("/api/tables/T/kind", json={"kind": "scoring"})
    assert r.status_code == 200 and r.json()["kind"] == "scoring"
    assert director.get("/api/tables/T").json()["kind"] == "scoring"
    assert director.post("/api/tables/T/kind", json={"kind": "played"}).json()["kind"] == "played"
    assert director.get("/api/tables/T").json()["kind"] == "played"


def test_keying_a_result_at_a_played_table_is_refused(server: ServerProcess, director: httpx.Client) -> None:
    assert director.post("/api/tables/P/events", json={"type": "board", "board": 1}).status_code == 200
    with seat(server, director, "P", "N") as north:
        r = north.post("/api/tables/P/events", json={"type": "result", "contract": "4S", "declarer": "N",
                                                     "tricks": 10})
        assert r.status_code == 409 and "scoring-only" in r.json()["detail"]
        assert north.post("/api/tables/P/events", json={"type": "board", "board": 2}).status_code == 403


def test_a_keyed_result_counts_once_the_opponents_accept_it(server: ServerProcess, director: httpx.Client) -> None:
    director.post("/api/tables/S/kind", json={"kind": "scoring"}).raise_for_status()
    with seat(server, director, "S", "N") as north, seat(server, director, "S", "E") as east, \
            seat(server, director, "S", "S") as south, seat(server, director, "P", "E") as elsewhere:
        assert north.post("/api/tables/S/events", json={"type": "board", "board": 3}).status_code == 200
        # malformed results: 422, nothing changes
        for bad in ({"contract": "4S", "declarer": "N", "tricks": 14},
                    {"contract": "4S", "declarer": "N", "tricks": -1},
                    {"contract": "9S", "declarer": "N", "tricks": 9}, {"contract": "4S", "tricks": 9},
                    {"contract": "4S", "declarer": "N", "tricks": 9, "lead": "ZZ"},
                    {"contract": "4S", "declarer": "Q", "tricks": 9}, {"contract": "4S", "declarer": "N"},
                    {"contract": "PASS", "declarer": "N"}, {"contract": "4S", "declarer": "N", "tricks": "ten"}):
            r = north.post("/api/tables/S/events", json={"type": "result", **bad})
            assert r.status_code == 422, (bad, r.text)
        assert director.get("/api/tables/S").json()["phase"] == "board_ready"
        assert elsewhere.post("/api/tables/S/events", json={"type": "result", "contract": "4S", "declarer": "N",
                                                            "tricks": 10}).status_code == 403
        # East cannot confirm a board that is not over
        assert east.post("/api/tables/S/boards/3/confirm", json={"accept": True}).status_code == 409
        r = north.post("/api/tables/S/events", json={"type": "result", "contract": "4SX", "declarer": "N",
                                                     "lead": "HK", "tricks": 10})
        assert r.status_code == 200 and r.json()["phase"] == "board_complete", r.text
        view = north.get("/api/tables/S").json()
        assert view["result"]["contract"] == "4SX" and view["result"]["score_ns"] == 590      # board 3: EW vul
        assert view["confirm"] == {"side": "EW", "keyed": True, "keyed_by": "N", "lead": "HK", "answer": None}
        # keyed again: only the seat that keyed it corrects it (until the opponents accept it: test_pair_names.py)
        assert south.post("/api/tables/S/events", json={"type": "result", "contract": "3NT", "declarer": "S",
                                                        "tricks": 9}).status_code == 403
        # not counted before the opponents accept
        entry = next(e for b in director.get("/api/results").json() if b["board"] == 3 for e in b["results"])
        assert entry["complete"] is False
        # the keying side, the other table's seat, nobody: refused
        assert north.post("/api/tables/S/boards/3/confirm", json={"accept": True}).status_code == 403
        assert south.post("/api/tables/S/boards/3/confirm", json={"accept": True}).status_code == 403
        assert north.post("/api/tables/S/boards/3/confirm", json={"accept": True, "seat": "S"}).status_code == 403
        assert elsewhere.post("/api/tables/S/boards/3/confirm", json={"accept": True}).status_code == 403
        assert east.post("/api/tables/S/boards/9/confirm", json={"accept": True}).status_code == 404
        for bad in ({"accept": "yes"}, {}, {"accept": True, "seat": "X"}):
            assert east.post("/api/tables/S/boards/3/confirm", json=bad).status_code == 422, bad
        # a dispute calls the director; the acceptance that follows counts
        r = east.post("/api/tables/S/boards/3/confirm", json={"accept": False})
        assert r.status_code == 200 and r.json()["side"] == "EW" and r.json()["director_call"] >= 1
        calls = director.get("/api/director-calls", params={"open": True}).json()
        assert calls[0]["id"] == r.json()["director_call"] and calls[0]["table"] == "S" and calls[0]["board"] == 3
        assert "disputed" in calls[0]["reason"]
        # East answered on his own device: the keying terminal can no longer answer for West (Law 79)
        r = north.post("/api/tables/S/boards/3/confirm", json={"accept": True, "seat": "W"})
        assert r.status_code == 403
        with seat(server, director, "S", "W") as west:
            r = west.post("/api/tables/S/boards/3/confirm", json={"accept": True})
        assert r.status_code == 200 and r.json()["seat"] == "W" and "terminal" not in r.json()
        assert east.post("/api/tables/S/boards/3/confirm", json={"accept": True}).status_code == 409
        # accepted: the result stands at the table (the director can still adjust it)
        assert north.post("/api/tables/S/events", json={"type": "result", "contract": "3NT", "declarer": "S",
                                                        "tricks": 9}).status_code == 409
        entry = next(e for b in director.get("/api/results").json() if b["board"] == 3 for e in b["results"])
        assert entry["complete"] is True and entry["score_ns"] == 590
        rows = director.get("/api/tables/S/events", params={"board": 3}).json()
        assert [(r["kind"], r["actor"], r["body"].get("accept")) for r in rows if r["kind"] == "confirmation"] == [
            ("confirmation", "seat:S:E", False), ("confirmation", "seat:S:W", True)]


def test_a_result_after_a_call_or_with_an_impossible_lead_is_refused(server: ServerProcess,
                                                                      director: httpx.Client) -> None:
    director.post("/api/tables/S/kind", json={"kind": "scoring"}).raise_for_status()
    with seat(server, director, "S", "N") as north:
        north.post("/api/tables/S/events", json={"type": "board", "board": 5}).raise_for_status()
        north.post("/api/tables/S/events", json={"type": "call", "seat": "N", "call": "1S"}).raise_for_status()
        r = north.post("/api/tables/S/events", json={"type": "result", "contract": "4S", "declarer": "N", "tricks": 10})
        assert r.status_code == 409 and "no call" in r.json()["detail"]
        r = director.post("/api/tables/S/events", json={"type": "board", "board": 6, "deal": DEAL})
        assert r.status_code == 200
        # the opening lead is East's (declarer North's left): North's own ace of spades cannot be it. The
        # director is told so (he sees the deal), without naming the card's holder
        r = director.post("/api/tables/S/events", json={"type": "result", "contract": "4S", "declarer": "N",
                                                        "lead": "SA", "tricks": 10})
        assert r.status_code == 409 and "opening lead is E" in r.json()["detail"], r.text
        assert "N's card" not in r.json()["detail"]
        r = north.post("/api/tables/S/events", json={"type": "result", "contract": "4S", "declarer": "N",
                                                     "lead": "HA", "tricks": 10})
        assert r.status_code == 200, r.text
        # a terminal names the board, never its cards
        assert north.post("/api/tables/S/events", json={"type": "board", "board": 7, "deal": DEAL}).status_code == 403


def test_a_seat_calls_the_director_and_the_console_hears_it_at_once(server: ServerProcess,
                                                                     director: httpx.Client) -> None:
    director.post("/api/tables/P/events", json={"type": "board", "board": 4}).raise_for_status()

    async def scenario() -> dict[str, object]:
        async with websockets.connect(f"{server.ws_base}/ws/club?token={server.token}") as ws:
            await asyncio.sleep(0.3)
            with seat(server, director, "P", "W") as west:
                r = await asyncio.to_thread(west.post, "/api/tables/P/director")
                assert r.status_code == 200, r.text
            while True:
                msg: dict[str, object] = json.loads(await asyncio.wait_for(ws.recv(), 5))
                if msg.get("type") == "director_call":
                    return msg
    msg = asyncio.run(scenario())
    assert msg["table"] == "P" and msg["seat"] == "W" and msg["board"] == 4 and msg["at"]
    number = int(str(msg["id"]))
    with seat(server, director, "P", "W") as west, seat(server, director, "S", "N") as other, server.client() as anyone:
        assert west.get("/api/director-calls").status_code == 403
        assert west.post(f"/api/director-calls/{number}/answer").status_code == 403
        assert other.post("/api/tables/P/director").status_code == 403
        assert anyone.post("/api/tables/P/director").status_code == 401
    assert any(c["id"] == number and not c["answered"] for c in director.get("/api/director-calls").json())
    assert director.post(f"/api/director-calls/{number}/answer").status_code == 200
    assert director.post(f"/api/director-calls/{number}/answer").status_code == 409
    assert director.post("/api/director-calls/99999/answer").status_code == 404
    assert all(c["id"] != number for c in director.get("/api/director-calls", params={"open": True}).json())


def test_director_calls_and_table_kinds_survive_a_restart(tmp_path_factory: pytest.TempPathFactory) -> None:
    srv = ServiceThread(tmp_path_factory.mktemp("restart"), CONFIG)
    with srv, srv.client(srv.token) as d:
        d.post("/api/tables/S/kind", json={"kind": "scoring"}).raise_for_status()
        number = d.post("/api/tables/T/director").json()["id"]
        srv.stop()
        srv.start()
        assert d.get("/api/tables/S").json()["kind"] == "scoring"
        assert [c["id"] for c in d.get("/api/director-calls").json()] == [number]


def test_under_immediate_release_a_seat_sees_at_once_the_traveller_of_a_board_its_table_finished(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """In an event too (a Mitchell of 3 tables: board 1 goes to tables 1, 3 and 2 in turn), the boards its own
    table has finished, as soon as it has; never a board its table still has to play; nothing for the public
    until every table has played it."""
    config = {"regulation": {"spectators": {"delay_s": 0}, "results_release": "immediate"},
              "event": {"name": "Immediate", "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2}}}
    with ServiceThread(tmp_path_factory.mktemp("immediate"), config) as srv, srv.client(srv.token) as d, \
            srv.client() as anyone:
        for body in ({"type": "board", "board": 1, "deal": DEAL}, {"type": "contract", "contract": "3NT",
                                                                   "declarer": "N"},
                     {"type": "claim", "seat": "N", "tricks": 9},
                     {"type": "claim_response", "seat": "E", "accept": True},
                     {"type": "claim_response", "seat": "W", "accept": True}):
            assert d.post("/api/tables/1/events", json=body).status_code == 200, body

        def board_one(c: httpx.Client) -> dict[str, object]:
            return next(b for b in c.get("/api/public/results").json()["boards"] if b["board"] == 1)

        with seat(srv, d, "1", "E") as here, seat(srv, d, "2", "E") as later:
            mine = board_one(here)
            assert mine["visible"] and [r["score_ns"] for tr in mine["travellers"] for r in tr["rows"]] == [400]
            assert not board_one(later)["visible"] and "travellers" not in board_one(later)
            assert not board_one(anyone)["visible"]
