"""The club's default language for every page (``GET /api/language``, anyone; ``POST /api/language``, the
director, journalled as a club row ``language``). A browser's own choice (``?lang=``, remembered) still wins;
without a club default (``null``) each browser follows its own languages (``static/common.js``)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fastapi import APIRouter, Body, Depends

from service.api.deps import director, service
from service.errors import Invalid
from service.live.visibility import Viewer
from service.store.journal import CLUB, Row
from service.wiring.container import Service
from table.texts import Text

router = APIRouter(prefix="/api")
LANGUAGES = ("en", "zh-Hant")


def journalled_language(rows: Iterable[Row]) -> str | None:
    """The last default the director set (start-up replays the club's rows)."""
    lang = None
    for row in rows:
        if row.table_id == CLUB and row.kind == "language":
            lang = row.body.get("language")
    return lang if lang in LANGUAGES else None


@router.get("/language", summary="the club's default language for the pages (null: each browser's own)")
async def get_language(svc: Service = Depends(service)) -> dict[str, Any]:
    return {"language": svc.language, "languages": list(LANGUAGES)}


@router.post("/language", summary="set the club's default language (director; journalled)")
async def set_language(body: dict[str, Any] = Body(..., examples=[{"language": "zh-Hant"}]),
                       svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    lang = body.get("language")
    if lang is not None and lang not in LANGUAGES:
        raise Invalid(Text("refusal.language", "language is one of {languages} (or null: each browser's own)",
                              languages=", ".join(LANGUAGES)))
    row = await svc.club.append_club("language", {"language": lang})
    svc.language = lang
    return {"seq": row.seq, "language": lang}
