"""The cost of the visibility rule per board event, in process: a Mitchell of N tables (a few rounds), every
table on its first board, then the time of one board's completion (the last pass) and of one board's start,
with the club's release refresh and the movement's rule as the service runs them (no HTTP, no subscribers).

    PYTHONPATH=. python bench/visibility_cost.py --tables 500 --rounds 3
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from service.config.loading import load_settings
from service.event.board_rule import ClubBoardRule
from service.event.tournament import LiveTournament
from service.live.club import Club
from service.live.hub import Hub
from service.live.visibility import SPECTATOR, Viewer
from service.sim.dealing import deal_for
from service.store.journal import CLUB, Journal
from table.board import dealer_for

SEATS = "NESW"


async def run(tables: int, rounds: int, samples: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        event = {"name": "Cost", "scoring": "MP",
                 "movement": {"kind": "mitchell", "tables": tables, "boards_per_round": 2, "rounds": rounds}}
        settings = load_settings(None, database=str(Path(tmp) / "j.db"), event=event,
                                 tables=[{"id": str(t)} for t in range(1, tables + 1)],
                                 regulation={"spectators": {"delay_s": 0}}, synchronous="NORMAL")
        journal = Journal(settings.database)
        hub = Hub()
        club = Club(settings, journal, hub)
        club.load()
        assert settings.event is not None
        ev = LiveTournament(settings.event, club)
        ev.attach(journal.rows(CLUB))
        rule = hub.rule = ClubBoardRule(club, ev).load(journal.rows(CLUB))
        journal.start()
        club.start()
        try:
            first = {tid: ev.expected_boards(tid)[0] for tid in ev.where}
            t0 = time.perf_counter()
            for tid, b in first.items():
                await club.submit(tid, {"type": "board", "board": b, "deal": deal_for(1, b).to_pbn()}, "director")
            starts = time.perf_counter() - t0
            completion: list[float] = []
            start: list[float] = []
            views: list[float] = []
            for tid in list(first)[:samples]:
                b = first[tid]
                d = SEATS.index(str(dealer_for(b)))
                for i in range(3):
                    await club.submit(tid, {"type": "call", "seat": SEATS[(d + i) % 4], "call": "Pass"}, "director")
                t = time.perf_counter()
                await club.submit(tid, {"type": "call", "seat": SEATS[(d + 3) % 4], "call": "Pass"}, "director")
                completion.append(time.perf_counter() - t)
                nb = ev.expected_boards(tid)[1]
                t = time.perf_counter()
                await club.submit(tid, {"type": "board", "board": nb, "deal": deal_for(1, nb).to_pbn()}, "director")
                start.append(time.perf_counter() - t)
                t = time.perf_counter()
                rule.hidden_at(tid, Viewer("seat", table=tid, seat="E"))
                rule.hidden_at(tid, SPECTATOR)
                views.append(time.perf_counter() - t)
            ms = lambda xs: f"median {statistics.median(xs) * 1e3:.2f} ms, max {max(xs) * 1e3:.2f} ms"
            print(f"{tables} tables, {rounds} rounds: first boards started in {starts:.1f} s "
                  f"({starts / tables * 1e3:.2f} ms each)")
            print(f"  one board's completion (the last pass): {ms(completion)}")
            print(f"  one board's start:                      {ms(start)}")
            print(f"  a seat's and a spectator's live rule:   {ms(views)}")
        finally:
            journal.close()
            club.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--samples", type=int, default=20)
    a = ap.parse_args()
    asyncio.run(run(a.tables, a.rounds, a.samples))


if __name__ == "__main__":
    main()
