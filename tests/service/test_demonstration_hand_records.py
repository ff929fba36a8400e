"""``make run``'s demonstration deals through the evening's hand records, over real HTTP: the simulated club's
event gets a hand-record set in the store (the console lists it, its source says it was generated for the
demonstration and, with a seed, that the seed gives every deal away), the robots start every board of the event
with its hand record's deal, and a restart keeps the set (it is not dealt again)."""
from __future__ import annotations

import time
from pathlib import Path

import httpx
from service_harness import ServiceThread

from service.sim.dealing import deal_for

ARGS = ("--pace", "0.01", "--irregularity-rate", "0", "--seed", "5")


def started(d: httpx.Client) -> list[tuple[str, int]]:
    """The event's (table, board) pairs the tables have started."""
    return [(e["table"], e["board"]) for e in d.get("/api/event/boards").json() if e["state"] != "not_started"]


def wait_for(d: httpx.Client, n: int) -> list[tuple[str, int]]:
    deadline = time.monotonic() + 120
    while len(now := started(d)) < n and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(now) >= n, now
    return now


def deals(d: httpx.Client, pairs: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
    return {(t, b): d.get(f"/api/tables/{t}/boards/{b}").json()["deal"] for t, b in pairs}


def test_the_robots_deal_the_hand_records_the_console_shows(tmp_path: Path) -> None:
    srv = ServiceThread(tmp_path, {}, simulate=4, extra_args=ARGS)
    with srv, srv.client(srv.token) as d:
        listing = d.get("/api/event/hand-records").json()
        assert listing["source"].startswith("generated for the demonstration (seed 5"), listing["source"]
        records = {b["board"]: b["deal"] for b in listing["boards"]}
        assert sorted(records) == list(range(1, 9))
        # with a seed the set is the one the seeded tests know (HashDRBG keyed by seed and board)
        assert records == {n: deal_for(5, n).to_pbn() for n in records}
        first = wait_for(d, 4)
        assert d.get("/api/event/hand-records").json()["replaceable"] is False
    # a restart with another seed: the set stays (it is not dealt again) and the robots go on dealing it, not
    # the new seed's deals
    srv.extra_args = ARGS[:-1] + ("6",)
    with srv, srv.client(srv.token) as d:
        again = d.get("/api/event/hand-records").json()
        assert again["source"] == listing["source"] and again["boards"] == listing["boards"]
        every = wait_for(d, len(first) + 4)
        dealt = deals(d, every)
        assert all(deal == records[b] for (_t, b), deal in dealt.items()), dealt
        assert any(deal != deal_for(6, b).to_pbn() for (_t, b), deal in dealt.items() if (_t, b) not in first)
