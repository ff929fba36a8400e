"""Seat credentials that follow the pair, cannot come back and reveal nothing, over real HTTP (and, for the round
change, the seat page in headless Chromium): a device renews through its own token into its pair's next seat
(``POST /api/signin/renew``), a pair that sits out or has finished is told so, a renewed token is spent; every
token field has one spelling; a round set back or an event replaced revives no credential; the opponents of the
round that played a board confirm it, nobody else; dummy neither plays, claims nor (during the play) calls the
director; a refused or accepted post never names where a hidden card is."""
from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from headless import browser_session, wait_until
from service_harness import ServerProcess, ServiceThread

from results.movement import round_robin_teams
from service.sim.dealing import deal_for

NODE = shutil.which("node")

# Mitchell, 3 tables, EW pair 6 absent: NS pair 1 sits out round 2 (table 1 has no EW pair then); EW pair 5
# plays table 2 in round 1 and table 3 in round 2; EW pair 4 comes to table 2 in round 2.
EVENT = {"name": "Pairs", "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2, "absent": [6]}}
CONFIG = {"regulation": {"spectators": {"delay_s": 0}}, "tables": [{"id": "1"}, {"id": "2"}, {"id": "3"}],
          "event": EVENT}


def hand(deal: Any, seat: str) -> list[str]:
    return sorted(next(c for s, c in deal.hands.items() if str(s) == seat))


def card(d: httpx.Client, table: str, seat: str) -> str:
    return str(d.get(f"/api/tables/{table}/cards").json()["seats"][seat]["link"].split("#card=", 1)[1])


def redeem_card(c: httpx.Client, code: str) -> dict[str, Any]:
    r = c.post("/api/signin/card", json={"code": code})
    assert r.status_code == 200, r.text
    return dict(r.json())


def renew(srv: ServerProcess, token: str) -> httpx.Response:
    """What seat.js does when its token ends: POST /api/signin/renew with the token as its bearer."""
    with srv.client(token) as c:
        return c.post("/api/signin/renew", json={})


def whoami(srv: ServerProcess, token: str) -> httpx.Response:
    with srv.client(token) as c:
        return c.get("/api/whoami")


def test_a_device_follows_its_pair_to_its_next_seat_never_its_old_table(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, srv.client() as anon:
        east = redeem_card(anon, card(d, "2", "E"))
        north1 = redeem_card(anon, card(d, "1", "N"))
        assert (east["table"], east["seat"], east["round"], east["pair"]) == ("2", "E", 1, 5)
        assert north1["pair"] == 1
        # nothing moved: the renewal gives the same token back
        r = renew(srv, east["token"])
        assert r.status_code == 200 and r.json()["token"] == east["token"] and r.json()["status"] == "seated"
        assert d.post("/api/event/advance", json={}).status_code == 200
        assert whoami(srv, east["token"]).status_code == 401
        r = renew(srv, east["token"])
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store", r.text
        moved = r.json()
        assert (moved["status"], moved["table"], moved["seat"], moved["round"], moved["pair"]) == \
            ("seated", "3", "E", 2, 5)                                     # pair 5 moved to table 3, still East
        assert whoami(srv, moved["token"]).json() == {"role": "seat", "table": "3", "seat": "E"}
        # the spent token renews no more; the table card of table 2 signs in the pair there now (pair 4)
        assert renew(srv, east["token"]).status_code == 401
        assert redeem_card(anon, card(d, "2", "E"))["pair"] == 4
        # pair 1 sits out round 2: told so, and its token is not spent (it asks again later)
        out = renew(srv, north1["token"])
        assert out.status_code == 200 and out.json() == {"status": "sit_out", "round": 2, "pair": 1}, out.text
        assert "token" not in out.json()
        assert d.post("/api/event/advance", json={}).status_code == 200
        back = renew(srv, north1["token"]).json()
        assert (back["status"], back["table"], back["seat"], back["round"]) == ("seated", "1", "N", 3)
        # pair 5 in the last round: its round-3 seat
        r3 = renew(srv, moved["token"]).json()
        assert (r3["table"], r3["seat"], r3["round"]) == ("1", "E", 3)
        # a forged, malformed or missing token: 401, never a 500
        for bad in (None, "seat.3.E.2.0.0.nothex", "x" * 190, moved["token"][:-1] + "0", srv.token):
            with srv.client(bad) as c:
                assert c.post("/api/signin/renew", json={}).status_code == 401, bad
        # a restart: the spent token stays spent, the current one stays valid
        srv.stop()
        srv.start()
        assert renew(srv, east["token"]).status_code == 401
        assert whoami(srv, r3["token"]).status_code == 200


def test_a_renewed_device_does_not_keep_its_old_tables_credential(tmp_path: Path) -> None:
    """Tables out of step: table 3 is already in round 2 while table 2 still plays round 1. Once pair 5's device
    renews into table 3 (its old table moved on), its round-1 token of table 2 is spent."""
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, srv.client() as anon:
        east = redeem_card(anon, card(d, "2", "E"))
        assert d.post("/api/event/advance", json={"tables": ["3"]}).status_code == 200
        r = renew(srv, east["token"])                      # table 2 has not moved: the same token
        assert r.json()["token"] == east["token"] and r.json()["table"] == "2"
        assert d.post("/api/event/advance", json={"tables": ["2"]}).status_code == 200
        moved = renew(srv, east["token"]).json()
        assert (moved["table"], moved["seat"]) == ("3", "E")
        assert whoami(srv, east["token"]).status_code == 401


def test_in_a_teams_movement_a_device_follows_its_teams_pair_of_its_direction(tmp_path: Path) -> None:
    """A team sits in two rooms each round: its North-South pair's phone goes to the team's North-South seat of
    the next round, never to the seat of its team-mates (who play the same boards in the other room)."""
    teams = {"regulation": {"spectators": {"delay_s": 0}}, "tables": [{"id": str(t)} for t in range(1, 5)],
             "event": {"name": "Teams", "scoring": "IMP",
                       "movement": {"kind": "round_robin", "teams": 4, "boards_per_round": 2}}}
    mv = round_robin_teams(4, 2)
    with ServiceThread(tmp_path, teams) as srv, srv.client(srv.token) as d, srv.client() as anon:
        def sitting(rnd: int, direction: str) -> Any:        # where team 1's pair of that direction sits
            return next(s for s in mv.sittings if s.round == rnd and (s.ns if direction == "NS" else s.ew) == 1)
        phones = {}
        for direction, seat in (("NS", "S"), ("EW", "W")):
            phones[direction] = redeem_card(anon, card(d, str(sitting(1, direction).table), seat))
            assert phones[direction]["pair"] == 1
        assert d.post("/api/event/advance", json={}).status_code == 200
        for direction, seat in (("NS", "S"), ("EW", "W")):
            to = sitting(2, direction)
            got = renew(srv, phones[direction]["token"]).json()
            assert (got["status"], got["table"], got["seat"], got["round"]) == ("seated", str(to.table), seat, 2), \
                (direction, got)


def test_every_token_field_has_one_spelling(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, srv.client() as anon:
        link = d.get("/api/tables/1/tokens").json()["N"]["link"].split("#signin=", 1)[1]
        assert anon.post("/api/signin", json={"code": link}).status_code == 200
        assert anon.post("/api/signin", json={"code": link}).status_code == 401           # used
        parts = link.split(".")
        assert parts[3] == "1"                                                              # the round
        for spelling in ("01", "001", "\uff11", "\u0661", " 1", "1 ", "+1"):
            other = ".".join(parts[:3] + [spelling] + parts[4:])
            r = anon.post("/api/signin", json={"code": other})
            assert r.status_code == 401, (spelling, r.text)
        for i in range(4, len(parts) - 1):                                                  # the other numbers
            other = ".".join(parts[:i] + ["0" + parts[i]] + parts[i + 1:])
            assert anon.post("/api/signin", json={"code": other}).status_code == 401, i
        upper = ".".join(parts[:-1] + [parts[-1].upper()])
        assert anon.post("/api/signin", json={"code": upper}).status_code == 401


def test_no_credential_comes_back_when_the_round_is_set_back_or_the_event_replaced(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, srv.client() as anon:
        tok1 = d.get("/api/tables/1/tokens").json()["S"]["token"]
        code = card(d, "1", "S")
        assert d.post("/api/event/round", json={"round": 2}).status_code == 200
        assert whoami(srv, tok1).status_code == 401
        assert d.post("/api/event/round", json={"round": 1}).status_code == 200          # set back
        r = whoami(srv, tok1)
        assert r.status_code == 401 and "set the round" in r.json()["detail"], r.text
        assert renew(srv, tok1).status_code == 401
        fresh = d.get("/api/tables/1/tokens").json()["S"]["token"]
        assert fresh != tok1 and whoami(srv, fresh).status_code == 200
        # the same event set up again (replaced): no earlier token or card is valid
        assert d.post("/api/event", json={**EVENT, "replace": True}).status_code == 200
        assert whoami(srv, fresh).status_code == 401
        assert renew(srv, fresh).status_code == 401
        assert anon.post("/api/signin/card", json={"code": code}).status_code == 401
        newest = d.get("/api/tables/1/tokens").json()["S"]["token"]
        assert whoami(srv, newest).status_code == 200
        srv.stop()
        srv.start()                                                     # and so after a restart
        assert whoami(srv, fresh).status_code == 401 and whoami(srv, tok1).status_code == 401
        assert whoami(srv, newest).status_code == 200


def test_only_the_opponents_of_the_round_that_played_a_board_confirm_it(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d:
        d.post("/api/tables/2/kind", json={"kind": "scoring"}).raise_for_status()
        toks = d.get("/api/tables/2/tokens").json()
        with srv.client(toks["N"]["token"]) as north:
            north.post("/api/tables/2/events", json={"type": "board", "board": 3}).raise_for_status()
            r = north.post("/api/tables/2/events", json={"type": "result", "contract": "3NT", "declarer": "N",
                                                         "tricks": 9})
            assert r.status_code == 200, r.text
        d.post("/api/event/advance", json={}).raise_for_status()
        # round 2: pair 4 sits East-West at table 2; it did not play board 3 there and may not accept it
        new_east = d.get("/api/tables/2/tokens").json()["E"]["token"]
        with srv.client(new_east) as east:
            r = east.post("/api/tables/2/boards/3/confirm", json={"accept": True})
            assert r.status_code == 403 and "Law 79" in r.json()["detail"], r.text
        rows = d.get("/api/tables/2/events", params={"board": 3}).json()
        assert not [x for x in rows if x["kind"] == "confirmation"]
        # the director still can (and the pair that played it, through its round-1 sign-in, while it lasted)
        r = d.post("/api/tables/2/boards/3/confirm", json={"accept": True, "seat": "W"})
        assert r.status_code == 200


def test_a_keying_terminal_answers_for_an_opponent_only_while_that_side_has_no_device_of_its_own(
        tmp_path: Path) -> None:
    """One terminal for the table (Bridgemate practice): North keys, hands it to East, who accepts on it. Once East
    has signed in on his own device this round, the keying terminal can no longer answer for him (Law 79)."""
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d:
        d.post("/api/tables/2/kind", json={"kind": "scoring"}).raise_for_status()
        toks = d.get("/api/tables/2/tokens").json()
        with srv.client(toks["N"]["token"]) as north:
            north.post("/api/tables/2/events", json={"type": "board", "board": 3}).raise_for_status()
            north.post("/api/tables/2/events", json={"type": "result", "contract": "3NT", "declarer": "N",
                                                     "tricks": 9}).raise_for_status()
            r = north.post("/api/tables/2/boards/3/confirm", json={"accept": True, "seat": "E"})
            assert r.status_code == 200 and r.json()["seat"] == "E" and r.json()["terminal"] == "N", r.text

            code = toks["E"]["link"].split("#signin=", 1)[1]           # East signs in on his own phone
            with srv.client() as anyone:
                east_token = anyone.post("/api/signin", json={"code": code}).raise_for_status().json()["token"]
            north.post("/api/tables/2/events", json={"type": "board", "board": 4}).raise_for_status()
            north.post("/api/tables/2/events", json={"type": "result", "contract": "4S", "declarer": "N",
                                                     "tricks": 10}).raise_for_status()
            r = north.post("/api/tables/2/boards/4/confirm", json={"accept": True, "seat": "E"})
            assert r.status_code == 403, r.text
            with srv.client(east_token) as east:
                r = east.post("/api/tables/2/boards/4/confirm", json={"accept": True})   # East on his own device
                assert r.status_code == 200 and r.json()["seat"] == "E", r.text


def _play_to_the_lead(d: httpx.Client, table: str, deal: str) -> None:
    """Board 1 at ``table``: North opens 1S, three passes: North declares, South is dummy, East leads."""
    d.post(f"/api/tables/{table}/events", json={"type": "board", "board": 1, "deal": deal}).raise_for_status()
    for seat, call in zip("NESW", ["1S", "Pass", "Pass", "Pass"]):
        d.post(f"/api/tables/{table}/events", json={"type": "call", "seat": seat, "call": call}).raise_for_status()


def test_dummy_acts_only_as_laws_42_and_43_let_him(tmp_path: Path) -> None:
    one = {"regulation": {"spectators": {"delay_s": 0}}, "tables": [{"id": "1"}]}
    deal = deal_for(3, 1)
    hands = {str(s): sorted(c) for s, c in deal.hands.items()}
    with ServiceThread(tmp_path, one) as srv, srv.client(srv.token) as d:
        _play_to_the_lead(d, "1", deal.to_pbn())
        toks = d.get("/api/tables/1/tokens").json()
        with srv.client(toks["E"]["token"]) as east, srv.client(toks["S"]["token"]) as dummy, \
                srv.client(toks["N"]["token"]) as north:
            # before the opening lead is faced declarer's partner is not dummy yet: he may call the director
            assert dummy.post("/api/tables/1/director", json={}).status_code == 200
            lead = next(c for c in hands["E"] if c[0] == "C") if any(c[0] == "C" for c in hands["E"]) \
                else hands["E"][0]
            assert east.post("/api/tables/1/events", json={"type": "card", "seat": "E", "card": lead}).status_code \
                == 200
            suit = lead[0]
            follow = [c for c in hands["S"] if c[0] == suit] or hands["S"]
            # dummy may not play his own cards (declarer does), nor claim, nor call the director unprompted
            r = dummy.post("/api/tables/1/events", json={"type": "card", "seat": "S", "card": follow[0]})
            assert r.status_code == 403 and "dummy" in r.json()["detail"], r.text
            r = dummy.post("/api/tables/1/events", json={"type": "claim", "seat": "S", "tricks": 9})
            assert r.status_code == 403, r.text
            r = dummy.post("/api/tables/1/director", json={})
            assert r.status_code == 403 and "43A1" in r.json()["detail"], r.text
            # declarer plays dummy's card
            assert north.post("/api/tables/1/events", json={"type": "card", "seat": "S", "card": follow[0]}) \
                .status_code == 200
            # once another player has called the director, dummy may call too (Law 43A1a)
            assert east.post("/api/tables/1/director", json={}).status_code == 200
            assert dummy.post("/api/tables/1/director", json={}).status_code == 200


def test_no_answer_tells_a_seat_where_a_hidden_card_is(tmp_path: Path) -> None:
    one = {"regulation": {"spectators": {"delay_s": 0}}, "tables": [{"id": "1"}, {"id": "2"}]}
    deal = deal_for(3, 1)
    owner = {c: str(s) for s, cards in deal.hands.items() for c in cards}
    with ServiceThread(tmp_path, one) as srv, srv.client(srv.token) as d:
        # a scoring-only table whose deal is known: North keys a lead that is not East's (the leader's) card
        d.post("/api/tables/1/kind", json={"kind": "scoring"}).raise_for_status()
        d.post("/api/tables/1/events", json={"type": "board", "board": 1, "deal": deal.to_pbn()}).raise_for_status()
        north = d.get("/api/tables/1/tokens").json()["N"]["token"]
        wrong = next(c for c, s in owner.items() if s == "S")
        with srv.client(north) as n:
            r = n.post("/api/tables/1/events", json={"type": "result", "contract": "2S", "declarer": "N",
                                                     "lead": wrong, "tricks": 8})
        assert r.status_code == 200, r.text                  # not refused: a refusal would say where it is
        text = json.dumps(r.json())
        assert "S's card" not in text and "gives to" not in text
        rows = d.get("/api/tables/1/events", params={"board": 1}).json()
        assert [x["body"].get("lead") for x in rows if x["body"].get("type") == "result"] == [None]


def test_a_card_not_held_is_not_placed_for_the_seat_that_plays_it(tmp_path: Path) -> None:
    one = {"regulation": {"spectators": {"delay_s": 0}}, "tables": [{"id": "1"}, {"id": "2"}]}
    deal = deal_for(3, 1)
    wrong = next(str(c) for s, cards in deal.hands.items() if str(s) == "S" for c in sorted(cards))
    with ServiceThread(tmp_path, one) as srv, srv.client(srv.token) as d:
        # a played table: East leads South's card; the answer and East's view do not name its holder
        _play_to_the_lead(d, "2", deal.to_pbn())
        east = d.get("/api/tables/2/tokens").json()["E"]["token"]
        with srv.client(east) as e:
            r = e.post("/api/tables/2/events", json={"type": "card", "seat": "E", "card": wrong})
            assert r.status_code in (200, 409), r.text
            seen = json.dumps(r.json()) + json.dumps(e.get("/api/tables/2").json().get("irregularities"))
        assert "gives to S" not in seen and "to S;" not in seen and "S's card" not in seen, seen


@pytest.mark.slow
def test_the_seat_page_follows_its_pair_after_advance_all_tables(tmp_path: Path) -> None:
    """Pair 5's two phones (table 2, East and West, signed in from the table's card) and pair 1's North phone (table
    1): after the director advances every table (the console's "Advance all tables" posts POST /api/event/advance),
    pair 5's pages show table 3 and their own new hands, and never table 2's new occupants' hands; pair 1's page
    says it sits out round 2."""
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, browser_session() as browser:
        d.post("/api/tables/2/events", json={"type": "board", "board": 3, "deal": deal_for(9, 3).to_pbn()}) \
            .raise_for_status()
        errors: list[str] = []
        frames: dict[str, list[str]] = {"E": [], "W": []}
        pages = {}
        for seat, table in (("E", "2"), ("W", "2"), ("N", "1")):
            page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            if seat in frames:
                page.on("websocket", lambda ws, seat=seat: ws.on(
                    "framereceived", lambda payload, seat=seat: frames[seat].append(str(payload))))
            page.goto(f"{srv.base}/seat#card={card(d, table, seat)}")
            pages[seat] = page
        for seat in "EW":
            pages[seat].locator(f".hand.{seat} .card").first.wait_for(timeout=15000)
            assert f"Table 2, seat {seat}" in pages[seat].locator("#title").inner_text()
        assert d.post("/api/event/advance", json={}).status_code == 200
        # table 2's new occupants (pair 4) and table 3's (pair 5) start their boards
        t2 = deal_for(9, 5)
        t3 = deal_for(9, 1)
        d.post("/api/tables/2/events", json={"type": "board", "board": 5, "deal": t2.to_pbn()}).raise_for_status()
        d.post("/api/tables/3/events", json={"type": "board", "board": 1, "deal": t3.to_pbn()}).raise_for_status()
        for seat in "EW":
            wait_until(pages[seat], "s => document.getElementById('title').textContent.includes("
                       "'Table 3, seat ' + s)", seat, timeout=20)
            wait_until(pages[seat], "() => typeof state !== 'undefined' && state && state.board && "
                       "state.board.number === 1", timeout=15)
            shown = sorted(pages[seat].evaluate(f"() => [...document.querySelectorAll('.hand.{seat} .card')]"
                                                ".map(c => c.dataset.card)"))
            assert shown == sorted(t3.hands[next(s for s in t3.hands if str(s) == seat)])
        wait_until(pages["N"], "() => { const p = document.querySelector('#signed-out .pair-status'); "
                   "return !!p && p.dataset.status === 'sit_out'; }", timeout=20)
        assert "sits out round 2" in pages["N"].locator("#signed-out").inner_text()
        for seat in "EW":
            other = sorted(t2.hands[next(s for s in t2.hands if str(s) == seat)])
            leaked = [f for f in frames[seat] if all(c in f for c in other)]
            assert not leaked, f"{seat}'s page received table 2's new {seat} hand"
        assert not errors, errors


class SeatScript:
    """The seat page's own scripts run by Node (``seat_harness.js``: real fetch and WebSocket, a stand-in for the
    page's elements), for a machine without Chromium; what the page shows is read from the lines it prints."""

    def __init__(self, srv: ServerProcess, fragment: str) -> None:
        harness = Path(__file__).with_name("seat_harness.js")
        static = Path(__file__).resolve().parents[2] / "service" / "web" / "static"
        self.proc = subprocess.Popen([NODE, "--experimental-websocket", "--no-warnings", str(harness), srv.base,
                                      fragment, str(static)], stdout=subprocess.PIPE, text=True)
        self.lines: list[dict[str, Any]] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(json.loads(line))

    def shown(self) -> dict[str, Any]:
        views = [x for x in self.lines if "title" in x]
        return views[-1] if views else {}

    def wait(self, what: str, pred: Callable[[dict[str, Any]], bool], timeout: float = 20) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if pred(self.shown()):
                return self.shown()
            time.sleep(0.1)
        raise TimeoutError(f"the page never showed {what}: {self.shown()}")

    def frames(self) -> list[dict[str, Any]]:
        return [x for x in self.lines if "frame" in x]

    def errors(self) -> list[str]:
        return [str(x["error"]) for x in self.lines if "error" in x]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def test_the_seat_script_follows_its_pair_over_http_and_websocket(tmp_path: Path) -> None:
    """The flow of the browser test above with the page's own seat.js and common.js run by Node: pair 5's two
    phones at table 2 (signed in from the table's card) and pair 1's North phone at table 1. After the director
    advances every table (what the console's "Advance all tables" posts), pair 5's pages show table 3 and their own
    new hands, never a frame of table 2's new occupants' hands; pair 1's page says it sits out round 2, and in round 3
signs in at table 1 again by itself."""
    if NODE is None:
        pytest.skip("no node to run the seat page's scripts")
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d:
        first = deal_for(9, 3)
        d.post("/api/tables/2/events", json={"type": "board", "board": 3, "deal": first.to_pbn()}).raise_for_status()
        pages = {seat: SeatScript(srv, f"#card={card(d, table, seat)}") for seat, table in
                 (("E", "2"), ("W", "2"), ("N", "1"))}
        try:
            for seat in "EW":
                shown = pages[seat].wait(f"table 2 seat {seat}", lambda v, seat=seat: v.get("table") == "2"
                                         and v.get("seat") == seat and len(v.get("cards", [])) == 13)
                assert sorted(shown["cards"]) == sorted(hand(first, seat))
            pages["N"].wait("table 1 seat N in round 1", lambda v: (v.get("table"), v.get("seat"), v.get("round"))
                            == ("1", "N", 1))
            before = {seat: len(pages[seat].frames()) for seat in "EW"}
            assert d.post("/api/event/advance", json={}).status_code == 200
            t2, t3 = deal_for(9, 5), deal_for(9, 1)
            d.post("/api/tables/2/events", json={"type": "board", "board": 5, "deal": t2.to_pbn()}).raise_for_status()
            d.post("/api/tables/3/events", json={"type": "board", "board": 1, "deal": t3.to_pbn()}).raise_for_status()
            for seat in "EW":
                shown = pages[seat].wait(f"table 3 seat {seat} with board 1", lambda v, seat=seat: v.get("table") == "3"
                                         and v.get("seat") == seat and v.get("board") == 1
                                         and len(v.get("cards", [])) == 13)
                assert f"Table 3, seat {seat}" in shown["title"]
                assert sorted(shown["cards"]) == sorted(hand(t3, seat))
                later = pages[seat].frames()[before[seat]:]
                assert any("/ws/tables/3" in f["frame"] for f in later)
                assert not [f for f in later if "/ws/tables/2" in f["frame"]
                            and '"number":5' in f["data"].replace(" ", "")], "table 2's new board reached the page"
                theirs = hand(t2, seat)
                leaked = [f["frame"] for f in later if all(c in f["data"] for c in theirs)]
                assert not leaked, f"{seat}'s page received table 2's new {seat} hand: {leaked}"
            out = pages["N"].wait("the sit-out", lambda v: bool(v.get("signed_out"))
                                  and 'data-status="sit_out"' in v["signed_out"])
            assert "sits out round 2" in out["signed_out"]
            # round 3: pair 1 plays table 1 again; its page, asking every 10 s, signs in there by itself
            assert d.post("/api/event/advance", json={}).status_code == 200
            back = pages["N"].wait("pair 1 back at table 1", lambda v: v.get("round") == 3 and not v.get("signed_out"),
                                   timeout=30)
            assert (back["table"], back["seat"]) == ("1", "N") and "Table 1, seat N" in back["title"]
            for p in pages.values():
                assert not p.errors(), p.errors()
        finally:
            for p in pages.values():
                p.close()
