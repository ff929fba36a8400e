"""Calls (Law 18-19): ``Pass``, ``X``, ``XX`` and bids ``1C``..``7NT`` as normalised strings.

A bid above seven (``8C``) is representable on purpose: written bidding can produce it and Law 38
must be able to flag it.
"""
from __future__ import annotations

from functools import lru_cache

from .errors import BridgeError
from .texts import Text

STRAINS = ("C", "D", "H", "S", "NT")          # lowest first (Law 18E)
STRAIN_RANK = {s: i for i, s in enumerate(STRAINS)}
PASS, DOUBLE, REDOUBLE = "Pass", "X", "XX"

# "-" (no call) and "AP" (all pass) are notations of files, expanded by their readers, not calls
_ALIASES = {"P": PASS, "PASS": PASS, "X": DOUBLE, "D": DOUBLE, "DBL": DOUBLE,
            "DOUBLE": DOUBLE, "XX": REDOUBLE, "R": REDOUBLE, "RDBL": REDOUBLE, "REDOUBLE": REDOUBLE}
_STRAIN_ALIASES = {"C": "C", "D": "D", "H": "H", "S": "S", "N": "NT", "NT": "NT", "SA": "NT"}


class CallError(BridgeError, ValueError):
    """Text that is not a call."""


@lru_cache(maxsize=256)
def parse_call(text: str) -> str:
    t = text.strip().upper()
    if t in _ALIASES:
        return _ALIASES[t]
    # an ASCII level only: str.isdigit() also takes "¹" and "１", which int() refuses or reads
    if len(t) >= 2 and "1" <= t[0] <= "9":
        strain = _STRAIN_ALIASES.get(t[1:])
        if strain:
            return f"{t[0]}{strain}"
    raise CallError(Text("calls.not_a_call", "not a call: {text}", text=repr(text)))


# Bids 1C..9NT with their sufficiency keys (Law 18B/C), precomputed: calls are a small set of strings, so a
# dict hit is cheaper than parsing the level and looking up the strain on every comparison. Levels 8 and 9
# are there because Law 38 must be able to compare a bid above seven too.
_BID_KEYS: dict[str, tuple[int, int]] = {f"{level}{s}": (level, i) for level in range(1, 10)
                                         for i, s in enumerate(STRAINS)}


def is_bid(call: str) -> bool:
    return call[0].isdigit()      # (measured: already cheaper than a dict look-up; the hot paths avoid the call)


def bid_level(call: str) -> int:
    return int(call[0])


def bid_strain(call: str) -> str:
    return call[1:]


def bid_key(call: str) -> tuple[int, int]:
    """Order of bids for sufficiency (Law 18B/C)."""
    key = _BID_KEYS.get(call)
    if key is None:              # not a normalised bid: parse it (and fail) as before
        return int(call[0]), STRAIN_RANK[call[1:]]
    return key
