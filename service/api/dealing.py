"""The dealing machine from the console (director only; ``service/event/dealing_machine.py`` runs it):

* ``POST /api/event/dealing`` ``{"machine": "/dev/ttyUSB0"}`` deals the evening's hand records on the machine
  at that serial port (or ``socket://HOST:PORT``; ``"sim"``, with optional ``"faults"``, a simulated machine
  when the service runs simulated tables). It answers once the machine is connected: 404 with no event, 409
  with no hand records, while a run is on, or when the machine does not answer; 422 for a malformed request;
* ``GET /api/event/dealing`` the run as it stands: each board's verification, the problems in words, the board
  waiting for the volunteer's fix and its choices, at the end whether the dealt set is the hand records (the
  same snapshot is pushed to the director's ``/ws/club`` as ``{"type": "dealing", ...}``);
* ``POST /api/event/dealing/decision`` ``{"board": 7, "decision": "continue"}`` the fix for the board waiting:
  ``continue`` (done as the console said), ``redeal`` (the cards are back in the machine), ``skip``, ``abort``.
"""
from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from service.api.deps import director, service
from service.errors import NotFound, Unavailable
from service.event.dealing_machine import DealingDesk
from service.live.visibility import Viewer
from service.wiring.container import Service
from table.texts import Text

router = APIRouter(prefix="/api")


class DealingIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    machine: str = Field(..., min_length=1, max_length=300, description="the machine's serial port "
                         "(/dev/ttyUSB0, COM3), socket://HOST:PORT, or sim (a simulated machine)")
    faults: str | None = Field(None, max_length=300, description="simulated machine only: faults per board, "
                               "e.g. wrong_pocket=0.1,duplicate=0.1,seed=3")


class DecisionIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    board: int = Field(..., ge=1, le=65535)
    decision: Literal["continue", "redeal", "skip", "abort"]


def desk(svc: Service) -> DealingDesk:
    if svc.dealing is None:
        raise Unavailable(Text("refusal.dealing_down", "the dealing machine's desk is not running"))
    return svc.dealing


@router.get("/event/dealing", summary="the dealing machine's run: each board's verification, the fix "
            "awaited (director)")
async def dealing(svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    if svc.tournament is None:
        raise NotFound(Text("refusal.no_event_set_up", "no event is set up: POST /api/event"))
    return desk(svc).snapshot()


@router.post("/event/dealing", summary="deal the evening's hand records on the dealing machine (director)")
async def start_dealing(body: DealingIn, svc: Service = Depends(service),
                        v: Viewer = Depends(director)) -> dict[str, Any]:
    return await desk(svc).start(body.machine, body.faults)


@router.post("/event/dealing/decision", summary="the volunteer's fix for the board waiting (director)")
async def decide(body: DecisionIn, svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    return desk(svc).decide(body.board, body.decision)
