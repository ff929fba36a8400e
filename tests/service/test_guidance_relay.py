"""End-of-round guidance where tables share a set (a relay Mitchell: tables 1 and ``T`` play the same boards in a
round) and where a set waits on a bye stand, read over HTTP from the real service (``GET /api/event/guidance``) for
every table and every round, and compared with what the ``results`` Movement itself says, computed here without
``service/event/guidance.py``: who else plays the boards this round, the tables that play them next round, whether
a later round plays them (the bye stand), and where each pair sits next."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from service_harness import ServiceThread

from results.movement import Movement, mitchell

CASES: dict[str, tuple[dict[str, Any], Movement]] = {
    # 4 tables, relay and bye stand: tables 1 and 4 share each round's set
    "mitchell-4-relay": ({"kind": "mitchell", "tables": 4, "boards_per_round": 2, "even": "relay"},
                         mitchell(4, boards_per_round=2, even="relay")),
    # 6 tables: the bye stand between tables 3 and 4, tables 1 and 6 share
    "mitchell-6-relay": ({"kind": "mitchell", "tables": 6, "boards_per_round": 2, "even": "relay"},
                         mitchell(6, boards_per_round=2, even="relay")),
}


def expected(mv: Movement, table: int, rnd: int) -> dict[str, Any]:
    here = next(s for s in mv.sittings if s.table == table and s.round == rnd)
    rounds = sorted({s.round for s in mv.sittings})
    nxt = rnd + 1 if rnd + 1 in rounds else None
    same = [s for s in mv.sittings if set(s.boards) == set(here.boards) and s.ns is not None and s.ew is not None]
    now = sorted(str(s.table) for s in same if s.round == rnd and s.table != table)
    then = sorted(s.table for s in same if nxt is not None and s.round == nxt)
    later = any(s.round > rnd + 1 for s in same)
    pairs = []
    for direction, pair in (("NS", here.ns), ("EW", here.ew)):
        if pair is None:
            continue
        seat = [s for s in mv.sittings if s.round == nxt and pair in (s.ns, s.ew) and s.ns and s.ew]
        pairs.append((direction, pair, str(seat[0].table) if seat else None,
                      ("NS" if seat[0].ns == pair else "EW") if seat else None))
    return {"shared_now": now, "next_table": str(then[0]) if then else None,
            "shared_with": [str(t) for t in then[1:]], "bye_stand": bool(nxt and not then and later),
            "pairs": pairs}


def test_expected_reads_the_movement() -> None:
    mv = mitchell(4, boards_per_round=2, even="relay")
    # round 1: table 1 plays boards 1-2 with table 4; once both are done they go to table 3
    assert expected(mv, 1, 1)["shared_now"] == ["4"] and expected(mv, 1, 1)["next_table"] == "3"
    assert expected(mv, 4, 1)["shared_now"] == ["1"] and expected(mv, 4, 1)["next_table"] == "3"
    # table 3's boards 7-8 wait on the bye stand in round 2
    assert expected(mv, 3, 1)["bye_stand"] and expected(mv, 3, 1)["next_table"] is None


@pytest.mark.parametrize("case", list(CASES))
def test_guidance_at_every_table_of_every_round(tmp_path: Path, case: str) -> None:
    movement, mv = CASES[case]
    with ServiceThread(tmp_path) as srv, srv.client(srv.token) as director:
        director.post("/api/event", json={"name": "Relay night", "movement": movement}).raise_for_status()
        checked = 0
        for rnd in sorted({s.round for s in mv.sittings}):
            every = {g["table"]: g for g in director.get("/api/event/guidance/all", params={"round": rnd}).json()}
            assert sorted(every) == sorted(str(t) for t in mv.tables)
            for t in mv.tables:
                g = director.get("/api/event/guidance", params={"table": str(t), "round": rnd}).json()
                assert g == every[str(t)]
                want = expected(mv, t, rnd)
                b = g["boards"]
                assert b["numbers"] == list(mv.at(t, rnd).boards)
                got = {"shared_now": b["shared_now"], "next_table": b["next_table"], "shared_with": b["shared_with"],
                       "bye_stand": bool(b.get("bye_stand")),
                       "pairs": [(p["direction"], p["pair"], p["next_table"], p["next_direction"])
                                 for p in g["pairs"]]}
                assert got == want, (case, t, rnd)
                assert g["last_round"] == (rnd == mv.rounds[-1])
                checked += 1
        assert checked == len(mv.sittings)
