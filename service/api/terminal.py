"""The table terminal's own endpoints (the seat page, ``service/web/static/seat.js``): calling the director, the
opponents' confirmation of a board's result, and the director's choice of a scoring-only table.

* ``POST /api/tables/{id}/director`` (a seat of the table, or the director) journals a call and pushes
  ``{"type": "director_call", "id", "table", "seat", "board", "at"}`` to the director's stream at once; with
  ``{"reason": "cards_differ"}`` the player reports that his cards differ from the hand record shown on his phone
  (Laws 13 and 87: a wrong number of cards, a fouled board), with the board; ``{"reason": "revoke"}`` (or
  insufficient_bid, call_out_of_rotation, lead_out_of_turn, claim_dispute, unauthorized_information,
  misinformation) names what the call is about and its laws; ``{"reason": "other", "note": "..."}`` says it in
  the player's words (one line, at most 120 characters, control characters dropped); a seat's
  calls (disputes included) are limited per seat and per table (429 beyond them, ``service/live/limits.py``);
  ``GET /api/director-calls`` lists them, ``POST /api/director-calls/{n}/answer`` marks one answered.
* ``POST /api/tables/{id}/boards/{n}/confirm`` ``{"accept": true|false}``: a seat of the side that did not key
  the result (or, at a table that played the board, the declarer's opponents; East-West on a passed-out board)
  accepts or disputes it, through its own credential of the round in which the movement plays the board at that
  table (Law 79: the opponents who played it, not the next round's pair; a seat cannot answer for another seat);
  a dispute calls the director. A keyed result counts for the results only once accepted.
* ``POST /api/tables/{id}/kind`` ``{"kind": "scoring"|"played"}`` (director; journalled).
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path, Query

from results.errors import ResultsError
from service.api.deps import director, service, viewer
from service.api.models import ConfirmIn, DirectorCallIn, TableKindIn
from service.errors import Conflict, Forbidden, Invalid, NotFound, Unauthenticated
from service.live.director_calls import REASONS
from service.live.free_text import NOTE_CHARS, one_line
from service.live.permissions import may_seat_call_director
from service.live.runtime import confirming_side
from service.live.visibility import Viewer
from service.wiring.container import Service
from table.texts import Text

router = APIRouter(prefix="/api")
TableId = Path(..., pattern=r"^[A-Za-z0-9_-]{1,32}$")
BoardNo = Path(..., ge=1, le=9999)


def own_table(v: Viewer, table_id: str) -> None:
    if v.role == "spectator":
        raise Unauthenticated(Text("refusal.seat_or_director_token", "a seat's or the director's token is required"))
    if v.role == "seat" and v.table != table_id:
        raise Forbidden(Text("refusal.other_table", "this seat token belongs to table {table}", table=v.table))


def board_round(svc: Service, table_id: str, number: int) -> int | None:
    """The round in which the event's movement plays board ``number`` at ``table_id`` (None: outside the event)."""
    ev = svc.tournament
    if ev is None or table_id not in ev.where:
        return None
    plan, mt = ev.where[table_id]
    for r in plan.movement.rounds:
        try:
            if number in plan.movement.expected_boards(mt, r):
                return r
        except ResultsError:
            continue
    return None


@router.post("/tables/{table_id}/director", summary="call the director to the table (a seat of it, or the director)")
async def call_director(body: DirectorCallIn | None = None, table_id: str = TableId, svc: Service = Depends(service),
                        v: Viewer = Depends(viewer)) -> dict[str, Any]:
    own_table(v, table_id)
    rt = svc.club.table(table_id)
    differ = body is not None and body.reason == "cards_differ"
    note = one_line(body.note, NOTE_CHARS, "the note") if body is not None and body.note is not None else ""
    if body is not None and body.reason == "other" and not note:
        raise Invalid(Text("refusal.note_needed", "say in a few words why the director is called (the note, at "
                           "most {count} characters)", count=NOTE_CHARS))
    if differ and rt.current is None:
        raise Conflict(Text("refusal.no_board_in_play", "no board is in play at table {table}: the cards of which "
                            "board differ?", table=table_id))
    if v.role == "seat" and v.seat:
        may_seat_call_director(rt, v.seat, svc.club.calls.listing(open_only=True))
    if v.role != "director":
        svc.limits.calls.take(table_id, v.seat)                # 429 for a seat that floods the console
    actor = "director" if v.role == "director" else f"seat:{table_id}:{v.seat}"
    if differ:
        n = rt.board_number
        call = await svc.club.call_director(table_id, v.seat, f"the cards of board {n} differ from the hand record",
                                            actor, code="CARDS_DIFFER", law="13, 87", note=note or None)
    elif body is not None and body.reason in REASONS:
        law, words = REASONS[body.reason]
        call = await svc.club.call_director(table_id, v.seat, words, actor, code=body.reason.upper(), law=law,
                                            note=note or None)
    else:
        call = await svc.club.call_director(table_id, v.seat, "call", actor, note=note or None)
    return {"id": call["id"], "table": table_id, "seat": v.seat, "board": call["board"], "at": call["at"],
            "code": call["code"], "law": call["law"], "note": call["note"]}


@router.get("/director-calls", summary="calls for the director, newest first (director)")
async def director_calls(open: bool = Query(False, description="only the calls not answered yet"),
                         svc: Service = Depends(service), v: Viewer = Depends(director)) -> list[dict[str, Any]]:
    return svc.club.calls.listing(open_only=open)


@router.post("/director-calls/{number}/answer", summary="mark a call answered (director)")
async def answer_call(number: int = Path(..., ge=1), svc: Service = Depends(service),
                      v: Viewer = Depends(director)) -> dict[str, Any]:
    return await svc.club.answer_call(number)


@router.post("/tables/{table_id}/kind", summary="make a table scoring-only or played (director; journalled)")
async def table_kind(body: TableKindIn, table_id: str = TableId, svc: Service = Depends(service),
                     v: Viewer = Depends(director)) -> dict[str, Any]:
    row = await svc.club.set_table_kind(table_id, body.kind)
    return {"table": table_id, "kind": body.kind, "seq": row.seq}


@router.post("/tables/{table_id}/boards/{number}/confirm",
             summary="the opponents accept or dispute a board's result (a dispute calls the director)",
             responses={403: {"description": "not a seat of the side that answers"},
                        409: {"description": "the board is not complete, or its result was accepted already"}})
async def confirm(body: ConfirmIn, table_id: str = TableId, number: int = BoardNo, svc: Service = Depends(service),
                  v: Viewer = Depends(viewer)) -> dict[str, Any]:
    own_table(v, table_id)
    rt = svc.club.table(table_id)
    rec = rt.boards.get(number)
    if rec is None:
        raise NotFound(Text("refusal.not_played", "table {table} has not played board {board}", table=table_id,
                            board=number))
    result = rt.result(number) or {}
    if rec is rt.current and rt.table.state != "board_complete" or rec is not rt.current and rec.result is None:
        raise Conflict(Text("refusal.not_complete", "board {board} is not complete at table {table}", board=number,
                            table=table_id))
    if (rec.confirmation or {}).get("accept"):
        raise Conflict(Text("refusal.accepted_already", "the result of board {board} was accepted already",
                            board=number))
    side = confirming_side(rec, result.get("declarer"))
    answer: dict[str, Any] = {"accept": body.accept, "side": side}
    if v.role == "director":
        answer["seat"] = body.seat
    elif v.seat and v.seat in side and body.seat in (None, v.seat):
        played = board_round(svc, table_id, number)
        if played is not None and v.round != played:
            raise Forbidden(Text("refusal.other_round", "board {board} is played at table {table} in round {round}: "
                                 "only that round's {side} pair answers for its result (Law 79), with its own "
                                 "sign-in of that round", board=number, table=table_id, round=played, side=side))
        answer["seat"] = v.seat
        svc.tokens.signed_in.add((table_id, v.seat, v.round or 0))   # this side has a device of its own
    elif (rt.kind == "scoring" and rec.keyed_by == f"seat:{table_id}:{v.seat}" and body.seat and body.seat in side
          and v.round == (board_round(svc, table_id, number) or v.round)
          and not svc.tokens.has_own_device(table_id, side, v.round or 0)):
        # One terminal for the table (Bridgemate practice): handed over to the opponents, who have no device of
        # their own this round; the journal records the answering seat and the terminal.
        answer.update(seat=body.seat, terminal=v.seat)
    else:
        raise Forbidden(Text("refusal.answered_by", "the result is answered by {side}: a seat of that side, on its "
                             "own page", side=side)
                        + (Text("refusal.answered_on_terminal", " (or on the terminal that keyed it, while that side "
                                "has no device of its own)") if rt.kind == "scoring" else ""))
    actor = "director" if v.role == "director" else f"seat:{table_id}:{v.seat}"
    if not body.accept and v.role != "director":
        svc.limits.calls.take(table_id, v.seat)                # a dispute calls the director: the same limit
    row = await svc.club.confirm(table_id, number, answer, actor)
    out: dict[str, Any] = {"table": table_id, "board": number, "seq": row.seq, **answer}
    if not body.accept:
        call = await svc.club.call_director(table_id, answer.get("seat"), f"result of board {number} disputed", actor,
                                           board=number, code="RESULT_DISPUTED")     # the console words the code
        out["director_call"] = call["id"]
    return out
