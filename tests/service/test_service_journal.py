"""The journal: WAL, synchronous FULL, who/what/when per row, tables rebuilt on restart; a row it cannot store
fails alone, and a writer that cannot go on fails every write at once and tells the director."""
from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn
import websockets
from service_harness import ServiceThread, free_port

from service.app import create_app
from service.config.settings import Settings
from service.sim.dealing import deal_for
from service.store.journal import CLUB, NEXT, Journal, Row, Unstorable, utcnow
from service.web.http_errors import status_of


def _states(c: httpx.Client) -> dict[str, Any]:
    out = {}
    for t in c.get("/api/tables").json():
        s = c.get(f"/api/tables/{t['table']}").json()
        s.pop("devices", None)
        out[t["table"]] = s
    return out


def test_journal_pragmas(tmp_path: Path) -> None:
    j = Journal(str(tmp_path / "j.db"))
    assert j.pragma("journal_mode") == "wal"
    assert j.pragma("synchronous") == 2          # FULL
    j.close()
    j = Journal(str(tmp_path / "k.db"), "NORMAL")
    assert j.pragma("synchronous") == 1
    j.close()


def test_restart_rebuilds_every_table_and_continues(tmp_path: Path) -> None:
    srv = ServiceThread(tmp_path, {"tables": [{"id": "X"}], "regulation": {"spectators": {"delay_s": 0}}},
                        simulate=2, extra_args=("--pace", "0.01", "--irregularity-rate", "1", "--ruling-wait", "0.05"))
    with srv:
        with srv.client(srv.token) as d:
            d.post("/api/tables/X/events", json={"type": "board", "board": 1, "deal": deal_for(1, 1).to_pbn()})
            d.post("/api/tables/X/events", json={"type": "call", "seat": "N", "call": "1S"})
            d.post("/api/tables/X/events", json={"type": "call", "seat": "E", "call": "1H"})   # insufficient
            # the robots play on table 1 meanwhile: until more than 20 rows (2 s on a quiet machine; not a fixed
            # sleep, which a loaded one filled with 18)
            deadline = time.monotonic() + 60
            while d.get("/api/tables/1").json()["seq"] <= 20:
                assert time.monotonic() < deadline, "the simulated table did not play on"
                time.sleep(0.2)
    # stopped: read the journal file directly
    db = sqlite3.connect(srv.database)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    rows = db.execute("SELECT table_id, seq, at, actor, kind, body FROM journal WHERE table_id='X' "
                      "ORDER BY seq").fetchall()
    assert [r[3] for r in rows] == ["director"] * 3 and all(r[2] for r in rows)
    assert '"call":"1H"' in rows[2][5]
    sim_rows = db.execute("SELECT COUNT(*), COUNT(DISTINCT actor) FROM journal WHERE table_id='1'").fetchone()
    assert sim_rows[0] > 20 and sim_rows[1] >= 4             # dealer and robots
    db.close()
    srv.simulate = 0                                         # restart without the robots: nothing moves
    with srv, srv.client(srv.token) as d:
        first = _states(d)
        assert first["X"]["irregularities"][0]["code"] == "INSUFFICIENT_BID"
        assert first["X"]["phase"] == "awaiting_ruling"
        assert first["1"]["seq"] > 20
        # the table continues where it was: the insufficient bid is still open for a ruling
        r = d.post("/api/tables/X/rulings", json={"code": "INSUFFICIENT_BID", "option": "refuse"})
        assert r.status_code == 200, r.text
    with srv, srv.client(srv.token) as d:
        again = _states(d)
        assert again["1"] == first["1"] and again["2"] == first["2"]
        assert again["X"]["seq"] == first["X"]["seq"] + 1
    srv.simulate = 2                                         # and the simulated tables play on
    with srv, srv.client(srv.token) as d:
        time.sleep(1.5)
        moved = _states(d)
        assert moved["1"]["seq"] > first["1"]["seq"] and moved["2"]["seq"] > first["2"]["seq"]


def test_an_event_the_journal_cannot_store_is_refused_and_never_seen(tmp_path: Path) -> None:
    """The engine holds an event while it awaits the disk. If the disk never takes it (here another process
    holds the database's write lock past the journal's retries) the poster gets 503, and nobody saw the event
    meanwhile: a view, a board record or a WebSocket opened during the wait shows the table as journalled."""
    srv = ServiceThread(tmp_path, {"tables": [{"id": "J"}], "regulation": {"spectators": {"delay_s": 0}}})
    with srv, srv.client(srv.token) as d:
        deal = deal_for(7, 1)
        r = d.post("/api/tables/J/events", json={"type": "board", "board": 1, "deal": deal.to_pbn()})
        assert r.status_code == 200
        dealer = d.get("/api/tables/J").json()["auction"]["dealer"]
        blocker = sqlite3.connect(srv.database, isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        answer: dict[str, Any] = {}

        def post_the_call() -> None:
            with srv.client(srv.token) as c:
                answer["r"] = c.post("/api/tables/J/events", json={"type": "call", "seat": dealer, "call": "1C"},
                                     timeout=60)

        poster = threading.Thread(target=post_the_call)
        poster.start()
        try:
            time.sleep(1.0)                      # the call is on the engine, its row waits for the lock
            assert poster.is_alive(), "the journal write is waiting"

            async def first_state() -> dict[str, Any]:
                async with websockets.connect(f"{srv.ws_base}/ws/tables/J?token={srv.token}", open_timeout=30) as ws:
                    state: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 60))["state"]
                    return state

            got: dict[str, Any] = {}
            def read_the_table() -> None:
                got["ws"] = asyncio.run(first_state())
                with srv.client(srv.token) as c:
                    got["rest"] = c.get("/api/tables/J").json()

            reader = threading.Thread(target=read_the_table)
            reader.start()
            poster.join(60)
            reader.join(60)
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert answer["r"].status_code == 503, answer["r"].text
        assert "journal" in answer["r"].json()["detail"]
        for view in (got["ws"], got["rest"], d.get("/api/tables/J").json()):
            assert view["auction"]["calls"] == [], view["auction"]
        # and the table carries on: the same call, now the disk is free, is taken and seen
        assert d.post("/api/tables/J/events", json={"type": "call", "seat": dealer, "call": "1C"}).status_code == 200
        assert [c["call"] for c in d.get("/api/tables/J").json()["auction"]["calls"]] == ["1C"]


def test_a_row_the_journal_cannot_store_fails_alone(tmp_path: Path) -> None:
    """Past the guard (a value built by the service itself), a row that is not Unicode text or not JSON fails
    with a 422-kind error before the write; the rows queued with it are written and the writer runs on."""
    journal = Journal(str(tmp_path / "j.db"))
    journal.start()

    def row(body: dict[str, Any], actor: str = "director") -> Row:
        return Row(CLUB, NEXT, utcnow(), actor, "test", body)

    async def scenario() -> list[BaseException | None]:
        futures = [journal.append(row({"n": 1})), journal.append(row({"name": "a\ud800"})),
                   journal.append(row({"n": 2}, actor="seat:\udfff")), journal.append(row({"x": {1, 2}})),
                   journal.append(row({"x": float("nan")})), journal.append(row({"n": 3}))]
        out = await asyncio.wait_for(asyncio.gather(*futures, return_exceptions=True), 10)
        await asyncio.wait_for(journal.append(row({"n": 4})), 10)          # and the writer goes on
        return list(out)

    try:
        results = asyncio.run(scenario())
    finally:
        journal.close()
    assert [r is None for r in results] == [True, False, False, False, False, True], results
    for err in results[1:5]:
        assert isinstance(err, Unstorable) and status_of(err) == 422, err
    assert journal.failure is None
    assert [r.body for r in Journal(str(tmp_path / "j.db")).rows()] == [{"n": 1}, {"n": 3}, {"n": 4}]


def test_a_writer_that_cannot_go_on_fails_every_write_and_tells_the_director(tmp_path: Path) -> None:
    """The writer's database connection breaks under it (closed here: no later write can be trusted). The
    write waiting for it and every later one fail at once with 503, ``/api/health`` and the director's stream
    say so, and the service still stops when asked."""
    settings = Settings.model_validate({"database": str(tmp_path / "j.db"), "director_token": "director-token-x",
                                        "tables": [{"id": "1"}], "regulation": {"spectators": {"delay_s": 0}}})
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    try:
        with httpx.Client(base_url=base, headers={"Authorization": "Bearer director-token-x"}, timeout=5) as d:
            assert d.post("/api/tables/1/events", json={"type": "board", "board": 1}).status_code == 200

            async def watch() -> dict[str, Any]:
                async with websockets.connect(f"ws://127.0.0.1:{port}/ws/club?token=director-token-x") as ws:
                    await asyncio.wait_for(ws.recv(), 5)                         # the table's state
                    svc = server.config.loaded_app.app                           # the app under its middleware
                    while not hasattr(svc, "state"):
                        svc = svc.app
                    svc.state.service.journal._db.close()                        # the fault
                    r = await asyncio.to_thread(d.post, "/api/tables/1/events",
                                                json={"type": "contract", "contract": "4S", "declarer": "N"})
                    assert r.status_code == 503 and "journal" in r.json()["detail"], r.text
                    while True:
                        m = json.loads(await asyncio.wait_for(ws.recv(), 5))
                        if m["type"] == "journal_failed":
                            return dict(m)

            alert = asyncio.run(watch())
            assert "stopped" in alert["detail"]
            started = time.monotonic()
            r = d.post("/api/tables/1/director")
            assert r.status_code == 503 and time.monotonic() - started < 2, r.text
            health = d.get("/api/health").json()
            assert health["status"] == "journal stopped" and health["journal_failure"], health
            assert d.get("/api/tables/1").json()["seq"] == 1                     # the refused event is not seen
    finally:
        server.should_exit = True
        thread.join(10)
    assert not thread.is_alive(), "the service did not stop"
