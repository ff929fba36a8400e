"""Duplicate scoring (Law 77): the score of one board. Comparing scores across the field (Law 78:
matchpoints, IMPs) is ``results.scoring``'s.

Undertricks follow the seed's 1997 schedule (Law 77): non-vulnerable doubled 100/300/500/800 and
+300 thereafter. The seed misprints the doubled major trick value as 40; it is 60 (30 x 2).
There are no honours in duplicate, and a passed-out board scores 0 to both sides (Law 22A).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .board import Vulnerability
from .calls import STRAINS
from .errors import BridgeError
from .texts import Text

RISKS = ("", "X", "XX")
_SEATS = ("N", "E", "S", "W")


class ScoringError(BridgeError, ValueError):
    """A contract, result or score that cannot be: the message says which part."""


@dataclass(frozen=True, slots=True)
class Contract:
    level: int
    strain: str                    # "C", "D", "H", "S", "NT"
    risk: str = ""                 # "", "X" doubled, "XX" redoubled
    declarer: str | None = None    # seat letter; needed only to score from a fixed side

    def __post_init__(self) -> None:
        if not (isinstance(self.level, int) and 1 <= self.level <= 7):
            raise ScoringError(Text("scoring.level", "contract level must be 1..7, not {level}",
                                    level=repr(self.level)))
        if self.strain not in STRAINS:
            raise ScoringError(Text("scoring.strain", "contract strain must be one of {strains}, not {strain}",
                                     strains=STRAINS, strain=repr(self.strain)))
        if self.risk not in RISKS:
            raise ScoringError(Text("scoring.risk", "contract risk must be '', 'X' or 'XX', not {risk}",
                                     risk=repr(self.risk)))
        if self.declarer is not None and self.declarer not in _SEATS:
            raise ScoringError(Text("scoring.declarer", "declarer must be N, E, S or W, not {given}",
                                     given=repr(self.declarer)))

    def __str__(self) -> str:
        return f"{self.level}{self.strain}{self.risk}"


# After upper-casing and removing blanks: level, strain ("N" is common shorthand for NT), then risk
# written as X/XX or as the * / ** used by PBN and many scoring programs.
_CONTRACT_RE = re.compile(r"([1-7])(NT|N|C|D|H|S)(XX|X|\*\*|\*)?")
_PASSED = {"PASS", "P", "AP", "PASSOUT", "PASSEDOUT"}


def parse_contract(text: str, declarer: str | None = None) -> Contract | None:
    """``"4SX"``, ``"3nt xx"``, ``"4S*"`` -> Contract; ``"Pass"`` -> None (passed out)."""
    t = "".join(text.split()).upper()
    if t in _PASSED:
        return None
    m = _CONTRACT_RE.fullmatch(t)
    if not m:
        raise ScoringError(Text("scoring.not_a_contract", "not a contract: {given} (expected e.g. '4S', '3NTX', '6H**' "
                                 "or 'Pass')", given=repr(text)))
    level, strain, risk = m.groups()
    risk = (risk or "").replace("*", "X")
    return Contract(int(level), "NT" if strain == "N" else strain, risk, declarer)


_ODD_TRICK = {"C": 20, "D": 20, "H": 30, "S": 30, "NT": 30}   # NT's first trick adds 10 more
_MULT = {"": 1, "X": 2, "XX": 4}


@lru_cache(maxsize=4096)       # at most 7*5*3*2*14 distinct inputs: every call after the first is a lookup
def _score(level: int, strain: str, risk: str, vul: bool, tricks: int) -> int:
    need = level + 6
    if tricks < need:
        down = need - tricks
        if risk == "":
            return -down * (100 if vul else 50)
        # Law 77 doubled: V 200 then 300 each; NV 100, 200, 200, then 300 each. Redoubled is twice that.
        pen = 200 + 300 * (down - 1) if vul else 100 + 200 * min(down - 1, 2) + 300 * max(down - 3, 0)
        return -pen * (2 if risk == "XX" else 1)
    mult = _MULT[risk]
    # Trick points count contracted odd tricks only; overtricks never help reach game.
    trick_points = (_ODD_TRICK[strain] * level + (10 if strain == "NT" else 0)) * mult
    s = trick_points + ((500 if vul else 300) if trick_points >= 100 else 50)
    if level == 6:
        s += 750 if vul else 500
    elif level == 7:
        s += 1500 if vul else 1000
    over = tricks - need
    if risk == "":
        s += over * _ODD_TRICK[strain]
    else:
        s += over * (200 if vul else 100) * (mult // 2) + 50 * (mult // 2)   # overtricks + "insult"
    return s


def score(contract: Contract | str | None, vulnerable: bool, tricks: int) -> int:
    """Total points for declarer's side (Law 77); negative when the contract fails. Passed out = 0."""
    if isinstance(contract, str):
        contract = parse_contract(contract)
    if contract is None:
        return 0
    if not 0 <= tricks <= 13:
        raise ScoringError(f"tricks must be 0..13, not {tricks!r}")
    return _score(contract.level, contract.strain, contract.risk, bool(vulnerable), tricks)


def score_ns(contract: Contract | None, vulnerability: Vulnerability, tricks: int) -> int:
    """Score from North-South's side; the contract must name its declarer."""
    if contract is None:
        return 0
    if contract.declarer is None:
        raise ScoringError(f"contract {contract} has no declarer; cannot score it for North-South")
    s = score(contract, vulnerability.is_vulnerable(contract.declarer), tricks)
    return s if contract.declarer in ("N", "S") else -s
