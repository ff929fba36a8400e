"""The end-of-round guidance of a table, read from the movement (``results/movement.py``): where each pair sitting
there in round ``r`` sits in round ``r + 1`` and at which table the round's boards are played next.

Each pair has its ``label`` as the results show it (a Mitchell's East-West pair 5 of 4 tables is "EW 1").
``next_table`` is ``None`` when the pair sits out the next round (no opponents), when ``r`` is the last round, or
when no table plays the boards in the next round. Boards that wait a round or more on a relay's bye stand
(a Mitchell with a relay, a small Howell) have ``"bye_stand": true`` beside that ``None``: they are played again
later, unlike a set that no table plays after this round. With two tables on one set in the next round (a relay,
a teams match) ``next_table`` is the lower-numbered and ``shared_with`` lists the other (it is empty otherwise).
``shared_now`` lists the other tables that play the same boards in round ``r`` itself (a relay: tables 1 and ``T``
of a Mitchell share a set): the boards go on only once every one of those tables has played them too.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from results import Movement, Sitting
from service.event.public_results import unmapped


def _service_id(section: str, by_number: Mapping[int, str], movement_table: int) -> str:
    return by_number.get(movement_table, unmapped(section, movement_table))


def _next_sitting(mv: Movement, pair: int, rnd: int, direction: str) -> Sitting | None:
    """The pair's sitting in ``rnd`` (a team plays in two rooms: the one in the same direction first)."""
    seats = mv.where(pair, rnd)
    same = [s for s in seats if (s.ns if direction == "NS" else s.ew) == pair]
    found = same or seats
    return found[0] if found else None


def guidance(section: str, mv: Movement, tables: Mapping[str, int], table_id: str, rnd: int) -> dict[str, Any]:
    """The guidance of ``table_id`` (movement table ``tables[table_id]``) at the end of round ``rnd``."""
    by_number = {m: tid for tid, m in tables.items()}
    here = mv.at(tables[table_id], rnd)
    later = [r for r in mv.rounds if r > rnd]
    nxt = later[0] if later else None
    pairs = []
    for direction, pair in (("NS", here.ns), ("EW", here.ew)):
        if pair is None:
            continue
        entry: dict[str, Any] = {"direction": direction, "pair": pair, "label": mv.label(pair), "next_table": None,
                                 "next_direction": None}
        s = _next_sitting(mv, pair, nxt, direction) if nxt is not None else None
        if s is not None and not s.sit_out:
            entry["next_table"] = _service_id(section, by_number, s.table)
            entry["next_direction"] = "NS" if s.ns == pair else "EW"
        pairs.append(entry)
    dest = [] if nxt is None else sorted(s.table for s in mv.sittings if s.round == nxt and s.boards == here.boards)
    ids = [_service_id(section, by_number, t) for t in dest]
    boards_next = ids[0] if ids else None
    now = sorted(s.table for s in mv.sittings if s.round == rnd and s.boards == here.boards and not s.sit_out
                 and s.table != here.table)
    boards: dict[str, Any] = {"numbers": list(here.boards), "next_table": boards_next, "shared_with": ids[1:],
                              "shared_now": [_service_id(section, by_number, t) for t in now]}
    if nxt is not None and boards_next is None:
        boards["bye_stand"] = any(s.round > nxt and s.boards == here.boards for s in mv.sittings)
    return {"table": table_id, "section": section, "round": rnd, "last_round": nxt is None, "pairs": pairs,
            "boards": boards}
