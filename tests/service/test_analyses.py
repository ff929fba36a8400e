"""The double-dummy analysis ahead of time (``service/event/analyses.py``): a set is analysed in the worker thread
while the event loop goes on; nothing is ready until the loop hears of it, each deal is computed once, the
figures equal the solver's own, a deal the solver refuses is remembered as None, and listeners hear of each."""
from __future__ import annotations

import asyncio

from service.event.analyses import Analyses, DealKey, board_of, figures
from table.dealgen import HashDRBG, random_deal
from table.handrecords.sheets import analyse

KEYS: list[DealKey] = [(n, random_deal(HashDRBG(f"analyses:{n}")).to_pbn(), "N", "None") for n in (1, 2, 3)]


def test_a_set_is_analysed_off_the_loop_once() -> None:
    async def run() -> None:
        analyses = Analyses()
        heard: list[int] = []
        analyses.on_ready.append(lambda: heard.append(analyses.count))
        analyses.warm(KEYS)
        analyses.warm(KEYS)                            # under way already: not queued twice
        assert not any(analyses.ready(k) for k in KEYS) and analyses.get(KEYS[0]) is None
        for _ in range(600):
            if all(analyses.ready(k) for k in KEYS):
                break
            await asyncio.sleep(0.05)
        assert heard == [1, 2, 3]
        for key in KEYS:
            a = analyses.get(key)
            assert a == analyse(board_of(key))
            assert a is not None and figures(a)["par_score"] == a.par_score
        analyses.close()
    asyncio.run(run())


def test_a_deal_the_solver_refuses_is_remembered_as_none() -> None:
    async def run() -> None:
        analyses = Analyses()
        bad: DealKey = (9, "N:AKQ... not a deal", "N", "None")
        analyses.warm([bad])
        for _ in range(200):
            if analyses.ready(bad):
                break
            await asyncio.sleep(0.05)
        assert analyses.ready(bad) and analyses.get(bad) is None and analyses.count == 1
        analyses.close()
    asyncio.run(run())


def test_outside_a_loop_nothing_is_scheduled() -> None:
    analyses = Analyses()
    assert analyses.get(KEYS[0]) is None and not analyses.ready(KEYS[0]) and analyses.count == 0


def test_a_deal_is_solved_once_in_the_process_and_the_oldest_are_forgotten() -> None:
    """``SolvedDeals``: a second service (or the same set loaded again) gets the first one's analysis without a
    solve; past its size the least recently used deal is solved again."""
    from service.event.analyses import SolvedDeals
    solved = SolvedDeals(size=2)
    calls: list[int] = []

    def solver(key: DealKey) -> None:
        calls.append(key[0])
    for key in (KEYS[0], KEYS[1], KEYS[0], KEYS[2], KEYS[1], KEYS[0]):
        solved.solve(key, solver)
    # 1, 2 solved; 1 known (now the most recent); 3 solved, 2 forgotten; 2 solved again, 1 forgotten; 1 again
    assert calls == [1, 2, 3, 2, 1]
