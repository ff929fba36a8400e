"""The director's evening over real HTTP (a server in a child process; service/api/event_console.py): an event set up
from JSON and replaced, bad input refused with a clear status, rounds advanced, the round clock and late tables,
the end-of-round guidance of every table in every round compared with the movement (a Mitchell with an odd number
of tables, one with an even number and a relay, a Howell with a phantom pair), the member list and the names per
round that reach the results, and all of it rebuilt after a restart."""
from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_harness import ServerProcess, ServiceThread

from results import Movement, howell, mitchell

MITCHELL_3 = {"name": "Tuesday pairs", "scoring": "MP",
              "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2}}
# The settings' event: the journalled one set up from the console must win over it after a restart.
SETTINGS_EVENT = {"name": "From the settings", "movement": {"kind": "howell", "pairs": 4, "boards_per_round": 1}}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServiceThread(tmp_path / "evening", {"regulation": {"spectators": {"delay_s": 0}}}) as srv:
        yield srv


@pytest.fixture
def director(server: ServerProcess) -> Iterator[httpx.Client]:
    with server.client(server.token) as d:
        yield d


def ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, r.text
    return r.json()


def play(client: httpx.Client, table: str, board: int, contract: str = "4S", declarer: str = "N",
         tricks: int = 10) -> None:
    """A whole board the quick way: the board, its contract, an accepted claim (table/machine.py)."""
    opponents = "EW" if declarer in "NS" else "NS"
    for body in [{"type": "board", "board": board}, {"type": "contract", "contract": contract, "declarer": declarer},
                 {"type": "claim", "seat": declarer, "tricks": tricks},
                 *({"type": "claim_response", "seat": s, "accept": True} for s in opponents)]:
        ok(client.post(f"/api/tables/{table}/events", json=body))


def progress(d: httpx.Client) -> dict[str, dict[str, Any]]:
    return {p["table"]: p for p in ok(d.get("/api/event"))["progress"]}


# ---------------------------------------------------------------------------------------------- set-up
def test_set_up_replace_and_bad_input(server: ServerProcess, director: httpx.Client) -> None:
    d = director
    assert ok(d.get("/api/event")) == {"event": None}
    out = ok(d.post("/api/event", json=MITCHELL_3))
    assert out["tables"] == ["1", "2", "3"]
    assert out["event"]["sections"][0]["kind"] == "mitchell" and out["event"]["sections"][0]["rounds"] == 3
    assert {"1", "2", "3"} <= {t["table"] for t in ok(d.get("/api/tables"))}
    assert {p["round"] for p in progress(d).values()} == {1}

    bad: list[tuple[Any, int, str]] = [
        ([1, 2], 422, "JSON object"),
        ({"name": "x"}, 422, "movement"),
        ({"movement": {"kind": "mitchell"}}, 422, "needs tables"),
        ({"movement": {"kind": "mitchell", "tables": 1}}, 422, "tables"),
        ({"movement": {"kind": "mitchell", "tables": 4, "rounds": 9}}, 422, "at most"),
        ({"movement": {"kind": "mitchell", "tables": 4, "even": "sideways"}}, 422, "even"),
        ({"movement": {"kind": "howell", "pairs": 60}}, 422, "at most 24"),
        ({"movement": {"kind": "howell", "pairs": "six"}}, 422, "pairs"),
        ({"movement": {"file": "/etc/passwd"}}, 422, "a kind"),
        ({"scoring": "CHESS", "movement": {"kind": "howell", "pairs": 6}}, 422, "scoring"),
        ({"movement": {"kind": "howell", "pairs": 6}, "replace": "yes"}, 422, "replace"),
        ({"sections": [{"id": "A", "movement": {"kind": "howell", "pairs": 6}},
                       {"id": "A", "movement": {"kind": "howell", "pairs": 6}}]}, 422, "twice"),
        ({"movement": {"kind": "howell", "pairs": 6}, "tables": {"1": 9}}, 422, "movement has tables"),
        ({**MITCHELL_3, "table_kinds": {"9": "played"}}, 422, "not in the event"),
        ({**MITCHELL_3, "table_kinds": {"1": "cards"}}, 422, "table_kinds"),
        ({**MITCHELL_3, "table_kinds": "everything"}, 422, "table_kinds"),
    ]
    for body, status, words in bad:
        r = d.post("/api/event", json=body)
        assert r.status_code == status and words in r.json()["detail"], (body, r.text)
    assert ok(server.client().post("/api/event", json=MITCHELL_3), 401)
    with server.seat_client("1", "N") as seat:
        assert ok(seat.post("/api/event", json=MITCHELL_3), 403)
    assert ok(d.get("/api/event"))["event"]["name"] == "Tuesday pairs"        # nothing changed

    # no board played yet: a new event replaces it freely; once a board is played only with replace
    two = {"name": "Two sections", "scoring": "BUTLER", "sections": [
        {"id": "A", "movement": {"kind": "mitchell", "tables": 4, "boards_per_round": 2, "even": "relay"}},
        {"id": "B", "movement": {"kind": "howell", "pairs": 6, "boards_per_round": 2}}]}
    out = ok(d.post("/api/event", json=two))
    assert out["tables"] == ["A1", "A2", "A3", "A4", "B1", "B2", "B3"]
    ok(d.post("/api/event", json={**MITCHELL_3, "table_kinds": {"2": "played"}}))
    play(d, "1", 1)
    r = d.post("/api/event", json=two)
    assert r.status_code == 409 and "replace" in r.json()["detail"]
    ok(d.post("/api/event", json={**two, "replace": True}))
    ev = ok(d.get("/api/event"))
    assert ev["event"]["scoring"] == "BUTLER" and [s["id"] for s in ev["event"]["sections"]] == ["A", "B"]
    results = ok(d.get("/api/public/results"))
    assert not any(row for b in results["boards"] for tr in b.get("travellers", []) for row in tr["rows"])


# ---------------------------------------------------------------------------------------------- rounds, clock
def test_advance_the_clock_and_late_tables(server: ServerProcess, director: httpx.Client) -> None:
    d = director
    assert ok(d.post("/api/event/advance", json={}), 404)
    ok(d.post("/api/event", json=MITCHELL_3))
    for body in ({"minutes": 0}, {"minutes": "ten"}, {"minutes": 999}, {"minutes": 5, "restart": 1},
                 {"minutes": 5, "tables": "1"}):
        assert ok(d.post("/api/event/clock", json=body), 422), body
    assert ok(d.post("/api/event/clock", json={"minutes": 5, "tables": ["9"]}), 404)
    assert ok(server.client().post("/api/event/clock", json={"minutes": 5}), 401)

    assert all(p["started_at"] is None and p["remaining"] is None and not p["late"] for p in progress(d).values())
    ok(d.post("/api/event/clock", json={"minutes": 15}))
    p = progress(d)
    assert all(p[t]["minutes"] == 15 and 890 <= p[t]["remaining"] <= 900 and not p[t]["late"] for t in p)

    play(d, "1", 1)
    play(d, "1", 2)                          # table 1 has finished round 1; tables 2 and 3 have not
    ok(d.post("/api/event/clock", json={"minutes": 0.01, "restart": True}))
    time.sleep(1.0)
    p = progress(d)
    assert [t for t in p if p[t]["late"]] == ["2", "3"] and all(p[t]["remaining"] <= 0 for t in p)

    out = ok(d.post("/api/event/advance", json={"tables": ["1"]}))
    assert out["rounds"] == {"1": 2}
    p = progress(d)
    assert (p["1"]["round"], p["2"]["round"]) == (2, 1)
    assert p["1"]["started_at"] > p["2"]["started_at"]      # table 1's round 2 began with the advance
    assert ok(d.post("/api/event/advance", json={"tables": ["7"]}), 404)
    assert ok(d.post("/api/event/advance", json={"tables": "1"}), 422)
    assert ok(d.post("/api/event/advance", json={}))["rounds"] == {"1": 3, "2": 2, "3": 2}
    r = d.post("/api/event/advance", json={"tables": ["1"]})
    assert r.status_code == 409 and "last round" in r.json()["detail"]
    ok(d.post("/api/event/advance", json={}))
    assert ok(d.post("/api/event/advance", json={}), 409)
    assert {p["round"] for p in progress(d).values()} == {3}

    server.stop()
    server.start()
    with server.client(server.token) as d2:
        p = progress(d2)
        assert {q["round"] for q in p.values()} == {3} and {q["minutes"] for q in p.values()} == {0.01}


# ---------------------------------------------------------------------------------------------- guidance
def expected_guidance(mv: Movement, table: int, rnd: int) -> dict[str, Any]:
    """What the movement itself says: where each pair at ``table`` in ``rnd`` sits in round ``rnd + 1``, and
    which tables have this table's boards then (the lowest, and the other when two share them), or whether they
    wait on the bye stand for a later round; and which tables share them in ``rnd`` itself."""
    here = mv.at(table, rnd)
    last = rnd == mv.rounds[-1]
    pairs = []
    for direction, pair in (("NS", here.ns), ("EW", here.ew)):
        if pair is None:
            continue
        nxt = None if last else next(s for s in mv.sittings if s.round == rnd + 1 and pair in (s.ns, s.ew))
        plays = nxt is not None and nxt.ns is not None and nxt.ew is not None
        pairs.append({"direction": direction, "pair": pair, "label": mv.label(pair),
                      "next_table": str(nxt.table) if plays and nxt else None,
                      "next_direction": ("NS" if nxt.ns == pair else "EW") if plays and nxt else None})
    dest = [] if last else [s.table for s in mv.sittings if s.round == rnd + 1 and set(s.boards) == set(here.boards)]
    boards: dict[str, Any] = {"numbers": list(here.boards), "next_table": str(min(dest)) if dest else None,
                              "shared_with": [str(t) for t in sorted(dest)[1:]],
                              # a relay: the other tables that play the same boards in this very round
                              "shared_now": [str(s.table) for s in mv.sittings if s.round == rnd and s.table != table
                                             and set(s.boards) == set(here.boards) and not s.sit_out]}
    if not last and not dest:       # waiting on the bye stand (played in a later round) or never played again
        boards["bye_stand"] = any(s.round > rnd + 1 and set(s.boards) == set(here.boards) for s in mv.sittings)
    return {"table": str(table), "section": "A", "round": rnd, "last_round": last, "pairs": pairs,
            "boards": boards}


@pytest.mark.parametrize("movement, expected", [
    ({"kind": "mitchell", "tables": 5, "boards_per_round": 3}, mitchell(5, boards_per_round=3)),
    ({"kind": "mitchell", "tables": 4, "boards_per_round": 2, "even": "relay"},
     mitchell(4, boards_per_round=2, even="relay")),
    ({"kind": "mitchell", "tables": 6, "boards_per_round": 2}, mitchell(6, boards_per_round=2)),
    ({"kind": "howell", "pairs": 7, "boards_per_round": 2}, howell(7, 2)),
], ids=["mitchell-5-odd", "mitchell-4-relay", "mitchell-6-skip", "howell-7"])
def test_guidance_equals_the_movement_for_every_table_and_round(server: ServerProcess, director: httpx.Client,
                                                                movement: dict[str, Any],
                                                                expected: Movement) -> None:
    d = director
    ok(d.post("/api/event", json={"name": "Guidance", "movement": movement}))
    for rnd in expected.rounds:
        every = ok(d.get("/api/event/guidance/all", params={"round": rnd}))
        assert every == [expected_guidance(expected, t, rnd) for t in expected.tables], rnd
        for t in expected.tables:
            assert ok(d.get("/api/event/guidance", params={"table": str(t), "round": rnd})) == every[t - 1]
        # the pairs' next places are the places of round rnd + 1: every pair that plays is sent to one seat
        if rnd != expected.rounds[-1]:
            sent = {(p["next_table"], p["next_direction"]) for g in every for p in g["pairs"] if p["next_table"]}
            playing = [s for s in expected.sittings if s.round == rnd + 1 and not s.sit_out]
            assert sent == {(str(s.table), x) for s in playing for x in ("NS", "EW")}
    # without a round: the table's current round, also as the table's own seat sees it; not another table's
    ok(d.post("/api/event/round", json={"round": 2}))
    assert ok(d.get("/api/event/guidance", params={"table": "1"}))["round"] == 2
    with server.seat_client("1", "E") as seat:
        assert ok(seat.get("/api/event/guidance", params={"table": "1"})) == expected_guidance(expected, 1, 2)
        assert ok(seat.get("/api/event/guidance", params={"table": "2"}), 403)
        assert ok(seat.get("/api/event/guidance/all"), 403)
    assert ok(server.client().get("/api/event/guidance", params={"table": "1"}), 401)
    assert ok(d.get("/api/event/guidance", params={"table": "1", "round": 99}), 422)
    assert ok(d.get("/api/event/guidance", params={"table": "99"}), 404)
    assert ok(d.get("/api/event/guidance", params={"table": "1 or 1"}), 422)


# ---------------------------------------------------------------------------------------------- players
MEMBERS = "\ufeffMember No;Name;Grade\n1234;Wang Li;A\n2001;陳大文;B\n2002;  林 小明 ;B\n3003;Ann Able;C\n"


def test_member_list_names_per_pair_and_the_results(server: ServerProcess, director: httpx.Client) -> None:
    d = director
    bad = [("", "empty"), ("member,name\n", "no members"), ("member,name\n1,A\n1,B\n", "line 3"),
           ("member,name\n1,A\n2\n", "line 3"), ("member,name\n1,A\nbad number!,B\n", "line 3"),
           ("id\tname\n7\t\n", "line 2"), ("colour,size\nred,3\n", "line 1"), ("x" * 600_000, "longer")]
    for text, words in bad:
        r = d.post("/api/players", json={"csv": text})
        assert r.status_code == 422 and words in r.json()["detail"], (text[:40], r.text)
    assert ok(d.post("/api/players", json={"csv": 5}), 422)
    assert ok(server.client().post("/api/players", json={"csv": MEMBERS}), 401)
    assert ok(d.post("/api/players", json={"csv": "1,Ann\n2,Bob\n"}))["members"] == 2       # two plain columns
    assert ok(d.post("/api/players", json={"csv": "number,name\r\n5,Cy\r\n"}))["members"] == 1
    assert ok(d.post("/api/players", json={"csv": MEMBERS}))["members"] == 4
    assert ok(d.get("/api/players"))["members"][1] == {"number": "2001", "name": "陳大文"}

    assert ok(d.get("/api/tables/1/players"), 404)               # no event yet
    ok(d.post("/api/event", json=MITCHELL_3))
    assert ok(d.get("/api/tables/1/players")) == {"round": 1, "version": 0, "NS": {"pair": 1, "names": []},
                                                   "EW": {"pair": 4, "names": []}, "may_enter": ["NS", "EW"]}
    with server.seat_client("1", "N") as north, server.seat_client("1", "E") as east, \
            server.seat_client("2", "N") as other:
        out = ok(north.post("/api/tables/1/players", json={"N": "1234", "S": "2001"}))
        assert (out["pair"], out["names"]) == (1, ["Wang Li (1234)", "陳大文 (2001)"])
        assert ok(north.post("/api/tables/1/players", json={"E": "1234"}), 403)
        assert ok(other.post("/api/tables/1/players", json={"N": "1234"}), 403)
        assert ok(other.get("/api/tables/1/players"), 403)
        assert ok(east.post("/api/tables/1/players", json={"E": "2002", "W": "Zoe Free"}))["names"] == \
            ["林 小明 (2002)", "Zoe Free"]
        for body in ({"X": "1"}, {}, {"E": ""}, {"E": "x" * 200}, {"E": ["1"]}):
            assert ok(east.post("/api/tables/1/players", json=body), 422), body
        assert ok(east.get("/api/tables/1/players"))["EW"] == {"pair": 4, "names": ["林 小明 (2002)", "Zoe Free"]}
        # each save makes the names later (a page keeps the later of its stream's message and its own request)
        assert ok(east.get("/api/tables/1/players"))["version"] == 2
    assert ok(d.post("/api/tables/2/players", json={"N": "3003", "E": "x"}), 422)   # one pair at a time
    ok(d.post("/api/tables/2/players", json={"N": "3003", "S": "Bo Bo"}))

    play(d, "1", 1)
    play(d, "2", 3, "3NT", "S", 9)
    view = ok(d.get("/api/public/results"))
    rows = {r["table"]: r for b in view["boards"] for tr in b.get("travellers", []) for r in tr["rows"]}
    assert rows["1"]["ns_names"] == "Wang Li (1234) - 陳大文 (2001)"
    assert rows["1"]["ew_names"] == "林 小明 (2002) - Zoe Free"
    assert rows["2"]["ns_names"] == "Ann Able (3003) - Bo Bo"
    ranked = {r["entrant"]: r["names"] for sec in view["rankings"] for r in sec["rows"]}
    assert ranked[1] == "Wang Li (1234) - 陳大文 (2001)"

    # round 2: the names stay the pair's for the session: the stationary NS pair's at its table, the EW pair's at
    # the table it moved to; a substitute changes one name (the other stays)
    ok(d.post("/api/event/advance", json={}))
    assert ok(d.get("/api/tables/1/players"))["NS"] == {"pair": 1, "names": ["Wang Li (1234)", "陳大文 (2001)"]}
    moved = next(t for t in "123" if ok(d.get(f"/api/tables/{t}/players"))["EW"]["pair"] == 4)
    assert moved != "1" and ok(d.get(f"/api/tables/{moved}/players"))["EW"]["names"] == ["林 小明 (2002)", "Zoe Free"]
    ok(d.post("/api/tables/1/players", json={"S": "Sub Stitute"}))

    server.stop()
    server.start()
    with server.client(server.token) as d2:
        assert ok(d2.get("/api/players"))["members"][0] == {"number": "1234", "name": "Wang Li"}
        assert ok(d2.get("/api/tables/1/players"))["NS"]["names"] == ["Wang Li (1234)", "Sub Stitute"]
        view = ok(d2.get("/api/public/results"))
        ranked = {r["entrant"]: r["names"] for sec in view["rankings"] for r in sec["rows"]}
        assert ranked[1] == "Wang Li (1234) - Sub Stitute" and ranked[4] == "林 小明 (2002) - Zoe Free"


def test_the_journalled_event_wins_over_the_settings(tmp_path: Path) -> None:
    with ServiceThread(tmp_path / "settings", {"event": SETTINGS_EVENT, "tables": [{"id": "1"}]}) as srv:
        with srv.client(srv.token) as d:
            assert ok(d.get("/api/event"))["event"]["name"] == "From the settings"
            ok(d.post("/api/event", json=MITCHELL_3))
        srv.stop()
        srv.start()
        with srv.client(srv.token) as d:
            ev = ok(d.get("/api/event"))
            assert ev["event"]["name"] == "Tuesday pairs" and len(ev["progress"]) == 3
            # the seat tokens follow the new event's rounds
            with srv.seat_client("3", "S") as seat:
                assert ok(seat.get("/api/event/guidance", params={"table": "3"}))["round"] == 1
                ok(d.post("/api/event/advance", json={"tables": ["3"]}))
                assert ok(seat.get("/api/event/guidance", params={"table": "3"}))["round"] == 2


def _rows(d: Any) -> int:
    return sum(len(d.get(f"/api/tables/{t['table']}/events").json()) for t in d.get("/api/tables").json())


def test_an_event_set_up_by_the_director_sends_the_demonstrations_robots_away(tmp_path: Path) -> None:
    """`make run` starts simulated tables; the director's own event takes the tables from them, also after a
    restart (the robots would otherwise play at the players' tables, which share their numbers)."""
    srv = ServiceThread(tmp_path, {"regulation": {"spectators": {"delay_s": 0}}}, simulate=2,
                        extra_args=("--pace", "0.002", "--irregularity-rate", "0"))
    with srv, srv.client(srv.token) as d:
        deadline = time.monotonic() + 30
        while _rows(d) < 20 and time.monotonic() < deadline:      # the robots are playing
            time.sleep(0.1)
        assert _rows(d) >= 20
        r = d.post("/api/event", json={"name": "Tuesday pairs", "scoring": "MP", "replace": True,
                                        "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2}})
        assert r.status_code == 200, r.text
        assert r.json()["simulation_stopped"] is True
        before = _rows(d)
        time.sleep(1.0)
        assert _rows(d) == before, "no robot plays after the director's event"
    with srv, srv.client(srv.token) as d:                       # restarted with --simulate 2 again
        before = _rows(d)
        time.sleep(1.0)
        assert _rows(d) == before and d.get("/api/event").json()["event"]["name"] == "Tuesday pairs"
