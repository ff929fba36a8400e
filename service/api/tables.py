"""The REST API under /api: tables, events, irregularities, rulings, boards, adjustments, results.

Every view answers the movement's rule (``service/event/board_rule.py``: nothing of a board the viewer's pair, or
for an anonymous viewer any table, still has to play) and gives anonymous viewers the spectators' delayed
copies of the tables."""
from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

from fastapi import APIRouter, Depends, Path, Query

from service.api.deps import director, service, token, viewer
from service.api.models import AdjustmentIn, EventIn, RulingIn
from service.errors import Forbidden, Invalid, NotFound, Unauthenticated
from service.live.lawtext import LawTextError, edition_name, law_text, statement
from service.live.runtime import TableRuntime
from service.live.visibility import NOTHING, Viewer, summary, turn_of
from service.wiring.container import Service
from table.texts import Text, translatable

router = APIRouter(prefix="/api")
TableId = Path(..., pattern=r"^[A-Za-z0-9_-]{1,32}$")
BoardNo = Path(..., ge=1, le=9999)


def _table(svc: Service, table_id: str, v: Viewer) -> TableRuntime:
    """The runtime ``v`` looks at: spectators see the delayed copy; a seat only its own table."""
    rt = svc.club.table(table_id)
    if v.role == "seat" and v.table != table_id:
        raise Forbidden(Text("refusal.other_table", "this seat token belongs to table {table}", table=v.table))
    return svc.club.feeds[table_id].replica if v.role == "spectator" else rt


def _hidden(svc: Service, v: Viewer) -> AbstractSet[int]:
    """The boards ``v`` may see nothing of (records, results)."""
    rule = svc.hub.rule
    return rule.hidden(v) if rule is not None else NOTHING


@router.get("/health", summary="up or down; the counts for the director")
async def health(svc: Service = Depends(service), tok: str | None = Depends(token)) -> dict[str, Any]:
    """``{"status": "ok"}`` or ``"journal stopped"`` for anyone (what a monitoring probe needs). The counts and
    the journal's failure only with the director's token: a live count of events would tell an anonymous viewer
    that a table with a withheld board plays on."""
    failure = svc.journal.failure
    status = "ok" if failure is None else "journal stopped"
    try:
        role = svc.tokens.viewer(tok).role
    except Unauthenticated:                      # a probe with a stale token still learns whether the service is up
        role = "spectator"
    if role != "director":
        return {"status": status}
    a = svc.analyses
    return {"status": status, "tables": len(svc.club.tables), "events": svc.club.events_acknowledged,
            "subscribers": svc.hub.count(), "journal": svc.settings.database, "journal_failure": failure,
            "analyses": {"done": a.count if a else 0, "pending": a.pending if a else 0}}


@router.get("/whoami", summary="the role a token stands for")
async def whoami(v: Viewer = Depends(viewer)) -> dict[str, Any]:
    return {"role": v.role, "table": v.table, "seat": v.seat}


@router.get("/tables", summary="every table at a glance")
async def tables(svc: Service = Depends(service), v: Viewer = Depends(viewer)) -> list[dict[str, Any]]:
    out = []
    for tid in sorted(svc.club.tables, key=lambda s: (len(s), s)):
        rt = svc.club.tables[tid] if v.role != "spectator" else svc.club.feeds[tid].replica
        out.append(summary(rt, v, svc.hub.rule.hidden_at(tid, v) if svc.hub.rule is not None else NOTHING))
    return out


@router.get("/tables/{table_id}", summary="the table as the caller may see it")
async def table_state(table_id: str = TableId, svc: Service = Depends(service),
                      v: Viewer = Depends(viewer)) -> dict[str, Any]:
    rt = _table(svc, table_id, v)
    async with svc.club.lock(table_id):
        return svc.hub.state(rt, v)


@router.get("/tables/{table_id}/events", summary="the table's journal: who, what, when (director)")
async def table_events(table_id: str = TableId, board: int | None = Query(None, ge=1, le=9999),
                       after: int = Query(0, ge=0), svc: Service = Depends(service),
                       v: Viewer = Depends(director)) -> list[dict[str, Any]]:
    rt = svc.club.table(table_id)
    recs = [rt.boards[board]] if board is not None and board in rt.boards else ([] if board else rt.boards.values())
    rows = sorted((r for rec in recs for r in rec.rows if r.seq > after), key=lambda r: r.seq)
    return [r.to_dict() for r in rows]


@router.post("/tables/{table_id}/events", summary="post a table event",
             responses={401: {"description": "no valid token"}, 403: {"description": "not this caller's to post"},
                        409: {"description": "the event cannot apply (TableError), or prevent mode refused it"},
                        422: {"description": "malformed event"}})
async def post_event(body: EventIn, table_id: str = TableId, svc: Service = Depends(service),
                     v: Viewer = Depends(viewer)) -> Any:
    return await _submit(svc, table_id, body.model_dump(exclude_none=True), v)


@router.post("/tables/{table_id}/rulings", summary="choose a rectification (director, or the entitled player)",
             responses={403: {"description": "the choice is not this caller's"},
                        409: {"description": "nothing open to rule on, or not an option"}})
async def post_ruling(body: RulingIn, table_id: str = TableId, svc: Service = Depends(service),
                      v: Viewer = Depends(viewer)) -> Any:
    return await _submit(svc, table_id, {"type": "ruling", **body.model_dump(exclude_none=True)}, v)


async def _submit(svc: Service, table_id: str, data: dict[str, Any], v: Viewer) -> Any:
    if v.role == "spectator":
        raise Unauthenticated(Text("refusal.posting_token", "posting needs a director or seat token"))
    actor = "director" if v.role == "director" else f"seat:{v.table}:{v.seat}"
    device = None if v.role == "director" else ("box" if data.get("type") == "call" else
                                                 "reader" if data.get("type") == "card" else None)
    warning = None
    if v.role == "seat" and v.table == table_id and data.get("type") == "result" and svc.lead_check is not None:
        warning = await svc.lead_check.vet(svc.club.table(table_id), data, v.seat)   # 409 under must comply
    row, flagged = await svc.club.submit(table_id, data, actor, viewer=v, device=device)
    rt = svc.club.table(table_id)
    out = {"table": table_id, "seq": row.seq, "at": row.at, "phase": rt.table.state, "turn": turn_of(rt.table),
           "flagged": svc.club.flagged_for(rt, v, flagged)}
    if warning:
        out["warning"] = {"code": "LEAD_NOT_IN_HAND", "text": warning, **translatable(warning, "text")}
    return out


@router.get("/tables/{table_id}/irregularities",
            summary="the current board's irregularities as the caller may see them")
async def irregularities(table_id: str = TableId, svc: Service = Depends(service),
                         v: Viewer = Depends(viewer)) -> list[dict[str, Any]]:
    rt = _table(svc, table_id, v)
    async with svc.club.lock(table_id):
        irrs: list[dict[str, Any]] = svc.hub.state(rt, v)["irregularities"]
        return irrs


def _may_see_board(rt: TableRuntime, number: int, v: Viewer, hidden: AbstractSet[int]) -> bool:
    if v.role == "director":
        return True
    rec = rt.boards.get(number)
    if rec is None or number in hidden:
        return False
    # a board put back unfinished is no record to show (service/live/obligations.py: not played)
    return rt.finished(number) and ((v.role == "seat" and v.table == rt.id) or number in rt.released)


@router.get("/tables/{table_id}/boards", summary="boards played at the table")
async def boards(table_id: str = TableId, svc: Service = Depends(service),
                 v: Viewer = Depends(viewer)) -> list[dict[str, Any]]:
    rt = _table(svc, table_id, v)
    hidden = _hidden(svc, v)
    out = []
    for n, rec in sorted(rt.boards.items()):
        entry: dict[str, Any] = {"board": n, "dealer": rec.dealer, "vulnerable": rec.vulnerable,
                                 "current": rec is rt.current, "started": rec.started_at}
        if _may_see_board(rt, n, v, hidden):
            entry["result"] = rt.result(n)
            entry["adjustment"] = rec.adjustment
        out.append(entry)
    return out


@router.get("/tables/{table_id}/boards/{number}", summary="a board's full record")
async def board(table_id: str = TableId, number: int = BoardNo, svc: Service = Depends(service),
                v: Viewer = Depends(viewer)) -> dict[str, Any]:
    svc.club.table(table_id)
    rt = svc.club.feeds[table_id].replica if v.role == "spectator" else svc.club.tables[table_id]
    async with svc.club.lock(table_id):          # the live table, not an event awaiting its journal write
        rec = rt.boards.get(number)
        if rec is None:
            raise NotFound(Text("refusal.not_played", "table {table} has not played board {board}", table=table_id,
                                board=number))
        hidden = _hidden(svc, v)
        if v.role == "seat" and number in hidden:                 # Laws 16B, 90B4: the pair's and table's rule
            raise Forbidden(Text("refusal.still_to_play", "your pair or table still has to play board {board}",
                                 board=number))
        if not _may_see_board(rt, number, v, hidden):
            refusal = Unauthenticated if v.role == "spectator" else Forbidden
            raise refusal("this board's record is not released to you")
        current = rec is rt.current
        irrs = ([dict(i.to_dict(), open=i.open, law_text=statement(i.law)) for i in rt.table.irregularities] if current
                else [dict(i, law_text=statement(i.get("law"))) for i in rec.irregularities])
        out: dict[str, Any] = {"table": table_id, "board": number, "dealer": rec.dealer, "vulnerable": rec.vulnerable,
                               "deal": rec.deal, "result": rt.result(number), "adjustment": rec.adjustment,
                               "irregularities": irrs}
        if v.role == "director":
            out["journal"] = [r.to_dict() for r in rec.rows]
        else:
            out["events"] = [r.body for r in rec.rows if r.kind == "event"]
        return out


@router.post("/tables/{table_id}/boards/{number}/adjustment", summary="Law 12 adjusted score (director)")
async def adjust(body: AdjustmentIn, table_id: str = TableId, number: int = BoardNo,
                 svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    row = await svc.club.adjust(table_id, number, body.model_dump(exclude_none=True))
    return {"seq": row.seq, "adjustment": row.body}


@router.get("/results", summary="results per board (released boards; the director sees all)")
async def results(svc: Service = Depends(service), v: Viewer = Depends(viewer)) -> list[dict[str, Any]]:
    hidden = _hidden(svc, v)
    return [b for b in svc.club.results(v) if b["board"] not in hidden]


@router.post("/boards/{number}/release", summary="release a board's results and hands (director)",
             description="A board some table still has to play is refused (409, `tables`: which) unless "
                         "`force=true`; even then a pair that still has to play it sees nothing of it.")
async def release(number: int = BoardNo, force: bool = Query(False), svc: Service = Depends(service),
                  v: Viewer = Depends(director)) -> dict[str, Any]:
    row = await svc.club.release(number, force=force)
    return {"board": number, "seq": row.seq, "forced": bool(row.body.get("force"))}


@router.get("/devices", summary="device health per table (director)")
async def devices(svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    return {tid: [d.health() for d in rt.devices] for tid, rt in svc.club.tables.items() if rt.devices}


@router.get("/laws/{law}", summary="the text of a law in an edition (default: the regulation's)",
            responses={404: {"description": "no text of this law or of a parent"},
                       422: {"description": "unknown edition or language"}})
async def law(law: str = Path(..., max_length=10),
              edition: str | None = Query(None, max_length=20, description="wbf1997-cba1999 (1997) or wbf2017 (2017)"),
              lang: str | None = Query(None, max_length=2, description="zh: Chinese (the seed's text; for 2017 "
                                       "the project's summary); en: English"),
              table: str | None = Query(None, pattern=r"^[A-Za-z0-9_-]{1,32}$",
                                        description="the edition of this table's current board"),
              svc: Service = Depends(service)) -> dict[str, Any]:
    if edition is None and table is not None:
        edition = svc.club.table(table).table.edition.name
    try:
        found = law_text(law, edition_name(edition, svc.club.regulation.law_edition), lang)
    except LawTextError as err:
        raise Invalid(err.args[0]) from err
    if found is None:
        raise NotFound(Text("refusal.no_law_text", "no statement of law '{law}'", law=law))
    return found


# ---------------------------------------------------------------------------------------------- live upload
@router.get("/uploads", summary="live-upload targets: queued, delivered, failed, last error (director)")
async def uploads(svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    if svc.uploads is None:
        return {"source": None, "messages": 0, "targets": []}
    return await svc.uploads.stats()


@router.post("/uploads/{target}/retry", summary="queue a target's failed uploads again (director)")
async def uploads_retry(target: str = Path(..., pattern=r"^[A-Za-z0-9_-]{1,32}$"), svc: Service = Depends(service),
                        v: Viewer = Depends(director)) -> dict[str, Any]:
    if svc.uploads is None or target not in svc.uploads.targets:
        raise NotFound(Text("refusal.no_upload_target", "no upload target '{target}'", target=target))
    return {"target": target, "requeued": await svc.uploads.retry_failed(target)}
