"""The leak checker of tests/service/test_leaks.py: the movement's rule (Law 16B) written again, apart from the
service's code, and applied to what a viewer received.

A snapshot is what one viewer received from one endpoint or stream, with the time window in which the server
made it. The truth (each table's round, the boards it has played, its live board and its late-play boards) is
read by the director while the event runs. A board is **played** at a table when the director's record shows
it finished there (``result.complete``) or scored by the director (an adjustment) while late play of it is not
granted — a board started and put back is not played. A viewer's pair is the movement's pair at its table and
seat in its credential's round (a sit-out's real pair too; an empty seat is the public); it may see nothing of
a board it still has to play at any table, and in its table's live view only the boards of its sitting there
(and its late-play boards). The public may see nothing of a board any table still has to play (the movement
gives it the board and it has not played it, or it is the table's live unfinished board), unless the director
released it before the snapshot could have been made. The interventions are made so that the movement's
obligations only shrink while the event runs, so the truth read *after* a snapshot gives a subset of what was
forbidden when it was made. A live board is different: a table owes a board the movement does not give it (a
wrong board, or one of the boards the simulated tables play on past the event's boards once their last round is
over) only while it is live there, an obligation that begins when the table starts it — possibly after the
snapshot. Such a board is counted only when the table was already playing it (the same start) in the truth read
wholly before the snapshot and still was in the one read after. So a board flagged is a real leak. Nothing here
imports the service's rule.
"""
from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
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
    completed: dict[str, frozenset[int]]                     # played: finished, or scored and not late
    live: dict[str, int | None] = field(default_factory=dict)   # each table's live unfinished board
    late: dict[str, frozenset[int]] = field(default_factory=dict)
    since: dict[str, str] = field(default_factory=dict)      # when each table's live board was started there


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
    released: dict[int, float] = field(default_factory=dict)     # board -> the director asked to release it then
    truths: list[Truth] = field(default_factory=list)
    checked: int = 0
    withheld_seen: int = 0               # live views of a board the viewer may not see, shown as "in play"
    vugraph_shown: int = 0               # anonymous live views of a vugraph table's board in play elsewhere

    # ------------------------------------------------------------------ the movement's rule, again
    def pair(self, table: str, seat: str, rnd: int) -> int | None:
        """The pair at ``seat`` in round ``rnd`` (also a pair that sits out there); None: an empty seat."""
        for s in self.movement.sittings:
            if str(s.table) == table and s.round == rnd:
                return s.ns if seat in "NS" else s.ew
        return None

    def sitting_boards(self, table: str, rnd: int) -> set[int]:
        return {b for s in self.movement.sittings if str(s.table) == table and s.round == rnd and not s.sit_out
                for b in s.boards}

    def pair_boards_at(self, pair: int, table: str) -> set[int]:
        return {b for s in self.movement.sittings if str(s.table) == table and not s.sit_out and pair in (s.ns, s.ew)
                for b in s.boards}

    def pair_to_play(self, pair: int, completed: dict[str, frozenset[int]]) -> set[int]:
        return {b for s in self.movement.sittings if not s.sit_out and pair in (s.ns, s.ew)
                for b in s.boards if b not in completed.get(str(s.table), frozenset())}

    def in_play(self, completed: dict[str, frozenset[int]], live: Mapping[str, int | None] | None = None) -> set[int]:
        scheduled = {b for s in self.movement.sittings if not s.sit_out
                     for b in s.boards if b not in completed.get(str(s.table), frozenset())}
        return scheduled | {b for b in (live or {}).values() if b is not None}

    def surely_in_play(self, before: Truth | None, after: Truth) -> set[int]:
        """The boards some table owed all the while between the truth ``before`` and the truth ``after``: the
        movement's boards a table had not yet played by ``after`` (those obligations only end), and a table's live
        unfinished board it was already playing at ``before`` and still, the same start, at ``after`` (an
        obligation that begins when the table starts the board: one first seen at ``after`` may have begun after
        the snapshot)."""
        live = {t: b for t, b in after.live.items() if b is not None and before is not None
                and before.live.get(t) == b and before.since.get(t) == after.since.get(t)}
        return self.in_play(after.completed, live)

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
        released = {b for b, at in self.released.items() if at <= snap.hi}
        if snap.viewer == ANONYMOUS:
            return self.surely_in_play(before, after) - released, set()
        _, table, seat = snap.viewer.split(":")
        first = before.rounds.get(table, 1) if before is not None else min(self.movement.rounds)
        last = after.rounds[table]
        out: set[int] | None = None
        playing: set[int] = set()
        for rnd in range(first, last + 1):           # the seat's pair is the pair of one of these rounds
            pair = self.pair(table, seat, rnd)
            if pair is None:                          # an empty seat sees what the public sees
                mine = self.surely_in_play(before, after) - released
            else:
                mine = self.pair_to_play(pair, after.completed)
                late = (before.late if before is not None else {}).get(table, frozenset())
                playing |= self.sitting_boards(table, rnd) | (late & self.pair_boards_at(pair, table))
            out = mine if out is None else out & mine
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
