"""A call for the director carries its reason, over real HTTP: the seat names an irregularity (its laws go with the
call) or "other" with a short note of its own words; the note is one printable line (control and bidi characters
dropped), length-limited, required for "other"; a bad reason or note is refused in words; the director's list
shows reason, law and note, and keeps them across a restart."""
from __future__ import annotations

from pathlib import Path

from service_harness import ServiceThread

from service.sim.dealing import deal_for

CONFIG = {"tables": [{"id": "1"}], "regulation": {"spectators": {"delay_s": 0}},
          "limits": {"director_calls_per_seat": 20, "director_calls_per_table": 40}}


def test_a_director_call_says_why(tmp_path: Path) -> None:
    with ServiceThread(tmp_path / "srv", CONFIG) as srv, srv.client(srv.token) as d:
        d.post("/api/tables/1/events", json={"type": "board", "board": 1, "deal": deal_for(3, 1).to_pbn()}
               ).raise_for_status()
        with srv.seat_client("1", "E") as east:
            r = east.post("/api/tables/1/director", json={"reason": "insufficient_bid"})
            assert r.status_code == 200, r.text
            assert (r.json()["code"], r.json()["law"], r.json()["note"]) == ("INSUFFICIENT_BID", "27", None)
            r = east.post("/api/tables/1/director", json={"reason": "revoke", "note": "  heart \n discarded  "})
            assert r.json()["law"] == "62, 63, 64" and r.json()["note"] == "heart discarded", r.text
            # other: the player's words, cleaned of control and bidi characters; required, and short
            r = east.post("/api/tables/1/director", json={"reason": "other",
                                                          "note": "<b>tray</b>\u202e fell\x07 on\u200b the floor"})
            assert r.status_code == 200 and r.json()["note"] == "<b>tray</b> fell on the floor", r.text
            bad = east.post("/api/tables/1/director", json={"reason": "other"})
            assert bad.status_code == 422 and "why the director is called" in bad.json()["detail"], bad.text
            bad = east.post("/api/tables/1/director", json={"reason": "other", "note": " \u200b\t"})
            assert bad.status_code == 422, bad.text
            bad = east.post("/api/tables/1/director", json={"reason": "other", "note": "x" * 121})
            assert bad.status_code == 422 and "at most 120 characters" in bad.json()["detail"], bad.text
            bad = east.post("/api/tables/1/director", json={"reason": "bored"})
            assert bad.status_code == 422, bad.text
            bad = east.post("/api/tables/1/director", json={"reason": "other", "note": 7})
            assert bad.status_code == 422, bad.text
        calls = d.get("/api/director-calls").json()
        assert [(c["code"], c["reason"], c["law"], c["note"]) for c in calls] == [
            ("OTHER", "other", None, "<b>tray</b> fell on the floor"),
            ("REVOKE", "revoke", "62, 63, 64", "heart discarded"),
            ("INSUFFICIENT_BID", "insufficient bid", "27", None)]
        assert calls[2]["law_text"].startswith("Insufficient bid") and "revoke" in calls[1]["law_text"]
        srv.stop()
        srv.start()
        again = d.get("/api/director-calls").json()
        assert [(c["code"], c["note"]) for c in again] == [(c["code"], c["note"]) for c in calls]
