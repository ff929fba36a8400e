"""The double-dummy analysis of each deal (tricks per declarer and strain, par), computed once, ahead of time, in
one worker thread at the lowest priority: the solver (endplay's DDS, through ``table/handrecords/sheets.py``,
which releases the GIL) takes about a quarter of a second of CPU per deal, and the event loop serves every table
meanwhile. The public screen and the hand-record sheets
read the same results; a hand-record set is analysed as soon as it is loaded (``warm``), so the sheets are ready
before anyone asks, and a request that comes earlier is told how far the analysis has got instead of waiting.
A deal solved once in the process is not solved again (``SOLVED``): the same set loaded a second time, another
service in the same process (the test suite runs dozens), a restart of the event.
"""
from __future__ import annotations

import asyncio
import ctypes
import functools
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from table.board import Vulnerability
from table.cards import SEATS, Deal
from table.handrecords.base import HandRecordBoard
from table.handrecords.sheets import Analysis, analyse

log = logging.getLogger(__name__)

DealKey = tuple[int, str, str, str]          # board, PBN deal, dealer, vulnerability
STRAINS = ("NT", "S", "H", "D", "C")


class SolvedDeals:
    """The process's solved deals, the most recent ``size`` of them (an analysis is about 1 KB). Read and written
    from the solver threads of every ``Analyses`` in the process, hence the lock."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._solved: OrderedDict[DealKey, Analysis | None] = OrderedDict()

    def solve(self, key: DealKey, solver: Callable[[DealKey], Analysis | None]) -> Analysis | None:
        with self._lock:
            if key in self._solved:
                self._solved.move_to_end(key)
                return self._solved[key]
        found = solver(key)                         # outside the lock: the solver has its own (table/dds.py)
        with self._lock:
            self._solved[key] = found
            while len(self._solved) > self.size:
                self._solved.popitem(last=False)
        return found


def board_of(key: DealKey) -> HandRecordBoard:
    board, pbn, dealer, vulnerable = key
    return HandRecordBoard.of(board, Deal.from_pbn(pbn), dealer or None,
                              Vulnerability(vulnerable) if vulnerable else None)


def figures(a: Analysis) -> dict[str, Any]:
    """The analysis as the public screen sends it: tricks per seat and strain, par score and contracts."""
    return {"tricks": {str(s): {st: a.tricks[(str(s), st)] for st in STRAINS} for s in SEATS},
            "par_score": a.par_score, "par": list(a.par_contracts)}


def _low_priority(nice: int) -> None:
    """The solver's thread yields every core to the event loop and the tables (Linux: a thread's own nice value,
    19 by default, the lowest priority); it works with the time nobody else wants. It is named ``double-dummy``
    for ``top -H`` and the benchmarks; the solver's own worker threads inherit both the name and the priority."""
    try:
        libc = ctypes.CDLL(None)
        libc.prctl(15, b"double-dummy", 0, 0, 0)          # PR_SET_NAME
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), max(nice, os.getpriority(os.PRIO_PROCESS, 0)))
    except (AttributeError, OSError):          # not Linux, or not allowed: the normal priority and name
        pass


def _solve(key: DealKey) -> Analysis | None:
    try:
        return analyse(board_of(key))
    except Exception:                     # a deal the solver refuses: the board shows its hands only
        log.exception("double-dummy analysis of board %d failed", key[0])
        return None


SOLVED = SolvedDeals()


class Analyses:
    """Each deal's analysis, once; every listener in ``on_ready`` is called (on the event loop) when one arrives.
    A deal the solver refuses is remembered as None (its board is shown without figures)."""

    def __init__(self, nice: int = 19) -> None:
        self._nice = nice
        self._done: dict[DealKey, Analysis | None] = {}
        self._pending: set[DealKey] = set()
        self._pool: ThreadPoolExecutor | None = None
        self.on_ready: list[Callable[[], None]] = []

    @property
    def count(self) -> int:
        return len(self._done)

    @property
    def pending(self) -> int:
        """Deals queued or under way."""
        return len(self._pending)

    def ready(self, key: DealKey) -> bool:
        return key in self._done

    def get(self, key: DealKey) -> Analysis | None:
        """The analysis of ``key`` if computed; else None, and its computation is started (once)."""
        if key in self._done:
            return self._done[key]
        self.warm((key,))
        return None

    def warm(self, keys: Iterable[DealKey]) -> None:
        """Start computing every deal of ``keys`` not done or under way (outside the service's loop: nothing)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        for key in keys:
            if key in self._done or key in self._pending:
                continue
            self._pending.add(key)
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="double-dummy",
                                                initializer=_low_priority, initargs=(self._nice,))
            fut = loop.run_in_executor(self._pool, self._compute, key)
            fut.add_done_callback(functools.partial(self._finish, key))

    @staticmethod
    def _compute(key: DealKey) -> Analysis | None:
        return SOLVED.solve(key, _solve)

    def _finish(self, key: DealKey, fut: asyncio.Future[Analysis | None]) -> None:
        self._pending.discard(key)
        if fut.cancelled():
            return
        self._done[key] = fut.result()
        for listener in self.on_ready:
            listener()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
