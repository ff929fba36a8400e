"""One handler per command of the protocol. Each returns the response envelope; a refusal is a ``DcError`` (the
protocol's error envelope), never an HTTP error.
"""
from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from results import ResultsError
from service.config.event_plan import build_session
from service.errors import ServiceError
from service.event.hand_records import record
from service.live.runtime import confirming_side
from service.wiring.event_install import event_body, install, publish_tables

from .connector import ACTOR, DataConnector
from .mapping import SEAT_OF, Plan, plan_event, put_result
from .queues import ACCEPT, DATA_TYPE, POLL_ALL, POLL_NEW
from .validation import check_items
from .wire import Command, DataType, DcError, ErrorType, Request, data_of, ok, response

Handler = Callable[[DataConnector, Request], Awaitable[dict[str, Any]]]
SUITS = ("Spades", "Hearts", "Diamonds", "Clubs")
PUT_KINDS = {Command.PUT_PLAYER_DATA: "player_data", Command.PUT_PARTICIPATIONS: "participations",
             Command.PUT_HANDRECORDS: "handrecords", Command.PUT_TD_CALLS: "td_calls",
             Command.PUT_BRIDGEMATE2_SETTINGS: "bridgemate2", Command.PUT_BRIDGEMATE3_SETTINGS: "bridgemate3",
             Command.PUT_RESULTS: "results"}


def _plan(dc: DataConnector, req: Request) -> Plan:
    """The running plan, and the request is for its session."""
    if dc.plan is None:
        raise DcError(ErrorType.ENTRY_UNKNOWN, "No event: InitializeEvent first")
    if req.session_guid != dc.plan.session_guid:
        raise DcError(ErrorType.ENTRY_UNKNOWN, f"Unknown session '{req.session_guid}'")
    return dc.plan


def _same_session(items: list[dict[str, Any]], session: str) -> None:
    wrong = [i for i in items if i.get("SessionGuid") != session]
    if wrong:
        raise DcError(ErrorType.VALIDATION, "SessionGuid of the data differs from the request's SessionGuid")


# ---------------------------------------------------------------------------------------------- session-less
async def ping(dc: DataConnector, req: Request) -> dict[str, Any]:
    env = response(req.command, DataType.OK, None)
    env["SerializedData"] = req.data                 # echoed as sent: the client compares it
    return env


async def initialize(dc: DataConnector, req: Request) -> dict[str, Any]:
    init = data_of(req, dict, "an InitDTO")
    check_items("InitDTO", [init])
    await _install(dc, init)
    assert dc.plan is not None
    return ok(req.command, "Event initialized.", dc.plan.session_guid)


async def _install(dc: DataConnector, init: dict[str, Any]) -> None:
    """Set up the evening the InitDTO describes in place of the current event (journalled first)."""
    plan = plan_event(init)
    svc = dc.svc
    try:                                   # planned before anything is journalled: a refusal changes nothing
        build_session(plan.config, svc.club.regulation.law_edition)
    except (ValueError, TypeError, ResultsError) as err:
        raise DcError(ErrorType.MOVEMENT, f"the movement cannot be run: {err}") from None
    row = await svc.club.append_club("event", event_body(plan.config), ACTOR)
    ev = install(svc, plan.config, row.at)
    kind = svc.settings.dataconnector.table_kind if svc.settings.dataconnector else "played"
    for tid in ev.where:
        if svc.club.kind(tid) != kind:
            await svc.club.set_table_kind(tid, kind, ACTOR)
    init_row = await svc.club.append_club("dc_init", {"init": init, "since": row.at}, ACTOR)
    dc.apply_row(init_row)
    publish_tables(svc, ev.where)
    for key, kind_name in (("PlayerData", "player_data"), ("Participations", "participations"),
                           ("Bridgemate2Settings", "bridgemate2"), ("Bridgemate3Settings", "bridgemate3")):
        if init.get(key):
            await _store(dc, kind_name, init[key])
    await _names(dc)
    if init.get("Handrecords"):
        await _hand_records(dc, init["Handrecords"])
    await dc.restart_robots()


async def continue_event(dc: DataConnector, req: Request) -> dict[str, Any]:
    body = data_of(req, dict, "a ContinueDTO")
    check_items("ContinueDTO", [body])
    if dc.plan is None or body.get("EventGuid") != dc.plan.event_guid:
        raise DcError(ErrorType.ENTRY_UNKNOWN, f"Unknown event '{body.get('EventGuid')}'")
    return ok(req.command, "Event continued.", dc.plan.session_guid)


# ---------------------------------------------------------------------------------------------- the movement
def _no_play(dc: DataConnector) -> None:
    ev = dc.svc.tournament
    if ev is not None and ev.has_play():
        raise DcError(ErrorType.MOVEMENT, "the event's first board has started: its movement and scoring stay "
                                          "as they are (the director can adjust results)")


async def update_movement(dc: DataConnector, req: Request) -> dict[str, Any]:
    plan = _plan(dc, req)
    update = data_of(req, dict, "a SectionUpdateDTO")
    check_items("SectionUpdateDTO", [update])
    _no_play(dc)
    assert dc.init is not None
    init = json.loads(json.dumps(dc.init))
    letters = update.get("Letters")
    groups = init["Sessions"][0]["ScoringGroups"]
    for g in groups:
        g["Sections"] = [s for s in g.get("Sections") or [] if s.get("Letters") != letters]
    if not update.get("IsDeleted"):
        target = next((g for g in groups if g.get("ScoringGroupNumber") == update.get("ScoringGroupNumber")), None)
        if target is None:
            raise DcError(ErrorType.ENTRY_UNKNOWN, f"Unknown scoring group {update.get('ScoringGroupNumber')}")
        section = {k: update.get(k) for k in ("SessionGuid", "ScoringGroupNumber", "Letters", "Name", "Winners",
                                               "GameType", "EWMoveBeforePlay", "MissingPair", "Tables")}
        target["Sections"].append(section)
    await _install(dc, init)
    return ok(req.command, "Movement updated.", plan.session_guid)


async def update_scoring_groups(dc: DataConnector, req: Request) -> dict[str, Any]:
    plan = _plan(dc, req)
    groups = data_of(req, list, "a list of ScoringGroupDTO")
    check_items("ScoringGroupDTO", groups)
    _no_play(dc)
    assert dc.init is not None
    init = json.loads(json.dumps(dc.init))
    init["Sessions"][0]["ScoringGroups"] = [g for g in groups if not g.get("IsDeleted")]
    await _install(dc, init)
    return ok(req.command, "Scoring groups updated.", plan.session_guid)


# ---------------------------------------------------------------------------------------------- puts
async def _store(dc: DataConnector, kind: str, items: list[dict[str, Any]]) -> None:
    assert dc.plan is not None
    row = await dc.svc.club.append_club("dc_put", {"session": dc.plan.session_guid, "kind": kind, "items": items},
                                        ACTOR)
    dc.apply_row(row)


async def _names(dc: DataConnector) -> None:
    """Names the scoring program gave for the first round's seats, shown at the tables and in the results."""
    ev, plan = dc.svc.tournament, dc.plan
    if ev is None or plan is None:
        return
    players = {str(p.get("PlayerNumber")): p for p in dc.received.get("player_data", [])}
    seats: dict[tuple[str, str], dict[str, str]] = {}
    for p in dc.received.get("participations", []):
        if p.get("IsRemoval") or int(p.get("RoundNumber") or 0) > 1:
            continue
        try:
            tid = plan.table_of(str(p.get("SectionLetters")), int(p.get("TableNumber") or 0))
        except DcError:
            continue
        seat = SEAT_OF.get(int(p.get("Direction") or 0))
        who = {**players.get(str(p.get("PlayerNumber")), {}), **{k: v for k, v in p.items() if v}}
        name = " ".join(str(who[k]) for k in ("FirstName", "LastName") if who.get(k))
        number = str(p.get("PlayerNumber") or "")
        if seat is None or tid not in ev.where or not (name or number):
            continue
        shown = f"{name} ({number})" if name and number else name or number
        seats.setdefault((tid, "NS" if seat in "NS" else "EW"), {})[seat] = shown[:80]
    for (tid, direction), names in seats.items():
        if ev.pair_at(tid, direction) is not None and ev.names_at(tid, ev.rounds[tid], direction) != \
                [names[s] for s in sorted(names)]:
            await ev.set_names(tid, names, ACTOR)


async def put(dc: DataConnector, req: Request) -> dict[str, Any]:
    plan = _plan(dc, req)
    kind = PUT_KINDS[Command(req.command)]
    items = data_of(req, list, "a list")
    if not items:
        raise DcError(ErrorType.NO_DATA, "Empty data")
    check_items({"player_data": "PlayerDataDTO", "participations": "ParticipationDTO", "handrecords": "HandrecordDTO",
                 "td_calls": "TdCallDTO", "bridgemate2": "Bridgemate2SettingsDTO",
                 "bridgemate3": "Bridgemate3SettingsDTO", "results": "ResultDTO"}[kind], items)
    _same_session(items, plan.session_guid)
    if kind == "results":
        return await _results(dc, req, plan, items)
    if kind == "handrecords":
        await _hand_records(dc, items)
        return ok(req.command, f"{len(items)} handrecord(s) stored.", plan.session_guid)
    if kind == "td_calls":
        await _td_calls(dc, plan, items)
    await _store(dc, kind, items)
    if kind in ("player_data", "participations"):
        await _names(dc)
    return ok(req.command, f"{len(items)} item(s) stored.", plan.session_guid)


async def _results(dc: DataConnector, req: Request, plan: Plan, items: list[dict[str, Any]]) -> dict[str, Any]:
    """The scoring program's results: a director's correction of a board the table played (Law 12C2, through
    ``Club.adjust``), or the result of a board a scoring-only table has not keyed yet."""
    club = dc.svc.club
    done = []
    for item in items:
        tid = plan.table_of(str(item.get("SectionLetters") or ""), int(item.get("TableNumber") or 0))
        n = int(item.get("BoardNumber") or 0)
        ev = dc.svc.tournament
        if ev is None or n not in ev.scheduled_boards(tid):
            raise DcError(ErrorType.MOVEMENT, f"the movement does not give board {n} to table {tid}")
        words = put_result(item)
        rt = club.table(tid)
        rec = rt.boards.get(n)
        played = rec is not None and not rec.not_played and rec.started_at >= ev.since
        try:
            if words.get("deleted"):
                if rec is None or not rec.adjustment:
                    raise DcError(ErrorType.ENTRY_UNKNOWN, f"table {tid} board {n}: no correction to delete")
                dc.own_correction(tid, n)
                await club.adjust(tid, n, {"kind": "cancel", "note": "deleted by the scoring program"}, ACTOR)
            elif played:
                dc.own_correction(tid, n)
                await club.adjust(tid, n, {"kind": "assigned", "contract": words["contract"],
                                           "declarer": words["declarer"], "tricks": words["tricks"],
                                           "note": "result from the scoring program"}, ACTOR)
            elif club.kind(tid) == "scoring" and (rt.board_number is None or rt.completed(rt.board_number)):
                dc.own_correction(tid, n)
                await club.submit(tid, {"type": "board", "board": n}, ACTOR)
                await club.submit(tid, {"type": "result", **{k: v for k, v in words.items() if v is not None}},
                                  ACTOR)
                side = confirming_side(rt.boards[n], words.get("declarer"))
                await club.confirm(tid, n, {"accept": True, "side": side, "seat": None}, ACTOR)
            else:
                raise DcError(ErrorType.MOVEMENT, f"table {tid} has not played board {n}: a result from the "
                                                  "scoring program corrects a board the table played (Law 12C2)")
        except ServiceError as err:
            dc.own_correction(tid, n, False)
            raise DcError(ErrorType.VALIDATION, f"table {tid} board {n}: {err}") from None
        done.append(n)
    await _store(dc, "results", items)
    return ok(req.command, f"{len(done)} result(s) stored.", plan.session_guid)


def _pbn(item: dict[str, Any]) -> str:
    hands = []
    for seat in ("North", "East", "South", "West"):
        suits = [str(item.get(f"{seat}{s}") or "").upper().replace("10", "T") for s in SUITS]
        hands.append(".".join(suits))
    return "N:" + " ".join(hands)


async def _hand_records(dc: DataConnector, items: list[dict[str, Any]]) -> None:
    store = dc.svc.hand_records
    if store is None:
        raise DcError(ErrorType.NOT_IMPLEMENTED, "no hand-record store")
    try:
        await store.put([record(int(i.get("BoardNumber") or 0), _pbn(i)) for i in items], ACTOR,
                        source="the scoring program (Data Connector)")
    except ServiceError as err:
        raise DcError(ErrorType.VALIDATION, str(err)) from None
    await _store(dc, "handrecords", items)


async def _td_calls(dc: DataConnector, plan: Plan, items: list[dict[str, Any]]) -> None:
    """A call the scoring program marks resolved answers the table's open director call."""
    club = dc.svc.club
    for item in items:
        if int(item.get("Status") or 0) != 3:
            continue
        tid = plan.table_of(str(item.get("SectionLetters") or ""), int(item.get("TableNumber") or 0))
        for call in club.calls.listing(open_only=True):
            if call["table"] == tid:
                await club.answer_call(int(call["id"]), ACTOR)


# ---------------------------------------------------------------------------------------------- queues
async def poll(dc: DataConnector, req: Request) -> dict[str, Any]:
    plan = _plan(dc, req)
    name = POLL_NEW.get(Command(req.command)) or POLL_ALL[Command(req.command)]
    q = dc.queues.queues[name]
    items = q.new() if Command(req.command) in POLL_NEW else q.items
    last = items[-1][0] if items else 0
    return response(req.command, DATA_TYPE[name], [item for _i, item in items], plan.session_guid,
                    last_queue_item_id=last)


async def accept(dc: DataConnector, req: Request) -> dict[str, Any]:
    plan = _plan(dc, req)
    name = ACCEPT[Command(req.command)]
    try:
        upto = json.loads(req.data or "0")
    except ValueError:
        upto = None
    if isinstance(upto, bool) or not isinstance(upto, int) or upto < 0:
        raise DcError(ErrorType.VALIDATION, "SerializedData is the last queue item id taken")
    q = dc.queues.queues[name]
    upto = min(upto, q.items[-1][0] if q.items else 0)       # never ahead of what was handed out
    if upto > q.accepted:
        row = await dc.svc.club.append_club("dc_accept", {"session": plan.session_guid, "queue": name,
                                                          "upto": upto}, ACTOR)
        dc.apply_row(row)
    return ok(req.command, f"Accepted up to {q.accepted}.", plan.session_guid)


async def not_implemented(dc: DataConnector, req: Request) -> dict[str, Any]:
    raise DcError(ErrorType.NOT_IMPLEMENTED, f"Command {req.command} is not implemented by bridgetable")


async def connect(dc: DataConnector, req: Request) -> dict[str, Any]:
    return ok(req.command, "Connected.")


HANDLERS: dict[int, Handler] = {
    Command.CONNECT: connect, Command.DISCONNECT: connect, Command.PING: ping,
    Command.INITIALIZE_EVENT: initialize, Command.CONTINUE_EVENT: continue_event,
    Command.UPDATE_MOVEMENT: update_movement, Command.UPDATE_SCORING_GROUPS: update_scoring_groups,
    **{c: put for c in PUT_KINDS}, **{c: poll for c in (*POLL_NEW, *POLL_ALL)}, **{c: accept for c in ACCEPT},
}


def credentials_ok(club_id: str, licence_key: str, want_club: str, want_key: str) -> bool:
    return secrets.compare_digest(club_id.encode(), want_club.encode()) and \
        secrets.compare_digest(licence_key.encode(), want_key.encode())
