"""The table terminal in a real headless browser (Playwright + Debian's Chromium), at a phone's 390x844 and a
tablet's 820x1180: four seat pages (one browser, a context each) play a whole board — calls with an alert that
the opponents see, the cards, a claim the opponents accept — and the opponents confirm the result, then the
traveller shows; on a second board a seat makes an insufficient bid and calls the director, saying why, the
console shows the call with its reason and law at once and rules the bid from its existing ruling list, then marks
the call answered; a revoked seat's page says it is signed out. No page scrolls sideways at 390 px. Screenshots:
tests/artifacts/seat-<what>-<phone|tablet>.png, console-call-<phone|tablet>.png."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from headless import ARTIFACTS, PLAY_ONE, browser_session, wait_until
from service_harness import ServiceThread

from service.sim.dealing import deal_for

SIZES = {"phone": (390, 844), "tablet": (820, 1180)}
CONFIG = {"tables": [{"id": "1"}], "regulation": {"spectators": {"delay_s": 0}, "results_release": "immediate"}}
NO_SIDEWAYS = "() => document.documentElement.scrollWidth <= window.innerWidth"


def shot(page: Any, what: str, size: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{what}-{size}.png"), full_page=True)


def no_sideways(pages: dict[str, Any], size: str) -> None:
    if size == "phone":
        for name, page in pages.items():
            assert page.evaluate(NO_SIDEWAYS), f"{name} scrolls sideways at 390 px"


def call(page: Any, bid: str, alert: bool = False) -> None:
    page.locator("#box .level").first.wait_for(timeout=10000)
    if alert:
        page.locator("#alert-toggle").click()
        wait_until(page, "() => document.querySelector('#alert-toggle').getAttribute('aria-pressed') === 'true'")
    if bid in ("Pass", "X", "XX"):
        page.locator(f'#box button.call[data-call="{bid}"]').click()
    else:
        page.locator(f'#box .level[data-level="{bid[0]}"]').click()
        page.locator(f'#box .strain[data-strain="{bid[1:]}"]').click()


def calls_made(page: Any, n: int) -> None:
    wait_until(page, "n => state && state.auction && state.auction.calls.length >= n", n)


@pytest.mark.slow
@pytest.mark.parametrize("size", list(SIZES))
def test_four_seats_play_a_board_and_a_director_call_reaches_the_console(tmp_path: Path, size: str) -> None:
    width, height = SIZES[size]
    srv = ServiceThread(tmp_path, CONFIG)
    with srv, browser_session() as browser, srv.client(srv.token) as api:
        links = {s: v["link"] for s, v in api.get("/api/tables/1/tokens").json().items()}
        errors: list[str] = []
        pages: dict[str, Any] = {}
        for who in ("N", "E", "S", "W", "console"):
            ctx = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1,
                                      is_mobile=size == "phone", has_touch=size == "phone")
            page = ctx.new_page()
            page.on("pageerror", lambda e, who=who: errors.append(f"{who}: {e}"))
            pages[who] = page
        seats = {s: pages[s] for s in "NESW"}
        pages["console"].goto(f"{srv.base}/console#token={srv.token}")
        for s, page in seats.items():
            page.goto(srv.base + links[s])
            wait_until(page, "s => document.querySelector('#title').textContent.includes('seat ' + s)", s)
        deal = deal_for(7, 1).to_pbn()
        api.post("/api/tables/1/events", json={"type": "board", "board": 1, "deal": deal}).raise_for_status()
        for page in seats.values():
            page.locator(".hand.big button.card, .hand.big .card").first.wait_for(timeout=10000)
        no_sideways(seats, size)

        # the auction: North opens 1NT with an alert; the opponents see it
        call(seats["N"], "1NT", alert=True)
        calls_made(seats["E"], 1)
        shot(seats["N"], "seat-bidding", size)
        for s in "EW":
            wait_until(seats[s], "() => !!document.querySelector('#auction td.alerted[data-seat=N] .alert-mark')")
        shot(seats["E"], "seat-alert-seen", size)
        for n, (s, bid) in enumerate([("E", "Pass"), ("S", "3NT"), ("W", "Pass"), ("N", "Pass"), ("E", "Pass")], 2):
            call(seats[s], bid)
            calls_made(seats["N"], n)
        wait_until(seats["N"], "() => state.phase === 'opening_lead' && state.contract === '3NT'")

        # the cards: two tricks through the pages (declarer plays dummy's from his own page)
        played = 0
        while played < 8:
            for page in seats.values():
                wait_until(page, "seq => state.seq >= seq", seats["N"].evaluate("() => state.seq"))
                if page.evaluate(PLAY_ONE):
                    played += 1
                    wait_until(seats["N"], "n => (state.tricks_won ? state.tricks_won.NS + state.tricks_won.EW : 0)"
                               " * 4 + (state.trick ? state.trick.cards.length : 0) >= n", played)
                    break
            else:
                raise AssertionError("no page could play: " + str(seats["N"].evaluate("() => state")))
        assert seats["N"].evaluate("() => state.auction") is None, "Law 41C: no auction after his first play"
        shot(seats["S"], "seat-play", size)
        no_sideways(seats, size)

        # North claims; East and West accept on their own pages
        won = seats["N"].evaluate("() => state.tricks_won.NS")
        seats["N"].locator("#claim-open").click()
        seats["N"].locator("#claim-tricks").select_option(str(won + 7))
        seats["N"].locator("#claim-send").click()
        for s in "EW":
            seats[s].locator("#claim-accept").wait_for(timeout=10000)
        shot(seats["E"], "seat-claim", size)
        seats["E"].locator("#claim-accept").click()
        wait_until(seats["W"], "() => state.claim && state.claim.responses.E === true")
        seats["W"].locator("#claim-accept").click()
        wait_until(seats["N"], "() => state.phase === 'board_complete'")

        # the result: North-South wait, East-West confirm, then the traveller
        seats["E"].locator("#confirm-accept").wait_for(timeout=10000)
        assert seats["N"].locator("#confirm-accept").count() == 0
        shot(seats["E"], "seat-result", size)
        seats["E"].locator("#confirm-accept").click()
        for page in seats.values():
            page.locator("#result-section .ok-line").wait_for(timeout=10000)
            page.locator("#traveller table.traveller").wait_for(timeout=10000)
        assert "3NT" in seats["S"].locator("#traveller").inner_text()
        # the same state drawn again (a stream's greeting after it reconnected) keeps the traveller
        seats["S"].evaluate("() => { state = {...state}; render(); }")
        assert "3NT" in seats["S"].locator("#traveller table.traveller").inner_text(timeout=2000)
        shot(seats["N"], "seat-confirmed", size)
        no_sideways(seats, size)
        rows = api.get("/api/tables/1/events", params={"board": 1}).json()
        conf = [r for r in rows if r["kind"] == "confirmation"]
        assert [(r["actor"], r["body"]["accept"], r["body"]["side"]) for r in conf] == [("seat:1:E", True, "EW")]
        assert api.get("/api/tables/1/boards/1").json()["result"]["tricks"] == won + 7

        # board 2: East opens 1H, South bids 1D (insufficient) and calls the director
        api.post("/api/tables/1/events", json={"type": "board", "board": 2, "deal": deal_for(7, 2).to_pbn()}
                 ).raise_for_status()
        call(seats["E"], "1H")
        calls_made(seats["S"], 1)
        call(seats["S"], "1D")
        wait_until(seats["S"], "() => state.phase === 'awaiting_ruling'")
        seats["S"].locator("#call-director").click()          # why: the reasons, with their laws
        seats["S"].locator("#director-section").wait_for(timeout=10000)
        seats["S"].locator('#director-form input[value="insufficient_bid"]').check()
        shot(seats["S"], "seat-call-reason", size)
        seats["S"].locator("#director-send").click()
        wait_until(seats["S"], "() => document.getElementById('director-section').hidden")
        console = pages["console"]
        console.locator('#calls .call[data-table="1"]').wait_for(timeout=10000)
        text = console.locator("#calls .call").first.inner_text()
        assert "Table 1" in text and "seat S" in text and "board 2" in text, text
        assert "insufficient bid" in text and "Law 27" in text, text
        alert = console.locator('#alerts .alert[data-code="INSUFFICIENT_BID"]')
        alert.wait_for(timeout=10000)
        # an English page keeps the law's English statement and folds out the seed's own Chinese text
        alert.locator(".law-text details.law-seed").wait_for(timeout=10000)
        law = alert.locator(".law-text")
        head = law.evaluate("el => el.firstChild && el.firstChild.nodeType === Node.TEXT_NODE ? "
                            "el.firstChild.textContent : ''")
        assert head.strip() and not re.search(r"[\u4e00-\u9fff]", head), head
        seed = law.locator("details.law-seed .law-quote").text_content() or ""
        assert re.search(r"[\u4e00-\u9fff]", seed) and law.locator(".law-quote").get_attribute("lang") == "zh-Hant"
        shot(console, "console-call", size)
        shot(seats["S"], "seat-insufficient", size)
        options = [b.get_attribute("data-option") for b in alert.locator("button.option").all()]
        option = next(o for o in ("correct", "refuse", "accept") if o in options)
        alert.locator(f'button.option[data-option="{option}"]').click()
        wait_until(console, "() => !document.querySelector('#alerts .alert[data-code=INSUFFICIENT_BID]')")
        console.locator("#calls button.answer").first.click()
        wait_until(console, "() => !document.querySelector('#calls .call')")
        rulings = [r for r in api.get("/api/tables/1/events", params={"board": 2}).json()
                   if r["body"].get("type") == "ruling"]
        assert rulings and rulings[0]["actor"] == "director" and rulings[0]["body"]["option"] == option
        calls = api.get("/api/director-calls").json()
        assert (calls[0]["table"], calls[0]["seat"], calls[0]["board"]) == ("1", "S", 2) and calls[0]["answered"]
        # the table complies: South replaces his bid from the box, and the auction goes on to West
        wait_until(seats["S"], "() => state.turn === 'S' && !state.choices.length")
        call(seats["S"], "2D")
        wait_until(seats["W"],
                   "() => state.turn === 'W' && state.auction.calls.some(c => c.call === '2D' && c.stands)")
        no_sideways(pages, size)

        # the director revokes West's sign-in: his page says so (no "reconnecting" for ever)
        api.post("/api/tables/1/revoke", params={"seat": "W"}).raise_for_status()
        seats["W"].locator("#signed-out h2").wait_for(timeout=30000)
        assert "signed out" in seats["W"].locator("#status").inner_text()
        assert "scan the card" in seats["W"].locator("#signed-out").inner_text().lower()
        shot(seats["W"], "seat-signed-out", size)
        assert not errors, errors
