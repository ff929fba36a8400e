"""The protocol's checks of what a scoring program sends, with the messages its clients' own validators give (so a
scoring program sees the same words whether it checked before sending or not). The texts are the protocol's, as
``bridgemate-dataconnector-client`` 1.2.1 states them (its golden cases in ``tests/fixtures/validation`` are
the reference of ``tests/dataconnector/test_dc_validation.py``); they work on the wire's objects here.

Every object the client sends is covered, the nested ones (Init > Session > ScoringGroup > Section > Table >
Round) with the protocol's cascade of messages; what the service cannot run although valid is refused after
this by its own planning (``mapping.plan_event``), with its own messages.
"""
from __future__ import annotations

import datetime
import os
import re
from collections.abc import Callable
from typing import Any

from .wire import DcError, ErrorType

Item = dict[str, Any]
GUID = "The guid must be exactly 32 character long and can only contain capital A to F or digits 0 to 9."
LETTERS_HINT = "Valid values are: 'A-Z', 'AA-ZZ' or 'AAA','ZZZ'"
DIRECTIONS = ("None", "North", "East", "South", "West")
CARDS = "".join(sorted("AKQJT98765432"))
HANDS = ("North", "East", "South", "West")
SUIT_NAMES = ("Clubs", "Diamonds", "Hearts", "Spades")
# Commands a ContinueDTO may carry: start BCS 1, start reading 4, minimize 16, auto shut-down 32, debug log 64,
# clear data 128 (never reset 2 or the http flag 256)
CONTINUE_COMMANDS = 1 | 4 | 16 | 32 | 64 | 128


def _t(v: Any) -> str:
    return "" if v is None else str(v)


def _n(item: Item, key: str) -> int:
    v = item.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _blank(v: Any) -> bool:
    return v is None or not str(v).strip()


def _bad_guid(v: Any) -> bool:
    return not isinstance(v, str) or not re.fullmatch(r"[A-F0-9]{32}", v)


def _bad_letters(v: Any) -> bool:
    return not isinstance(v, str) or re.fullmatch(r"([A-Z])\1{0,2}", v) is None


def _letters(item: Item) -> list[str]:
    v = item.get("SectionLetters")
    return [f"Invalid SectionLetters ({_t(v)}). {LETTERS_HINT}"] if _bad_letters(v) else []


def _bad_pin(v: Any) -> bool:
    return _blank(v) or len(str(v)) != 4 or re.fullmatch(r"[+-]?[0-9]+", str(v).strip()) is None


def player_data(item: Item) -> list[str]:
    out = [GUID] if _bad_guid(item.get("SessionGuid")) else []
    if _blank(item.get("PlayerNumber")):
        out.append("The PlayerNumber is required.")
    if _blank(item.get("LastName")):
        out.append("The LastName is required.")
    return out


def participation(item: Item, number_and_name: bool = False) -> list[str]:
    guid = item.get("SessionGuid")
    out = [] if isinstance(guid, str) and len(guid) == 32 else \
        [f"Invalid SessionGuid ({_t(guid)}). The value must be in capitals and be exactly 32 characters long."]
    out += _letters(item)
    direction = _n(item, "Direction")
    if not 1 <= direction <= 4:
        name = DIRECTIONS[direction] if 0 <= direction < 5 else "None"
        out.append(f"Invalid Direction ({name}). The value must be between 1 and 4.")
    if _n(item, "TableNumber") < 1:
        out.append(f"Invalid TableNumber ({_n(item, 'TableNumber')}). The value must be greater than zero.")
    if _n(item, "RoundNumber") < 0:
        out.append(f"Invalid RoundNumber ({_n(item, 'RoundNumber')}). The value cannot be negative.")
    if item.get("IsRemoval"):
        if not all(_blank(item.get(k)) for k in ("PlayerNumber", "FirstName", "LastName", "CountryCode")):
            out.append("A removal (IsRemoval) must not specify a PlayerNumber, FirstName, LastName or CountryCode.")
        if item.get("IsPlayerSwap"):
            out.append("A participation cannot be both a removal (IsRemoval) and a player swap (IsPlayerSwap).")
        return out
    named, numbered = not _blank(item.get("LastName")), not _blank(item.get("PlayerNumber"))
    if not named and not numbered:
        out.append("Either the LastName or the PlayerNumber must be specified.")
    if named and numbered and not number_and_name:
        out.append("Either the LastName or the PlayerNumber must be specified, but not both.")
    return out


def round_(item: Item) -> list[str]:
    out = [GUID] if _bad_guid(item.get("SessionGuid")) else []
    out += _letters(item)
    for key in ("TableNumber", "RoundNumber"):
        if _n(item, key) <= 0:
            out.append(f"{key} ({_n(item, key)}) must be greater than zero.")
    sits_out = _n(item, "PairNS") == 0 or _n(item, "PairEW") == 0
    if sits_out and (_n(item, "LowBoardNumber") > 0 or _n(item, "HighBoardNumber") > 0):
        out.append("No boards may be specified for a sit-out round or an empty round.")
    return out


def table(item: Item) -> list[str]:
    out = [GUID] if _bad_guid(item.get("SessionGuid")) else []
    out += _letters(item)
    number, letters, guid = _n(item, "TableNumber"), _t(item.get("SectionLetters")), _t(item.get("SessionGuid"))
    if number <= 0:
        out.append(f"TableNumber ({number}) must be greater than zero.")
    rounds = [r for r in item.get("Rounds") or [] if isinstance(r, dict)]
    numbers = sorted(_n(r, "RoundNumber") for r in rounds)
    if numbers:
        if len(set(numbers)) != len(numbers):
            out.append("The roundnumbers on a table must be unique.")
        if numbers[-1] - numbers[0] != len(numbers) - 1 or len(set(numbers)) != len(numbers):
            out.append("The roundnumbers must be consecutive.")
        if numbers[0] > 1:
            out.append(f"The round numbers must start with 1, but the lowest round is {numbers[0]}")
    for r in rounds:
        rn = _n(r, "RoundNumber")
        if r.get("SessionGuid") != item.get("SessionGuid"):
            out.append(f"Round {rn} on table '{letters}{number}' must have SessionGuid '{guid}' "
                       f"but it is '{_t(r.get('SessionGuid'))}'")
        if r.get("SectionLetters") != item.get("SectionLetters"):
            out.append(f"Round {rn} on table ' {letters} {number}' must have SectionLetters '{letters}' "
                       f"but it is '{_t(r.get('SectionLetters'))}'")
        if _n(r, "TableNumber") != number:
            out.append(f"Round {rn} on table ' {letters} {number}' must have TableNumber '{number}' "
                       f"but it is '{_n(r, 'TableNumber')}'")
        inner = round_(r)
        if inner:
            out.append(f"Round {rn} on '{letters}{number}' has validation errrors: {'; '.join(inner)}.")
    return out


def _range(out: list[str], item: Item, key: str, low: int, high: int, tail: str, when: bool = True) -> None:
    v = _n(item, key)
    if when and not low <= v <= high:
        out.append(f"Invalid {key} ({v}). {tail}")


def result(item: Item) -> list[str]:
    guid = item.get("SessionGuid")
    out = [] if isinstance(guid, str) and len(guid) == 32 else \
        [f"Invalid SessionGuid ({_t(guid)}). The value must be in capitals and be exactly"]
    out += _letters(item)
    for key in ("TableNumber", "RoundNumber", "BoardNumber"):
        _range(out, item, key, 1, 1 << 31, "The value must be greater than zero.")
    if item.get("IsDeleted"):
        return out
    for key in ("PairEastWest", "PairNorthSouth"):
        _range(out, item, key, 1, 1 << 31, "The value must be greater than zero.")
    ns, ew, declaring = _n(item, "PairNorthSouth"), _n(item, "PairEastWest"), _n(item, "DeclaringPair")
    if declaring not in (ns, ew):
        out.append(f"Invalid DeclaringPair ({declaring}). The value must be either {ns} or {ew}.")
    bid = _n(item, "Level") >= 1
    _range(out, item, "DeclarerDirection", 1, 4, "The value must be between 1 and 4.", bid)
    _range(out, item, "ScoringDirection", 1, 3, "The value must be between 1 and 3.", bid)
    _range(out, item, "Level", -10, 7, "The value must be between -10 and +7.")
    _range(out, item, "Denomination", 1, 5, "The value must be between 1 and 5.", bid)
    _range(out, item, "Stake", 0, 2, "The value must be between 0 and 2.")
    _range(out, item, "TotalTricks", 0, 13, "The value must be between 0 and 13.")
    rank = _n(item, "LeadCardRank")
    if rank and not 2 <= rank <= 14:               # a wrong rank says nothing of the suit
        out.append(f"Invalid LeadCardRank ({rank}). The value must be between 2 and 14 (Ace).")
    else:
        _range(out, item, "LeadCardSuit", 1, 4, "If LeadCardRank>0  the value must be between 1 and 4.", rank != 0)
    return out


def td_call(item: Item) -> list[str]:
    out = [GUID] if _bad_guid(item.get("SessionGuid")) else []
    out += _letters(item)
    for key in ("TableNumber", "RoundNumber"):
        if _n(item, key) <= 0:
            out.append(f"{key} ({_n(item, key)}) must be greater than zero.")
    if not 1 <= _n(item, "Status") <= 4:
        out.append(f"Invalide Status:({_n(item, 'Status')}). Valid values are 1,2,3 or 4.")
    return out


def _data_folder(item: Item) -> list[str]:
    """A data folder named for the Data Connector's machine must exist there."""
    folder = item.get("AlternativeDataFolder")
    if _blank(folder) or os.path.isdir(str(folder)):
        return []
    return [f"The specified alternative data folder ('{_t(folder)}' does not exist.)"]


def continue_(item: Item) -> list[str]:
    commands = _n(item, "Commands")
    out = []
    if commands & 255 & ~CONTINUE_COMMANDS:
        out.append(f"Invalid value for Commands ({commands}). Valid values are a sum of 0 and/or 1 and/or 4 "
                   "and/or 128.")
    return out + _data_folder(item)


def handrecord(item: Item) -> list[str]:
    out = [] if not _bad_guid(item.get("SessionGuid")) else \
        [f"The guid ({_t(item.get('SessionGuid'))}) must be exactly 32 character long and can only contain "
         "capital A to F or digits 0 to 9."]
    if _n(item, "ScoringGroupNumber") <= 0:
        out.append(f"ScoringGroupNumber ({_n(item, 'ScoringGroupNumber')}) must be greater than zero.")
    out += _letters(item)
    if _n(item, "BoardNumber") <= 0:
        out.append(f"BoardNumber ({_n(item, 'BoardNumber')}) must be greater than zero.")
    fields = [f"{hand}{suit}" for hand in HANDS for suit in SUIT_NAMES]
    holding = {f: item.get(f) for f in fields}
    bad = [f for f, v in holding.items() if not isinstance(v, str) or any(c not in CARDS for c in v)]
    if bad:
        return out + [f"Invalid suits (null value or invalid card) in {', '.join(bad)}. Valid cards are '{CARDS}'"]
    for suit in SUIT_NAMES:
        cards = "".join(str(holding[f"{hand}{suit}"]) for hand in HANDS)
        word = "clubs" if suit == "Clubs" else suit
        if len(cards) != 13:
            out.append(f"Invalid number of {word} ({len(cards)}). The suit must add up to 13 cards.")
        elif "".join(sorted(cards)) != CARDS:
            out.append(f"Duplicate cards in the {word} suit '{''.join(sorted(cards))}'")
    for hand in HANDS:
        n = sum(len(str(holding[f"{hand}{suit}"])) for suit in SUIT_NAMES)
        if n != 13:
            out.append(f"Invalid number of cards for {hand} ({n}). The hand must add up to 13 cards.")
    return out


def _settings(item: Item) -> list[str]:
    return ([GUID] if _bad_guid(item.get("SessionGuid")) else []) + _letters(item)


def _pin(item: Item, key: str) -> list[str]:
    return [f"Invalid {key} ('{_t(item.get(key))}'). The pincode must be four digits."] if _bad_pin(item.get(key)) \
        else []


def bridgemate2(item: Item) -> list[str]:
    return _settings(item) + _pin(item, "BM2PINcode")


def bridgemate3(item: Item) -> list[str]:
    out = _settings(item)
    for key, low, high in (("BM3ScreenDimMode", 0, 15), ("BM3ScreenBrightness", 1, 7), ("BM3SleepMode", 0, 120),
                           ("BM3AudioVolume", 0, 7)):
        if not low <= _n(item, key) <= high:
            out.append(f"Invalid {key} ({_n(item, key)}). Value must be between {low} and {high}")
    return out + _pin(item, "BM3PINcode")


SCORING_METHODS = (10, 20, 21, 22, 25, 26, 27, 30, 31, 35, 36, 40, 50, 51, 60, 70)
EVENT_GUID = ("The event guid, if used, must be exactly 32 character long and can only contain capital A to F or "
              "digits 0 to 9.")


def _objects(item: Item, key: str) -> list[Item]:
    return [x for x in item.get(key) or [] if isinstance(x, dict)]


def _section_common(item: Item, out: list[str]) -> None:
    """What a section and a section update share after their own first checks."""
    missing, winners, game = _n(item, "MissingPair"), _n(item, "Winners"), _n(item, "GameType")
    if missing < 0 and winners != 2:
        out.append(f"MissingPair ({missing}) must at least be zero for a one winner section.")
    if not 1 <= winners <= 2:
        out.append(f"Invalid Winners ({winners}). Valid values are 1 or 2.")
    if game not in (10, 20, 30):
        out.append(f"Invalid GameType ({game}). Valid values are 10, 20 or 30.")
    if item.get("IsCombiSection"):
        for key in ("NorthSouthPairSectionLetters", "EastWestPairSectionLetters"):
            if _bad_letters(item.get(key)):
                out.append(f"Invalid {key} ({_t(item.get(key))}). {LETTERS_HINT}")
    tables = _objects(item, "Tables")
    move = _n(item, "EWMoveBeforePlay")
    if abs(move) > len(tables):
        out.append(f"The absolute value of EWMoveBeforePlay ({move}) cannot be higher than the number of tables "
                   f"({len(tables)}).")
    letters, guid = _t(item.get("Letters")), _t(item.get("SessionGuid"))
    for t in tables:
        number = _n(t, "TableNumber")
        if t.get("SessionGuid") != item.get("SessionGuid"):
            out.append(f"Table '{letters}{number}' must have SessionGuid '{guid}' "
                       f"but it is '{_t(t.get('SessionGuid'))}'")
        if t.get("SectionLetters") != item.get("Letters"):
            out.append(f"Table ' {letters} {number}' must have SectionLetters '{letters}' "
                       f"but it is '{_t(t.get('SectionLetters'))}'")
        inner = table(t)
        if inner:
            out.append(f"Table '{_t(t.get('SectionLetters'))}{number}' has validation errrors: {'; '.join(inner)}.")
    numbers = [_n(t, "TableNumber") for t in tables]
    out += [f"Tablenumber {n} occurs {numbers.count(n)} times. " for n in sorted(set(numbers)) if numbers.count(n) > 1]


def _head(item: Item) -> list[str]:
    out = [GUID] if _bad_guid(item.get("SessionGuid")) else []
    if _bad_letters(item.get("Letters")):
        out.append(f"Invalid Letters ({_t(item.get('Letters'))}). {LETTERS_HINT}")
    return out


def _group_number(item: Item, out: list[str]) -> None:
    if _n(item, "ScoringGroupNumber") <= 0:
        out.append(f"ScoringGroupNumber ({_n(item, 'ScoringGroupNumber')}) must be greater than zero.")


def section(item: Item) -> list[str]:
    out = _head(item)
    _group_number(item, out)
    _section_common(item, out)
    return out


def seat_text(p: Item) -> str:
    """A participation as the protocol's messages name it."""
    direction = _n(p, "Direction")
    seat = DIRECTIONS[direction] if 0 <= direction < 5 else "None"
    where = f"{_t(p.get('SectionLetters'))}{_n(p, 'TableNumber')} {seat}"
    if p.get("IsRemoval"):
        return f"REMOVE {where} round {_n(p, 'RoundNumber')}"
    return (f"{'SWAP ' if p.get('IsPlayerSwap') else ''}{where} round {_n(p, 'RoundNumber')}: "
            f"{_t(p.get('PlayerNumber'))} {_t(p.get('FirstName'))} {_t(p.get('LastName'))}")


def _explicit_round(p: Item, letters: str, label: str) -> str:
    return (f"{label} '{seat_text(p)}' has RoundNumber {_n(p, 'RoundNumber')}, but section '{letters}' does not "
            "have HasExplicitParticipations set. Round numbers greater than one are only valid for sections with "
            "explicit participations.")


def section_update(item: Item) -> list[str]:
    out = _head(item)
    if item.get("IsDeleted"):
        return out + (["A deleted section cannot contain tables."] if item.get("Tables") else [])
    _group_number(item, out)
    if _n(item, "ScoringGroupScoringMethod") not in SCORING_METHODS:
        out.append(f"Invalid ScoringGroupScoringMethod ({_n(item, 'ScoringGroupScoringMethod')}). The value must be "
                   "a multiple of 10 between 10 and 70 or 51. ")
    _section_common(item, out)
    letters, guid = _t(item.get("Letters")), _t(item.get("SessionGuid"))
    seats = _objects(item, "Participations")
    explicit = bool(item.get("HasExplicitParticipations"))
    if explicit and not seats:
        out.append(f"HasExplicitParticipations is set for section '{letters}', but the update does not carry any "
                   "Participations. An update for such a section must include the complete seating for all rounds.")
    for p in seats:
        text = seat_text(p)
        inner = participation(p)
        if inner:
            out.append(f"Participation '{text}' has validation errors: {'; '.join(inner)}.")
        if p.get("SessionGuid") != item.get("SessionGuid"):
            out.append(f"Participation '{text}' must have SessionGuid '{guid}' but it is '{_t(p.get('SessionGuid'))}'.")
        if p.get("SectionLetters") != item.get("Letters"):
            out.append(f"Participation '{text}' must have SectionLetters '{letters}' "
                       f"but it is '{_t(p.get('SectionLetters'))}'.")
        if _n(p, "RoundNumber") > 1 and not explicit:
            out.append(_explicit_round(p, letters, "Participation"))
    return out


def scoring_group(item: Item) -> list[str]:
    out = [GUID] if _bad_guid(item.get("SessionGuid")) else []
    number = _n(item, "ScoringGroupNumber")
    _group_number(item, out)
    if _n(item, "ScoringMethod") not in SCORING_METHODS:
        out.append(f"Invalid ScoringMethod ({_n(item, 'ScoringMethod')}). The value must be a multiple of 10 "
                   "between 10 and 70 or 51. ")
    sections = _objects(item, "Sections")
    if item.get("IsDeleted"):
        return out + (["A scoringgroup marked for deletion must not have any sections defined."] if sections else [])
    if not sections:
        return out + ["The scoringgroup must have at least one section."]
    if len({s.get("Letters") for s in sections}) != len(sections):
        out.append("The sections cannot have the same Letters")
    for sec in sections:
        letters = _t(sec.get("Letters"))
        if sec.get("SessionGuid") != item.get("SessionGuid"):
            out.append(f"Section '{letters}' must have SessionGuid '{_t(item.get('SessionGuid'))}' "
                       f"but it is '{_t(sec.get('SessionGuid'))}'")
        if _n(sec, "ScoringGroupNumber") != number:
            out.append(f"Section '{letters}' must have ScoringGroupNumber '{number}' "
                       f"but it is '{_n(sec, 'ScoringGroupNumber')}'")
        inner = section(sec)
        if inner:
            out.append(f"Section '{letters}' has validation errrors: {'; '.join(inner)}.")
    return out


def session(item: Item, adding: bool = False) -> list[str]:
    out = [GUID] if _bad_guid(item.get("SessionGuid")) else []
    event = item.get("EventGuid")
    if adding and not event:
        out.append("When adding a session the EventGuid must not be empty.")
    if event is not None and _bad_guid(event):
        out.append(EVENT_GUID)
    groups = _objects(item, "ScoringGroups")
    if not groups:
        return out + ["At least one scoringroup is required."]
    if len({_n(g, "ScoringGroupNumber") for g in groups}) != len(groups):
        out.append("The scoring groups cannot have the same ScoringGroupNumber")
    for g in groups:
        if g.get("SessionGuid") != item.get("SessionGuid"):
            out.append(f"Scoring group with id {_n(g, 'ScoringGroupNumber')} must have SessionGuid "
                       f"'{_t(item.get('SessionGuid'))}' but it is '{_t(g.get('SessionGuid'))}'")
        inner = scoring_group(g)
        if inner:
            out.append(f"Scoringgroup {_n(g, 'ScoringGroupNumber')} has validation errrors: {'; '.join(inner)}.")
    sections = [s for g in groups for s in _objects(g, "Sections")]
    letters = [s.get("Letters") for s in sections]
    for combi in (s for s in sections if s.get("IsCombiSection")):
        sources = [combi.get("NorthSouthPairSectionLetters"), combi.get("EastWestPairSectionLetters")]
        if len(set(sources)) != 2:
            out.append(f"The combisection '{_t(combi.get('Letters'))}' must have two different sections as its "
                       f"source, but they are for NS '{_t(sources[0])}' and for EW '{_t(sources[1])}'")
        for source in sources:
            if source not in letters:
                out.append(f"Combisection '{_t(combi.get('Letters'))}' specifies section '{_t(source)}' as one of "
                           "its source sections, but this section does not exist.")
    if not item.get("Name"):
        out.append("The name of the session is required.")
    year, month, day = _n(item, "Year"), _n(item, "Month"), _n(item, "Day")
    hour, minute = _n(item, "Hour"), _n(item, "Minute")
    if year < 2000:
        out.append(f"The year ({year}) for the session must be at least 2000.")
    if not 1 <= month <= 12:
        out.append(f"The month ({month}) for the session must be between 1 and 12.")
    if not 1 <= day <= 31:
        out.append(f"The day ({day}) for the session must be between 1 and 31.")
    if not 0 <= hour < 24:
        out.append(f"The hour ({hour}) of the day must be between 0 and 23")
    if not 0 <= minute < 60:
        out.append(f"The minute ({minute})must be between 0 and 59")
    try:
        datetime.date(year, month, day)
    except (ValueError, OverflowError):
        out.append(f"The date {year}-{month}-{day} is invalid.")
    return out


def _counted(values: list[Any]) -> dict[Any, int]:
    counts: dict[Any, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return counts


def init(item: Item) -> list[str]:
    out = []
    commands = _n(item, "Commands")
    if not 0 <= commands <= 255:
        out.append(f"The Commands ({commands}) must be between 0 and 255.")
    out += _data_folder(item)
    sessions = _objects(item, "Sessions")
    if not sessions:
        return out + ["At least one session is required."]
    event = item.get("EventGuid")
    if len(sessions) > 1:
        if _blank(event):
            out.append("If there is more than one session the EventGuid must be specified and it must be identical "
                       "to the sessions' EventGuid.")
        else:
            out += [f"The EventGuid ('{_t(s.get('EventGuid'))}') of session '{_t(s.get('Name'))}' "
                    f"({_t(s.get('SessionGuid'))}) are not the same." for s in sessions if s.get("EventGuid") != event]
    if event is not None and _bad_guid(event):
        out.append(EVENT_GUID)
    for s in sessions:
        inner = session(s)
        if inner:
            out.append(f"Session {_t(s.get('SessionGuid'))} did not validate: {', '.join(inner)}")
    groups = [g for s in sessions for g in _objects(s, "ScoringGroups")]
    sections = [sec for g in groups for sec in _objects(g, "Sections")]
    out += [f"Section '{_t(k)}' appears {n} times. Each section letter must be unique."
            for k, n in _counted([sec.get("Letters") for sec in sections]).items() if n > 1]
    out += [f"Scoringgroup '{k}' appears {n} times. Each scoringgroup number must be unique."
            for k, n in _counted([_n(g, "ScoringGroupNumber") for g in groups]).items() if n > 1]
    players = _objects(item, "PlayerData")
    guids = [s.get("SessionGuid") for s in sessions]
    for p in players:
        inner = player_data(p)
        if inner:
            out.append(f"PlayerData '{_t(p.get('FirstName'))} {_t(p.get('LastName'))} "
                       f"({_t(p.get('SessionGuid'))}-{_t(p.get('PlayerNumber'))})': {', '.join(inner)} ")
        if p.get("SessionGuid") not in guids:
            out.append(f"PlayerData.SessionGuid ('{_t(p.get('SessionGuid'))}') must be one of the sessions' guids "
                       f"({', '.join(_t(g) for g in guids)}).")
    firsts: dict[str, Item] = {}
    for p in players:
        firsts.setdefault(p.get("PlayerNumber") or "", p)
    out += [f"Duplicate ({n}) entries for player data '{_t(firsts[k].get('FirstName'))}+"
            f"{_t(firsts[k].get('LastName'))}'"
            for k, n in _counted([p.get("PlayerNumber") or "" for p in players]).items() if n > 1]
    seats = _objects(item, "Participations")
    if seats:
        if item.get("PlayerData") is None:
            out.append(f"No PlayerDataDTO defined, but there are {len(seats)} ParticipationDTOs defined. Each "
                       "ParticipationDTO with its SessionGuid and PlayerNumber properties set must have a "
                       "corresponding PlayerDataDTO that specifies at least its name.")
        for p in seats:
            inner = participation(p)
            if inner:
                out.append(f"ParticipationDTO  '{_t(p.get('SessionGuid'))}-{_t(p.get('PlayerNumber'))}': "
                           f"{', '.join(inner)} ")
        known = {_t(p.get("SessionGuid")) + _t(p.get("PlayerNumber")) for p in players}
        for p in seats:
            key = _t(p.get("SessionGuid")) + _t(p.get("PlayerNumber"))
            if key in ("", _t(p.get("SessionGuid"))) or key in known:
                continue
            out.append(f"ParticipationDTO '{_t(p.get('SessionGuid'))}-{_t(p.get('PlayerNumber'))}' has no "
                       "corresponding PlayerDataDTO")
        explicit = {f"{_t(sec.get('SessionGuid'))}-{_t(sec.get('Letters'))}" for sec in sections
                    if sec.get("HasExplicitParticipations")}
        for p in seats:
            if _n(p, "RoundNumber") > 1 and \
                    f"{_t(p.get('SessionGuid'))}-{_t(p.get('SectionLetters'))}" not in explicit:
                out.append(_explicit_round(p, _t(p.get("SectionLetters")), "ParticipationDTO"))
    for h in _objects(item, "Handrecords"):
        inner = handrecord(h)
        if inner:
            out.append(f"HandrecordDTO  '{_t(h.get('SectionLetters'))}-{_n(h, 'BoardNumber')}': {', '.join(inner)} ")
    bm2 = _objects(item, "Bridgemate2Settings")
    bad2 = [(b, bridgemate2(b)) for b in bm2]
    out += [f"Bridgemate2SettingsDTO  '{_t(b.get('SectionLetters'))}': {', '.join(m)} " for b, m in bad2 if m]
    if not any(m for _b, m in bad2):
        out += [f"Duplicate ({n}) settings for section '{_t(k)}'"
                for k, n in _counted([b.get("SectionLetters") for b in bm2]).items() if n > 1]
    for b in _objects(item, "Bridgemate3Settings"):
        inner = bridgemate3(b)
        if inner:
            out.append(f"Bridgemate3SettingsDTO  '{_t(b.get('SectionLetters'))}': {', '.join(inner)} ")
    return out


VALIDATORS: dict[str, Callable[[Item], list[str]]] = {
    "SectionDTO": section, "SectionUpdateDTO": section_update, "ScoringGroupDTO": scoring_group,
    "SessionDTO": session, "InitDTO": init,
    "PlayerDataDTO": player_data, "ParticipationDTO": participation, "RoundDTO": round_, "TableDTO": table,
    "ResultDTO": result, "TdCallDTO": td_call, "ContinueDTO": continue_, "HandrecordDTO": handrecord,
    "Bridgemate2SettingsDTO": bridgemate2, "Bridgemate3SettingsDTO": bridgemate3,
}


def messages(dto: str, item: Item) -> list[str]:
    """The protocol's messages for one object (none: valid, or a kind checked by the planning instead)."""
    check = VALIDATORS.get(dto)
    return check(item) if check is not None else []


def check_items(dto: str, items: list[Item]) -> None:
    """``DcError`` (Validation) with every item's messages, in order, when any item is invalid."""
    found = [m for item in items for m in messages(dto, item)]
    if found:
        raise DcError(ErrorType.VALIDATION, " ".join(found))
