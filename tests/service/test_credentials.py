"""Seat credentials over real HTTP: a one-time sign-in link gives the seat's token for its table, seat and
round; a round change ends the previous round's links and tokens (401), a revocation at once, a new session
(database) never accepts an old one's; a restart changes none of that. The access log of a whole simulated
session holds no credential. The service runs in a thread of the test's process (``ServiceThread``: a restart is
a new service on the same journal) except for the access log, which is a process's."""
from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import httpx
import pytest
import websockets
from headless import browser_session, wait_until
from service_harness import ServerProcess, ServiceThread

from service.sim.dealing import deal_for

CONFIG = {"regulation": {"spectators": {"delay_s": 0}},
          "tables": [{"id": "1"}, {"id": "2"}, {"id": "3"}],
          "event": {"name": "Credential pairs", "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2}}}


def code_of(entry: dict[str, object]) -> str:
    link = str(entry["link"])
    assert link.startswith("/seat#signin="), link          # the code rides in the fragment, never sent to a server
    return link.split("#signin=", 1)[1]


def sign_in(c: httpx.Client, code: str) -> httpx.Response:
    return c.post("/api/signin", json={"code": code})


def test_a_link_signs_in_once_for_its_table_seat_and_round(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, srv.client() as anon:
        links = d.get("/api/tables/1/tokens").json()
        assert links["N"]["round"] == 1 and links["N"]["pair"] == 1 and links["E"]["pair"] == 4
        assert d.get("/api/tables/1/tokens").headers["cache-control"] == "no-store"
        r = sign_in(anon, code_of(links["N"]))
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
        tok = r.json()
        assert (tok["table"], tok["seat"], tok["round"], tok["pair"]) == ("1", "N", 1, 1)
        assert sign_in(anon, code_of(links["N"])).status_code == 401, "a link is good for one sign-in"
        assert "used already" in sign_in(anon, code_of(links["N"])).json()["detail"]
        assert d.get("/api/tables/1/tokens").json()["N"]["used"] is True
        with srv.client(tok["token"]) as north:
            assert north.get("/api/whoami").json() == {"role": "seat", "table": "1", "seat": "N"}
            assert north.post("/api/tables/2/events", json={"type": "call", "seat": "N", "call": "Pass"}).status_code \
                == 403
        # a link is not a token, a token not a link; a forged code is refused
        assert sign_in(anon, tok["token"]).status_code == 401
        with srv.client(code_of(links["E"])) as wrong:
            assert wrong.get("/api/whoami").status_code == 401
        forged = code_of(links["S"])[:-4] + "0000"
        assert sign_in(anon, forged).status_code == 401
        assert sign_in(anon, "link.1.S.1.0." + "0" * 32).status_code == 401


def test_a_round_change_ends_the_previous_rounds_links_and_tokens(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, srv.client() as anon:
        old = d.get("/api/tables/2/tokens").json()
        signed = sign_in(anon, code_of(old["N"])).json()["token"]
        assert d.post("/api/event/round", json={"round": 2}).status_code == 200
        with srv.client(signed) as north, srv.client(old["E"]["token"]) as east:
            for c in (north, east):
                r = c.get("/api/whoami")
                assert r.status_code == 401 and "round 1" in r.json()["detail"], r.text
                assert c.get("/api/tables/2").status_code == 401
                assert c.post("/api/tables/2/events", json={"type": "call", "seat": "N", "call": "Pass"}).status_code \
                    == 401
        assert sign_in(anon, code_of(old["S"])).status_code == 401            # an unused link of round 1 too
        new = d.get("/api/tables/2/tokens").json()
        assert new["S"]["round"] == 2 and new["S"]["link"] != old["S"]["link"]
        assert new["N"]["pair"] == 2 and new["E"]["pair"] == 4                # Mitchell: EW moved on
        assert sign_in(anon, code_of(new["S"])).status_code == 200
        # a round inferred from the boards a table starts ends them as well
        tok3 = d.get("/api/tables/3/tokens").json()["W"]["token"]
        r = d.post("/api/tables/3/events", json={"type": "board", "board": 3, "deal": deal_for(2, 3).to_pbn()})
        assert r.status_code == 200 and d.get("/api/event").json()["progress"][2]["round"] == 3   # round 3: 3-4
        with srv.client(tok3) as west:
            assert west.get("/api/whoami").status_code == 401
    # ... and a restart does not revive them
    with srv, srv.client(signed) as north, srv.client(srv.token) as d:
        assert north.get("/api/whoami").status_code == 401
        assert sign_in(north, code_of(new["S"])).status_code == 401, "a used link stays used after a restart"
        with srv.client(d.get("/api/tables/2/tokens").json()["W"]["token"]) as west:
            assert west.get("/api/whoami").status_code == 200


def test_revocation_ends_sign_ins_at_once(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, srv.client() as anon:
        links = d.get("/api/tables/1/tokens").json()
        north = sign_in(anon, code_of(links["N"])).json()["token"]
        south = sign_in(anon, code_of(links["S"])).json()["token"]
        with srv.client(north) as n, srv.client(south) as s, srv.client(links["E"]["token"]) as e:
            assert n.get("/api/whoami").status_code == 200 and s.get("/api/whoami").status_code == 200
            with srv.client(north) as seat:
                assert seat.post("/api/tables/1/revoke").status_code == 403, "only the director revokes"
            r = d.post("/api/tables/1/revoke", params={"seat": "N"})
            assert r.status_code == 200 and r.json()["revoked"] == ["N"]
            assert n.get("/api/whoami").status_code == 401
            assert "revoked" in n.get("/api/whoami").json()["detail"]
            assert s.get("/api/whoami").status_code == 200, "only North's sign-in ended"
            again = r.json()["seats"]["N"]
            assert again["used"] is False and again["link"] != links["N"]["link"]
            renewed = sign_in(anon, code_of(again)).json()["token"]
            with srv.client(renewed) as n2:
                assert n2.get("/api/whoami").status_code == 200
            d.post("/api/tables/1/revoke")                                   # the whole table
            for c in (s, e):
                assert c.get("/api/whoami").status_code == 401
            assert sign_in(anon, code_of(links["W"])).status_code == 401
        assert d.post("/api/tables/1/revoke", params={"seat": "Q"}).status_code == 422
        assert d.post("/api/tables/nope/revoke").status_code == 404
        # a revoked token is refused on a WebSocket too; the current one is accepted (as a subprotocol)
        current = d.get("/api/tables/1/tokens").json()["W"]["token"]

        async def handshake(token: str) -> int:
            try:
                async with websockets.connect(f"{srv.ws_base}/ws/tables/1", open_timeout=10,
                                              subprotocols=["bridgetable", f"bearer.{token}"]) as ws:  # type: ignore[list-item]
                    assert ws.subprotocol == "bridgetable"
                    return 101
            except websockets.exceptions.InvalidStatus as err:
                return int(err.response.status_code)
        assert asyncio.run(handshake(current)) == 101
        assert asyncio.run(handshake(south)) == 401

        async def ended_by_revocation() -> tuple[int | None, str | None]:
            async with websockets.connect(f"{srv.ws_base}/ws/tables/1", open_timeout=10,
                                          subprotocols=["bridgetable", f"bearer.{current}"]) as ws:  # type: ignore[list-item]
                await ws.recv()                                            # the table's state
                await asyncio.to_thread(d.post, "/api/tables/1/revoke", params={"seat": "W"})
                try:
                    while True:
                        await asyncio.wait_for(ws.recv(), 5)
                except websockets.exceptions.ConnectionClosed as closed:
                    return closed.rcvd.code if closed.rcvd else None, closed.rcvd.reason if closed.rcvd else None
        code, reason = asyncio.run(ended_by_revocation())
        assert code == 4401 and reason and "revoked" in reason, (code, reason)


def test_a_new_session_issues_new_credentials(tmp_path: Path) -> None:
    cfg = {**CONFIG, "secret": "the-same-secret-in-both-sessions"}
    with ServiceThread(tmp_path / "monday", cfg) as srv, srv.client(srv.token) as d:
        monday = d.get("/api/tables/1/tokens").json()
    with ServiceThread(tmp_path / "tuesday", cfg) as srv, srv.client(srv.token) as d, srv.client() as anon:
        tuesday = d.get("/api/tables/1/tokens").json()
        assert tuesday["N"]["token"] != monday["N"]["token"]
        with srv.client(monday["N"]["token"]) as old:
            assert old.get("/api/whoami").status_code == 401
        assert sign_in(anon, code_of(monday["N"])).status_code == 401


@pytest.mark.slow
def test_the_access_log_of_a_simulated_session_holds_no_credential(tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path, {"regulation": {"spectators": {"delay_s": 0}}}, simulate=2,
                        extra_args=("--pace", "0.02", "--irregularity-rate", "0.5", "--ruling-wait", "0.5",
                                    "--log-level", "info"))
    secrets: set[str] = {srv.token}
    with srv, srv.client(srv.token) as d, srv.client() as anon:
        deadline = time.monotonic() + 20
        rounds_seen: set[int] = set()
        while time.monotonic() < deadline and len(rounds_seen) < 2:
            for t in ("1", "2"):
                links = d.get(f"/api/tables/{t}/tokens").json()
                rounds_seen.add(links["N"]["round"])
                for e in links.values():
                    secrets.update({e["token"], code_of(e)})
                    if not e["used"]:
                        r = sign_in(anon, code_of(e))
                        if r.status_code == 200:
                            secrets.add(r.json()["token"])
                            # the ways a client may (still) pass a token: header, ?token=, a WebSocket subprotocol
                            anon.get("/api/whoami", params={"token": r.json()["token"]})
                            anon.get(f"/seat?token={r.json()['token']}&x=1")
                            anon.get(f"/results?token={r.json()['token']}")
            anon.get(f"/console?token={srv.token}")
            anon.get("/api/public/results", params={"token": srv.token})
            time.sleep(0.3)
        assert len(rounds_seen) >= 2, "the simulated tables moved on to a new round"

        async def streams() -> None:
            async with websockets.connect(f"{srv.ws_base}/ws/club?token={srv.token}") as ws:
                await ws.recv()
            async with websockets.connect(f"{srv.ws_base}/ws/club",
                                          subprotocols=["bridgetable", f"bearer.{srv.token}"]) as ws:  # type: ignore[list-item]
                await ws.recv()
        asyncio.run(streams())
        d.post("/api/tables/1/revoke")
        headers = anon.get("/seat").headers
        assert headers["referrer-policy"] == "no-referrer" and "frame-ancestors 'none'" in \
            headers["content-security-policy"]
    log = srv.log_path.read_text()
    assert '"GET /api/whoami?token=[redacted] HTTP/1.1" 200' in log or "token=[redacted]" in log
    assert "POST /api/signin" in log and "WebSocket /ws/club" in log, "the access log was written"
    macs = {s.rsplit(".", 1)[-1] for s in secrets}
    leaked = [s for s in secrets | macs if s in log]
    assert not leaked, f"{len(leaked)} credentials in the access log, e.g. {leaked[0][:12]}..."
    assert not re.search(r"(token|signin)=(?!\[redacted\])[^&\s\"]", log)


@pytest.mark.slow
def test_the_seat_page_signs_in_from_its_link_in_a_browser(tmp_path: Path) -> None:
    """The page redeems the link's code, takes it off the address bar, streams the table with the token as a
    WebSocket subprotocol; the same link in another tab is refused; a revocation signs the page out; the console
    signs in from #token= without leaving it in the address."""
    srv = ServiceThread(tmp_path, {"regulation": {"spectators": {"delay_s": 0}}, "tables": [{"id": "1"}]})
    with srv, browser_session() as browser, srv.client(srv.token) as d:
        d.post("/api/tables/1/events", json={"type": "board", "board": 1, "deal": deal_for(4, 1).to_pbn()})
        link = d.get("/api/tables/1/tokens").json()["S"]["link"]
        errors: list[str] = []
        page = browser.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(srv.base + link)
        page.locator(".hand.S .card").first.wait_for(timeout=15000)
        assert "Table 1, seat S" in page.locator("#title").inner_text()
        assert page.url == srv.base + "/seat", page.url              # no code left in the address
        assert page.locator(".hand.N .card").count() == 0
        other = browser.new_page()
        other.goto(srv.base + link)
        wait_until(other, "document.getElementById('board').textContent.includes('used already')", timeout=10)
        d.post("/api/tables/1/revoke", params={"seat": "S"})
        d.post("/api/tables/1/events", json={"type": "call", "seat": "N", "call": "1C"})
        page.reload()
        wait_until(page, "document.getElementById('status').textContent === 'signed out'", timeout=10)
        assert "revoked" in page.locator("#board").inner_text()
        console = browser.new_page()
        console.on("pageerror", lambda e: errors.append(str(e)))
        console.goto(f"{srv.base}/console#token={srv.token}")
        console.locator("#tables .tcard").first.wait_for(timeout=15000)
        assert console.url == srv.base + "/console"
        assert not errors, errors
