"""The terminal's start of a board (Bridgemate's board verification, ``service/api/board_start.py``): may the table
start board ``n`` now, and which boards does the terminal offer?

Whether the board is the table's now is the one rule every way of starting a board asks,
``service/event/start_rule.py`` (its round's or next round's boards, late play, not played there already; anything
else is a Law 15 matter). The terminal adds what only a terminal meets: another board is being bid or played at
the table, or the board's keyed result still waits for the opponents' answer (starting it again would drop it).
"""
from __future__ import annotations

from dataclasses import dataclass

from results import ResultsError
from service.event.start_rule import why_not_start
from service.event.tournament import LiveTournament
from service.live.club import Club
from service.live.runtime import TableRuntime
from table.texts import Text


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


def result_pending(ev: LiveTournament | None, rt: TableRuntime, board: int) -> bool:
    """The table keyed ``board``'s result in this event and the opponents have not accepted it yet."""
    rec = rt.boards.get(board)
    since = ev.since if ev is not None else ""
    return rec is not None and rec.started_at >= since and rec.awaiting_confirmation


def in_play(rt: TableRuntime) -> bool:
    """A board is being bid or played at the table (started and past its first call, not complete)."""
    return rt.current is not None and rt.table.state not in ("board_ready", "board_complete")


def may_start(ev: LiveTournament | None, club: Club, rt: TableRuntime, board: int) -> Verdict:
    """May table ``rt`` start ``board`` now, from its terminal?"""
    if in_play(rt) and rt.board_number != board:
        return Verdict(False, "IN_PLAY", Text("refusal.other_board_in_play", "board {board} is in play at table "
                                              "{table}: finish it first", board=rt.board_number, table=rt.id))
    if result_pending(ev, rt, board):
        return Verdict(False, "PLAYED", Text("refusal.keyed_already", "table {table} has keyed board {board}'s "
                                             "result already: the opponents answer for it", table=rt.id, board=board))
    why = why_not_start(ev, club, rt.id, board)
    if why is not None:
        return Verdict(False, "WRONG_BOARD", Text("refusal.law_15", "Law 15: ") + why, "15")
    return Verdict(True)


def offered(ev: LiveTournament | None, club: Club, rt: TableRuntime) -> list[int]:
    """The boards the terminal offers: the round's (and late play's) boards the table may start now."""
    if ev is None or rt.id not in ev.where:
        return []
    boards = sorted(set(round_boards(ev, rt.id)) | ev.late.get(rt.id, set()))
    return [b for b in boards if may_start(ev, club, rt, b).ok]
