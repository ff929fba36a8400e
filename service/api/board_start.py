"""Tables start their own boards (Bridgemate's board verification), and the director rules on a wrong board.

* ``GET /api/tables/{id}/offered-boards`` (a seat of the table, or the director): the boards the terminal offers
  now: the round's (and late play's) boards the table has not played (``service/event/board_start.py``).
* ``POST /api/tables/{id}/boards/{n}/start`` ``{"confirm": n}``: the player picks a board and types the number
  printed on it again. At a played table (phones, readers) the board starts with the deal of the evening's hand
  record (409 while the director has loaded none); at a scoring-only table without a deal (the cards are real).
  A board that is not the table's now (and not granted late play) does not start: 409 in words, and the director
  is called with Law 15 and the board (once per board while the call is open). The director may start any board
  (the event still flags one that is not the table's, ``service/event/tournament.py``).
* ``POST /api/director-calls/{id}/rule`` ``{"ruling": "play_here" | "correct_board"}`` (director) answers a Law 15
  call: ``play_here`` grants the board to the table (late play, journalled: the table then starts it itself);
  ``correct_board`` has the table play its own boards (Law 15A). The ruling is journalled with the answer.
"""
from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends, Path
from pydantic import BaseModel, ConfigDict, Field

from service.api.deps import director, service, viewer
from service.api.terminal import own_table
from service.errors import Conflict, Invalid, NotFound
from service.event.board_start import may_start, offered, round_boards
from service.live.visibility import Viewer, turn_of
from service.wiring.container import Service
from table.texts import Text, translatable

router = APIRouter(prefix="/api")
TableId = Path(..., pattern=r"^[A-Za-z0-9_-]{1,32}$")
BoardNo = Path(..., ge=1, le=9999)


class StartIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    confirm: int = Field(..., ge=1, le=9999, description="the number printed on the board, typed again")


class Law15RulingIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    ruling: Literal["play_here", "correct_board"]


@router.get("/tables/{table_id}/offered-boards", summary="the boards the table may start now (a seat of it, or "
            "the director)")
async def boards_offered(table_id: str = TableId, svc: Service = Depends(service),
                         v: Viewer = Depends(viewer)) -> dict[str, Any]:
    own_table(v, table_id)
    rt = svc.club.table(table_id)
    ev = svc.tournament
    loaded = svc.hand_records is not None and bool(svc.hand_records.all())
    return {"table": table_id, "round": ev.rounds.get(table_id) if ev is not None else None, "kind": rt.kind,
            "boards": offered(ev, svc.club, rt), "hand_records": loaded}


async def _law15_call(svc: Service, table_id: str, seat: str | None, board: int, reason: str) -> int:
    """The director's call for a wrong board: one open call per table and board (asking again adds none)."""
    for c in svc.club.calls.listing(open_only=True):
        if c["table"] == table_id and c.get("code") == "WRONG_BOARD" and c["board"] == board:
            return int(c["id"])
    svc.limits.calls.take(table_id, seat)                    # 429 for a seat that floods the console
    call = await svc.club.call_director(table_id, seat, reason, f"seat:{table_id}:{seat}", board=board,
                                        code="WRONG_BOARD", law="15")
    return int(call["id"])


@router.post("/tables/{table_id}/boards/{number}/start", summary="start a board at the table, its number typed "
             "again (a seat of it, or the director)",
             responses={409: {"description": "not the table's board now (the director is called), played already, "
                                             "another board in play, or no hand records loaded"},
                        422: {"description": "the number typed is not the board's"}})
async def start_board(body: StartIn, table_id: str = TableId, number: int = BoardNo, svc: Service = Depends(service),
                      v: Viewer = Depends(viewer)) -> dict[str, Any]:
    own_table(v, table_id)
    rt = svc.club.table(table_id)
    if body.confirm != number:
        raise Invalid(Text("refusal.number_mismatch", "the number typed ({typed}) is not board {board}: check the "
                           "number printed on the board", typed=body.confirm, board=number), code="NUMBER_MISMATCH")
    if v.role == "seat":
        verdict = may_start(svc.tournament, svc.club, rt, number)
        if verdict.code == "WRONG_BOARD":
            call = await _law15_call(svc, table_id, v.seat, number, verdict.reason)
            raise Conflict(verdict.reason + Text("refusal.director_called_15", ": the board does not start; the "
                                                  "director is called (Law 15)"),
                           code=verdict.code, law=verdict.law, board=number, director_call=call)
        if not verdict.ok:
            raise Conflict(verdict.reason, code=verdict.code, board=number)
    if rt.board_number == number and rt.table.state == "board_ready":
        return _started(svc, table_id)                       # started already (another phone of the table)
    event: dict[str, Any] = {"type": "board", "board": number, "source": "terminal"}
    if rt.kind != "scoring":
        hand = svc.hand_records.hand_record(number) if svc.hand_records is not None else None
        if hand is None:
            loaded = svc.hand_records is not None and bool(svc.hand_records.all())
            raise Conflict(Text("refusal.records_not_loaded", "the director has not loaded the hand records")
                           if not loaded else Text("refusal.records_no_board", "the hand records have no board "
                                                   "{board}", board=number), code="NO_HAND_RECORDS", board=number)
        event.update(deal=hand.deal, dealer=hand.dealer, vulnerable=hand.vulnerable, source="hand_records")
    actor = "director" if v.role == "director" else f"seat:{table_id}:{v.seat}"
    # authorised here (the rule above): a seat may not post a board with its deal itself (permissions.authorize)
    await svc.club.submit(table_id, event, actor)
    return _started(svc, table_id)


def _started(svc: Service, table_id: str) -> dict[str, Any]:
    rt = svc.club.table(table_id)
    rec = rt.current
    assert rec is not None
    return {"table": table_id, "board": rec.number, "dealer": rec.dealer, "vulnerable": rec.vulnerable,
            "seq": rt.seq, "phase": rt.table.state, "turn": turn_of(rt.table)}


@router.post("/director-calls/{number}/rule", summary="rule on a wrong board's call (director; Law 15)")
async def rule_law15(body: Law15RulingIn, number: int = Path(..., ge=1), svc: Service = Depends(service),
                     v: Viewer = Depends(director)) -> dict[str, Any]:
    call = svc.club.calls.get(number)
    if call is None:
        raise NotFound(Text("refusal.no_call", "no director call {number}", number=number))
    if call.get("code") != "WRONG_BOARD":
        raise Invalid(Text("refusal.call_not_wrong_board", "director call {number} is not about a wrong board "
                           "(Law 15): answer it instead", number=number))
    if call["answered"]:
        raise Conflict(Text("refusal.call_answered", "director call {number} was answered at {time}", number=number,
                            time=call["answered"]))
    table_id, board = str(call["table"]), int(call["board"])
    ev = svc.tournament
    if body.ruling == "play_here":
        if ev is None:
            raise NotFound(Text("refusal.no_event", "no event is configured"))
        if board not in ev.scheduled_boards(table_id):
            raise Conflict(Text("refusal.late_not_in_movement", "the movement does not give board {board} to table "
                                "{table}: its pairs would have no comparison; have the correct board played "
                                "(Law 15A)", board=board, table=table_id))
        await ev.set_late_play(table_id, board, True)
        ruling = Text("ruling.play_here", "Law 15: board {board} is played at table {table} (granted)", board=board,
                      table=table_id)
    else:
        own = ", ".join(map(str, round_boards(ev, table_id))) or "-"
        ruling = Text("ruling.correct_board", "Law 15A: table {table} plays its own boards ({boards}), not board "
                      "{board}", table=table_id, boards=own, board=board)
    answered = await svc.club.answer_call(number, ruling=ruling)
    svc.hub.publish_state(svc.club.table(table_id), ("director", "seat"))      # the terminal offers again
    return {**answered, **translatable(ruling, "ruling")}          # the journal keeps the English
