"""Session results -> USEBIO 1.2 XML (the EBU's results interchange standard).

The document declares ``<!DOCTYPE USEBIO SYSTEM "usebio_v1_2.dtd">`` and ``<USEBIO Version="1.2">``.
Element names and nesting follow USEBIO 1.2 as public USEBIO writers use it: ``CLUB``, then ``EVENT``
(``EVENT_TYPE`` attribute) with its header, ``SESSION``/``SECTION``, ``PARTICIPANTS`` (``PAIR`` or
``TEAM`` with ``PLAYER``s), and per ``BOARD`` its ``TRAVELLER_LINE``s (teams: one ``MATCH`` per match).

The EBU's DTD text was not available to this project when this was written, so the project validates
its output against ``results/usebio/usebio_subset.dtd``, a DTD of exactly the elements written here
(not the EBU's); a test also validates against the real ``usebio_v1_2.dtd`` when one is supplied
(``BRIDGETABLE_USEBIO_DTD``). Choices, where USEBIO writers differ:

- ``DATE`` is ``DD/MM/YYYY``; ``BOARD_SCORING_METHOD`` is ``MATCH_POINTS``, ``CROSS_IMPS``,
  ``BUTLER_IMPS``, ``AGGREGATE`` or ``IMPS``;
- an artificial adjusted score is written as the EBU scorer's ``A`` + NS% + EW% in ``SCORE``
  (``A6040``), an award given as IMPs as ``A`` + ``+3``/``-3`` values; an assigned score as its NS
  score, a split one as ``NS_score/EW_score`` (both from NS's side);
- ``WINNER_TYPE`` is 2 for a two-field Mitchell, else 1; pairs are numbered as the results page numbers them
  (a two-field Mitchell's East-West pairs 1..T, with ``DIRECTION`` EW), a player's member number is its own
  ``NATIONAL_ID_NUMBER`` (a name shown as "Ann Able (10234)" is split), ``LEAD`` is the opening lead;
- a teams ``MATCH`` names its teams in ``TEAM_NUMBER`` / ``OPPOSING_TEAM_NUMBER`` (``TEAM`` is the
  participant element, with attributes; a DTD cannot give one name two content models).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from xml.etree import ElementTree as ET

from .scoring import Award, LineScore, award_imps, award_percent
from .session import BoardResult, Scoring, Session

__all__ = ["usebio_xml", "USEBIO_DOCTYPE"]

USEBIO_DOCTYPE = '<!DOCTYPE USEBIO SYSTEM "usebio_v1_2.dtd">'
_METHOD = {Scoring.MATCHPOINTS: "MATCH_POINTS", Scoring.CROSS_IMPS: "CROSS_IMPS", Scoring.BUTLER: "BUTLER_IMPS",
           Scoring.TOTAL_POINTS: "AGGREGATE", Scoring.TEAMS_IMPS: "IMPS"}


def _el(parent: ET.Element, name: str, text: object | None = None, **attrs: str) -> ET.Element:
    e = ET.SubElement(parent, name, attrs)
    if text is not None:
        e.text = str(text)
    return e


def _date(d: str | None) -> str | None:
    if not d:
        return None
    parts = d.replace("-", ".").split(".")
    if len(parts) == 3 and len(parts[0]) == 4:
        return f"{parts[2]}/{parts[1]}/{parts[0]}"
    return d


def _award_value(a: Award, imps: bool) -> str:
    v = award_imps(a) if imps else award_percent(a)
    return f"{v:+g}" if imps else f"{v:g}"


def _score_text(r: BoardResult, imps: bool) -> str:
    if r.artificial:
        return "A" + _award_value(r.artificial[0], imps) + _award_value(r.artificial[1], imps)
    if r.assigned:
        a, b = r.assigned
        return str(a) if a == b else f"{a}/{b}"
    return str(r.score_ns)


# a name as the service shows a member entered by number: "Ann Able (10234)"
_MEMBER = re.compile(r"^(.*\S)\s*\(([A-Za-z0-9._/-]*[0-9][A-Za-z0-9._/-]*)\)$")


def _player(name: str, national_id: str | None) -> tuple[str, str | None]:
    """The player's name and member number, each in its own element (PLAYER_NAME, NATIONAL_ID_NUMBER)."""
    m = _MEMBER.match(name)
    if m and not national_id:
        return m.group(1), m.group(2)
    return name, national_id


def _num(v: float) -> str:
    return f"{v:.2f}"


def usebio_xml(session: Session, *, club_name: str | None = None, club_id: str | None = None,
               program_version: str = "0.1.0") -> bytes:
    """The session as a USEBIO 1.2 document (UTF-8 bytes with the XML declaration and DOCTYPE)."""
    teams = session.scoring is Scoring.TEAMS_IMPS
    root = ET.Element("USEBIO", {"Version": "1.2"})
    club = _el(root, "CLUB")
    _el(club, "CLUB_NAME", club_name or session.site or "")
    if club_id:
        _el(club, "CLUB_ID_NUMBER", club_id)
    event = _el(root, "EVENT", EVENT_TYPE=("TEAMS" if teams else "PAIRS"))
    _el(event, "EVENT_DESCRIPTION", session.name)
    if session.date:
        _el(event, "DATE", _date(session.date))
    _el(event, "PROGRAM_NAME", "bridgetable")
    _el(event, "PROGRAM_VERSION", program_version)
    _el(event, "BOARD_SCORING_METHOD", _METHOD[session.scoring])
    if teams and session.vp:
        _el(event, "MATCH_SCORING_METHOD", "VPS")
    _el(event, "SESSION_COUNT", 1)
    _el(event, "SECTION_COUNT", len(session.sections))
    two = any(not s.movement.one_field and s.movement.stationary_ns for s in session.sections.values())
    _el(event, "WINNER_TYPE", 2 if two else 1)
    sess = _el(event, "SESSION", SESSION_ID="1")
    for sec in session.sections.values():
        se = _el(sess, "SECTION", SECTION_ID=sec.id)
        parts = _el(se, "PARTICIPANTS")
        for rr in session.ranking(sec.id):
            en = sec.entrant(rr.entrant)
            if teams:
                t = _el(parts, "TEAM", TEAM_ID=str(rr.entrant), TEAM_NAME=en.display)
                _el(t, "PLACE", rr.place_text)
                _el(t, "TOTAL_SCORE", _num(rr.score))
                holder = t
            else:
                p = _el(parts, "PAIR")
                _el(p, "PAIR_NUMBER", sec.movement.number(rr.entrant))
                if rr.field in ("NS", "EW"):
                    _el(p, "DIRECTION", rr.field)
                _el(p, "PLACE", rr.place_text)
                if session.scoring is Scoring.MATCHPOINTS:
                    _el(p, "PERCENTAGE", _num(rr.score))
                _el(p, "TOTAL_SCORE", _num(rr.total))
                _el(p, "BOARDS_PLAYED", rr.boards)
                holder = p
            for i, full in enumerate(en.names):
                name, national_id = _player(full, en.ids[i] if i < len(en.ids) and en.ids[i] else None)
                pl = _el(holder, "PLAYER")
                _el(pl, "PLAYER_NAME", name)
                if national_id:
                    _el(pl, "NATIONAL_ID_NUMBER", national_id)
        if teams:
            for m in session.matches(sec.id):
                me = _el(se, "MATCH")
                _el(me, "ROUND_NUMBER", m["round"])
                _el(me, "TEAM_NUMBER", m["team"])
                _el(me, "OPPOSING_TEAM_NUMBER", m["opponent"])
                _el(me, "TEAM_SCORE", _num(m.get("vp", m["imps"])))
                _el(me, "OPPOSING_TEAM_SCORE", _num(m.get("opponent_vp", m["opponent_imps"])))
                for b in m["boards"]:
                    tr = session.traveller(b, sec.id)
                    if tr is None:
                        continue
                    be = _el(me, "BOARD")
                    _el(be, "BOARD_NUMBER", b)
                    for r, ls in zip(tr.results, tr.scores):
                        if {r.ns, r.ew} != {m["team"], m["opponent"]}:
                            continue
                        _line(be, r, ls, session, direction=("NS" if r.ns == m["team"] else "EW"))
        else:
            for tr in session.travellers(sec.id):
                be = _el(se, "BOARD")
                _el(be, "BOARD_NUMBER", tr.board)
                for r, ls in zip(tr.results, tr.scores):
                    _line(be, r, ls, session, numbers=sec.movement.number)
    ET.indent(root, "  ")
    body = ET.tostring(root, encoding="unicode")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + USEBIO_DOCTYPE + "\n" + body + "\n").encode("utf-8")


def _line(board_el: ET.Element, r: BoardResult, ls: LineScore, session: Session, direction: str | None = None,
          numbers: Callable[[int], int] = int) -> None:
    imps = session.scoring not in (Scoring.MATCHPOINTS, Scoring.TOTAL_POINTS)
    tl = _el(board_el, "TRAVELLER_LINE")
    if direction:
        _el(tl, "DIRECTION", direction)
    _el(tl, "NS_PAIR_NUMBER", numbers(r.ns))
    _el(tl, "EW_PAIR_NUMBER", numbers(r.ew))
    if r.kind == "table":
        _el(tl, "CONTRACT", r.contract)
        if r.declarer:
            _el(tl, "PLAYED_BY", r.declarer)
        if r.lead:
            _el(tl, "LEAD", r.lead)
        if r.tricks is not None:
            _el(tl, "TRICKS", r.tricks)
    _el(tl, "SCORE", _score_text(r, imps))
    if session.scoring is Scoring.MATCHPOINTS:
        _el(tl, "NS_MATCH_POINTS", _num(ls.ns))
        _el(tl, "EW_MATCH_POINTS", _num(ls.ew))
    elif imps:
        _el(tl, "NS_IMPS", _num(ls.ns))
        _el(tl, "EW_IMPS", _num(ls.ew))
