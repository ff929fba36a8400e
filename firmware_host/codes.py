"""One-byte encodings of calls, seats and cards (docs/protocol.md §9).

The strings are the table-event vocabulary (``"Pass"``, ``"X"``, ``"XX"``, ``"1C"``..``"7NT"``; seats
``"N" "E" "S" "W"``; cards suit letter + rank, ``"SA"``, ``"HT"``, ``"C2"``) so drivers can pass them
through unchanged; this module does not import ``table``.
"""
from __future__ import annotations

from .errors import InvalidField

__all__ = ["CALL_CODES", "CALL_TO_CODE", "SEATS", "SEAT_TO_CODE", "CARDS", "CARD_TO_CODE", "STRAINS",
           "call_code", "call_from_code", "seat_code", "seat_from_code", "card_code", "card_from_code"]

STRAINS = ("C", "D", "H", "S", "NT")
CALL_CODES: dict[int, str] = {0: "Pass", 1: "X", 2: "XX"}
for _level in range(1, 8):
    for _i, _strain in enumerate(STRAINS):
        CALL_CODES[3 + (_level - 1) * 5 + _i] = f"{_level}{_strain}"
CALL_TO_CODE: dict[str, int] = {c: k for k, c in CALL_CODES.items()}

SEATS = ("N", "E", "S", "W")
SEAT_TO_CODE = {s: i for i, s in enumerate(SEATS)}
NO_SEAT = 0xFF

CARDS: tuple[str, ...] = tuple(s + r for s in "SHDC" for r in "AKQJT98765432")   # index = card code
CARD_TO_CODE = {c: i for i, c in enumerate(CARDS)}
NO_CARD = 0xFF


def call_code(call: str) -> int:
    try:
        return CALL_TO_CODE[call]
    except (KeyError, TypeError):
        raise InvalidField(f"not a call the wire can carry: {call!r} (Pass, X, XX, 1C..7NT)") from None


def call_from_code(code: int) -> str:
    try:
        return CALL_CODES[code]
    except KeyError:
        raise InvalidField(f"call code {code} is not 0..37") from None


def seat_code(seat: str | None, *, optional: bool = False) -> int:
    if seat is None and optional:
        return NO_SEAT
    try:
        return SEAT_TO_CODE[seat]  # type: ignore[index]
    except (KeyError, TypeError):
        raise InvalidField(f"not a seat: {seat!r} (N, E, S, W{' or None' if optional else ''})") from None


def seat_from_code(code: int, *, optional: bool = False) -> str | None:
    if code == NO_SEAT and optional:
        return None
    if 0 <= code < 4:
        return SEATS[code]
    raise InvalidField(f"seat code {code} is not 0..3{' or 0xFF' if optional else ''}")


def card_code(card: str | None) -> int:
    if card is None:
        return NO_CARD
    try:
        return CARD_TO_CODE[card]
    except (KeyError, TypeError):
        raise InvalidField(f"not a card: {card!r} (suit S H D C + rank A K Q J T 9..2)") from None


def card_from_code(code: int) -> str | None:
    if code == NO_CARD:
        return None
    if 0 <= code < 52:
        return CARDS[code]
    raise InvalidField(f"card code {code} is not 0..51 or 0xFF")
