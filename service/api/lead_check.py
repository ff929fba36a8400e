"""The lead check at scoring-only tables (``service/event/lead_check.py``): ``GET /api/event/lead-check`` (the
director) says which of off, warn or must comply applies and where it comes from; ``POST /api/event/lead-check``
``{"mode": "off" | "warn" | "must comply"}`` sets it for the club (director; journalled)."""
from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict

from service.api.deps import director, service
from service.errors import Unavailable
from service.event.lead_check import MODES, LeadCheck
from service.live.visibility import Viewer
from service.wiring.container import Service
from table.texts import Text

router = APIRouter(prefix="/api")


class LeadCheckIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    mode: Literal["off", "warn", "must comply"]


def _check(svc: Service) -> LeadCheck:
    if svc.lead_check is None:
        raise Unavailable(Text("refusal.lead_check_down", "the lead check is not running"))
    return svc.lead_check


def _listing(svc: Service, lc: LeadCheck) -> dict[str, Any]:
    return {"mode": lc.setting or "off", "set_by": "director" if lc.setting is not None else None,
            "modes": list(MODES), "tables": {tid: lc.mode(tid) for tid in sorted(svc.club.tables)}}


@router.get("/event/lead-check", summary="the lead check at scoring-only tables (director)")
async def lead_check(svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    return _listing(svc, _check(svc))


@router.post("/event/lead-check", summary="set the lead check: off, warn, must comply (director; journalled)")
async def set_lead_check(body: LeadCheckIn, svc: Service = Depends(service),
                         v: Viewer = Depends(director)) -> dict[str, Any]:
    lc = _check(svc)
    await lc.set_mode(body.mode)
    return _listing(svc, lc)
