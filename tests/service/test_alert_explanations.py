"""An alert's written explanation, over real HTTP and WebSocket: the caller writes it with his alerted call; his
opponents read it (REST and their table stream), his partner does not (Laws 16, 73B1, 75: it would be unauthorized
information), nor does a spectator (who may be that partner) while the board is played; once the board is complete
everyone at the table sees it. The text is one clean line, length-limited; an explanation without an alert, or of
another seat's call, is refused in words. A restart replays it. With screens only the caller's screenmate sees the
alert, so only he reads its explanation."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
from service_harness import ServerProcess, ServiceThread
from websockets.sync.client import connect

from service.sim.dealing import deal_for

EXPLAINED = "15-17 balanced, may hold a 5-card major"


def config(screens: bool = False) -> dict[str, Any]:
    return {"tables": [{"id": "1"}], "regulation": {"screens": screens, "spectators": {"delay_s": 0}}}


def tokens(d: httpx.Client) -> dict[str, str]:
    return {s: v["token"] for s, v in d.get("/api/tables/1/tokens").json().items()}


def explanations(state: dict[str, Any]) -> dict[str, str]:
    calls = (state.get("auction") or {}).get("calls", [])
    return {f"{c['seat']} {c['call']}": c["explanation"] for c in calls if "explanation" in c}


def stream_state(srv: ServerProcess, token: str | None) -> dict[str, Any]:
    path = "/ws/tables/1" + (f"?token={token}" if token else "")
    with connect(f"{srv.ws_base}{path}", open_timeout=10) as ws:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            m = json.loads(ws.recv(timeout=10))
            if m["type"] == "state" and m["table"] == "1":
                return m["state"]  # type: ignore[no-any-return]
    raise AssertionError("no state")


def views(srv: ServerProcess, tok: dict[str, str]) -> dict[str, dict[str, str]]:
    out = {}
    for who in ("N", "E", "S", "W", None):
        with srv.client(tok[who] if who else None) as c:
            rest = explanations(c.get("/api/tables/1").json())
        assert rest == explanations(stream_state(srv, tok[who] if who else None)), who
        out[who or "spectator"] = rest
    return out


def test_the_opponents_read_the_explanation_the_partner_does_not(tmp_path: Path) -> None:
    with ServiceThread(tmp_path / "srv", config()) as srv, srv.client(srv.token) as d:
        d.post("/api/tables/1/events", json={"type": "board", "board": 1, "deal": deal_for(5, 1).to_pbn()}
               ).raise_for_status()
        tok = tokens(d)
        with srv.client(tok["N"]) as north, srv.client(tok["E"]) as east:
            bad = north.post("/api/tables/1/events", json={"type": "call", "seat": "N", "call": "1NT",
                                                           "explanation": EXPLAINED})
            assert bad.status_code == 422 and "goes with an alert" in bad.json()["detail"], bad.text
            bad = north.post("/api/tables/1/events", json={"type": "call", "seat": "N", "call": "1NT", "alert": True,
                                                           "explanation": "x" * 161})
            assert bad.status_code == 422 and "at most 160 characters" in bad.json()["detail"], bad.text
            r = north.post("/api/tables/1/events", json={"type": "call", "seat": "N", "call": "1NT", "alert": True,
                                                         "explanation": " 15-17\u202e balanced,\n may hold\x00 a "
                                                                        "5-card major "})
            assert r.status_code == 200, r.text
            bad = east.post("/api/tables/1/events", json={"type": "call", "seat": "N", "call": "2C", "alert": True,
                                                          "explanation": "Stayman"})
            assert bad.status_code == 403, bad.text
        seen = views(srv, tok)
        assert seen["E"] == seen["W"] == seen["N"] == {"N 1NT": EXPLAINED}, seen
        assert seen["S"] == {} and seen["spectator"] == {}, seen
        assert explanations(d.get("/api/tables/1").json()) == {"N 1NT": EXPLAINED}
        row = [e for e in d.get("/api/tables/1/events").json() if e["body"].get("type") == "call"][-1]
        assert row["body"]["explanation"] == EXPLAINED                       # journalled, cleaned

        srv.stop()                                                           # a restart replays it
        srv.start()
        seen = views(srv, tok)
        assert seen["E"] == {"N 1NT": EXPLAINED} and seen["S"] == {} and seen["spectator"] == {}, seen

        # the board ends (passed to 1NT, declarer claims the rest and the defenders accept): everyone may read it now
        for s in ("E", "S", "W"):
            d.post("/api/tables/1/events", json={"type": "call", "seat": s, "call": "Pass"}).raise_for_status()
        finish(d)
        seen = views(srv, tok)
        assert all(v == {"N 1NT": EXPLAINED} for v in seen.values()), seen


def finish(d: httpx.Client) -> None:
    """Play the board out by claims: declarer claims all remaining tricks, both defenders accept."""
    state = d.get("/api/tables/1").json()
    lead = {"N": "E", "E": "S", "S": "W", "W": "N"}[state["declarer"]]
    hand = state["hands"][lead]["cards"]
    d.post("/api/tables/1/events", json={"type": "card", "seat": lead, "card": hand[0]}).raise_for_status()
    d.post("/api/tables/1/events", json={"type": "claim", "seat": state["declarer"], "tricks": 13}).raise_for_status()
    for s in ("E", "W"):
        d.post("/api/tables/1/events", json={"type": "claim_response", "seat": s, "accept": True}).raise_for_status()
    assert d.get("/api/tables/1").json()["phase"] == "board_complete"


def test_with_screens_only_the_screenmate_reads_it(tmp_path: Path) -> None:
    with ServiceThread(tmp_path / "srv", config(screens=True)) as srv, srv.client(srv.token) as d:
        d.post("/api/tables/1/events", json={"type": "board", "board": 1, "deal": deal_for(5, 1).to_pbn()}
               ).raise_for_status()
        tok = tokens(d)
        with srv.client(tok["N"]) as north:
            north.post("/api/tables/1/events", json={"type": "call", "seat": "N", "call": "1NT", "alert": True,
                                                     "explanation": EXPLAINED}).raise_for_status()
        seen = views(srv, tok)
        assert seen["E"] == seen["N"] == {"N 1NT": EXPLAINED}, seen
        assert seen["W"] == seen["S"] == seen["spectator"] == {}, seen
