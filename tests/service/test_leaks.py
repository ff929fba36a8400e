"""No viewer receives any part of a board its pair (anonymous: any table) still has to play, over real HTTP and
WebSocket while the simulated club robots play a whole Mitchell and a whole Howell (``--simulate``).

Every viewer class is watched while the event runs: the anonymous public (``/ws/club`` and every public REST
route), the director, and each pair through the seat credential of the table and seat it holds in each round
(``credential``). Every snapshot is checked against the movement by ``leak_check.py``; table 1 of the Mitchell
is marked a vugraph table by the director, and its delayed live view is the one exception. The checker is
shown to catch a planted leak (the director's snapshots relabelled as the public's).
"""
from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import websockets
from leak_check import ANONYMOUS, DIRECTOR, Checker, Snapshot, Truth

from results.movement import howell, mitchell
from service.testing import ServerProcess

TABLES = ("1", "2", "3")
SEATS = "NESW"
TIMEOUT_S = 150.0


def config(movement: dict[str, Any], boards: int) -> dict[str, Any]:
    return {"regulation": {"spectators": {"delay_s": 0.3, "hands": "delayed"}, "results_release": "all_tables"},
            "event": {"name": "Leak test", "scoring": "MP", "movement": movement},
            "simulation": {"tables": len(TABLES), "pace_s": 0.012, "irregularity_rate": 0.3, "ruling_wait_s": 0.05,
                           "seed": 11, "boards": boards},
            "synchronous": "NORMAL"}


def credential(director: httpx.Client, table: str, seat: str, rnd: int, cache: dict[tuple[str, str, int], str]) -> str:
    """The seat credential the pair sitting at ``table``/``seat`` holds in round ``rnd`` (today a seat token
    does not depend on the round; the one place to change when it does)."""
    key = (table, seat, rnd)
    if key not in cache:
        cache[key] = director.get(f"/api/tables/{table}/tokens").json()[seat]["token"]
    return cache[key]


class Watch:
    """Runs every viewer against the server until the event is over; collects snapshots and the truth."""

    def __init__(self, srv: ServerProcess, checker: Checker, vugraph: tuple[str, ...]) -> None:
        self.srv = srv
        self.checker = checker
        self.vugraph = vugraph
        self.snaps: list[Snapshot] = []
        self.tokens: dict[tuple[str, str, int], str] = {}
        self.rounds: dict[str, int] = {t: 1 for t in TABLES}
        self.done = asyncio.Event()
        self.director = srv.client(srv.token)

    # ------------------------------------------------------------------ the truth
    async def truth(self, c: httpx.AsyncClient) -> None:
        deadline = time.monotonic() + TIMEOUT_S
        final = 0
        while final < 3 and time.monotonic() < deadline:
            start = time.time()
            ev = (await c.get("/api/event")).json()
            completed = {}
            for t in TABLES:
                entries = (await c.get(f"/api/tables/{t}/boards")).json()
                completed[t] = frozenset(e["board"] for e in entries
                                         if not e["current"] or (e.get("result") or {}).get("complete"))
            rounds = {p["table"]: p["round"] for p in ev["progress"]}
            self.checker.truths.append(Truth(start, time.time(), rounds, completed))
            self.rounds = rounds
            if all(p["finished"] for p in ev["progress"]):
                self.done.set()
                final += 1
                await asyncio.sleep(0.5)               # the delayed copies catch up; a few more truths after
            await asyncio.sleep(0.02)
        self.done.set()

    # ------------------------------------------------------------------ WebSocket streams
    async def stream(self, url: str, viewer: str, table: str | None = None, rnd: int | None = None) -> None:
        """Collect a stream's states until the event is over (a seat's: until its table's round changes)."""
        try:
            async with websockets.connect(url, open_timeout=10, max_size=None) as ws:
                while not self.done.is_set():
                    try:
                        raw = await asyncio.wait_for(ws.recv(), 0.5)
                    except TimeoutError:
                        continue
                    m = json.loads(raw)
                    if m["type"] == "state":
                        self.snaps.append(Snapshot(viewer, "state", m["sent"] - 0.5, m["sent"], m["state"],
                                                   m["table"]))
                    if table is not None and self.rounds.get(table) != rnd:
                        return                                     # a new round: reconnect with its credential
        except websockets.exceptions.ConnectionClosed:
            pass

    async def seat_stream(self, table: str, seat: str) -> None:
        while not self.done.is_set():
            rnd = self.rounds.get(table, 1)
            tok = await asyncio.to_thread(credential, self.director, table, seat, rnd, self.tokens)
            await self.stream(f"{self.srv.ws_base}/ws/tables/{table}?token={tok}", f"seat:{table}:{seat}", table, rnd)

    # ------------------------------------------------------------------ REST
    async def get(self, c: httpx.AsyncClient, viewer: str, path: str, source: str, table: str | None = None) -> Any:
        lo = time.time()
        r = await c.get(path)
        hi = time.time()
        if r.status_code != 200:
            assert r.status_code in (401, 403, 404), (viewer, path, r.status_code, r.text)
            return None
        body = r.json()
        self.snaps.append(Snapshot(viewer, source, lo, hi, body, table))
        return body

    async def rest(self, viewer: str, table: str | None, seat: str | None) -> None:
        async with httpx.AsyncClient(base_url=self.srv.base, timeout=10) as c:
            while not self.done.is_set():
                if seat is not None and table is not None:
                    tok = await asyncio.to_thread(credential, self.director, table, seat,
                                                  self.rounds.get(table, 1), self.tokens)
                    c.headers["Authorization"] = f"Bearer {tok}"
                    tables: tuple[str, ...] = (table,)
                else:
                    await self.get(c, viewer, "/api/tables", "tables")
                    await self.get(c, viewer, "/api/event", "event")
                    tables = TABLES
                for t in tables:
                    await self.get(c, viewer, f"/api/tables/{t}", "state", t)
                    listed = await self.get(c, viewer, f"/api/tables/{t}/boards", "boards") or []
                    for e in listed:
                        await self.get(c, viewer, f"/api/tables/{t}/boards/{e['board']}", "board")
                await self.get(c, viewer, "/api/results", "results")
                await self.get(c, viewer, "/api/public/results", "public_results")

    async def run(self) -> None:
        mark = time.time()
        for t in self.vugraph:
            assert self.director.post(f"/api/tables/{t}/vugraph", json={"on": True}).status_code == 200
            self.checker.vugraph[t] = mark
        async with httpx.AsyncClient(base_url=self.srv.base, timeout=10,
                                     headers={"Authorization": f"Bearer {self.srv.token}"}) as d:
            jobs = [self.truth(d),
                    self.stream(f"{self.srv.ws_base}/ws/club", ANONYMOUS, None),
                    self.stream(f"{self.srv.ws_base}/ws/club?token={self.srv.token}", DIRECTOR, None),
                    self.rest(ANONYMOUS, None, None)]
            jobs += [self.seat_stream(t, s) for t in TABLES for s in SEATS]
            jobs += [self.rest(f"seat:{t}:{s}", t, s) for t in TABLES for s in SEATS]
            await asyncio.gather(*jobs)
        self.director.close()


def watch(tmp_path: Path, movement: dict[str, Any], mv: Any, vugraph: tuple[str, ...]) -> tuple[Checker, Watch]:
    checker = Checker(mv)
    boards_per_table = len({b for s in mv.sittings if s.table == 1 for b in s.boards})
    with ServerProcess(tmp_path / "srv", config(movement, boards_per_table)) as srv:
        w = Watch(srv, checker, vugraph)
        asyncio.run(w.run())
    return checker, w


def verdict(name: str, checker: Checker, w: Watch) -> None:
    leaks = [leak for s in w.snaps for leak in checker.check(s)]
    by_viewer: dict[str, int] = {}
    for s in w.snaps:
        kind = s.viewer if not s.viewer.startswith("seat:") else "seat"
        by_viewer[kind] = by_viewer.get(kind, 0) + 1
    kinds: dict[str, int] = {}
    for lk in leaks:
        k = f"{lk.snapshot.viewer.split(':')[0]} {lk.why.split(' of ')[0]}"
        kinds[k] = kinds.get(k, 0) + 1
    print(f"\n{name}: {checker.checked} snapshots checked of {len(w.snaps)} received {by_viewer}; "
          f"{checker.withheld_seen} withheld live views; {checker.vugraph_shown} vugraph views of boards in play "
          f"elsewhere; {len(leaks)} leaks {kinds}")
    assert not leaks, [(lk.snapshot.viewer, lk.snapshot.source, lk.board, lk.why) for lk in leaks[:10]]
    assert checker.checked >= 1000, "too few snapshots to mean anything"
    assert checker.withheld_seen > 0, "no viewer ever met a board it may not see: the check proved nothing"
    assert w.checker.truths and all(p for p in w.checker.truths[-1].completed.values())
    # the planted leak: the director's views, as if the public had received them, must be caught
    planted = Checker(checker.movement, truths=checker.truths)
    caught = [leak for s in w.snaps if s.viewer == DIRECTOR
              for leak in planted.check(Snapshot(ANONYMOUS, s.source, s.lo, s.hi, s.body, s.table))]
    assert caught, "the checker must catch the director's views shown to the public"


def test_no_leak_over_a_simulated_mitchell_with_a_vugraph_table(tmp_path: Path) -> None:
    movement = {"kind": "mitchell", "tables": 3, "boards_per_round": 2}
    checker, w = watch(tmp_path, movement, mitchell(3, boards_per_round=2), vugraph=("1",))
    verdict("Mitchell", checker, w)
    assert checker.vugraph_shown > 0, "the vugraph table's live play reaches the public"


def test_no_leak_over_a_simulated_howell(tmp_path: Path) -> None:
    movement = {"kind": "howell", "pairs": 6, "boards_per_round": 1}
    checker, w = watch(tmp_path, movement, howell(6, 1), vugraph=())
    verdict("Howell", checker, w)
    assert checker.vugraph_shown == 0
