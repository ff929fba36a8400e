"""Which boards a table may start itself (Bridgemate's board verification): the one rule, a plain function, for
the terminal's "start a board" (``service/api/board_start.py``) and for any other table that names its board
(reader tables: a hand picked up identifies its board).

A table may start board ``n`` now when the movement gives ``n`` to the table in the round of the pair that asks
(its credential's round, else the table's current round) or the director granted it late play, and the table has
not played it already in this event. Any other board is a Law 15 matter: it does not start; the director rules.
Without an event (or at a table outside it) no movement decides: any board not played yet may start.
"""
from __future__ import annotations

from dataclasses import dataclass

from results import ResultsError
from service.event.tournament import LiveTournament
from service.live.runtime import TableRuntime

LAW15_CALL = "Law 15: table {table} asked to start board {board}, not one of its boards now ({expected})"


@dataclass(frozen=True)
class Verdict:
    ok: bool
    code: str = ""              # "" | "WRONG_BOARD" | "PLAYED" | "IN_PLAY"
    reason: str = ""            # in words, for the seat and the director
    law: str | None = None      # "15" for a wrong board


def round_boards(ev: LiveTournament | None, table_id: str, rnd: int | None = None) -> tuple[int, ...]:
    """The boards the movement gives ``table_id`` in round ``rnd`` (default: the table's current round)."""
    if ev is None or table_id not in ev.where:
        return ()
    plan, mt = ev.where[table_id]
    try:
        return plan.movement.expected_boards(mt, rnd if rnd is not None else ev.rounds[table_id])
    except ResultsError:
        return ()


def played_here(ev: LiveTournament | None, rt: TableRuntime, board: int) -> bool:
    """The table completed ``board`` in this event, or keyed its result (the opponents' answer pending: starting
    it again would drop that result); an earlier event's board of the same number does not count."""
    rec = rt.boards.get(board)
    since = ev.since if ev is not None else ""
    return rec is not None and not rec.not_played and rec.started_at >= since \
        and (rt.completed(board) or rec.keyed_by is not None)


def in_play(rt: TableRuntime) -> bool:
    """A board is being bid or played at the table (started and past its first call, not complete)."""
    return rt.current is not None and rt.table.state not in ("board_ready", "board_complete")


def may_start(ev: LiveTournament | None, rt: TableRuntime, board: int, rnd: int | None = None) -> Verdict:
    """May table ``rt`` start ``board`` now (``rnd``: the asking pair's round; None: the table's)?"""
    if in_play(rt) and rt.board_number != board:
        return Verdict(False, "IN_PLAY", f"board {rt.board_number} is in play at table {rt.id}: finish it first")
    if played_here(ev, rt, board):
        return Verdict(False, "PLAYED", f"table {rt.id} has played board {board} already")
    if ev is None or rt.id not in ev.where:
        return Verdict(True)
    allowed = set(round_boards(ev, rt.id, rnd)) | ev.late.get(rt.id, set())
    if board in allowed:
        return Verdict(True)
    expected = ", ".join(map(str, round_boards(ev, rt.id, rnd))) or "none: a sit-out"
    return Verdict(False, "WRONG_BOARD", LAW15_CALL.format(table=rt.id, board=board, expected=expected), "15")


def offered(ev: LiveTournament | None, rt: TableRuntime, rnd: int | None = None) -> list[int]:
    """The boards the terminal offers: the round's (and late play's) boards the table may start now."""
    if ev is None or rt.id not in ev.where:
        return []
    boards = sorted(set(round_boards(ev, rt.id, rnd)) | ev.late.get(rt.id, set()))
    return [b for b in boards if may_start(ev, rt, b, rnd).ok]
