"""USEBIO 1.2 XML -> what a results program needs to show the session again: the event's header, each
section's ranking (place, score, players) and each board's traveller lines.

Reads the elements ``results/export_usebio.py`` writes (and the same names from other USEBIO writers); an
element it does not know is ignored. A document that is not XML, not USEBIO or holds a number that is not
one raises ``UsebioError`` with the place, never anything else. External entities and DTDs are not loaded
(``xml.etree`` does not fetch them).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as ET

from .errors import ResultsError

__all__ = ["UsebioError", "UsebioEvent", "UsebioSection", "UsebioEntrant", "UsebioLine", "read_usebio"]


class UsebioError(ResultsError):
    """A USEBIO document that cannot be read."""


@dataclass(frozen=True, slots=True)
class UsebioEntrant:
    number: str                      # a pair's PAIR_NUMBER or a team's TEAM_ID
    direction: str | None            # NS / EW in a two-field movement
    place: str | None
    percentage: float | None         # matchpoint pairs
    total: float | None
    boards: int | None
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class UsebioLine:
    board: int
    ns: str
    ew: str
    contract: str | None
    declarer: str | None
    lead: str | None
    tricks: int | None
    score: str | None                # as written: a score from NS's side, or an adjusted score (A6040, 420/-50)
    ns_points: float | None          # matchpoints or IMPs
    ew_points: float | None


@dataclass(slots=True)
class UsebioSection:
    id: str
    entrants: list[UsebioEntrant] = field(default_factory=list)
    lines: list[UsebioLine] = field(default_factory=list)


@dataclass(slots=True)
class UsebioEvent:
    description: str
    event_type: str                  # PAIRS / TEAMS
    scoring: str | None              # BOARD_SCORING_METHOD
    date: str | None
    club: str | None
    sections: dict[str, UsebioSection] = field(default_factory=dict)


def _number(text: str | None, where: str, kind: type[int] | type[float]) -> int | float | None:
    if text is None or not text.strip():
        return None
    try:
        return kind(text.strip())
    except ValueError:
        raise UsebioError(f"{where}: {text.strip()!r} is not a number") from None


def _int(el: ET.Element, tag: str, where: str) -> int | None:
    v = _number(el.findtext(tag), f"{where} {tag}", int)
    return None if v is None else int(v)


def _float(el: ET.Element, tag: str, where: str) -> float | None:
    v = _number(el.findtext(tag), f"{where} {tag}", float)
    return None if v is None else float(v)


def _text(el: ET.Element, tag: str) -> str | None:
    t = el.findtext(tag)
    return t.strip() if t is not None and t.strip() else None


def _entrant(el: ET.Element, where: str) -> UsebioEntrant:
    number = el.get("TEAM_ID") if el.tag == "TEAM" else _text(el, "PAIR_NUMBER")
    if not number:
        raise UsebioError(f"{where}: a {el.tag} without its number")
    names = tuple(n for n in (_text(p, "PLAYER_NAME") for p in el.findall("PLAYER")) if n)
    return UsebioEntrant(number, _text(el, "DIRECTION"), _text(el, "PLACE"), _float(el, "PERCENTAGE", where),
                         _float(el, "TOTAL_SCORE", where), _int(el, "BOARDS_PLAYED", where), names)


def _lines(board: ET.Element, where: str) -> list[UsebioLine]:
    number = _int(board, "BOARD_NUMBER", where)
    if number is None:
        raise UsebioError(f"{where}: a BOARD without its BOARD_NUMBER")
    out = []
    for k, tl in enumerate(board.findall("TRAVELLER_LINE"), 1):
        at = f"{where} board {number} line {k}"
        ns, ew = _text(tl, "NS_PAIR_NUMBER"), _text(tl, "EW_PAIR_NUMBER")
        if ns is None or ew is None:
            raise UsebioError(f"{at}: a TRAVELLER_LINE needs NS_PAIR_NUMBER and EW_PAIR_NUMBER")
        points = ("NS_MATCH_POINTS", "EW_MATCH_POINTS") if tl.find("NS_MATCH_POINTS") is not None \
            else ("NS_IMPS", "EW_IMPS")
        out.append(UsebioLine(number, ns, ew, _text(tl, "CONTRACT"), _text(tl, "PLAYED_BY"), _text(tl, "LEAD"),
                              _int(tl, "TRICKS", at), _text(tl, "SCORE"), _float(tl, points[0], at),
                              _float(tl, points[1], at)))
    return out


def read_usebio(source: str | bytes | os.PathLike[str]) -> UsebioEvent:
    """A USEBIO document from a path or from its bytes (``bytes``) or text (``str`` starting with ``<``)."""
    try:
        if isinstance(source, bytes):
            root = ET.fromstring(source)
        elif isinstance(source, str) and source.lstrip().startswith("<"):
            root = ET.fromstring(source)
        else:
            root = ET.parse(Path(source)).getroot()
    except ET.ParseError as err:
        raise UsebioError(f"not well-formed XML: {err}") from None
    except OSError as err:
        raise UsebioError(f"cannot read {source!r}: {err.strerror or err}") from None
    if root.tag != "USEBIO":
        raise UsebioError(f"not a USEBIO document (root element {root.tag!r})")
    event_el = root.find("EVENT")
    if event_el is None:
        raise UsebioError("a USEBIO document without its EVENT")
    club = root.find("CLUB")
    event = UsebioEvent(_text(event_el, "EVENT_DESCRIPTION") or "", event_el.get("EVENT_TYPE", ""),
                        _text(event_el, "BOARD_SCORING_METHOD"), _text(event_el, "DATE"),
                        _text(club, "CLUB_NAME") if club is not None else None)
    for se in event_el.iter("SECTION"):
        sid = se.get("SECTION_ID") or str(len(event.sections) + 1)
        section = event.sections.setdefault(sid, UsebioSection(sid))
        where = f"section {sid}"
        participants = se.find("PARTICIPANTS")
        for el in participants if participants is not None else ():
            if el.tag in ("PAIR", "TEAM"):
                section.entrants.append(_entrant(el, where))
        for board in se.iter("BOARD"):       # pairs: under the section; teams: under each MATCH
            section.lines += _lines(board, where)
    return event
