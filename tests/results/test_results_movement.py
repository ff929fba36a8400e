"""Movements: Mitchell (skip, relay and bye stand, arrow switch, half table), Howell, teams, files."""
from __future__ import annotations

import pytest

from results.errors import MovementError
from results.movement import Movement, Sitting, howell, mitchell, one_winner_rounds, round_robin_teams, teams_match


def _coverage(mv: Movement) -> None:
    """Every pair plays every board at most once and sits once a round (Movement checks it too)."""
    played: dict[tuple[int, int], int] = {}
    for s in mv.sittings:
        if s.ns is None or s.ew is None:                 # a sit-out
            continue
        for e in (s.ns, s.ew):
            for b in s.boards:
                assert (e, b) not in played, f"pair {e} plays board {b} twice"
                played[(e, b)] = s.round
    for r in mv.rounds:
        seated = [e for s in mv.sittings if s.round == r for e in (s.ns, s.ew) if e is not None]
        assert len(seated) == len(set(seated))


@pytest.mark.parametrize("tables", range(3, 16, 2))
def test_mitchell_odd_tables_everyone_meets_once(tables: int) -> None:
    mv = mitchell(tables)
    _coverage(mv)
    assert len(mv.rounds) == tables and len(mv.boards) == 2 * tables
    # each NS pair meets each EW pair exactly once, and plays every board once
    meet = mv.meetings()
    assert all(meet.get(frozenset((ns, tables + ew)), 0) == 1 for ns in range(1, tables + 1)
               for ew in range(1, tables + 1))
    assert all(len(mv.boards_of(p)) == 2 * tables for p in mv.entrants)
    # EW pairs move up one table a round, boards down one
    s1, s2 = mv.at(1, 1), mv.at(2, 2)
    assert s1.ew == s2.ew and mv.at(1, 2).boards == mv.at(2, 1).boards


@pytest.mark.parametrize("tables", range(4, 15, 2))
def test_mitchell_even_tables_skip(tables: int) -> None:
    mv = mitchell(tables)
    _coverage(mv)
    assert len(mv.rounds) == tables - 1
    assert max(mv.meetings().values()) == 1
    half = tables // 2
    # the skip: after round T/2 the EW pairs move two tables
    e = mv.at(1, half).ew
    assert mv.at(3, half + 1).ew == e
    with pytest.raises(MovementError):
        mitchell(tables, rounds=tables)


@pytest.mark.parametrize("tables", range(4, 15, 2))
def test_mitchell_even_tables_relay_and_bye_stand(tables: int) -> None:
    mv = mitchell(tables, even="relay")
    _coverage(mv)
    assert len(mv.rounds) == tables and mv.shared_boards
    assert max(mv.meetings().values()) == 1
    for r in mv.rounds:                               # tables 1 and T share (the relay)
        assert mv.expected_boards(1, r) == mv.expected_boards(tables, r)
    assert all(len(mv.boards_of(p)) == 2 * tables for p in mv.entrants)


def test_mitchell_arrow_switch_and_half_table() -> None:
    rounds = one_winner_rounds(7)
    assert rounds == (6, 7)
    mv = mitchell(7, arrow_switch=rounds)
    _coverage(mv)
    assert mv.one_field
    switched = mv.at(3, 7)
    assert switched.ew == 3 and (switched.ns or 0) > 7    # the stationary pair sits EW in a switched round
    half = mitchell(5, absent=[10])
    assert sum(1 for s in half.sittings if s.sit_out) == 5
    assert 10 not in half.entrants


@pytest.mark.parametrize("pairs", range(3, 21))
def test_howell_every_pair_meets_every_pair_once(pairs: int) -> None:
    mv = howell(pairs)
    _coverage(mv)
    n = pairs + pairs % 2
    assert len(mv.rounds) == n - 1
    meet = mv.meetings()
    real = [p for p in range(1, pairs + 1)]
    assert all(meet.get(frozenset((a, b)), 0) == 1 for a in real for b in real if a < b)
    # each real pair plays every board set once, except the one at its sit-out
    for p in real:
        assert len(mv.boards_of(p)) == 2 * (n - 1 - (pairs % 2))
    # a Room square exists from 8 pairs on: no two tables share boards in a round
    assert mv.shared_boards == (n in (4, 6))


def test_expected_boards_and_where() -> None:
    mv = howell(8, boards_per_round=3)
    s = mv.at(2, 3)
    assert s.ns is not None
    assert mv.expected_boards(2, 3) == s.boards and len(s.boards) == 3
    assert mv.where(s.ns, 3) == [s]
    assert mv.opponents(s.ns)[3] == s.ew
    with pytest.raises(MovementError):
        mv.expected_boards(9, 1)


def test_table_of_rounds_text_round_trip_and_errors() -> None:
    for mv in (mitchell(5), mitchell(6, even="relay", arrow_switch=[6]), howell(10), teams_match(range(1, 9), 3, 4)):
        assert Movement.from_text(mv.to_text()) == mv
    text = "# name: tiny\n1 1 1 2 1-2\n2 1 3 4 3,4\n1 2 1 3 5-6\n2 2 2 4 7-8\n"
    mv = Movement.from_text(text)
    assert mv.name == "tiny" and mv.expected_boards(2, 1) == (3, 4)
    with pytest.raises(MovementError, match="plays board 1 twice"):
        Movement.from_text("1 1 1 2 1-2\n1 2 1 3 1-2\n")
    with pytest.raises(MovementError, match="sits at tables"):
        Movement.from_text("1 1 1 2 1-2\n2 1 1 3 3-4\n")
    with pytest.raises(MovementError, match="line 1"):
        Movement.from_text("1 1 x 2 1-2\n")


def test_teams_movements() -> None:
    m = teams_match(range(1, 25), boards_per_round=8)
    assert len(m.rounds) == 3 and m.expected_boards(2, 2) == tuple(range(9, 17))
    rr = round_robin_teams(5, 4)
    assert len(rr.rounds) == 5
    meet = rr.meetings()
    assert all(v == 2 for v in meet.values()) and len(meet) == 10    # each match: two tables
    with pytest.raises(MovementError):
        Movement("bad", (Sitting(1, 1, 1, 2, (1,)), Sitting(2, 1, 2, 1, (1,))), kind="pairs")
