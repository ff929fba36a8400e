"""The director's evening, from the console: set up the event (``POST /api/event``), move tables on
(``POST /api/event/advance``), the round clock (``POST /api/event/clock``), the end-of-round guidance
(``GET /api/event/guidance``), the member list (``POST /api/players``) and the names at each table, round by round
(``/api/tables/{id}/players``). Everything that changes the event is a journalled club row (``event``, ``round``,
``clock``, ``members``, ``players``), so a restart rebuilds it (``service/wiring/event_install.py``). The event itself
is ``service/event/tournament.py``; ``docs/event-console.md`` is the director's guide.
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Depends, Path, Query
from pydantic import ValidationError

from results import ResultsError
from service.api.deps import director, service, viewer
from service.config.event_plan import build_session
from service.config.settings import EDITIONS, TABLE_ID, EventConfig
from service.errors import Conflict, Forbidden, Invalid, NotFound, Unauthenticated, Unavailable
from service.event.clock import MAX_MINUTES
from service.event.guidance import guidance
from service.event.lead_check import MODES as LEAD_MODES
from service.event.members import MemberListError, parse_members, player_name
from service.event.tournament import LiveTournament
from service.live.visibility import Viewer
from service.web.validation_errors import validation_words
from service.wiring.container import Service
from service.wiring.event_install import event_body, install, publish_tables
from table.texts import Text

router = APIRouter(prefix="/api")
TABLE_PATH = TABLE_ID.pattern
SEATS = ("N", "E", "S", "W")
# What a console may ask for: the planner's limits for a club evening (a larger Howell takes seconds to plan).
LIMITS = {"tables": 60, "pairs": 24, "teams": 40, "boards": 200, "boards_per_round": 12}
MAX_SECTIONS = 8


def _event(svc: Service) -> LiveTournament:
    if svc.tournament is None:
        raise NotFound(Text("refusal.no_event_set_up", "no event is set up: POST /api/event"))
    return svc.tournament


def _tables(body: dict[str, Any]) -> list[str] | None:
    tables = body.get("tables")
    if tables is not None and (not isinstance(tables, list) or not all(isinstance(t, str) for t in tables)):
        raise Invalid(Text("refusal.tables_list", "tables is a list of table ids"))
    return tables or None


def _console_limits(cfg: EventConfig) -> None:
    """A movement from the console: one of the builders, within a club evening's sizes (never a server file)."""
    movements = [cfg.movement] if cfg.movement is not None else [s.movement for s in cfg.sections]
    if len(movements) > MAX_SECTIONS:
        raise Invalid(Text("refusal.max_sections", "at most {count} sections", count=MAX_SECTIONS))
    for mv in movements:
        if mv is None or mv.kind is None:
            raise Invalid(Text("refusal.movement_kind", "a movement set up from the console is a kind: "
                                   "mitchell, howell, teams or round_robin"))
        for key, top in LIMITS.items():
            value = getattr(mv, key)
            if value is not None and value > top:
                raise Invalid(_too_large(key, top, value))


def _too_large(key: str, top: int, value: int) -> Text:
    """A movement's size above the console's limit (``LIMITS``), keyed by the size's name."""
    return {"tables": Text("refusal.movement_max_tables", "movement tables is at most {top} here (got {value})",
                           top=top, value=value),
            "pairs": Text("refusal.movement_max_pairs", "movement pairs is at most {top} here (got {value})",
                          top=top, value=value),
            "teams": Text("refusal.movement_max_teams", "movement teams is at most {top} here (got {value})",
                          top=top, value=value),
            "boards": Text("refusal.movement_max_boards", "movement boards is at most {top} here (got {value})",
                           top=top, value=value),
            "boards_per_round": Text("refusal.movement_max_boards_per_round", "movement boards_per_round is at most "
                                     "{top} here (got {value})", top=top, value=value)}[key]


def planned_event(body: dict[str, Any], laws: str) -> EventConfig:
    """The event a console's JSON describes, checked with the planner (``Invalid`` saying why not)."""
    try:
        cfg = EventConfig.model_validate(body)
    except ValidationError as err:
        raise Invalid(Text("refusal.event_not_valid", "the event is not valid: ") + validation_words(err)) from None
    _console_limits(cfg)
    try:
        build_session(cfg, cfg.law_edition or laws)
    except (ValueError, TypeError, ResultsError) as err:
        why = err.args[0] if err.args and isinstance(err.args[0], str) else str(err)    # a Text: the page words it
        raise Invalid(Text("refusal.event_not_planned", "the event cannot be planned: ") + why) from None
    return cfg


def _table_kinds(cfg: EventConfig, kinds: Any) -> dict[str, str]:
    """``table_kinds`` (``{"1": "scoring"}``: a scoring-only table, keyed at the table; ``"played"``: cards and
    readers; one word for every table) checked against the event's tables, and the club's way of setting a
    table's kind."""
    _session, plans = build_session(cfg)
    tables = {tid for p in plans for tid in p.tables}
    if isinstance(kinds, str):
        word = kinds
        kinds = {tid: word for tid in tables}
    if not isinstance(kinds, dict) or any(k not in ("scoring", "played") for k in kinds.values()):
        raise Invalid(Text("refusal.table_kinds", 'table_kinds is "scoring" or "played", or maps a table id to one '
                              'of them'))
    unknown = sorted(set(kinds) - tables)
    if unknown:
        raise Invalid(Text("refusal.table_kinds_unknown", "table_kinds: {unknown} not in the event (its tables: "
                              "{tables})", unknown=", ".join(unknown), tables=", ".join(sorted(tables))))
    return kinds


# ---------------------------------------------------------------------------------------------- set-up
@router.post("/event", summary="set up (or replace) the event (director; journalled)",
             description="Body: the event as in the settings' `[event]` (`name`, `scoring` MP/IMP/BUTLER/XIMP/TP, "
                         "one `movement` or `sections` each with a `movement` of kind mitchell (tables, rounds, "
                         "boards_per_round, even skip/relay, first_board), howell (pairs), teams (boards) or "
                         "round_robin (teams)). An event whose tables have started boards is replaced only with "
                         "`\"replace\": true`. `table_kinds` (`{\"2\": \"scoring\"}`) makes tables scoring-only. "
                         "`law_edition` (wbf1997-cba1999 or wbf2017; default: the regulation's) is the law book of "
                         "the boards the event's tables start; `lead_check` (off, warn, must comply) how the opening "
                         "lead keyed with a result is checked. "
                         "The journalled event wins over the settings' at a restart.")
async def set_up_event(body: Any = Body(..., examples=[{"name": "Tuesday pairs", "scoring": "MP",
                                                         "movement": {"kind": "mitchell", "tables": 4,
                                                                      "boards_per_round": 3, "even": "relay"}}]),
                       svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise Invalid(Text("refusal.event_object", "the event is a JSON object"))
    body = dict(body)
    replace = body.pop("replace", False)
    if not isinstance(replace, bool):
        raise Invalid(Text("refusal.replace_boolean", "replace is true or false"))
    lead = _lead_mode(svc, body.pop("lead_check", None))
    cfg = planned_event({k: v for k, v in body.items() if k != "table_kinds"}, svc.club.regulation.law_edition)
    kinds = _table_kinds(cfg, body.get("table_kinds", {}))
    old = svc.tournament
    if old is not None and old.has_play() and not replace:
        raise Conflict(Text("refusal.event_in_play", 'the current event has boards in play or played: send '
                                '"replace": true to replace it'))
    row = await svc.club.append_club("event", event_body(cfg))
    ev = install(svc, cfg, row.at)
    robots = svc.simulation
    if robots is not None:      # the demonstration's robots leave the tables to the players (and stay away)
        await robots.stop()
        svc.simulation = None
    for tid, kind in kinds.items():
        await svc.club.set_table_kind(tid, kind)
    if lead is not None and svc.lead_check is not None:
        await svc.lead_check.set_mode(lead)
    publish_tables(svc, ev.where)
    tables = sorted(ev.where, key=lambda t: (ev.where[t][0].id, ev.where[t][1]))
    return {"seq": row.seq, "event": ev.summary(), "tables": tables, "simulation_stopped": robots is not None}


def _lead_mode(svc: Service, mode: Any) -> str | None:
    """``lead_check`` of an event's set-up: how the opening lead keyed with a result is checked (None: unchanged)."""
    if mode is None:
        return None
    if mode not in LEAD_MODES:
        raise Invalid(Text("refusal.lead_check_is", "lead_check is one of: {modes}", modes=", ".join(LEAD_MODES)))
    if svc.lead_check is None:
        raise Unavailable(Text("refusal.lead_check_down", "the lead check is not running"))
    return str(mode)


@router.post("/event/laws", summary="the event's law edition and lead check (director; journalled)",
             description="Body `{\"law_edition\": \"wbf2017\", \"lead_check\": \"warn\"}` (either or both). The "
                         "edition changes only before any table of the event has started a board (409 after that: "
                         "every table plays a board under the same laws; set up a new event instead); the lead check "
                         "changes at any time, for the results keyed afterwards.")
async def event_laws(body: dict[str, Any] = Body(..., examples=[{"law_edition": "wbf2017", "lead_check": "warn"}]),
                     svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    ev = _event(svc)
    unknown = sorted(set(body) - {"law_edition", "lead_check"})
    if not body or unknown:
        raise Invalid(Text("refusal.rules_fields", "give law_edition ({editions}) and/or lead_check ({modes})",
                              editions=", ".join(EDITIONS), modes=", ".join(LEAD_MODES))
                      + (Text("refusal.rules_not", "; not {fields}", fields=", ".join(unknown)) if unknown else ""))
    lead = _lead_mode(svc, body.get("lead_check"))
    if "law_edition" in body:
        await ev.set_law_edition(str(body["law_edition"]))
    if lead is not None and svc.lead_check is not None:
        await svc.lead_check.set_mode(lead)
    publish_tables(svc, ev.where)
    return {"law_edition": ev.law_edition, "lead_check": svc.lead_check.setting if svc.lead_check else None}


# ---------------------------------------------------------------------------------------------- rounds, clock
@router.post("/event/advance", summary="move tables to their next round (director; journalled)",
             description="Body `{}` (every table not in its last round) or `{\"tables\": [\"1\", \"3\"]}`. The "
                         "tables' round clocks start again; the seats' sign-ins of the old round end.")
async def advance(body: dict[str, Any] = Body(default={}, examples=[{"tables": ["1"]}]),
                  svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    ev = _event(svc)
    row = await ev.advance(_tables(body))
    publish_tables(svc, row.body["rounds"])
    return {"seq": row.seq, "rounds": row.body["rounds"]}


@router.post("/event/clock", summary="the round clock: minutes a round (director; journalled)",
             description="Body `{\"minutes\": 15}`; `\"restart\": true` begins the tables' rounds now (else a "
                         "round begins when the table enters it or starts its first board); `tables` limits "
                         "the restart; `minutes: null` stops the clock.")
async def clock(body: dict[str, Any] = Body(..., examples=[{"minutes": 15, "restart": True}]),
                svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    ev = _event(svc)
    minutes, restart = body.get("minutes"), body.get("restart", False)
    if minutes is not None and (isinstance(minutes, bool) or not isinstance(minutes, int | float)
                                or not 0 < minutes <= MAX_MINUTES):
        raise Invalid(Text("refusal.clock_minutes", "minutes is a number above 0 and at most {count}, or null",
                              count=MAX_MINUTES))
    if not isinstance(restart, bool):
        raise Invalid(Text("refusal.restart_boolean", "restart is true or false"))
    row = await ev.set_clock(minutes, restart, _tables(body))
    return {"seq": row.seq, "minutes": ev.clock.minutes, "started": dict(ev.clock.started)}


# ---------------------------------------------------------------------------------------------- guidance
def _round(ev: LiveTournament, table: str, rnd: int | None) -> int:
    rounds = ev.where[table][0].movement.rounds
    if rnd is None:
        return ev.rounds[table]
    if rnd not in rounds:
        raise Invalid(Text("refusal.round_range", "table {table}'s movement has rounds {first}..{last}", table=table,
                              first=rounds[0], last=rounds[-1]))
    return rnd


def _guidance(ev: LiveTournament, table: str, rnd: int | None) -> dict[str, Any]:
    plan, _mt = ev.where[table]
    return guidance(plan.id, plan.movement, plan.tables, table, _round(ev, table, rnd))


@router.get("/event/guidance", summary="where the pairs and the boards of a table go after a round",
            description="A seat token for its own table, or the director's. `round` defaults to the table's "
                        "current round. `next_table` null: the pair sits out, the event ends, or the boards "
                        "are not played in the next round.")
async def table_guidance(table: str = Query(..., pattern=TABLE_PATH), round: int | None = Query(None, ge=1),
                         svc: Service = Depends(service), v: Viewer = Depends(viewer)) -> dict[str, Any]:
    _may_see_table(v, table)
    ev = _event(svc)
    if table not in ev.where:
        raise NotFound(Text("refusal.table_not_in_event", "table '{table}' is not in the event", table=table))
    return _guidance(ev, table, round)


@router.get("/event/guidance/all", summary="every table's end-of-round guidance (director)")
async def all_guidance(round: int | None = Query(None, ge=1), svc: Service = Depends(service),
                       v: Viewer = Depends(director)) -> list[dict[str, Any]]:
    ev = _event(svc)
    tables = sorted(ev.where, key=lambda t: (ev.where[t][0].id, ev.where[t][1]))
    if round is not None:
        tables = [t for t in tables if round in ev.where[t][0].movement.rounds]
        if not tables:
            raise Invalid(Text("refusal.no_such_round", "no table of the event has a round {round}", round=round))
    return [_guidance(ev, t, round) for t in tables]


# ---------------------------------------------------------------------------------------------- players
def _may_see_table(v: Viewer, table: str) -> None:
    if v.role == "spectator":
        raise Unauthenticated(Text("refusal.table_token_required", "a seat token of this table or the director's token "
                                      "is required"))
    if v.role == "seat" and v.table != table:
        raise Forbidden(Text("refusal.own_table_only", "a seat of table {table} sees only its own table",
                             table=v.table))


@router.post("/players", summary="import the member list (director; CSV; journalled)",
             description="Body `{\"csv\": \"member,name\\n1234,Wang Li\\n\"}`: UTF-8 (a BOM is fine), comma, "
                         "semicolon or tab separated, a header with a member-number column (member/number/id) "
                         "and a name column, or two plain columns. Replaces the previous list.")
async def import_members(body: dict[str, Any] = Body(..., examples=[{"csv": "member,name\n1234,Wang Li\n"}]),
                         svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    text = body.get("csv")
    if not isinstance(text, str):
        raise Invalid(Text("refusal.members_csv", "csv is the member list's text"))
    try:
        members = parse_members(text)
    except MemberListError as err:
        raise Invalid(err.args[0]) from None            # its Text: a page words it
    row = await svc.club.append_club("members", {"members": members})
    svc.members = members
    return {"seq": row.seq, "members": len(members), "first": [{"number": k, "name": n}
                                                                 for k, n in list(members.items())[:3]]}


@router.get("/players", summary="the imported member list (director)")
async def members(svc: Service = Depends(service), v: Viewer = Depends(director)) -> dict[str, Any]:
    return {"members": [{"number": k, "name": n} for k, n in svc.members.items()]}


def _table_in_event(svc: Service, table_id: str) -> LiveTournament:
    ev = _event(svc)
    if table_id not in ev.where:
        raise NotFound(Text("refusal.table_not_in_event", "table '{table}' is not in the event", table=table_id))
    return ev


def _may_enter(svc: Service, v: Viewer, table_id: str, rnd: int) -> list[str]:
    """The pairs whose names ``v`` may enter at the table: the director both; a seat its own pair, and at a
    scoring-only table (one device keys for the table) the opponents too while they have no device of their own."""
    if v.role == "director":
        return ["NS", "EW"]
    if v.role != "seat" or not v.seat:
        return []
    own = "NS" if v.seat in "NS" else "EW"
    other = "EW" if own == "NS" else "NS"
    single = svc.club.kind(table_id) == "scoring" and not svc.tokens.has_own_device(table_id, other, v.round or rnd)
    return [own, other] if single else [own]


@router.get("/tables/{table_id}/players", summary="the pairs at the table in its current round and their names")
async def table_players(table_id: str = Path(..., pattern=TABLE_PATH), svc: Service = Depends(service),
                        v: Viewer = Depends(viewer)) -> dict[str, Any]:
    _may_see_table(v, table_id)
    ev = _table_in_event(svc, table_id)
    info = ev.players_at(table_id)
    return {**info, "may_enter": _may_enter(svc, v, table_id, int(info["round"]))}


@router.post("/tables/{table_id}/players", summary="the names of a pair at the table, kept for the session",
             description="A seat token: the seats of its own pair (`{\"N\": \"1234\", \"S\": \"Wang Li\"}`; "
                         "a member number from the list shows as `Name (number)`, anything else as a name); at a "
                         "scoring-only table also the opponents' seats while they have no device of their own. "
                         "The director may enter either pair. The names stay the pair's for the session (its "
                         "later rounds and tables); journalled; the results and exports show them.")
async def enter_players(table_id: str = Path(..., pattern=TABLE_PATH),
                        body: dict[str, Any] = Body(..., examples=[{"N": "1234", "S": "Wang Li"}]),
                        svc: Service = Depends(service), v: Viewer = Depends(viewer)) -> dict[str, Any]:
    _may_see_table(v, table_id)
    ev = _table_in_event(svc, table_id)
    if not body or any(seat not in SEATS for seat in body):
        raise Invalid(Text("refusal.names_by_seat", "give names by seat: N, E, S, W"))
    if v.role == "seat":
        may = _may_enter(svc, v, table_id, ev.rounds[table_id])
        if any(("NS" if seat in "NS" else "EW") not in may for seat in body):
            own = ("N", "S") if v.seat in ("N", "S") else ("E", "W")
            raise Forbidden(Text("refusal.own_pair_names", "a seat enters only its own pair's names ({seat} and "
                                 "{seat2})", seat=own[0], seat2=own[1])
                            + (Text("refusal.opponents_own_device", ": the opponents have a device of their own")
                               if svc.club.kind(table_id) == "scoring" else ""))
    names: dict[str, str] = {}
    for seat, value in body.items():
        if not isinstance(value, str | int) or isinstance(value, bool):
            raise Invalid(Text("refusal.member_or_name", "{seat}: a member number or a name", seat=seat))
        try:
            names[seat] = player_name(str(value), svc.members)
        except ValueError as err:
            raise Invalid(Text("refusal.seat_name", "{seat}: ", seat=seat) + err.args[0]) from None
    actor = "director" if v.role == "director" else f"seat:{v.table}:{v.seat}"
    row = await ev.set_names(table_id, names, actor)
    direction = "NS" if next(iter(names)) in "NS" else "EW"
    return {"seq": row.seq, "pair": ev.pair_at(table_id, direction),
            "names": ev.names_at(table_id, int(row.body["round"]), direction)}
