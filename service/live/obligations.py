"""Who still has to play what (Laws 16B, 90B4): the state the movement's visibility rule reads, kept up to date
one (table, board) at a time.

A table **owes** a board when it must still play it: the movement gives it the board (or it is the table's
live, unfinished board) and the table has not **played** it. A board is played at a table when it was
finished there with a result (played to the end; a keyed result once the opponents accepted it) or the
director scored it (a Law 12 adjustment) — but an artificial "not played" score ends the obligation only
while late play is not granted: granting late play makes the board owed again until the table finishes it.
A board started and then replaced by another (a wrong board put back) is *not* played: it stays owed by the
tables the movement gives it to, and a table the movement does not give it owes it only while it is live.
Without an event every table owes every board some table has started.

From the owing tables follow, per board, the tables still to play it (``owed``; a board with any is **in
play**), per pair the boards it still has to play (``pair_owed``; a pair plays at the sittings the movement
gives it) and the boards everyone has played (``done``). ``note(table, boards)`` recomputes only those (table,
board) pairs, so a board event costs work in proportion to what it changes, not to the size of the event.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from service.live.runtime import TableRuntime

Pair = tuple[str, int]                    # (section, entrant)


class EventPlan(Protocol):
    """What the ledger reads of the event (``service/event/tournament.py LiveTournament``)."""
    since: str
    late: dict[str, set[int]]

    def sittings_by_board(self) -> dict[tuple[str, int], tuple[Pair, ...]]:
        """(service table, board) -> the pairs the movement seats there for it (sit-outs play nothing)."""


class Elsewhere(AbstractSet[int]):
    """The boards some table other than ``table`` still has to play (read live from the ledger)."""

    def __init__(self, ledger: Obligations, table: str) -> None:
        self.ledger, self.table = ledger, table

    def __contains__(self, board: object) -> bool:
        owed = self.ledger.owed.get(board, ()) if isinstance(board, int) else ()
        return len(owed) > (1 if self.table in owed else 0)

    def __iter__(self) -> Iterator[int]:
        return (b for b in list(self.ledger.owed) if b in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class Obligations:
    def __init__(self, tables: dict[str, TableRuntime]) -> None:
        self.tables = tables
        self.event: EventPlan | None = None
        self.owed: dict[int, set[str]] = {}              # board -> tables that still have to play it
        self.table_owed: dict[str, set[int]] = {}        # table -> boards it still has to play
        self.pair_owed: dict[Pair, set[int]] = {}        # pair -> boards it still has to play
        self.played: dict[str, set[int]] = {}            # table -> boards played there (finished or scored)
        self.done: set[int] = set()                      # boards known and owed by no table
        self.known: set[int] = set()                     # every board of the event, or started anywhere
        self.seats: dict[tuple[str, int], tuple[Pair, ...]] = {}
        self._scheduled: dict[str, set[int]] = {}
        self._live: dict[str, int | None] = {}           # each table's live board as last noted
        self.changes = 0                                 # moves whenever a table starts or stops owing a board
        self.work = 0                                    # (table, board) pairs recomputed: the cost, for tests

    # ------------------------------------------------------------------ building
    def follow(self, event: EventPlan | None) -> None:
        """Rebuild everything for ``event`` (start-up, an event set up or replaced): the only full pass."""
        self.event = event
        self.changes += 1
        self.owed, self.table_owed, self.pair_owed, self.played = {}, {}, {}, {}
        self.done, self.known, self._live = set(), set(), {}
        self.seats = event.sittings_by_board() if event is not None else {}
        self._scheduled = {}
        for (tid, b) in self.seats:
            self._scheduled.setdefault(tid, set()).add(b)
            self._know(b)
        for tid, rt in self.tables.items():
            self._live[tid] = rt.board_number
            for b in list(rt.boards):
                self._know(b)
        for tid in set(self.tables) | set(self._scheduled):
            self.note(tid, self.known if event is None else self._scheduled.get(tid, set()) | set(self._mine(tid)))

    def add_table(self, table_id: str) -> None:
        if table_id not in self._live:
            self._live[table_id] = None
            self.note(table_id, self.known if self.event is None else self._scheduled.get(table_id, set()))

    def _mine(self, tid: str) -> list[int]:
        return list(self.tables[tid].boards) if tid in self.tables else []

    def _know(self, board: int) -> None:
        if board in self.known:
            return
        self.known.add(board)
        self.done.add(board)                     # until some table owes it
        if self.event is None:                   # without a movement every table plays every board
            for tid in self.tables:
                self.note(tid, (board,))

    # ------------------------------------------------------------------ following the tables
    def note_row(self, rt: TableRuntime, boards: Iterable[int] = ()) -> None:
        """After a journal row at ``rt``: its live board, the board it replaced and ``boards`` (adjusted ones)."""
        touched = set(boards)
        before, now = self._live.get(rt.id), rt.board_number
        if before is not None:
            touched.add(before)
        if now is not None:
            touched.add(now)
        self._live[rt.id] = now
        self.note(rt.id, touched)

    def note(self, table_id: str, boards: Iterable[int]) -> None:
        for b in list(boards):
            self._know(b)
            self.work += 1
            self._set(table_id, b, self._owes(table_id, b))

    def _owes(self, tid: str, b: int) -> bool:
        rt = self.tables.get(tid)
        if rt is None:                  # a movement table no service table plays: it never plays its boards
            return tid in self._scheduled
        rec = rt.boards.get(b)
        ev = self.event
        if rec is not None and ev is not None and rec.started_at < ev.since:
            rec = None                                          # an earlier event's board
        finished = rec is not None and rt.finished(b)
        late = ev is not None and b in ev.late.get(tid, ())
        scored = rec is not None and rec.adjustment is not None and not late
        if finished or scored:
            self.played.setdefault(tid, set()).add(b)
            return False
        self.played.get(tid, set()).discard(b)
        if ev is None:
            return True
        return b in self._scheduled.get(tid, ()) or (rec is not None and rec is rt.current)

    def _set(self, tid: str, b: int, owes: bool) -> None:
        tables = self.owed.setdefault(b, set())
        if (tid in tables) == owes:
            return
        self.changes += 1
        if owes:
            tables.add(tid)
            self.table_owed.setdefault(tid, set()).add(b)
            self.done.discard(b)
        else:
            tables.discard(tid)
            self.table_owed.get(tid, set()).discard(b)
            if not tables:
                self.done.add(b)
        for pair in self.seats.get((tid, b), ()):
            mine = self.pair_owed.setdefault(pair, set())
            (mine.add if owes else mine.discard)(b)

    # ------------------------------------------------------------------ queries
    def in_play(self, board: int) -> bool:
        return bool(self.owed.get(board))

    def tables_owing(self, board: int) -> list[str]:
        return sorted(self.owed.get(board, ()), key=lambda s: (len(s), s))

    def elsewhere(self, table_id: str) -> Elsewhere:
        return Elsewhere(self, table_id)
