"""The protocol's checks of what a scoring program sends, with the messages its clients' own validators give (so a
scoring program sees the same words whether it checked before sending or not). The texts are the protocol's, as
``bridgemate-dataconnector-client`` 1.2.1 states them (its golden cases in ``tests/fixtures/validation`` are
the reference of ``tests/dataconnector/test_dc_validation.py``); they work on the wire's objects here.

Covered: PlayerData, Participation, Round, Table, Result, TdCall, Continue, Handrecord, Bridgemate 2/3
settings. The nested objects (Section, SectionUpdate, ScoringGroup, Session, Init) are checked by the
service's own planning (``mapping.plan_event``), with its own messages.
"""
from __future__ import annotations

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


VALIDATORS: dict[str, Callable[[Item], list[str]]] = {
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
