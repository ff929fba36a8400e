"""What the players' phones say on a club evening, in headless Chromium at 390x844: four seat pages (West's in
Chinese) and the console, the table driven through the service's API.

* each page says what its player does now: declarer "Play from dummy (South)", dummy "Declarer plays your
  cards" (never "your turn"), the defenders "Waiting for South";
* a defender's exposed card is shown to the whole table as a penalty card (major/minor) with what it means
  for its owner's next play and his partner's next lead (Law 50);
* no page shows a code: irregularities, their state, phases and options are words; a ruling reaches the four
  phones at once (no "awaiting ruling ... open" until the next call);
* a claiming declarer's remaining cards appear on the defenders' pages with the claim (never before it), and the
  director rules a disputed claim with the console's form (tricks awarded, a note), no prompt().

After every step each page's visible text is searched for raw codes: an uppercase ``WORD_WORD`` token, a
``snake_case`` word or a ``[bracketed]`` code."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServiceThread

from service.sim.dealing import deal_for

CONFIG = {"tables": [{"id": "1"}], "regulation": {"spectators": {"delay_s": 0}, "results_release": "immediate"}}
RAW = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\[[^\]\n]*\]")
TEXT = "() => document.body.innerText"


def raw_codes(page: Any) -> list[str]:
    """In a page's visible text, or in a part of it (a locator)."""
    return RAW.findall(page.evaluate(TEXT) if hasattr(page, "goto") else page.inner_text())


def no_raw_codes(pages: dict[str, Any], when: str) -> None:
    for name, page in pages.items():
        found = raw_codes(page)
        assert not found, f"{name}'s page shows raw codes {found} ({when})"


def synced(pages: dict[str, Any], seq: int) -> None:
    for page in pages.values():
        wait_until(page, "seq => state && state.seq >= seq", seq)


def post(api: Any, body: dict[str, Any]) -> int:
    r = api.post("/api/tables/1/events", json=body)
    assert r.status_code == 200, r.text
    return int(r.json()["seq"])


def play_one(api: Any) -> int:
    """The director's view names the seat to play: it follows the suit led when it can."""
    s = api.get("/api/tables/1").json()
    seat = s["turn"]
    cards = s["hands"][seat]["cards"]
    tricks = s.get("tricks") or []
    current = tricks[-1]["cards"] if tricks and len(tricks[-1]["cards"]) < 4 else []
    led = current[0]["card"][0] if current else None
    card = next((c for c in cards if led and c[0] == led), cards[0])
    return post(api, {"type": "card", "seat": seat, "card": card})


def auction(api: Any, board: int, calls: list[tuple[str, str]]) -> int:
    seq = post(api, {"type": "board", "board": board, "deal": deal_for(7, board).to_pbn()})
    for seat, call in calls:
        seq = post(api, {"type": "call", "seat": seat, "call": call})
    return seq


THREE_NT = [("N", "1NT"), ("E", "Pass"), ("S", "3NT"), ("W", "Pass"), ("N", "Pass"), ("E", "Pass")]


@pytest.fixture()
def table(tmp_path: Path) -> Any:
    srv = ServiceThread(tmp_path, CONFIG)
    with srv, browser_session() as browser, srv.client(srv.token) as api:
        links = {s: v["link"] for s, v in api.get("/api/tables/1/tokens").json().items()}
        errors: list[str] = []
        pages: dict[str, Any] = {}
        for who in ("N", "E", "S", "W", "console"):
            ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1,
                                      is_mobile=True, has_touch=True)
            page = ctx.new_page()
            page.on("pageerror", lambda e, who=who: errors.append(f"{who}: {e}"))
            pages[who] = page
        pages["console"].goto(f"{srv.base}/console#token={srv.token}")
        for s in "NESW":
            link = links[s].replace("/seat#", "/seat?lang=zh-Hant#") if s == "W" else links[s]
            pages[s].goto(srv.base + link)
            wait_until(pages[s], "s => ME === s && TABLE === '1'", s)
        yield api, pages, srv
        assert not errors, errors


def seats_of(pages: dict[str, Any]) -> dict[str, Any]:
    return {s: pages[s] for s in "NESW"}


def turn_line(page: Any) -> str:
    return str(page.evaluate("() => { const el = document.querySelector('#board .turn-line');"
                             " return el ? el.textContent : ''; }"))


@pytest.mark.slow
def test_each_page_says_what_its_player_does_now(table: Any) -> None:
    api, pages, _ = table
    seats = seats_of(pages)
    seq = auction(api, 1, THREE_NT[:2])
    synced(seats, seq)
    wait_until(seats["S"], "() => document.querySelector('#board .your-turn') !== null")
    assert "your turn" in seats["S"].locator("#board").inner_text().lower()
    for seat, bid in THREE_NT[2:]:
        post(api, {"type": "call", "seat": seat, "call": bid})
    seq = post(api, {"type": "card", "seat": "E", "card": api.get("/api/tables/1").json()["hands"]["E"]["cards"][0]})
    synced(seats, seq)
    # dummy (South) is due: declarer plays from dummy; dummy's phone does not say "your turn"
    assert api.get("/api/tables/1").json()["turn"] == "S"
    assert "your turn" not in seats["S"].evaluate(TEXT).lower(), "dummy's phone says it is his turn"
    assert turn_line(seats["N"]) == "Play from dummy (South)"
    assert seats["N"].locator("#board .your-turn").count() == 1
    assert seats["S"].locator("#board .your-turn").count() == 0
    assert turn_line(seats["S"]) == "Declarer plays your cards"
    assert turn_line(seats["E"]) == "Waiting for South"
    assert turn_line(seats["W"]) == "等待南"                    # West's page is in Chinese
    seq = play_one(api)                                          # dummy's card; West is due
    synced(seats, seq)
    assert turn_line(seats["W"]) == "輪到你"
    assert turn_line(seats["N"]) == "Waiting for West"
    assert turn_line(seats["S"]) == "Declarer plays your cards"
    seq = play_one(api)
    synced(seats, seq)
    assert turn_line(seats["N"]) == "Your turn"
    pages["N"].screenshot(path=str(ARTIFACTS / "words-turn-declarer-phone.png"), full_page=True)
    no_raw_codes(pages, "during the play")


@pytest.mark.slow
def test_a_penalty_card_is_shown_to_the_table_with_what_it_means(table: Any) -> None:
    api, pages, _ = table
    seats = seats_of(pages)
    auction(api, 1, THREE_NT)
    post(api, {"type": "card", "seat": "E", "card": api.get("/api/tables/1").json()["hands"]["E"]["cards"][0]})
    # West (a defender) shows an honour: a major penalty card (Laws 49, 50B)
    west = api.get("/api/tables/1").json()["hands"]["W"]["cards"]
    honour = next(c for c in west if c[1] in "AKQJT")
    seq = post(api, {"type": "exposed", "seat": "W", "cards": [honour]})
    assert api.get("/api/tables/1").json()["penalty_cards"] == {"W": {honour: "major"}}
    synced(seats, seq)
    for page in seats.values():
        item = page.locator(f'#penalty li.penalty-card.major[data-seat="W"][data-card="{honour}"]')
        item.wait_for(timeout=10000)
        assert page.locator("#penalty").is_visible()
    east = seats["E"].locator("#penalty").inner_text()
    assert "major penalty card" in east and "When you are next on lead, wait for declarer" in east, east
    north = seats["N"].locator("#penalty").inner_text()
    assert "first legal opportunity" in north and "you choose before he leads" in north, north
    south = seats["S"].locator("#penalty").inner_text()
    assert "declarer chooses first" in south, south
    west_text = seats["W"].locator("#penalty").inner_text()
    assert "重罰張" in west_text and "你必須在第一個合法機會打出此牌" in west_text, west_text
    pages["E"].screenshot(path=str(ARTIFACTS / "words-penalty-card-phone.png"), full_page=True)
    no_raw_codes(pages, "with a penalty card on the table")


@pytest.mark.slow
def test_no_raw_code_and_a_ruling_reaches_the_phones_at_once(table: Any) -> None:
    api, pages, _ = table
    seats = seats_of(pages)
    console = pages["console"]
    # board 2 (East deals): East opens 1H, South bids 1D, insufficient (Law 27)
    seq = auction(api, 2, [("E", "1H"), ("S", "1D")])
    synced(seats, seq)
    for page in seats.values():
        page.locator('#irregularities .irr[data-code="INSUFFICIENT_BID"]').wait_for(timeout=10000)
    assert "Insufficient bid" in seats["N"].locator("#irregularities").inner_text()
    assert "不足叫牌" in seats["W"].locator("#irregularities").inner_text()
    assert "awaiting ruling" in seats["N"].locator("#board").inner_text().lower()
    alert = console.locator('#alerts .alert[data-code="INSUFFICIENT_BID"]')
    alert.wait_for(timeout=10000)
    console.locator("#table-1").wait_for(timeout=10000)
    no_raw_codes(pages, "an insufficient bid awaiting the ruling")
    # the director refuses it on the console: every phone says so at once, before anyone calls again
    alert.locator('button.option[data-option="refuse"]').click()
    for page in seats.values():
        wait_until(page, "() => !!document.querySelector('#irregularities .irr .irr-state') && "
                   "state.irregularities.some(i => i.ruling === 'refuse')")
    assert "ruled: Refuse; the table complies" in seats["N"].locator("#irregularities").inner_text()
    assert "ruling given" in seats["E"].locator("#board").inner_text().lower()
    assert "已裁決：拒絕" in seats["W"].locator("#irregularities").inner_text()
    no_raw_codes(pages, "after the ruling")
    # South replaces his bid: the disposition is words too
    seq = post(api, {"type": "call", "seat": "S", "call": "2D"})
    synced(seats, seq)
    wait_until(seats["N"], "() => state.irregularities[0].disposition !== null")
    assert "Replaced lowest same denomination" in seats["N"].locator("#irregularities").inner_text()
    assert "以同花色最低足夠叫品更換" in seats["W"].locator("#irregularities").inner_text()
    console.locator("#table-1").click()
    console.locator("#detail h3").first.wait_for(timeout=10000)
    shown = console.locator("#tables").inner_text() + console.locator("#detail .irr-state").first.inner_text()
    assert not RAW.findall(shown), RAW.findall(shown)
    pages["N"].screenshot(path=str(ARTIFACTS / "words-ruling-phone.png"), full_page=True)
    no_raw_codes(seats, "after the replacement call")


@pytest.mark.slow
def test_a_claim_shows_the_claimers_cards_and_the_director_rules_with_a_form(table: Any) -> None:
    api, pages, srv = table
    seats = seats_of(pages)
    console = pages["console"]
    auction(api, 1, THREE_NT)
    seq = 0
    for _ in range(8):                                         # two tricks
        seq = play_one(api)
    synced(seats, seq)
    for s in "EW":                                             # before the claim the defenders see no North hand
        assert seats[s].locator(".hand.N").count() == 0
    north = api.get("/api/tables/1").json()["hands"]["N"]["cards"]
    seq = post(api, {"type": "claim", "seat": "N", "tricks": 9})
    synced(seats, seq)
    for s in "EW":
        page = seats[s]
        page.locator(".hand.N").wait_for(timeout=10000)
        shown = page.evaluate("() => [...document.querySelectorAll('.hand.N .card')].map(c => c.dataset.card)")
        assert sorted(shown) == sorted(north)
        assert page.locator("#claim-section .claim-statement").is_visible()
    assert "North claims: declarer's side takes 9 tricks in all" in seats["E"].locator("#claim-section").inner_text()
    # a spectator still sees no hand of a board in play
    with srv.client() as anon:
        assert anon.get("/api/tables/1").json()["hands"] == {}
    pages["E"].screenshot(path=str(ARTIFACTS / "words-claim-defender-phone.png"), full_page=True)
    no_raw_codes(pages, "a claim pending")
    # East disputes: the director rules with the console's form, never a prompt()
    dialogs: list[str] = []
    console.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    seats["E"].locator("#claim-dispute").click()
    form = console.locator('#alerts form.claim-ruling[data-code="CLAIM_DISPUTED"]')
    form.wait_for(timeout=10000)
    assert not RAW.findall(console.locator("#alerts").inner_text())
    form.locator('input[name="tricks"]').fill("8")
    form.locator('textarea[name="note"]').fill("an outstanding trump was not mentioned (70C)")
    form.locator("button.claim-rule").first.click()
    wait_until(seats["E"], "() => state.phase === 'board_complete'")
    assert not dialogs, dialogs
    assert api.get("/api/tables/1/boards/1").json()["result"]["tricks"] == 8
    rulings = [r["body"] for r in api.get("/api/tables/1/events", params={"board": 1}).json()
               if r["body"].get("type") == "ruling"]
    assert rulings == [{"type": "ruling", "code": "CLAIM_DISPUTED", "option": "rule", "tricks": 8,
                        "note": "an outstanding trump was not mentioned (70C)"}], rulings
    console.locator("#table-1").click()
    result = console.locator("#detail h3 + div").nth(1)
    wait_until(console, "() => /8 tricks/.test((document.querySelectorAll('#detail h3 + div')[1] || {}).textContent)")
    assert "Claimed" in result.inner_text() and not RAW.findall(result.inner_text()), result.inner_text()
    no_raw_codes(seats | {"console tables": console.locator("#tables"), "console irregularities":
                          console.locator("#detail h3 + div").first}, "after the claim ruling")
