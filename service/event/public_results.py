"""Who may see which results: the rule of the live-results page, as pure functions (no service state).

Laws 16B and 90B4: a player who may still play a board must not learn its result, so a board's traveller
is public only when **every table the movement schedules to play it has completed it** (or the director
released it explicitly, ``POST /api/boards/{n}/release``). Tables that started the board without the
movement saying so (a wrong board, a table outside the event) count too: they must finish it as well.
The ranking on a page is computed only from the boards that page shows, otherwise a jump in the ranking
would tell a board's result. A table's own view (a seat token) never includes a board its table still has
to play — scheduled at that table and not completed there, or started there and not finished — even if it
was released club-wide by mistake: the table-specific rule wins.

The live service keeps who still has to play what incrementally (``service/live/obligations.py``: a board started
and put back is not played there); these functions state the page's rule on plain data.

The inputs are plain data: ``schedule`` maps a board number to the (service) table ids the movement
schedules to play it; ``completed`` and ``started`` map a table id to the board numbers it has completed
and started. :func:`results_payload` turns a :class:`results.Session` and a set of visible boards into the
JSON the page shows; it reads only the results of those boards.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from types import MappingProxyType
from typing import Any, TypedDict

from results import BoardResult, Movement, RankRow, Section, Session
from results.scoring import LineScore, award_text

Schedule = Mapping[int, AbstractSet[str]]
Boards = Mapping[str, AbstractSet[int]]
NO_BOARDS: Boards = MappingProxyType({})


class TravellerRow(TypedDict, total=False):
    """One result of a board on the page (``law`` only on an adjusted score)."""
    section: str
    table: str
    movement_table: int | None
    round: int | None
    ns: int
    ns_label: str
    ns_names: str
    ew: int
    ew_label: str
    ew_names: str
    contract: str | None
    declarer: str | None
    tricks: int | None
    result: str | None
    lead: str | None
    score_ns: int | None
    adjusted: str | None
    law: str
    ns_value: float | None
    ew_value: float | None
    ns_percent: float | None
    ew_percent: float | None
    datum: int | None


class SectionTraveller(TypedDict):
    section: str
    rows: list[TravellerRow]


class BoardEntry(TypedDict, total=False):
    """A board on the page: its travellers when visible, else why it is hidden."""
    board: int
    visible: bool
    tables: int
    played: int
    travellers: list[SectionTraveller]
    reason: str


class SectionRanking(TypedDict):
    section: str
    rows: list[RankingRow]


class RankingRow(TypedDict):
    place: str
    entrant: int
    label: str
    names: str
    score: float | None
    total: float | None
    top: float | None
    boards: int
    field: str

UNITS = {"MP": "%", "XIMP": "IMPs", "BUTLER": "IMPs", "TP": "points", "IMP": "IMPs"}


def unmapped(section: str, table: int) -> str:
    """The placeholder id of a movement table no service table plays (it never completes anything)."""
    return f"?{section}:{table}"


def schedule_of(sections: Iterable[tuple[str, Movement, Mapping[str, int]]]) -> dict[int, frozenset[str]]:
    """Board -> the service tables that play it, over every section (the same board number in two sections
    is the same deal, so it waits for both). ``table_map`` maps a service table id to its movement table;
    a movement table without a service table is kept as :func:`unmapped` so its boards never become public
    by the rule. Sit-outs play nothing."""
    out: dict[int, set[str]] = {}
    for sid, mv, table_map in sections:
        by_number = {mt: tid for tid, mt in table_map.items()}
        for s in mv.sittings:
            if s.sit_out:
                continue
            tid = by_number.get(s.table, unmapped(sid, s.table))
            for b in s.boards:
                out.setdefault(b, set()).add(tid)
    return {b: frozenset(ts) for b, ts in out.items()}


def tables_needed(board: int, schedule: Schedule, started: Boards) -> set[str]:
    """Every table that must complete ``board`` before it is public."""
    scheduled, others = _needed(board, schedule, _started_by_board(started))
    return set(scheduled) | others


def _needed(board: int, schedule: Schedule, starters: Mapping[int, AbstractSet[str]]) -> tuple[AbstractSet[str],
                                                                                              set[str]]:
    """``tables_needed`` in two parts, with ``started`` turned round (``_started_by_board``): the tables the
    schedule gives the board (not copied: every table of a 500-table Mitchell) and the others that started it."""
    scheduled = schedule.get(board, frozenset())
    return scheduled, set(starters.get(board, ())) - scheduled


def _started_by_board(started: Boards) -> dict[int, set[str]]:
    """Board -> the tables that started it: ``started`` turned round once per screen, so that every board's
    ``tables_needed`` does not walk every table (a 500-table event asked 500 x 1,000 times per results screen,
    a tenth of a second on the event loop)."""
    out: dict[int, set[str]] = {}
    for t, bs in started.items():
        for b in bs:
            out.setdefault(b, set()).add(t)
    return out


def public_boards(schedule: Schedule, completed: Boards, started: Boards = NO_BOARDS,
                  released: AbstractSet[int] = frozenset(), policy: str = "all_tables") -> set[int]:
    """Boards whose results everyone may see: released by the director, or (unless the regulation leaves
    release to the director alone, ``policy == "director"``) completed at every table that plays it."""
    out = set(released)
    if policy == "director":
        return out
    starters = _started_by_board(started)
    for b in set(schedule) | set(starters):
        scheduled, others = _needed(b, schedule, starters)
        if (scheduled or others) and all(b in completed.get(t, ()) for t in (*scheduled, *others)):
            out.add(b)
    return out


def still_to_play(table: str, schedule: Schedule, completed: Boards, started: Boards = NO_BOARDS) -> set[int]:
    """The boards ``table`` has not completed that the movement schedules there or that it has started."""
    mine = {b for b, ts in schedule.items() if table in ts} | set(started.get(table, ()))
    return mine - set(completed.get(table, ()))


def visible_boards(table: str | None, public: AbstractSet[int], schedule: Schedule, completed: Boards,
                   started: Boards = NO_BOARDS) -> set[int]:
    """What a page may show: the public boards; for a table's own view (``table`` given) less every board
    that table still has to play — the table-specific rule wins over any release."""
    if table is None:
        return set(public)
    return set(public) - still_to_play(table, schedule, completed, started)


# ---------------------------------------------------------------------------------------------- the page's data
def session_subset(session: Session, boards: AbstractSet[int]) -> Session:
    """A copy of ``session`` holding only the results of ``boards`` (its ranking reveals nothing else)."""
    secs = [Section(s.id, s.movement, dict(s.entrants)) for s in session.sections.values()]
    sub = Session(session.name, session.scoring, secs, kind=session.kind, n_max=session.n_max, law88=session.law88,
                  butler_trim=session.butler_trim, vp=session.vp, knockout=session.knockout, check_boards=False)
    for s in session.sections.values():
        dst = sub.sections[s.id]
        dst.results = {k: r for k, r in s.results.items() if r.board in boards}
        for b in sorted({r.board for r in dst.results.values()}):
            sub._rescore(dst, b)         # once per board (add_result would rescore a board once per result)
    return sub


def _result_text(contract: str | None, tricks: int | None) -> str | None:
    if not contract or contract == "PASS" or tricks is None or not contract[0].isdigit():
        return None
    diff = tricks - 6 - int(contract[0])
    return "=" if diff == 0 else f"{diff:+d}"


def _names(sec: Section, number: int) -> str:
    d = sec.entrant(number).display
    return "" if d == str(number) else d


def _num(v: float | None) -> float | None:
    return None if v is None else round(float(v), 2)


def traveller_rows(session: Session, section: str, board: int,
                   table_ids: Mapping[tuple[str, int], str]) -> list[TravellerRow]:
    """One row per result of ``board`` in ``section``: who, the contract, the score and what it earned."""
    tr = session.traveller(board, section)
    if tr is None:
        return []
    sec = session.section(section)
    return [_traveller_row(sec, r, sc, table_ids) for r, sc in zip(tr.results, tr.scores)]


def _traveller_row(sec: Section, r: BoardResult, sc: LineScore,
                   table_ids: Mapping[tuple[str, int], str]) -> TravellerRow:
    mv = sec.movement
    row: TravellerRow = {
        "section": sec.id, "table": table_ids.get((sec.id, r.table or 0), str(r.table)),
        "movement_table": r.table, "round": r.round,
        "ns": r.ns, "ns_label": mv.label(r.ns), "ns_names": _names(sec, r.ns),
        "ew": r.ew, "ew_label": mv.label(r.ew), "ew_names": _names(sec, r.ew),
        "contract": r.contract, "declarer": r.declarer, "tricks": r.tricks,
        "result": _result_text(r.contract, r.tricks), "lead": r.lead,
        "score_ns": r.score_ns if r.score_ns is not None else (r.assigned[0] if r.assigned else None),
        "adjusted": None, "ns_value": _num(sc.ns), "ew_value": _num(sc.ew),
        "ns_percent": _num(sc.ns_percent), "ew_percent": _num(sc.ew_percent), "datum": sc.datum,
    }
    if r.artificial:
        row["adjusted"] = f"{award_text(r.artificial[0])}/{award_text(r.artificial[1])}"
        row["law"] = "12C1"
    elif r.assigned:
        ns_view, ew_view = r.assigned
        row["adjusted"] = "assigned" if ns_view == ew_view else f"assigned {ns_view}/{ew_view}"
        row["law"] = "12C2"
    return row


def ranking_rows(session: Session, section: str) -> list[RankingRow]:
    return [_ranking_row(r) for r in session.ranking(section)]


def _ranking_row(r: RankRow) -> RankingRow:
    return {"place": r.place_text, "entrant": r.entrant, "label": r.label,
            "names": r.display if r.display != str(r.entrant) else "", "score": _num(r.score),
            "total": _num(r.total), "top": _num(r.top), "boards": r.boards, "field": r.field}


def results_payload(session: Session, visible: AbstractSet[int], *, schedule: Schedule, completed: Boards,
                    started: Boards, table_ids: Mapping[tuple[str, int], str],
                    reasons: Mapping[int, str] = MappingProxyType({}),
                    all_boards: Iterable[int] | None = None, scored: Session | None = None) -> dict[str, Any]:
    """The travellers of the ``visible`` boards and the rankings computed from them alone; every other board
    of the event is listed with how many of its tables have played it and why it is hidden (``reasons``:
    ``"your_table"`` for a board the viewer's table still has to play, else ``"waiting"``). ``scored``: the
    session restricted to ``visible`` if the caller has it already."""
    if scored is not None:                       # the caller's (cached) session_subset(session, visible)
        sub = scored
    elif all(b in visible for b in _boards_with_results(session)):
        sub = session
    else:
        sub = session_subset(session, visible)
    numbers = sorted(set(all_boards if all_boards is not None else schedule) | set(_boards_with_results(session)))
    boards: list[BoardEntry] = []
    # every board's tables and how many have played it, in time linear in what was started and completed: a
    # 500-table Mitchell plays every board at every table, and asking each table about each board was 500,000
    # look-ups per results screen, tenths of a second on the event loop at every push
    starters, finishers = _started_by_board(started), _started_by_board(completed)
    for b in numbers:
        scheduled, others = _needed(b, schedule, starters)
        entry: BoardEntry = {"board": b, "visible": b in visible, "tables": len(scheduled) + len(others),
                             "played": sum(1 for t in finishers.get(b, ()) if t in scheduled or t in others)}
        if b in visible:
            entry["travellers"] = [{"section": sid, "rows": traveller_rows(sub, sid, b, table_ids)}
                                   for sid in session.sections]
        else:
            entry["reason"] = reasons.get(b, "waiting")
        boards.append(entry)
    rankings: list[SectionRanking] = [{"section": sid, "rows": ranking_rows(sub, sid)} for sid in session.sections]
    return {"boards": boards, "rankings": rankings}


def _boards_with_results(session: Session) -> set[int]:
    return {r.board for s in session.sections.values() for r in s.results.values()}
