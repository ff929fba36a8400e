"""In-process: the scoring program's movement read as sent (two numberings of a Mitchell, a Howell's one), and its
Bridgemate lead-card setting kept for the tables (rebuilt from the journal's rows)."""
from __future__ import annotations

import asyncio
from typing import Any

from service.dataconnector.connector import DataConnector
from service.dataconnector.mapping import plan_event
from service.store.journal import CLUB, Row

GUID = "ABCDEF0123456789ABCDEF0123456789"


def init(rounds: list[tuple[int, int, int, int, int]]) -> dict[str, Any]:
    """InitDTO wire data from (table, round, ns, ew, first board) with two boards a round."""
    tables: dict[int, list[dict[str, Any]]] = {}
    for t, r, ns, ew, low in rounds:
        tables.setdefault(t, []).append({"TableNumber": t, "RoundNumber": r, "PairNS": ns, "PairEW": ew,
                                         "LowBoardNumber": low, "HighBoardNumber": low + 1})
    section = {"Letters": "A", "Tables": [{"TableNumber": t, "Rounds": rs} for t, rs in tables.items()]}
    return {"EventGuid": GUID, "Sessions": [{"SessionGuid": GUID, "Name": "Club",
                                             "ScoringGroups": [{"ScoringMethod": 10, "Sections": [section]}]}]}


def test_a_mitchell_numbered_both_ways_keeps_the_programs_numbers() -> None:
    plan = plan_event(init([(1, 1, 1, 1, 1), (2, 1, 2, 2, 3), (1, 2, 1, 2, 3), (2, 2, 2, 1, 1)]))
    sec = plan.sections["A"]
    assert sec.ew_offset == 2 and sec.entrant(1, "EW") == 3 and sec.pair(3) == 1 and sec.pair(1) == 1
    movement = plan.config.movement
    assert movement is not None and movement.text is not None
    assert "# kind: mitchell" in movement.text and "1 1 1 3 1-2" in movement.text


def test_a_howell_keeps_one_numbering() -> None:
    plan = plan_event(init([(1, 1, 1, 2, 1), (2, 1, 3, 4, 3), (1, 2, 1, 3, 5), (2, 2, 4, 2, 7)]))
    assert plan.sections["A"].ew_offset == 0
    assert plan.config.movement is not None and "# kind: custom" in (plan.config.movement.text or "")


def test_the_lead_card_setting_is_kept() -> None:
    async def run() -> DataConnector:
        dc = DataConnector(None)       # type: ignore[arg-type]   # apply_row reads rows only
        rows = [Row(CLUB, 1, "2026-12-03T19:00:00+00:00", "scoring-program", "dc_init",
                    {"init": init([(1, 1, 1, 2, 1), (2, 1, 3, 4, 3)]), "since": "2026-12-03T19:00:00+00:00"}),
                Row(CLUB, 2, "2026-12-03T19:00:01+00:00", "scoring-program", "dc_put",
                    {"session": GUID, "kind": "bridgemate3",
                     "items": [{"SectionLetters": "A", "BM3LeadCardEntry": 3}]})]
        for row in rows:
            dc.apply_row(row)
        return dc
    dc = asyncio.run(run())
    assert dc.lead_card_entry("A") == "warn" and dc.lead_card_entry("B") == "off"
