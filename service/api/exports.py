"""Downloads of the running event for the director (the console's exports section, ``static/console_exports.js``):
``GET /api/exports/{usebio|pbn|csv|lin}`` from the live session (``svc.tournament.session``) through the writers
in ``results/``, and ``GET /api/exports/handrecords``: the hand-record sheets (``table/handrecords/sheets.py``,
each board's diagram, double-dummy table and par). Each board's deal is the evening's hand record when the event
has a set (every board of the set has its sheet, played or not: the sheets are the director's), else the deal a
table read (``HandRecords.deals``). Each answer is an attachment with a file name from the event's name and date."""
from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable
from datetime import date

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import JSONResponse, Response

from results import ResultsError, lin_results, ranking_csv, results_pbn_text, travellers_csv, usebio_xml
from results.session import Session
from service.api.deps import director, service
from service.errors import Conflict, NotFound, Unavailable
from service.event.hand_records import HandRecord
from service.live.visibility import Viewer
from service.wiring.container import Service
from table.board import Vulnerability
from table.cards import CardError, Deal
from table.handrecords.base import HandRecordBoard
from table.handrecords.sheets import render
from table.texts import Text

router = APIRouter(prefix="/api")


def _session(svc: Service) -> Session:
    """The live event's session, with each board's deal (the exports print them)."""
    if svc.tournament is None:
        raise NotFound(Text("refusal.exports_no_event", "no event is running: the exports need one (an [event] in "
                                "the configuration)"))
    session = svc.tournament.session
    session.deals.update({n: r.deal for n, r in _records(svc).items()})
    return session


def _records(svc: Service) -> dict[int, HandRecord]:
    """Board number -> its deal, dealer and vulnerability: the hand record, else the first table's that dealt it."""
    if svc.hand_records is None:
        raise Unavailable(Text("refusal.records_store_down", "the hand-record store is not running"))
    return svc.hand_records.deals()


def _stem(svc: Service) -> str:
    s = svc.tournament.session if svc.tournament is not None else None
    name = re.sub(r"[^A-Za-z0-9]+", "-", s.name if s is not None else "").strip("-").lower() or "bridgetable"
    day = (s.date if s is not None and s.date else date.today().isoformat()).replace(".", "-")
    return f"{name[:60]}-{day}"


def _attachment(body: bytes, filename: str, media_type: str) -> Response:
    return Response(body, media_type=media_type, headers={
        "Content-Disposition": f'attachment; filename="{filename}"', "Cache-Control": "no-store"})


def _lin_zip(session: Session) -> bytes:
    """One LIN text per board (pairs) or match (teams) in a ZIP: a LIN file holds one such header."""
    texts = lin_results(session)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for text in texts:
            head = text.split("|", 2)[1].split(",")
            name = re.sub(r"[^A-Za-z0-9]+", "-", head[1] if len(head) > 1 else str(len(z.namelist()) + 1)).lower()
            z.writestr(f"{name.strip('-') or len(z.namelist()) + 1}.lin", text)
    return buf.getvalue()


EXPORTS: dict[str, tuple[str, str, Callable[[Session, str], bytes]]] = {
    "usebio": ("xml", "application/xml", lambda s, _part: usebio_xml(s)),
    "pbn": ("pbn", "text/plain; charset=utf-8", lambda s, _part: results_pbn_text(s, per_result=True).encode()),
    "csv": ("csv", "text/csv; charset=utf-8",
            lambda s, part: (ranking_csv(s) if part == "ranking" else travellers_csv(s)).encode()),
    "lin": ("zip", "application/zip", lambda s, _part: _lin_zip(s)),
}


@router.get("/exports/handrecords", summary="the hand-record sheets (HTML, print to A4): the evening's hand "
            "records, else the boards dealt (director)")
async def handrecords(svc: Service = Depends(service), v: Viewer = Depends(director)) -> Response:
    boards, keys = [], []
    for n, r in _records(svc).items():
        try:
            boards.append(HandRecordBoard.of(n, Deal.from_pbn(r.deal), r.dealer or None,
                                             Vulnerability(r.vulnerable) if r.vulnerable else None))
        except (CardError, ValueError):
            continue                                   # a board whose cards are not all known has no sheet
        keys.append((n, r.deal, r.dealer, r.vulnerable))
    if not boards:
        raise Conflict(Text("refusal.no_known_cards", "no board with known cards has been dealt yet"))
    analyses = svc.analyses
    if analyses is None:
        raise Unavailable(Text("refusal.analysis_down", "the double-dummy analysis is not running"))
    waiting = [k for k in keys if not analyses.ready(k)]
    if waiting:                                        # the solver runs off the event loop: never wait for it here
        analyses.warm(waiting)                         # 202: accepted, under way; ask again (not a failure)
        return JSONResponse({"detail": f"the double-dummy analysis is still being computed: "
                                       f"{len(keys) - len(waiting)} of {len(keys)} boards ready; try again in a "
                                       "few seconds", "ready": len(keys) - len(waiting), "boards": len(keys)},
                            status_code=202, headers={"Retry-After": "2", "Cache-Control": "no-store"})
    title = svc.tournament.session.name if svc.tournament is not None else "Hand records"
    page = render(boards, title, [analyses.get(k) for k in keys])
    return _attachment(page.encode(), f"{_stem(svc)}-handrecords.html", "text/html; charset=utf-8")


@router.get("/exports/{kind}", summary="the event's results as USEBIO, PBN, CSV or LIN (director)",
            description="`csv` gives the travellers; `?part=ranking` the ranking. `lin` is a ZIP of one LIN file "
                        "per board (pairs) or match (teams).")
async def export(kind: str = Path(..., pattern="^(usebio|pbn|csv|lin)$"),
                 part: str = Query("travellers", pattern="^(travellers|ranking)$"),
                 svc: Service = Depends(service), v: Viewer = Depends(director)) -> Response:
    ext, media, write = EXPORTS[kind]
    session = _session(svc)
    try:
        body = write(session, part)
    except ResultsError as err:
        raise Conflict(Text("refusal.nothing_to_export", "nothing to export yet: ") + err.args[0]) from err
    suffix = f"-{part}" if kind == "csv" else ""
    return _attachment(body, f"{_stem(svc)}{suffix}.{ext}", media)
