"""The players' names, one entry per pair for the whole session: entered once (at any of the pair's tables, in any
round) and found wherever the movement seats the pair later, so a stationary pair does not type them again and a
pair that moves takes them to its next table.

A pair is ``(section, entrant, room)``: in a pairs event the entrant is the pair (``room`` is empty); in a teams
event the entrant is the team, and its two pairs are told apart by the direction they sit (a team's North-South
pair in one room, its East-West pair in the other). Each pair has two places: the player who sits North or East
(place 0) and the one who sits South or West (place 1). The journal keeps the club rows ``players`` as entered
(``{"table", "round", "names": {seat: name}}``); :class:`PairNames` is rebuilt from them in order.
"""
from __future__ import annotations

PairKey = tuple[str, int, str]            # (section, entrant, room: "" in a pairs event, else "NS"/"EW")
PLACE = {"N": 0, "E": 0, "S": 1, "W": 1}   # a seat's place in its pair


def direction_of(seat: str) -> str:
    return "NS" if seat in "NS" else "EW"


class PairNames:
    def __init__(self, teams: bool) -> None:
        self.teams = teams
        self._names: dict[PairKey, dict[int, str]] = {}
        # one more at each entry: a page told the names twice (its stream, its own request) keeps the later
        self.version = 0

    def key(self, section: str, entrant: int, direction: str) -> PairKey:
        return (section, entrant, direction if self.teams else "")

    def enter(self, key: PairKey, names: dict[str, str]) -> None:
        """Names by seat (one pair's seats); a seat not given keeps its name."""
        places = self._names.setdefault(key, {})
        for seat, name in names.items():
            places[PLACE[seat]] = name
        self.version += 1

    def of(self, key: PairKey | None) -> list[str]:
        """The pair's names in seat order (North or East first); empty when none was entered."""
        places = self._names.get(key, {}) if key is not None else {}
        return [places[p] for p in (0, 1) if p in places]

    def of_entrant(self, section: str, entrant: int) -> list[str]:
        """Every name of an entrant: the pair's, or a team's two pairs' (North-South first)."""
        rooms = ("NS", "EW") if self.teams else ("",)
        return [n for room in rooms for n in self.of((section, entrant, room))]
