"""Table cards (director): per table, each seat's reusable card link ``<base>/seat#card=<code>`` and its QR
code as SVG (segno), for the printable cards page (``static/cards.html``). ``<base>`` is the address the
director's browser used, so the console opened on the machine's LAN address prints codes the tablets can
reach. How a card code lives and ends: ``service/live/auth.py``."""
from __future__ import annotations

import functools
from typing import Any

import segno
from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse

from service.api.deps import director, service
from service.live.auth import SEAT_LETTERS
from service.live.visibility import Viewer
from service.wiring.container import Service

router = APIRouter(prefix="/api")
TABLE_ID = r"^[A-Za-z0-9_-]{1,32}$"
NO_STORE = {"Cache-Control": "no-store"}


@functools.lru_cache(maxsize=1024)
def qr_svg(text: str, title: str) -> str:
    """An inline SVG QR code of ``text`` (error correction M, the standard four-module quiet zone); sized by CSS.
    Kept once made: a card's link lasts until the director renews it, and making one costs ~5 ms in the event loop
    (the cards page of 60 tables asked again and again would stop every table for 1.3 s each time)."""
    return str(segno.make(text, error="m", micro=False).svg_inline(scale=1, border=4, omitsize=True, title=title,
                                                                    dark="#000", light="#fff"))


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def table_cards(svc: Service, table_id: str, base: str) -> dict[str, Any]:
    svc.club.table(table_id)
    event = svc.tournament.session.name if svc.tournament is not None else ""
    seats = {}
    for seat in SEAT_LETTERS:
        link = f"{base}/seat#card={svc.tokens.card_code(table_id, seat)}"
        seats[seat] = {"link": link, "svg": qr_svg(link, f"table {table_id} seat {seat}"),
                       "generation": svc.tokens.generations.get((table_id, seat), 0)}
    return {"table": table_id, "event": event, "seats": seats}


def _ordered(ids: list[str]) -> list[str]:
    return sorted(ids, key=lambda s: (len(s), s))


@router.get("/cards", summary="every table's card: each seat's reusable link and QR code (director)")
async def all_cards(request: Request, svc: Service = Depends(service),
                    v: Viewer = Depends(director)) -> JSONResponse:
    base = _base(request)
    return JSONResponse([table_cards(svc, tid, base) for tid in _ordered(list(svc.club.tables))], headers=NO_STORE)


@router.get("/tables/{table_id}/cards", summary="a table's card: each seat's reusable link and QR code (director)")
async def cards(request: Request, table_id: str = Path(..., pattern=TABLE_ID), svc: Service = Depends(service),
                v: Viewer = Depends(director)) -> JSONResponse:
    return JSONResponse(table_cards(svc, table_id, _base(request)), headers=NO_STORE)
