"""The evening's hand records from the console (director only; every change journalled as a club row
``hand_records``, ``service/event/hand_records.py``):

* ``POST /api/event/hand-records`` ``{"filename": "s1.dup", "content_base64": "..."}`` (or ``"content"``: the
  file's text) imports a hand-record file in any format ``table/handrecords`` reads, chosen by the file name's
  suffix; the set must name exactly the event's boards (a clear 422 otherwise) and can be replaced until the
  event's first board starts (409 after);
* ``POST /api/event/hand-records/generate`` deals a fresh set for the event's boards from the operating
  system's CSPRNG (``table/dealgen.py``): nobody can reproduce it;
* ``GET /api/event/hand-records`` lists the set: where it came from, whether it can still be replaced, each
  board's deal, dealer and vulnerability. Only the director reads it: it holds every hand of every board.
"""
from __future__ import annotations

import base64
import binascii
from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from service.api.deps import director, service
from service.errors import Invalid, NotFound, Unavailable
from service.event.hand_records import HandRecord, HandRecords, record
from service.live.visibility import Viewer
from service.wiring.container import Service
from table.dealgen import random_deal, source
from table.handrecords import HandRecordError, format_for
from table.texts import Text

router = APIRouter(prefix="/api")


class HandRecordFileIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    filename: str = Field(..., min_length=1, max_length=200, description="the file's name: its suffix names "
                          "the format (.pbn .lin .csv .dup .dlm .bri .dge .ber .rzd .cds .bhg)")
    content: str | None = Field(None, max_length=900_000, description="the file's text (text formats)")
    content_base64: str | None = Field(None, max_length=900_000, description="the file's bytes, base64")


def _store(svc: Service) -> HandRecords:
    if svc.hand_records is None:
        raise Unavailable(Text("refusal.records_store_down", "the hand-record store is not running"))
    return svc.hand_records


def _listing(store: HandRecords) -> dict[str, Any]:
    ev = store.event
    return {"source": store.source(), "replaceable": ev is not None and not ev.has_play(),
            "boards": [{"board": r.board, "deal": r.deal, "dealer": r.dealer, "vulnerable": r.vulnerable}
                       for r in store.all()]}


def parse_file(filename: str, data: bytes) -> list[HandRecord]:
    """The records of a hand-record file (``Invalid`` with the reader's words when it cannot be used)."""
    try:
        fmt = format_for(filename)
        boards = fmt.read(data, filename)
    except HandRecordError as err:
        raise Invalid(err.args[0]) from None            # its Text: a page words it
    return [record(b.board, b.deal.to_pbn(), str(b.dealer), str(b.vulnerable)) for b in boards]


@router.get("/event/hand-records", summary="the event's hand records: source, deals (director)")
async def hand_records(svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    if svc.tournament is None:
        raise NotFound(Text("refusal.no_event_set_up", "no event is set up: POST /api/event"))
    return _listing(_store(svc))


@router.post("/event/hand-records", summary="import the session's hand-record file (director; journalled)")
async def import_hand_records(body: HandRecordFileIn, svc: Service = Depends(service),
                              v: Viewer = Depends(director)) -> dict[str, Any]:
    if (body.content is None) == (body.content_base64 is None):
        raise Invalid(Text("refusal.records_content", "give the file as exactly one of content (text) or "
                              "content_base64 (bytes)"))
    if body.content is not None:
        data = body.content.encode("utf-8")
    else:
        try:
            data = base64.b64decode(body.content_base64 or "", validate=True)
        except (binascii.Error, ValueError):
            raise Invalid(Text("refusal.records_base64", "content_base64 is not base64")) from None
    store = _store(svc)
    await store.put(parse_file(body.filename, data), source=body.filename)
    return _listing(store)


@router.post("/event/hand-records/generate", summary="deal a fresh, secure set for the event's boards "
             "(director; journalled)")
async def generate_hand_records(svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    store = _store(svc)
    ev = store.event
    if ev is None:
        raise NotFound(Text("refusal.no_event_set_up", "no event is set up: POST /api/event"))
    rng = source()                                   # the OS's CSPRNG: no seed, nobody can deal it again
    await store.put([record(n, random_deal(rng).to_pbn()) for n in sorted(set(ev.schedule))], source="generated")
    return _listing(store)
