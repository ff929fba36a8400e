"""The protocol's objects to and from the service's event.

``plan_event(init)``: an InitializeEvent's first session becomes an ``EventConfig`` whose movement is the rounds
exactly as the scoring program sent them (``MovementConfig.text``, a table of rounds), never recomputed. The
protocol numbers a Mitchell's North-South and East-West pairs 1..n each; the service's entrants are distinct
numbers, so a section where one number sits both ways keeps North-South as sent and moves East-West up by the
section's highest North-South number (``Section.ew_offset``), and every answer maps back.

``result_item(...)``: a table's result on a board as the protocol's ResultDTO (contract, declarer, tricks and the
opening lead only: nothing else of the play travels).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from service.config.settings import EventConfig
from service.event.tournament import LiveTournament
from service.live.runtime import TableRuntime
from table.scoring import ScoringError, parse_contract

from .wire import DcError, ErrorType

SCORING = {10: "MP", 20: "BUTLER", 21: "BUTLER", 22: "BUTLER", 25: "BUTLER", 26: "BUTLER", 27: "BUTLER",
           30: "XIMP", 31: "XIMP", 35: "XIMP", 36: "XIMP", 40: "IMP", 50: "IMP", 51: "IMP"}
SEATS = {"N": 1, "E": 2, "S": 3, "W": 4}
SEAT_OF = {v: k for k, v in SEATS.items()}
STRAINS = {"C": 1, "D": 2, "H": 3, "S": 4, "NT": 5}
STRAIN_OF = {v: k for k, v in STRAINS.items()}
SUITS = {"C": 1, "D": 2, "H": 3, "S": 4}
RANKS = {r: i for i, r in enumerate("23456789TJQKA", 2)}
LEAD_CARD_ENTRY = {0: "off", 1: "enter", 2: "must comply", 3: "warn"}


@dataclass
class Section:
    letters: str
    ew_offset: int
    tables: dict[int, str]                              # the protocol's table number -> service table id

    def entrant(self, pair: int, direction: str) -> int:
        return pair + self.ew_offset if direction == "EW" and pair else pair

    def pair(self, entrant: int | None) -> int:
        if not entrant:
            return 0
        return entrant - self.ew_offset if self.ew_offset and entrant > self.ew_offset else entrant


@dataclass
class Plan:
    event_guid: str
    session_guid: str
    config: EventConfig
    sections: dict[str, Section] = field(default_factory=dict)

    def table_of(self, letters: str, table: int) -> str:
        sec = self.sections.get(letters)
        if sec is None or table not in sec.tables:
            raise DcError(ErrorType.MOVEMENT, f"section {letters!r} has no table {table}")
        return sec.tables[table]

    def where(self, table_id: str) -> tuple[Section, int] | None:
        for sec in self.sections.values():
            for t, tid in sec.tables.items():
                if tid == table_id:
                    return sec, t
        return None


def _list(d: dict[str, Any], key: str) -> list[dict[str, Any]]:
    v = d.get(key) or []
    if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
        raise DcError(ErrorType.VALIDATION, f"{key} is a list of objects")
    return v


def _int(d: dict[str, Any], key: str) -> int:
    v = d.get(key) or 0
    if isinstance(v, bool) or not isinstance(v, int):
        raise DcError(ErrorType.VALIDATION, f"{key} is a whole number")
    return v


def _boards(low: int, high: int) -> str:
    return f"{low}-{high}" if high > low else str(low)


def plan_event(init: dict[str, Any]) -> Plan:
    """The event an InitDTO describes (``DcError`` when the service cannot run it)."""
    sessions = _list(init, "Sessions")
    if not sessions:
        raise DcError(ErrorType.NO_DATA, "InitDTO has no sessions")
    if len(sessions) > 1:
        raise DcError(ErrorType.NOT_IMPLEMENTED, "bridgetable runs one session at a time: send one session")
    session = sessions[0]
    groups = _list(session, "ScoringGroups")
    sections = [(g, s) for g in groups for s in _list(g, "Sections")]
    if not sections:
        raise DcError(ErrorType.NO_DATA, "the session has no sections")
    methods = {_int(g, "ScoringMethod") for g in groups}
    scoring = {SCORING.get(m) for m in methods}
    if None in scoring or len(scoring) != 1:
        raise DcError(ErrorType.NOT_IMPLEMENTED, f"scoring method(s) {sorted(methods)}: bridgetable scores one of "
                      "pairs (10), IMP-across-the-field (20-27), cross-IMP (30-36), team IMPs or VPs (40, 50, 51) "
                      "for the whole session")
    plan_sections: dict[str, Section] = {}
    cfg_sections: list[dict[str, Any]] = []
    one = len(sections) == 1
    for _g, s in sections:
        letters = str(s.get("Letters") or "")
        if not re.fullmatch(r"[A-Za-z0-9]{1,2}", letters) or letters in plan_sections:
            raise DcError(ErrorType.VALIDATION, f"section letters {letters!r} are missing, invalid or given twice")
        rounds = [(t, r) for t in _list(s, "Tables") for r in _list(t, "Rounds")]
        ns = {_int(r, "PairNS") for _t, r in rounds} - {0}
        offset = max(ns) if _two_numberings(rounds) else 0
        sec = Section(letters, offset, {})
        lines = []
        for t, r in rounds:
            table = _int(t, "TableNumber") or _int(r, "TableNumber")
            low, high = _int(r, "LowBoardNumber"), _int(r, "HighBoardNumber")
            if table <= 0 or low <= 0 or high < low:
                raise DcError(ErrorType.MOVEMENT, f"section {letters} table {table} round {_int(r, 'RoundNumber')}: "
                              "a table number and a board range (LowBoardNumber..HighBoardNumber) are required")
            pns, pew = sec.entrant(_int(r, "PairNS"), "NS"), sec.entrant(_int(r, "PairEW"), "EW")
            lines.append(f"{table} {_int(r, 'RoundNumber')} {pns or '-'} {pew or '-'} {_boards(low, high)}")
            sec.tables[table] = str(table) if one else f"{letters}{table}"
        if not lines:
            raise DcError(ErrorType.MOVEMENT, f"section {letters} has no rounds")
        # pairs numbered 1..n both ways: a Mitchell, whose labels ("EW 3") are the protocol's numbers again
        mitchell = bool(sec.ew_offset) and sec.ew_offset == len(ns)
        header = [f"# name: section {letters}", f"# kind: {'mitchell' if mitchell else 'custom'}",
                  f"# one_field: {'no' if sec.ew_offset else 'yes'}"]
        if sec.ew_offset:
            header.append("# stationary_ns: " + ",".join(map(str, sorted(ns))))
        shared = len({(ln.split()[1], ln.split()[4]) for ln in lines}) < len(lines)
        header.append(f"# shared_boards: {'yes' if shared else 'no'}")
        movement = {"text": "\n".join(header + lines) + "\n", "name": str(s.get("Name") or f"Section {letters}")}
        cfg_sections.append({"id": letters, "movement": movement, "tables": {v: k for k, v in sec.tables.items()}})
        plan_sections[letters] = sec
    name = str(session.get("Name") or "Scoring program session")
    date = None
    if _int(session, "Year"):
        date = f"{_int(session, 'Year'):04d}-{_int(session, 'Month'):02d}-{_int(session, 'Day'):02d}"
    body: dict[str, Any] = {"name": name[:120], "scoring": scoring.pop(), "date": date,
                            "vp": bool(methods & {50, 51})}
    if one:
        body.update(movement=cfg_sections[0]["movement"], tables=cfg_sections[0]["tables"])
    else:
        body["sections"] = cfg_sections
    try:
        cfg = EventConfig.model_validate(body)
    except ValueError as err:
        raise DcError(ErrorType.VALIDATION, f"the event cannot be set up: {err}") from None
    return Plan(str(init.get("EventGuid") or ""), str(session.get("SessionGuid") or ""), cfg, plan_sections)


def _two_numberings(rounds: list[tuple[dict[str, Any], dict[str, Any]]]) -> bool:
    """A number sitting North-South and East-West in the same round is two pairs: the protocol's Mitchell
    numbering (a pair plays once a round, so a Howell's numbers never meet like that)."""
    by_round: dict[int, tuple[set[int], set[int]]] = {}
    for _t, r in rounds:
        ns, ew = by_round.setdefault(_int(r, "RoundNumber"), (set(), set()))
        ns.add(_int(r, "PairNS"))
        ew.add(_int(r, "PairEW"))
    return any((ns & ew) - {0} for ns, ew in by_round.values())


# ---------------------------------------------------------------------------------------------- results
def lead_of(rt: TableRuntime, n: int) -> str | None:
    """The opening lead of board ``n`` at the table: keyed with the result, or the first card played."""
    rec = rt.boards.get(n)
    if rec is None:
        return None
    for r in rec.rows:
        if r.kind == "event" and r.body.get("type") in ("result", "card"):
            lead = r.body.get("lead") if r.body.get("type") == "result" else r.body.get("card")
            return str(lead) if lead else None
    return None


def table_result(ev: LiveTournament, rt: TableRuntime, n: int) -> dict[str, Any] | None:
    """What the table's result on board ``n`` is for the scoring program (an adjustment's assigned contract wins;
    an artificial score has no contract to send), or None while there is none."""
    rec = rt.boards.get(n)
    if rec is None or rec.started_at < ev.since and not rec.not_played:
        return None
    adj = rec.adjustment
    if adj and adj.get("kind") == "assigned":
        return {"contract": adj.get("contract"), "declarer": adj.get("declarer"), "tricks": adj.get("tricks"),
                "lead": None}
    if adj and adj.get("kind") == "artificial" or rec.not_played or not rt.completed(n):
        return None
    res = rt.result(n) or {}
    if not res.get("contract"):
        return None
    return {"contract": res["contract"], "declarer": res.get("declarer"), "tricks": res.get("tricks"),
            "lead": lead_of(rt, n)}


def result_item(plan: Plan, ev: LiveTournament, table_id: str, n: int,
                result: dict[str, Any] | None) -> dict[str, Any] | None:
    """The ResultDTO of ``result`` (``None``: an erasure, ``IsDeleted``) at ``table_id`` on board ``n``."""
    at = plan.where(table_id)
    if at is None or table_id not in ev.where:
        return None
    sec, table = at
    mplan, mt = ev.where[table_id]
    sitting = next((s for s in mplan.movement.sittings if s.table == mt and n in s.boards and not s.sit_out), None)
    if sitting is None:
        return None
    item: dict[str, Any] = {
        "SessionGuid": plan.session_guid, "SectionLetters": sec.letters, "TableNumber": table,
        "RoundNumber": sitting.round, "BoardNumber": n, "ScoringDirection": 3, "IsDeleted": result is None,
        "PairNorthSouth": sec.pair(sitting.ns), "PairEastWest": sec.pair(sitting.ew), "DeclaringPair": 0,
        "DeclarerDirection": 0, "Level": 0, "Denomination": 0, "Stake": 0, "TotalTricks": 0,
        "LeadCardRank": 0, "LeadCardSuit": 0, "ValidationMessages": None}
    if result is None:
        return item
    try:
        contract = parse_contract(str(result["contract"]), result.get("declarer"))
    except ScoringError:
        return None
    if contract is None:                      # passed out: level 0
        return item
    declarer = str(result.get("declarer") or "")
    item.update(Level=contract.level, Denomination=STRAINS[contract.strain],
                Stake={"": 0, "X": 1, "XX": 2}[contract.risk], DeclarerDirection=SEATS.get(declarer, 0),
                DeclaringPair=item["PairNorthSouth"] if declarer in ("N", "S") else item["PairEastWest"],
                TotalTricks=int(result.get("tricks") or 0))
    lead = result.get("lead")
    if lead:
        item.update(LeadCardSuit=SUITS[str(lead)[0]], LeadCardRank=RANKS[str(lead)[1]])
    return item


def put_result(item: dict[str, Any]) -> dict[str, Any]:
    """A ResultDTO the scoring program puts as the service's result words (``DcError`` when it is not one)."""
    if item.get("IsDeleted"):
        return {"deleted": True}
    level = _int(item, "Level")
    if level == 0:
        return {"contract": "PASS", "declarer": None, "tricks": None, "lead": None}
    strain, direction = STRAIN_OF.get(_int(item, "Denomination")), SEAT_OF.get(_int(item, "DeclarerDirection"))
    stake = {0: "", 1: "X", 2: "XX"}.get(_int(item, "Stake"))
    tricks = _int(item, "TotalTricks")
    if not 1 <= level <= 7 or strain is None or direction is None or stake is None or not 0 <= tricks <= 13:
        raise DcError(ErrorType.VALIDATION, "a result needs Level 1..7, Denomination 1..5, DeclarerDirection 1..4, "
                      "Stake 0..2 and TotalTricks 0..13")
    lead = None
    suit, rank = _int(item, "LeadCardSuit"), _int(item, "LeadCardRank")
    if suit and rank:
        s = next((k for k, v in SUITS.items() if v == suit), None)
        r = next((k for k, v in RANKS.items() if v == rank), None)
        if s is None or r is None:
            raise DcError(ErrorType.VALIDATION, "LeadCardSuit is 1..4 and LeadCardRank 2..14")
        lead = s + r
    return {"contract": f"{level}{strain}{stake}", "declarer": direction, "tricks": tricks, "lead": lead}
