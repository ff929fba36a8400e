"""May this table start board n now? One plain rule (Law 15) for every way a table starts a board by itself.

A table may start a board the movement gives it in its current round or in its next round (it moves on to
that round), or a board of an earlier round the director allowed it to play late — unless the table has
already played that board (Law 15B). Anything else is a wrong board: the answer is the reason, in words,
for the director. Without an event, or at a table outside it, any board may start.

(The reader tables' pickup, ``service/event/reader_pickup.py``, asks it before a board's first call; the
event's own after-the-fact check of a started board is ``LiveTournament._board_started``.)
"""
from __future__ import annotations

from results import ResultsError
from service.event.tournament import LiveTournament, wrong_board_words
from service.live.club import Club
from table.texts import Text


def _boards(ev: LiveTournament, table_id: str, rnd: int) -> tuple[int, ...]:
    plan, mt = ev.where[table_id]
    try:
        return plan.movement.expected_boards(mt, rnd)
    except ResultsError:
        return ()


def why_not_start(ev: LiveTournament | None, club: Club, table_id: str, board: int) -> str | None:
    """None when ``table_id`` may start ``board`` now; else why not (a wrong board, Law 15)."""
    if ev is None or table_id not in ev.where:
        return None
    played = club.ledger.played.get(table_id, set())
    if board in played:
        return Text("refusal.played_already", "table {table} has already played board {board} (Law 15B)",
                    table=table_id, board=board)
    rnd = ev.rounds[table_id]
    now = _boards(ev, table_id, rnd)
    if board in now or board in ev.late.get(table_id, ()):
        return None
    plan, _mt = ev.where[table_id]
    later = [r for r in plan.movement.rounds if r > rnd and _boards(ev, table_id, r)]
    if later and board in _boards(ev, table_id, later[0]):
        return None
    return wrong_board_words(board, table_id, rnd, now, later[0] if later else None,
                             _boards(ev, table_id, later[0]) if later else ())
