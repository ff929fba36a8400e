"""Seat credentials over HTTP (``service/live/auth.py`` says how they live and end): the director's list of seat
links, the one-time sign-in that turns a link into the seat's token, the table card's sign-in (reusable for the
event: the token of the pair that sits at the card's seat now), the renewal that follows a pair from round to
round, and the director's revocation."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from service.api.deps import director, service, token
from service.errors import Unauthenticated
from service.live.auth import SEAT_LETTERS, SeatGrant
from service.live.visibility import Viewer
from service.wiring.container import Service
from table.texts import Text

router = APIRouter(prefix="/api")
TABLE_ID = r"^[A-Za-z0-9_-]{1,32}$"
NO_STORE = {"Cache-Control": "no-store"}


class SignInIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    code: str = Field(..., min_length=1, max_length=200, description="the code of a sign-in link (#signin=...)")


class CardIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    code: str = Field(..., min_length=1, max_length=200, description="the code of a table card (#card=...)")


def pair_of(svc: Service, g: SeatGrant) -> int | None:
    """The pair the movement seats at ``g``'s table and seat in its round (None outside an event)."""
    ev = svc.tournament
    if ev is None or g.table not in ev.where:
        return None
    plan, mt = ev.where[g.table]
    s = next((s for s in plan.movement.sittings if s.table == mt and s.round == g.round and not s.sit_out), None)
    return None if s is None else (s.ns if g.seat in "NS" else s.ew)


def _label(svc: Service, g: SeatGrant) -> str | None:
    """The pair as the results name it ("EW 1": a Mitchell's East-West pair 5 of 4 tables)."""
    pair = pair_of(svc, g)
    if pair is None or svc.tournament is None:
        return None
    return svc.tournament.where[g.table][0].movement.label(pair)


def _grant_answer(svc: Service, g: SeatGrant) -> dict[str, Any]:
    return {"status": "seated", "token": svc.tokens.seat_token(g.table, g.seat), "role": "seat", "table": g.table,
            "seat": g.seat, "round": g.round, "pair": pair_of(svc, g)}


def follow_pair(svc: Service, table: str, seat: str, rnd: int) -> dict[str, Any]:
    """Where the pair that sat at ``table``/``seat`` in round ``rnd`` sits now: ``{"status": "seated", "table",
    "seat", "round", "pair"}`` at the first of its later sittings whose table is in that round; else
    ``"sit_out"`` (it sits out the round its old table is in now), ``"waiting"`` (its next table has not reached
    that round yet) or ``"over"`` (no later round: its session is over). The pair keeps its place in it: North
    or East the first player, South or West the second. In a teams movement the entrant is the team, which sits
    in two rooms: the pair is the team's pair of that direction."""
    ev = svc.tournament
    if ev is None or table not in ev.where:
        return {"status": "over", "round": rnd}
    plan, mt = ev.where[table]
    here = next((s for s in plan.movement.sittings if s.table == mt and s.round == rnd), None)
    pair = None if here is None else (here.ns if seat in "NS" else here.ew)
    if pair is None:
        return {"status": "over", "round": rnd}
    tid = {m: t for t, (p, m) in ev.where.items() if p is plan}
    ns = seat in "NS"
    later = []
    for r in sorted({s.round for s in plan.movement.sittings if s.round > rnd}):
        found = [s for s in plan.movement.sittings if s.round == r and pair in (s.ns, s.ew)]
        if len(found) > 1:          # a team plays in two rooms: its pairs keep their directions
            found = [s for s in found if (s.ns == pair) == ns]
        later += found[:1]
    for s in later:
        t = tid.get(s.table)
        if not s.sit_out and t is not None and ev.rounds.get(t) == s.round:
            first = seat in "NE"
            new_seat = ("N" if first else "S") if s.ns == pair else ("E" if first else "W")
            return {"status": "seated", "table": t, "seat": new_seat, "round": s.round, "pair": pair}
    now = ev.rounds.get(table, rnd)
    if not any(s.round >= now for s in later):
        return {"status": "over", "round": now, "pair": pair}
    cur = next((s for s in later if s.round == now), None)
    return {"status": "sit_out" if cur is None or cur.sit_out else "waiting", "round": now, "pair": pair}


def _seat_entry(svc: Service, table_id: str, seat: str) -> dict[str, Any]:
    link = svc.tokens.seat_link(table_id, seat)
    g = svc.tokens.grant("link", link)
    return {"token": svc.tokens.seat_token(table_id, seat), "link": f"/seat#signin={link}",
            "page": f"/seat#signin={link}", "round": g.round, "pair": pair_of(svc, g), "pair_label": _label(svc, g),
            "used": svc.tokens.link_id(link) in svc.tokens.redeemed}


@router.get("/tables/{table_id}/tokens", summary="seat links (one-time sign-in) and tokens of the current round "
            "(director)")
async def tokens(table_id: str = Path(..., pattern=TABLE_ID), svc: Service = Depends(service),
                 v: Viewer = Depends(director)) -> JSONResponse:
    svc.club.table(table_id)
    return JSONResponse({seat: _seat_entry(svc, table_id, seat) for seat in SEAT_LETTERS}, headers=NO_STORE)


@router.post("/signin", summary="redeem a one-time sign-in link for the seat's token",
             responses={401: {"description": "the link is invalid, used, revoked or of another round"}})
async def signin(body: SignInIn, svc: Service = Depends(service)) -> JSONResponse:
    tokens = svc.tokens
    g = tokens.check_link(body.code)
    link = tokens.link_id(body.code)
    tokens.redeemed.add(link)                    # before the write: a second redemption meanwhile is refused
    try:
        await svc.club.append_club("signin", {"table": g.table, "seat": g.seat, "round": g.round,
                                              "generation": g.generation, "link": link}, f"seat:{g.table}:{g.seat}")
    except BaseException:
        tokens.redeemed.discard(link)
        raise
    return JSONResponse(_grant_answer(svc, g), headers=NO_STORE)


@router.post("/signin/card", summary="redeem a table card for the seat's token of the table's current round",
             responses={401: {"description": "the card is invalid, of another session, or revoked"}})
async def signin_card(body: CardIn, svc: Service = Depends(service)) -> JSONResponse:
    tokens = svc.tokens
    g = tokens.grant("card", body.code)
    svc.club.table(g.table)
    svc.limits.cards.take(tokens.link_id(body.code), g.table, g.seat)   # 429 beyond a table's needs; alerts once
    await svc.club.append_club("card", {"table": g.table, "seat": g.seat, "round": g.round,
                                        "generation": g.generation, "card": tokens.link_id(body.code)},
                               f"seat:{g.table}:{g.seat}")
    return JSONResponse(_grant_answer(svc, g), headers=NO_STORE)


@router.post("/signin/renew", summary="follow the pair: trade the seat token (this round's or the last) for the "
             "pair's seat in its table's current round",
             responses={200: {"description": "status seated (with the new token), sit_out, waiting or over"},
                        401: {"description": "no seat token, or one forged, revoked, of an earlier event, or "
                                             "already renewed"}})
async def renew(svc: Service = Depends(service), tok: str | None = Depends(token)) -> JSONResponse:
    tokens = svc.tokens
    if not tok:
        raise Unauthenticated(Text("refusal.renew_needs_token", "renewing needs the seat's token"))
    p = tokens.parse("seat", tok)                 # genuine, this event's, not revoked; its round may have ended
    old = tokens.link_id(tok)
    if old in tokens.retired:
        raise Unauthenticated(Text("refusal.renewed_already", "this seat sign-in was renewed already: scan the card "
                                   "at your table"))
    if p.round == tokens.round_of(p.table) and p.mark == tokens.mark(p.table):
        g = tokens.grant("seat", tok)             # still valid: nothing moved
        return JSONResponse({**_grant_answer(svc, g), "token": tok}, headers=NO_STORE)
    if p.mark < tokens.mark(p.table) and p.round >= tokens.round_of(p.table):
        raise Unauthenticated(Text("refusal.round_set", "table {table}'s round was set by the director since this "
                                   "sign-in: scan the card at your table", table=p.table))
    where = follow_pair(svc, p.table, p.seat, p.round)
    if where["status"] != "seated":
        return JSONResponse(where, headers=NO_STORE)
    tokens.retired.add(old)                       # before the write: a second renewal meanwhile is refused
    try:
        await svc.club.append_club("renew", {"from": old, "table": p.table, "seat": p.seat, "round": p.round,
                                             "to": {k: where[k] for k in ("table", "seat", "round", "pair")}},
                                   f"seat:{p.table}:{p.seat}")
    except BaseException:
        tokens.retired.discard(old)
        raise
    g = SeatGrant(where["table"], where["seat"], where["round"], tokens.generations.get((where["table"],
                                                                                         where["seat"]), 0))
    return JSONResponse(_grant_answer(svc, g), headers=NO_STORE)


@router.post("/tables/{table_id}/revoke", summary="end the seats' sign-ins and links at once; new links follow "
             "(director)")
async def revoke(table_id: str = Path(..., pattern=TABLE_ID), seat: str | None = Query(None, pattern="^[NESW]$"),
                 svc: Service = Depends(service), v: Viewer = Depends(director)) -> JSONResponse:
    svc.club.table(table_id)
    seats = [seat] if seat else list(SEAT_LETTERS)
    row = await svc.club.append_club("revoke", {"tables": [table_id], "seats": seats})   # the tokens follow it
    return JSONResponse({"seq": row.seq, "revoked": seats,
                         "seats": {s: _seat_entry(svc, table_id, s) for s in seats}}, headers=NO_STORE)

