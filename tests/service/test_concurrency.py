"""Club-wide journal rows under concurrency, over real HTTP: releases, round changes, revocations, sign-ins and
table events all at once. Every answer is 2xx or a 409 with a reason; the journal's sequences have no gap nor
duplicate; the next release succeeds, and again after a restart."""
from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path

import httpx
from service_harness import ServerProcess, ServiceThread

from service.sim.dealing import deal_for

CONFIG = {"regulation": {"spectators": {"delay_s": 0}, "results_release": "director"},
          "tables": [{"id": "1"}, {"id": "2"}, {"id": "3"}],
          "event": {"name": "Concurrent pairs", "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2}}}


def sequences(db: str) -> dict[str, list[int]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        out: dict[str, list[int]] = {}
        for tid, seq in con.execute("SELECT table_id, seq FROM journal ORDER BY table_id, seq"):
            out.setdefault(tid, []).append(seq)
        return out
    finally:
        con.close()


async def burst(srv: ServerProcess, n: int, seed: int) -> list[tuple[str, int, str]]:
    rng = random.Random(seed)
    headers = {"Authorization": f"Bearer {srv.token}"}
    async with httpx.AsyncClient(base_url=srv.base, headers=headers, timeout=60) as d:
        links = {t: (await d.get(f"/api/tables/{t}/tokens")).json() for t in ("1", "2", "3")}

        def request(i: int) -> tuple[str, str, dict[str, object] | None]:
            kind = i % 5
            if kind in (0, 1):
                return "POST", f"/api/boards/{rng.randint(1, 6)}/release?force=true", None
            if kind == 2:
                tables = rng.sample(["1", "2", "3"], 2)
                return "POST", "/api/event/round", {"round": rng.randint(1, 3), "tables": tables}
            if kind == 3:
                t = rng.choice("123")
                return "POST", f"/api/tables/{t}/events", {"type": "call", "seat": rng.choice("NESW"), "call": "Pass"}
            t, seat = rng.choice("123"), rng.choice("NESW")
            if rng.random() < 0.5:
                return "POST", f"/api/tables/{t}/revoke", None
            return "POST", "/api/signin", {"code": str(links[t][seat]["link"]).split("#signin=")[1]}

        async def one(i: int) -> tuple[str, int, str]:
            method, path, body = request(i)
            r = await d.request(method, path, json=body)
            return path, r.status_code, r.text

        return list(await asyncio.gather(*(one(i) for i in range(n))))


def test_concurrent_releases_rounds_and_events(tmp_path: Path) -> None:
    srv = ServiceThread(tmp_path, CONFIG)
    with srv, srv.client(srv.token) as d:
        for t, board in (("1", 1), ("2", 3), ("3", 5)):
            assert d.post(f"/api/tables/{t}/events", json={"type": "board", "board": board,
                                                         "deal": deal_for(3, board).to_pbn()}).status_code == 200
        answers = asyncio.run(burst(srv, 50, 1)) + asyncio.run(burst(srv, 60, 2))
        bad = [(p, s, t[:200]) for p, s, t in answers if not (200 <= s < 300 or s == 409 or
                                                               (p == "/api/signin" and s == 401))]
        assert not bad, bad
        for p, s, t in answers:
            if s == 409:
                assert d.get("/api/health").status_code == 200 and t and "detail" in t, (p, t)
        assert sum(1 for p, s, _ in answers if "release" in p and s == 200) == sum(1 for p, _, _ in answers
                                                                                 if "release" in p)
        seqs = sequences(srv.database)
        for table, numbers in seqs.items():
            assert numbers == list(range(1, len(numbers) + 1)), f"{table}: a gap or a duplicate in {numbers}"
        club = len(seqs["_club"])
        assert club >= 40, club
        r = d.post("/api/boards/6/release?force=true")
        assert r.status_code == 200 and r.json()["seq"] == club + 1
        assert d.post("/api/event/round", json={"round": 2}).status_code == 200
    with srv, srv.client(srv.token) as d:                 # the same journal after a restart
        r = d.post("/api/boards/5/release?force=true")
        assert r.status_code == 200 and r.json()["seq"] == club + 3, r.text
        assert d.post("/api/event/round", json={"round": 3}).json()["seq"] == club + 4
    numbers = sequences(srv.database)["_club"]
    assert numbers == list(range(1, club + 5))
