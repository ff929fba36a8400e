"""The director's view of every board of the movement (``GET /api/event/boards``: each table x round x board
with its state, result and adjustment) for the console's boards section (``static/console_boards.js``), and
late play (``POST /api/tables/{id}/late-play``, journalled: ``LiveTournament.set_late_play``). Adjusting any
board, also one the table never started ("not played": an artificial score), goes through
``POST /api/tables/{id}/boards/{n}/adjustment`` (``Club.adjust``)."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path
from pydantic import BaseModel, ConfigDict, Field

from service.api.deps import director, service
from service.errors import NotFound
from service.live.visibility import Viewer
from service.wiring.container import Service
from table.texts import Text

router = APIRouter(prefix="/api")


class LatePlayIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    board: int = Field(..., ge=1, le=9999)
    on: bool = True


def _state(svc: Service, table_id: str, n: int, late: bool) -> dict[str, Any]:
    rt = svc.club.tables[table_id]
    rec = rt.boards.get(n)
    if rec is None:
        return {"state": "late" if late else "not_started", "result": None, "adjustment": None}
    if rec.not_played:
        state = "not_played"
    else:
        state = "complete" if rt.completed(n) else "in_play"
    res = rt.result(n) if state == "complete" else None
    return {"state": state, "adjustment": rec.adjustment,
            "result": None if res is None else {k: res.get(k) for k in ("contract", "declarer", "tricks", "score_ns")}}


@router.get("/event/boards", summary="every table x round x board of the movement with its state (director)")
async def event_boards(svc: Service = Depends(service), v: Viewer = Depends(director)) -> list[dict[str, Any]]:
    ev = svc.tournament
    if ev is None:
        raise NotFound(Text("refusal.no_event", "no event is configured"))
    out = []
    for tid, (plan, mt) in sorted(ev.where.items(), key=lambda kv: (kv[1][0].id, kv[1][1])):
        late = ev.late.get(tid, set())
        for s in sorted((s for s in plan.movement.sittings if s.table == mt and not s.sit_out),
                        key=lambda s: s.round):
            for n in s.boards:
                out.append({"table": tid, "section": plan.id, "round": s.round, "board": n, "ns": s.ns,
                            "ew": s.ew, "ns_label": plan.movement.label(s.ns) if s.ns is not None else None,
                            "ew_label": plan.movement.label(s.ew) if s.ew is not None else None,
                            "current_round": ev.rounds[tid], "late": n in late,
                            **_state(svc, tid, n, n in late)})
    return out


@router.post("/tables/{table_id}/late-play", summary="let a table play a board of an earlier round later "
             "(director; journalled)")
async def late_play(body: LatePlayIn, table_id: str = Path(..., pattern=r"^[A-Za-z0-9_-]{1,32}$"),
                    svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    ev = svc.tournament
    if ev is None:
        raise NotFound(Text("refusal.no_event", "no event is configured"))
    row = await ev.set_late_play(table_id, body.board, body.on)
    return {"seq": row.seq, "table": table_id, "board": body.board, "late": sorted(ev.late.get(table_id, ()))}
