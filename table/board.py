"""Board number -> dealer and vulnerability (Law 2); the pattern repeats every 16 boards."""
from __future__ import annotations

from enum import StrEnum

from .cards import SEATS, Seat
from .errors import BridgeError


class BoardError(BridgeError, ValueError):
    """A board's dealer or vulnerability that cannot be read."""


class Vulnerability(StrEnum):
    NONE = "None"
    NS = "NS"
    EW = "EW"
    ALL = "All"

    def is_vulnerable(self, side_or_seat: str) -> bool:
        if self is Vulnerability.ALL:
            return True
        if self is Vulnerability.NONE:
            return False
        side = side_or_seat if len(side_or_seat) == 2 else ("NS" if side_or_seat in "NS" else "EW")
        return self.value == side


_VUL_CYCLE = ("None", "NS", "EW", "All", "NS", "EW", "All", "None",
              "EW", "All", "None", "NS", "All", "None", "NS", "EW")

_VUL_ALIASES = {"NONE": "None", "LOVE": "None", "-": "None", "NEITHER": "None", "O": "None", "0": "None",
                "NS": "NS", "N": "NS", "NORTHSOUTH": "NS", "EW": "EW", "E": "EW", "EASTWEST": "EW",
                "ALL": "All", "BOTH": "All", "B": "All"}


def dealer_for(board: int) -> Seat:
    return SEATS[(board - 1) % 4]


def vulnerability_for(board: int) -> Vulnerability:
    return Vulnerability(_VUL_CYCLE[(board - 1) % 16])


def parse_vulnerability(text: str) -> Vulnerability:
    key = text.strip().upper().replace("-", "") or "-"
    if text.strip() == "-":
        key = "-"
    try:
        return Vulnerability(_VUL_ALIASES[key])
    except KeyError:
        raise BoardError(f"not a vulnerability: {text!r}") from None
