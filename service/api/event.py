"""The event's API: ``GET /api/public/results`` (the live-results page's data, ``service/event/public_screen.py``),
``GET /api/event`` and ``POST /api/event/round`` (the director puts tables in a round), ``GET /api/vugraph`` and
``POST /api/tables/{id}/vugraph`` (the director marks a vugraph table). The event itself is
``service/event/tournament.py``; who sees which board, ``service/event/board_rule.py``.
"""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Body, Depends, Path, Query

from service.api.deps import director, service, viewer
from service.errors import Invalid, NotFound
from service.live.visibility import Viewer
from service.wiring.container import Service
from table.texts import Text

router = APIRouter(prefix="/api")


@router.get("/public/results", summary="live results: released travellers and the ranking from them",
            description="No token: the public view (boards every scheduled table has completed, or the director "
                        "released), with the hands and the double-dummy par of each public board. A seat token: that "
                        "table's view (never a board the table still has to play). "
                        "The director's token: everything. `since=<revision>` answers `{unchanged: true}` when "
                        "nothing changed.")
async def public_results(since: int | None = Query(None, ge=0), svc: Service = Depends(service),
                         v: Viewer = Depends(viewer)) -> dict[str, Any]:
    screen = svc.screen
    if screen is None:
        raise NotFound(Text("refusal.starting", "the service is starting"))
    if since is not None and since == screen.revision():
        return {"revision": since, "unchanged": True}
    return screen.view(v)


@router.get("/event", summary="the event: movement, rounds per table with their round clock (late: over time "
            "and not finished) (director: wrong-board alerts)")
async def event_info(svc: Service = Depends(service), v: Viewer = Depends(viewer)) -> dict[str, Any]:
    ev = svc.tournament
    if ev is None:
        return {"event": None}
    if v.role == "spectator":                   # the spectators' delayed copies, as on every public view
        copies = {tid: feed.replica for tid, feed in svc.club.feeds.items()}
        done = {tid: {n for n in rt.boards if rt.completed(n)} for tid, rt in copies.items()}
        progress = ev.progress(done, copies)
    else:
        progress = ev.progress(ev._state()[0])
    now = datetime.now(UTC)
    for entry in progress:                      # the round clock (service/event/clock.py)
        entry.update(ev.clock_of(entry["table"], now))
    out: dict[str, Any] = {"event": ev.summary(), "revision": ev.revision, "progress": progress,
                           "clock": {"minutes": ev.clock.minutes, "now": now.isoformat(timespec="seconds")}}
    if v.role == "director":
        out["alerts"] = list(ev.alerts)
        out["members"] = len(svc.members)
        out["lead_check"] = svc.lead_check.setting if svc.lead_check is not None else None
    return out


@router.post("/event/round", summary="put tables in a round (director)")
async def event_round(body: dict[str, Any] = Body(..., examples=[{"round": 2, "tables": ["1", "2"]}]),
                      svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    ev = svc.tournament
    if ev is None:
        raise NotFound(Text("refusal.no_event", "no event is configured"))
    rnd, tables = body.get("round"), body.get("tables")
    if isinstance(rnd, bool) or not isinstance(rnd, int):
        raise Invalid(Text("refusal.round_integer", "round is an integer"))
    if tables is not None and (not isinstance(tables, list) or not all(isinstance(t, str) for t in tables)):
        raise Invalid(Text("refusal.tables_list", "tables is a list of table ids"))
    row = await ev.set_round(rnd, tables)
    return {"seq": row.seq, "rounds": {t: ev.rounds[t] for t in row.body["tables"]}}


# ---------------------------------------------------------------------------------------------- vugraph tables
@router.get("/vugraph", summary="the tables marked as vugraph tables (their delayed live view is public)")
async def vugraph_tables(svc: Service = Depends(service)) -> dict[str, Any]:
    rule = svc.rule
    return {"tables": sorted(rule.vugraph) if rule is not None else []}


@router.post("/tables/{table_id}/vugraph", summary="mark or unmark a vugraph table (director; journalled)",
             description="A vugraph table (a team match's open room, a final) shows its play to anonymous "
                         "spectators, after the spectator delay, even while other tables still have its boards "
                         "to play. Body: `{\"on\": true}` or `{\"on\": false}`.")
async def set_vugraph(table_id: str = Path(..., pattern=r"^[A-Za-z0-9_-]{1,32}$"),
                      body: dict[str, Any] = Body(..., examples=[{"on": True}]),
                      svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    on = body.get("on")
    if not isinstance(on, bool):
        raise Invalid(Text("refusal.on_boolean", "on is true or false"))
    if svc.rule is None:
        raise NotFound(Text("refusal.no_rule", "the service runs no visibility rule"))
    row = await svc.rule.set_vugraph(table_id, on)
    return {"seq": row.seq, "table": table_id, "vugraph": on, "tables": sorted(svc.rule.vugraph)}
