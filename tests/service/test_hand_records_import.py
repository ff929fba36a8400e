"""The evening's hand records from the console's API over real HTTP: a Duplimate file and a PBN file imported,
a secure set generated, refusals in words (wrong boards, unknown format, a file that is not one), only the
director reads them, replaceable until the first board starts, and kept across a restart."""
from __future__ import annotations

import base64
from pathlib import Path

from service_harness import ServiceThread

from table.dealgen import HashDRBG, random_deal
from table.handrecords import HandRecordBoard, to_bytes

CONFIG = {"tables": [{"id": str(t)} for t in range(1, 5)],
          "event": {"name": "Hand records", "movement": {"kind": "mitchell", "tables": 4, "boards_per_round": 4}}}


def boards(first: int, last: int, seed: str) -> list[HandRecordBoard]:
    rng = HashDRBG(seed)
    return [HandRecordBoard.of(n, random_deal(rng)) for n in range(first, last + 1)]


def as_body(name: str, bs: list[HandRecordBoard], fmt: str) -> dict[str, str]:
    return {"filename": name, "content_base64": base64.b64encode(to_bytes(bs, fmt)).decode()}


def test_import_generate_refuse_and_freeze(tmp_path: Path) -> None:
    dup = boards(1, 16, "import-dup")
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, srv.client() as anon:
        assert d.get("/api/event/hand-records").json() == {"source": None, "replaceable": True, "boards": []}
        assert anon.get("/api/event/hand-records").status_code == 401

        r = d.post("/api/event/hand-records", json=as_body("session.dup", dup, "DUP"))
        assert r.status_code == 200, r.text
        got = r.json()
        assert got["source"] == "session.dup" and got["replaceable"] is True
        assert [b["deal"] for b in got["boards"]] == [b.deal.to_pbn() for b in dup]
        assert got["boards"][4] == {"board": 5, "deal": dup[4].deal.to_pbn(), "dealer": "N", "vulnerable": "NS"}

        # refusals: nothing changes
        r = d.post("/api/event/hand-records", json=as_body("short.pbn", boards(1, 12, "short"), "PBN"))
        assert r.status_code == 422 and "missing board(s): 13, 14, 15, 16" in r.json()["detail"]
        r = d.post("/api/event/hand-records", json=as_body("long.pbn", boards(1, 18, "long"), "PBN"))
        assert r.status_code == 422 and "not in the event: 17, 18" in r.json()["detail"]
        r = d.post("/api/event/hand-records", json={"filename": "notes.txt", "content": "hello"})
        assert r.status_code == 422 and "unknown hand-record format" in r.json()["detail"]
        broken = '[Board "1"]\n[Deal "N:AKQ"]\n'
        r = d.post("/api/event/hand-records", json={"filename": "broken.pbn", "content": broken})
        assert r.status_code == 422, r.text
        r = d.post("/api/event/hand-records", json={"filename": "x.dup", "content_base64": "not base64!"})
        assert r.status_code == 422 and "base64" in r.json()["detail"]
        r = d.post("/api/event/hand-records", json={"filename": "x.pbn"})
        assert r.status_code == 422
        assert d.get("/api/event/hand-records").json()["source"] == "session.dup"

        # a secure set replaces it (nobody knows these deals), then a PBN file replaces that
        gen = d.post("/api/event/hand-records/generate").json()
        assert gen["source"] == "generated" and len(gen["boards"]) == 16
        assert [b["deal"] for b in gen["boards"]] != [b.deal.to_pbn() for b in dup]
        pbn = boards(1, 16, "import-pbn")
        text = to_bytes(pbn, "PBN").decode()
        assert d.post("/api/event/hand-records", json={"filename": "set.pbn", "content": text}).status_code == 200

        # the first board starts: the set is frozen
        r = d.post("/api/tables/1/events", json={"type": "board", "board": 1, "deal": pbn[0].deal.to_pbn()})
        assert r.status_code == 200, r.text
        listing = d.get("/api/event/hand-records").json()
        assert listing["replaceable"] is False
        r = d.post("/api/event/hand-records", json=as_body("late.dup", dup, "DUP"))
        assert r.status_code == 409 and "can no longer be replaced" in r.json()["detail"]

    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d:
        again = d.get("/api/event/hand-records").json()
        assert again["source"] == "set.pbn" and [b["deal"] for b in again["boards"]] == [b.deal.to_pbn() for b in pbn]
