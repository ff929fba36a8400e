"""The leak checker of tests/service/test_leaks.py: the movement's rule (Law 16B) written again, apart from the
service's code, and applied to what a viewer received.

A snapshot is what one viewer received from one endpoint or stream, with the time window in which the server
made it. The truth (each table's round and completed boards) is read by the director while the event runs; a
pair's boards still to play and the boards in play only shrink as tables complete boards, so the truth read
*after* a snapshot gives a subset of what was forbidden when it was made: a board flagged is a real leak.
"""
from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from results import Movement

ANONYMOUS = "anonymous"
DIRECTOR = "director"


@dataclass(frozen=True)
class Truth:
    """The event as the director read it between ``start`` and ``end`` (monotonic clock of the test's host:
    ``time.time()``, shared with the server's ``sent`` stamps)."""
    start: float
    end: float
    rounds: dict[str, int]
    completed: dict[str, frozenset[int]]


@dataclass
class Snapshot:
    viewer: str                          # "anonymous", "director" or "seat:<table>:<seat>"
    source: str                          # the endpoint or stream
    lo: float                            # made no earlier than this ...
    hi: float                            # ... and no later than this
    body: Any
    table: str | None = None             # a live view's table


@dataclass
class Leak:
    snapshot: Snapshot
    board: int
    why: str


@dataclass
class Checker:
    movement: Movement
    vugraph: dict[str, float] = field(default_factory=dict)      # table -> marked before this time
    truths: list[Truth] = field(default_factory=list)
    checked: int = 0
    withheld_seen: int = 0               # live views of a board the viewer may not see, shown as "in play"
    vugraph_shown: int = 0               # anonymous live views of a vugraph table's board in play elsewhere

    # ------------------------------------------------------------------ the movement's rule, again
    def pair(self, table: str, seat: str, rnd: int) -> int | None:
        for s in self.movement.sittings:
            if str(s.table) == table and s.round == rnd and not s.sit_out:
                return s.ns if seat in "NS" else s.ew
        return None

    def sitting_boards(self, table: str, rnd: int) -> set[int]:
        return {b for s in self.movement.sittings if str(s.table) == table and s.round == rnd for b in s.boards}

    def pair_to_play(self, pair: int, completed: dict[str, frozenset[int]]) -> set[int]:
        return {b for s in self.movement.sittings if not s.sit_out and pair in (s.ns, s.ew)
                for b in s.boards if b not in completed.get(str(s.table), frozenset())}

    def in_play(self, completed: dict[str, frozenset[int]]) -> set[int]:
        return {b for s in self.movement.sittings if not s.sit_out
                for b in s.boards if b not in completed.get(str(s.table), frozenset())}

    # ------------------------------------------------------------------ the truth around a snapshot
    def _around(self, lo: float, hi: float) -> tuple[Truth | None, Truth | None]:
        """The last truth read wholly before ``lo`` and the first read wholly after ``hi``."""
        ends = [t.end for t in self.truths]
        starts = [t.start for t in self.truths]
        i = bisect.bisect_right(ends, lo) - 1
        j = bisect.bisect_left(starts, hi)
        return (self.truths[i] if i >= 0 else None), (self.truths[j] if j < len(self.truths) else None)

    def forbidden(self, snap: Snapshot) -> tuple[set[int], set[int]] | None:
        """(boards the viewer surely may not see, boards it may see in its own table's live view), or None
        when no truth was read after the snapshot (it is not counted)."""
        before, after = self._around(snap.lo, snap.hi)
        if after is None:
            return None
        if snap.viewer == DIRECTOR:
            return set(), set()
        if snap.viewer == ANONYMOUS:
            return self.in_play(after.completed), set()
        _, table, seat = snap.viewer.split(":")
        first = before.rounds.get(table, 1) if before is not None else min(self.movement.rounds)
        last = after.rounds[table]
        out: set[int] | None = None
        playing: set[int] = set()
        for rnd in range(first, last + 1):           # the seat's pair is the pair of one of these rounds
            pair = self.pair(table, seat, rnd)
            mine = self.pair_to_play(pair, after.completed) if pair is not None else set()
            out = mine if out is None else out & mine
            playing |= self.sitting_boards(table, rnd)
        return out or set(), playing

    # ------------------------------------------------------------------ what a snapshot shows
    @staticmethod
    def shows(state: dict[str, Any]) -> bool:
        """Whether a table's live view shows anything of its board beyond "board 7 in play"."""
        return bool(state.get("hands") or (state.get("auction") or {}).get("calls") or state.get("contract")
                    or state.get("tricks") or state.get("trick") or state.get("last_trick") or state.get("played")
                    or state.get("tricks_won") or state.get("result") or state.get("irregularities")
                    or state.get("claim") or state.get("declarer") or state.get("turn") or state.get("deal"))

    def boards_shown(self, snap: Snapshot) -> Iterable[tuple[int, str, str | None]]:
        """(board, what, the table whose live view it is, else None) for each board whose content it shows."""
        src, body = snap.source, snap.body
        if src == "state":
            board = (body.get("board") or {}).get("number")
            if board is not None and self.shows(body):
                yield board, "live view", snap.table
        elif src == "tables":
            for s in body:
                if s.get("board") is not None and (s.get("contract") or s.get("turn")):
                    yield s["board"], f"summary of table {s['table']}", s["table"]
        elif src == "boards":
            for e in body:
                if "result" in e or "adjustment" in e:
                    yield e["board"], "board list result", None
        elif src == "board":
            yield body["board"], "board record", None
        elif src == "results":
            for b in body:
                if b.get("results"):
                    yield b["board"], "results", None
        elif src == "public_results":
            for b in body.get("boards", []):
                if b.get("visible") or b.get("travellers"):
                    yield b["board"], "traveller", None

    def check(self, snap: Snapshot) -> list[Leak]:
        got = self.forbidden(snap)
        if got is None:
            return []
        forbidden, playing = got
        self.checked += 1
        leaks = []
        if snap.source == "state" and snap.body.get("withheld"):
            self.withheld_seen += 1
        for board, what, live_table in self.boards_shown(snap):
            if board not in forbidden:
                continue
            if live_table is not None and snap.viewer.startswith("seat:") and board in playing \
                    and live_table == snap.viewer.split(":")[1]:
                continue                                 # the board the seat's pair is playing
            if live_table is not None and snap.viewer == ANONYMOUS and snap.lo >= self.vugraph.get(live_table, 1e30):
                self.vugraph_shown += 1                  # a vugraph table's delayed live view
                continue
            leaks.append(Leak(snap, board, what))
        return leaks
