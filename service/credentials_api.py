"""Seat credentials over HTTP (``service/auth.py`` says how they live and end): the director's list of seat
links, the one-time sign-in that turns a link into the seat's token, the table card's sign-in (reusable for the
session: the token of the table's current round), and the director's revocation."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from .auth import SEAT_LETTERS, SeatGrant
from .container import Service
from .deps import director, service
from .visibility import Viewer

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


def _seat_entry(svc: Service, table_id: str, seat: str) -> dict[str, Any]:
    link = svc.tokens.seat_link(table_id, seat)
    g = svc.tokens.grant("link", link)
    return {"token": svc.tokens.seat_token(table_id, seat), "link": f"/seat#signin={link}",
            "page": f"/seat#signin={link}", "round": g.round, "pair": pair_of(svc, g),
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
    return JSONResponse({"token": tokens.seat_token(g.table, g.seat), "role": "seat", "table": g.table,
                         "seat": g.seat, "round": g.round, "pair": pair_of(svc, g)}, headers=NO_STORE)


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
    return JSONResponse({"token": tokens.seat_token(g.table, g.seat), "role": "seat", "table": g.table,
                         "seat": g.seat, "round": g.round, "pair": pair_of(svc, g)}, headers=NO_STORE)


@router.post("/tables/{table_id}/revoke", summary="end the seats' sign-ins and links at once; new links follow "
             "(director)")
async def revoke(table_id: str = Path(..., pattern=TABLE_ID), seat: str | None = Query(None, pattern="^[NESW]$"),
                 svc: Service = Depends(service), v: Viewer = Depends(director)) -> JSONResponse:
    svc.club.table(table_id)
    seats = [seat] if seat else list(SEAT_LETTERS)
    row = await svc.club.append_club("revoke", {"tables": [table_id], "seats": seats})
    svc.tokens.apply_row("revoke", row.body)
    return JSONResponse({"seq": row.seq, "revoked": seats,
                         "seats": {s: _seat_entry(svc, table_id, s) for s in seats}}, headers=NO_STORE)

