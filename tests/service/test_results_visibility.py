"""The live-results visibility rule (service/event/public_results.py) as pure functions: a board is public only
when every table the movement schedules to play it has completed it (or the director released it); a
table's own view never holds a board that table still has to play (Laws 16B, 90B4); the page's data for a
set of visible boards depends on those boards' results alone."""
from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from results import BoardResult, Movement, Session, howell, mitchell
from service.event.public_results import (
    public_boards,
    results_payload,
    schedule_of,
    session_subset,
    still_to_play,
    tables_needed,
    unmapped,
    visible_boards,
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def ids(mv: Movement) -> dict[str, int]:
    return {f"T{t}": t for t in mv.tables}


def order_of(mv: Movement, table: int) -> list[int]:
    """The boards a table plays, round by round."""
    return [b for r in mv.rounds for s in [mv.at(table, r)] if not s.sit_out for b in s.boards]


# ------------------------------------------------------------------------------------------------ the schedule
def test_schedule_of_a_mitchell_is_the_movement() -> None:
    mv = mitchell(3, boards_per_round=2)
    sched = schedule_of([("A", mv, ids(mv))])
    assert sched == {1: {"T1", "T2", "T3"}, 2: {"T1", "T2", "T3"}, 3: {"T1", "T2", "T3"}, 4: {"T1", "T2", "T3"},
                     5: {"T1", "T2", "T3"}, 6: {"T1", "T2", "T3"}}
    # a skip Mitchell (4 tables, 3 rounds): each board is played at 3 of the 4 tables
    mv4 = mitchell(4, boards_per_round=1)
    s4 = schedule_of([("A", mv4, ids(mv4))])
    for b, tables in s4.items():
        assert tables == {f"T{s.table}" for s in mv4.sittings if b in s.boards}
        assert len(tables) == 3


def test_sit_outs_play_nothing_and_unmapped_tables_never_complete() -> None:
    mv = mitchell(3, boards_per_round=1, absent=[6])           # EW pair 6 missing: its opponents sit out
    sched = schedule_of([("A", mv, ids(mv))])
    for s in mv.sittings:
        if s.sit_out:
            assert f"T{s.table}" not in sched[s.boards[0]] or any(
                x.table == s.table and s.boards[0] in x.boards and not x.sit_out for x in mv.sittings)
    partial = schedule_of([("A", mv, {"T1": 1, "T2": 2})])    # table 3 has no service table
    assert any(unmapped("A", 3) in ts for ts in partial.values())
    everyone = {t: set(mv.boards) for t in ("T1", "T2")}
    assert public_boards(partial, everyone, everyone) == {b for b, ts in partial.items() if unmapped("A", 3) not in ts}


def test_two_sections_on_the_same_boards_wait_for_each_other() -> None:
    a, b = mitchell(3, boards_per_round=2), mitchell(3, boards_per_round=2)
    sched = schedule_of([("A", a, {"A1": 1, "A2": 2, "A3": 3}), ("B", b, {"B1": 1, "B2": 2, "B3": 3})])
    done_a = {t: set(range(1, 7)) for t in ("A1", "A2", "A3")}
    assert public_boards(sched, done_a, done_a) == set()
    done_all = {**done_a, **{t: set(range(1, 7)) for t in ("B1", "B2", "B3")}}
    assert public_boards(sched, done_all, done_all) == set(range(1, 7))


def test_tables_outside_the_movement_count_once_they_start_a_board() -> None:
    mv = mitchell(3, boards_per_round=2)
    sched = schedule_of([("A", mv, ids(mv))])
    done = {t: {1} for t in ("T1", "T2", "T3")}
    assert 1 in public_boards(sched, done, done)
    started = {**done, "X": {1}}                              # table X started board 1 and has not finished
    assert 1 not in public_boards(sched, done, started)
    assert tables_needed(1, sched, started) == {"T1", "T2", "T3", "X"}
    # a board nobody scheduled follows the old rule: every table that started it has finished it
    assert 99 in public_boards(sched, {"X": {99}}, {"X": {99}})
    assert still_to_play("X", sched, {}, started) == {1}


def test_director_release_and_the_table_specific_rule() -> None:
    mv = mitchell(3, boards_per_round=2)
    sched = schedule_of([("A", mv, ids(mv))])
    completed = {"T1": {1}, "T3": {1}, "T2": set()}            # board 1: T2 still has to play it (round 3)
    assert 1 not in public_boards(sched, completed, completed)
    pub = public_boards(sched, completed, completed, released={1})            # released by mistake
    assert 1 in pub
    assert 1 in visible_boards(None, pub, sched, completed, completed)           # the public sees it
    assert 1 in visible_boards("T1", pub, sched, completed, completed)
    assert 1 not in visible_boards("T2", pub, sched, completed, completed)       # T2's seats never do
    # director policy: only what the director released
    everything = {t: set(range(1, 7)) for t in ("T1", "T2", "T3")}
    assert public_boards(sched, everything, everything, released={4}, policy="director") == {4}


# ------------------------------------------------------------------------------------------------ properties
State = tuple[dict[str, set[int]], dict[str, set[int]], set[int]]     # completed, started, released


def _simulate(mv: Movement, rng: random.Random, releases: float) -> list[State]:
    """Tables progress independently through their boards in movement order; yields each state."""
    tables = ids(mv)
    orders = {tid: order_of(mv, mt) for tid, mt in tables.items()}
    pos = {tid: 0 for tid in tables}
    playing: dict[str, bool] = {tid: False for tid in tables}
    started: dict[str, set[int]] = {tid: set() for tid in tables}
    completed: dict[str, set[int]] = {tid: set() for tid in tables}
    released: set[int] = set()
    states = []
    while True:
        live = [t for t in tables if pos[t] < len(orders[t])]
        if not live:
            break
        t = rng.choice(live)
        b = orders[t][pos[t]]
        if not playing[t]:
            started[t].add(b)
            playing[t] = True
        else:
            completed[t].add(b)
            playing[t] = False
            pos[t] += 1
        if rng.random() < releases:
            released.add(rng.choice(mv.boards))              # a director's release, right or wrong
        states.append(({k: set(v) for k, v in completed.items()}, {k: set(v) for k, v in started.items()},
                       set(released)))
    return states


def _check_state(mv: Movement, completed: dict[str, set[int]], started: dict[str, set[int]],
                 released: set[int]) -> None:
    tables = ids(mv)
    sched = schedule_of([("A", mv, tables)])
    by_rule = public_boards(sched, completed, started)
    for b in mv.boards:
        everywhere = all(b in completed[f"T{s.table}"] for s in mv.sittings if b in s.boards and not s.sit_out)
        assert (b in by_rule) == everywhere, (b, completed)
    pub = public_boards(sched, completed, started, released)
    assert pub == by_rule | released
    for tid, mt in tables.items():
        view = visible_boards(tid, pub, sched, completed, started)
        to_play = {b for b in order_of(mv, mt) if b not in completed[tid]}
        assert not view & to_play, (tid, view & to_play)
        assert not view & (started[tid] - completed[tid])


@SETTINGS
@given(tables=st.integers(2, 8), bpr=st.integers(1, 3), even=st.sampled_from(["skip", "relay"]),
       seed=st.integers(0, 10**6), releases=st.sampled_from([0.0, 0.05]))
def test_random_completion_orders_over_a_mitchell(tables: int, bpr: int, even: str, seed: int, releases: float) -> None:
    mv = mitchell(tables, boards_per_round=bpr, even=even)
    for completed, started, released in _simulate(mv, random.Random(seed), releases):
        _check_state(mv, completed, started, released)
    # at the end every board has been completed everywhere: all public, and every table sees all of them
    sched = schedule_of([("A", mv, ids(mv))])
    done = {t: set(order_of(mv, mt)) for t, mt in ids(mv).items()}
    assert public_boards(sched, done, done) == set(mv.boards)
    assert all(visible_boards(t, set(mv.boards), sched, done, done) == set(mv.boards) for t in done)


@SETTINGS
@given(pairs=st.integers(4, 12), seed=st.integers(0, 10**6))
def test_random_completion_orders_over_a_howell(pairs: int, seed: int) -> None:
    mv = howell(pairs, boards_per_round=1)
    for completed, started, released in _simulate(mv, random.Random(seed), 0.05):
        _check_state(mv, completed, started, released)


# ------------------------------------------------------------------------------------------------ the page's data
CONTRACTS = [("4S", "N", 10), ("3NT", "S", 8), ("2H", "E", 8), ("PASS", None, None), ("6C", "W", 12), ("1NT", "N", 7)]


def _session(mv: Movement, rng: random.Random, boards: set[int]) -> Session:
    s = Session("test", "MP", mv)
    for sit in mv.sittings:
        if sit.sit_out or sit.ns is None or sit.ew is None:
            continue
        for b in sit.boards:
            if b in boards:
                c, d, t = rng.choice(CONTRACTS)
                s.add_result(BoardResult.played(b, *sit.pairs, c, d, t))
    return s


def _strip(payload: dict[str, Any]) -> dict[str, Any]:
    return {"rankings": payload["rankings"],
            "boards": [{k: v for k, v in b.items() if k not in ("played", "tables")} for b in payload["boards"]]}


@SETTINGS
@given(seed=st.integers(0, 10**6), tables=st.integers(3, 6))
def test_the_page_data_depends_only_on_the_visible_boards(seed: int, tables: int) -> None:
    rng = random.Random(seed)
    mv = mitchell(tables, boards_per_round=2)
    sched = schedule_of([("A", mv, ids(mv))])
    visible = {b for b in mv.boards if rng.random() < 0.5}
    table_ids = {("A", t): f"T{t}" for t in mv.tables}
    full = _session(mv, random.Random(seed), set(mv.boards))
    only = Session("test", "MP", mv)
    for r in full.section().results.values():
        if r.board in visible:
            only.add_result(r)
    kw: dict[str, Any] = dict(schedule=sched, completed={}, started={}, table_ids=table_ids)
    a, b = results_payload(full, visible, **kw), results_payload(only, visible, **kw)
    assert _strip(a) == _strip(b)
    for board in a["boards"]:
        if board["board"] in visible:
            assert board["visible"] and board["travellers"][0]["rows"]
        else:
            assert set(board) == {"board", "visible", "tables", "played", "reason"}
    # the ranking from the visible boards is the ranking of a session holding only those boards
    sub = session_subset(full, visible)
    assert [(r.entrant, round(r.score, 6)) for r in sub.ranking()] == \
        [(r.entrant, round(r.score, 6)) for r in only.ranking()]


def test_traveller_rows_and_adjustments() -> None:
    from results import Artificial
    mv = mitchell(3, boards_per_round=2)
    s = Session("t", "MP", mv)
    s.add_result(BoardResult.played(1, 1, 4, "4S", "N", 10))              # table 1 round 1
    s.add_result(BoardResult.played(1, 3, 5, "4S", "N", 9))               # table 3 round 2
    s.add_result(BoardResult(1, 2, 6, artificial=(Artificial.PLUS, Artificial.MINUS)))   # table 2 round 3
    out = results_payload(s, {1}, schedule=schedule_of([("A", mv, {"1": 1, "2": 2, "3": 3})]), completed={},
                          started={}, table_ids={("A", t): str(t) for t in (1, 2, 3)})
    rows = out["boards"][0]["travellers"][0]["rows"]
    by_table = {r["table"]: r for r in rows}
    assert by_table["1"]["result"] == "=" and by_table["1"]["score_ns"] == 420 and by_table["1"]["ns_label"] == "NS 1"
    assert by_table["3"]["result"] == "-1" and by_table["3"]["score_ns"] == -50
    assert by_table["2"]["adjusted"] == "A+/A-" and by_table["2"]["law"] == "12C1"
    # two table results and one artificial line: Neuberg to 3 lines, (2 + 1) * 3 / 2 - 1 = 3.5 of a top of 4
    assert by_table["1"]["ns_percent"] == 87.5 and by_table["3"]["ns_percent"] == 12.5
    assert by_table["2"]["ns_percent"] == 60.0
    json.dumps(out)                                                          # plain JSON
    with pytest.raises(KeyError):
        _ = out["boards"][1]["travellers"]
