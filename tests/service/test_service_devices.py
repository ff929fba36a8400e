"""The lifespan opens configured devices: a simulated bidding box (hw_sim, real wire protocol) reached over
``socket://`` feeds the table; a box in prevent mode gets REFUSE_CALL for an insufficient bid."""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from service_harness import ServiceThread

from service.sim.dealing import deal_for


def _wait(fn: Callable[[], Any], timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    pytest.fail("timed out")


def test_configured_bidding_boxes_feed_the_table(tmp_path: Path) -> None:
    from firmware_host.messages import RefuseCall
    from hw_sim.devices import BiddingBox
    from hw_sim.port import DevicePort
    from hw_sim.tcp import TcpEndpoint

    east_box = BiddingBox("BB-9-E")
    north, east = DevicePort(BiddingBox("BB-9-N")), DevicePort(east_box)
    ep_n, ep_e = TcpEndpoint(north), TcpEndpoint(east)
    cfg = {"tables": [{"id": "9", "seats": {"N": {"box": ep_n.url},
                                            "E": {"box": ep_e.url, "box_serial": "BB-9-E", "box_mode": "prevent"}}}]}
    try:
        with ServiceThread(tmp_path, cfg) as srv, srv.client(srv.token) as d:
            _wait(lambda: all(h["connected"] for h in d.get("/api/devices").json().get("9", [{}]))
                  and len(d.get("/api/devices").json()["9"]) == 2)
            d.post("/api/tables/9/events", json={"type": "board", "board": 1, "deal": deal_for(1, 1).to_pbn()})
            north.act(lambda dev: dev.press("1NT"))
            rows = _wait(lambda: [r for r in d.get("/api/tables/9/events").json() if r["body"]["type"] == "call"])
            assert rows[0]["actor"] == "device:BB-9-N" and rows[0]["body"]["call"] == "1NT"
            assert rows[0]["body"]["seat"] == "N"
            east.act(lambda dev: dev.press("1C"))                 # insufficient: refused in prevent mode
            refused = _wait(lambda: [m for m in east_box.shown if isinstance(m, RefuseCall)])
            assert refused[0].call == "1C"
            assert d.get("/api/tables/9").json()["seq"] == 2          # nothing was recorded
            east.act(lambda dev: dev.press("2C"))
            _wait(lambda: d.get("/api/tables/9").json()["seq"] == 3)
            view = d.get("/api/tables/9").json()
            assert [c["call"] for c in view["auction"]["calls"]] == ["1NT", "2C"]
            assert {h["serial"] for h in view["devices"]} == {"BB-9-N", "BB-9-E"}
    finally:
        ep_n.close()
        ep_e.close()
