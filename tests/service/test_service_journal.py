"""The journal: WAL, synchronous FULL, who/what/when per row, and tables rebuilt on restart."""
from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from service.dealing import deal_for
from service.journal import Journal
from service.testing import ServerProcess


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
    srv = ServerProcess(tmp_path, {"tables": [{"id": "X"}], "regulation": {"spectators": {"delay_s": 0}}},
                        simulate=2, extra_args=("--pace", "0.01", "--irregularity-rate", "1", "--ruling-wait", "0.05"))
    with srv:
        with srv.client(srv.token) as d:
            d.post("/api/tables/X/events", json={"type": "board", "board": 1, "deal": deal_for(1, 1).to_pbn()})
            d.post("/api/tables/X/events", json={"type": "call", "seat": "N", "call": "1S"})
            d.post("/api/tables/X/events", json={"type": "call", "seat": "E", "call": "1H"})   # insufficient
            time.sleep(2.0)
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
    srv = ServerProcess(tmp_path, {"tables": [{"id": "J"}], "regulation": {"spectators": {"delay_s": 0}}})
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
