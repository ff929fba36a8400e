"""The event's law edition and lead check, chosen by the director when he sets up the event, over real HTTP: shown by
``GET /api/event``, journalled (a restart keeps them), used by the boards the event's tables start afterwards (the
2017 edition's rectification of an insufficient bid offers a comparable call, the 1997 edition's does not), and
the edition refused in words (409) once a table of the event has started a board."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from service_harness import ServiceThread

from service.sim.dealing import deal_for

EVENT: dict[str, Any] = {"name": "Laws night", "scoring": "MP",
                         "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2}}


def insufficient_bid(d: httpx.Client, table: str, board: int) -> str:
    """Start ``board`` at ``table`` (dealer N on board 1), 1S then 1H: the rectification offered, in words."""
    r = d.post(f"/api/tables/{table}/events", json={"type": "board", "board": board,
                                                    "deal": deal_for(1, board).to_pbn()})
    assert r.status_code == 200, r.text
    for seat, call in (("N", "1S"), ("E", "1H")):
        r = d.post(f"/api/tables/{table}/events", json={"type": "call", "seat": seat, "call": call})
        assert r.status_code == 200, r.text
    irr = d.get(f"/api/tables/{table}/irregularities").json()
    return " ".join(o["text"] for i in irr for o in i["options"])


def test_edition_and_lead_check_from_the_event_setup(tmp_path: Path) -> None:
    with ServiceThread(tmp_path / "srv", {"regulation": {"spectators": {"delay_s": 0}}}) as srv:
        with srv.client(srv.token) as d:
            # a typo is refused in words, nothing changes
            bad = d.post("/api/event", json={**EVENT, "law_edition": "wbf2019"})
            assert bad.status_code == 422 and "wbf2019" in bad.json()["detail"], bad.text
            bad = d.post("/api/event", json={**EVENT, "lead_check": "maybe"})
            assert bad.status_code == 422 and "lead_check is one of" in bad.json()["detail"], bad.text
            assert d.get("/api/event").json()["event"] is None

            r = d.post("/api/event", json={**EVENT, "law_edition": "wbf2017", "lead_check": "warn"})
            assert r.status_code == 200, r.text
            ev = d.get("/api/event").json()
            assert ev["event"]["law_edition"] == "wbf2017" and ev["lead_check"] == "warn"
            assert d.get("/api/event/lead-check").json()["mode"] == "warn"

            # before any board: the edition may still change (journalled), and back
            r = d.post("/api/event/laws", json={"law_edition": "wbf1997-cba1999"})
            assert r.status_code == 200 and r.json()["law_edition"] == "wbf1997-cba1999", r.text
            r = d.post("/api/event/laws", json={"law_edition": "wbf2017", "lead_check": "must comply"})
            assert r.json() == {"law_edition": "wbf2017", "lead_check": "must comply"}, r.text
            bad = d.post("/api/event/laws", json={"edition": "wbf2017"})
            assert bad.status_code == 422 and "law_edition" in bad.json()["detail"], bad.text

        srv.stop()                                   # journalled: a restart keeps the choice
        srv.start()
        with srv.client(srv.token) as d:
            ev = d.get("/api/event").json()
            assert ev["event"]["law_edition"] == "wbf2017" and ev["lead_check"] == "must comply", ev

            # the boards the tables start now are played under the 2017 laws (the regulation says 1997)
            words = insufficient_bid(d, "1", 1)
            assert "comparable call" in words, words
            journal = d.get("/api/tables/1/events").json()
            board_rows = [e for e in journal if e["kind"] == "event" and e["body"].get("type") == "board"]
            assert board_rows[-1]["body"]["laws"] == "2017", board_rows

            # once a board has started, the edition stays: refused in words; the lead check may still change
            r = d.post("/api/event/laws", json={"law_edition": "wbf1997-cba1999"})
            assert r.status_code == 409, r.text
            assert "cannot change within an event" in r.json()["detail"] and "table 1" in r.json()["detail"]
            assert d.get("/api/event").json()["event"]["law_edition"] == "wbf2017"
            r = d.post("/api/event/laws", json={"lead_check": "off"})
            assert r.status_code == 200 and r.json()["lead_check"] == "off", r.text

            # a new event under the 1997 laws: the next board started is a 1997 board
            r = d.post("/api/event", json={**EVENT, "law_edition": "wbf1997-cba1999", "replace": True})
            assert r.status_code == 200, r.text
            words = insufficient_bid(d, "2", 3)
            assert "comparable call" not in words and "27B1" in words, words

        srv.stop()                                   # the replayed boards keep their own laws
        srv.start()
        with srv.client(srv.token) as d:
            assert "comparable call" in " ".join(o["text"] for i in d.get("/api/tables/1/irregularities").json()
                                                 for o in i["options"])
            assert d.get("/api/event").json()["event"]["law_edition"] == "wbf1997-cba1999"
