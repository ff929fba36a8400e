"""A gallery of every page in its characteristic states, on a phone (390x844) and a tablet (820x1180), with a real
event behind it: a Mitchell of 4 tables with a relay (2 boards a round; tables 1 and 4 share boards 1-2 in
round 1, so table 1's traveller has a comparison), table 3 scoring-only. Each state is brought about once
(over the pages, or over HTTP where the page is not the point) and then, at both sizes: nothing scrolls sideways,
axe-core finds no critical or serious violation, and the screenshot is saved as
tests/artifacts/gallery-<page>-<state>-<phone|tablet>.png
(docs/images/pages/ with BRIDGETABLE_DOC_IMAGES=1). The seat page's buttons are at least 44 px high.
Every failure is collected and reported together, so one run lists all of them."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from headless import ARTIFACTS, axe_summary, axe_violations, wait_until
from service_harness import ServiceThread

from service.sim.dealing import deal_for

EVENT = {"name": "Club night", "scoring": "MP",
         "movement": {"kind": "mitchell", "tables": 4, "boards_per_round": 2, "even": "relay"}}
# the solver at nice 0: at 19 it gave no figures in time beside four busy test workers; the pages are what is tested
CONFIG = {"analysis_nice": 0, "tables": [{"id": t} for t in "1234"],
          "regulation": {"spectators": {"delay_s": 0}, "results_release": "immediate"}, "event": EVENT}
SIZES = {"phone": (390, 844), "tablet": (820, 1180)}
# The gallery is also the guide's picture of every page (docs/club-night.md, "Every page at phone and tablet size"):
# rewritten there only on request (BRIDGETABLE_DOC_IMAGES=1), so an ordinary run leaves the working tree as it was.
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "images" / "pages" if os.environ.get(
    "BRIDGETABLE_DOC_IMAGES") == "1" else ARTIFACTS
NO_SIDEWAYS = "() => document.documentElement.scrollWidth <= window.innerWidth"
# buttons a thumb must hit on the seat page (visible ones), lower than 44 px
SMALL_TARGETS = """() => [...document.querySelectorAll('button, select, input, summary')]
  .filter(b => b.offsetParent !== null && !b.closest('[hidden]'))
  .map(b => [b.id || b.className || b.tagName, Math.round(b.getBoundingClientRect().height),
             Math.round(b.getBoundingClientRect().width)])
  .filter(([, h, w]) => h < 44 || w < 44)"""
POST_AS_PAGE = """async ([path, body]) => {
  const r = await fetch(path, {method: 'POST', body: JSON.stringify(body),
    headers: {'Authorization': 'Bearer ' + TOKEN, 'Content-Type': 'application/json'}});
  return [r.status, await r.text()];
}"""


class Gallery:
    """Checks and photographs a page's state at both sizes; collects what is wrong."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.shots: list[str] = []

    def capture(self, page: Any, name: str, state: str, element: str | None = None, targets: bool = False) -> None:
        for size, (w, h) in SIZES.items():
            page.set_viewport_size({"width": w, "height": h})
            where = f"{name}/{state} {size}"
            if not page.evaluate(NO_SIDEWAYS):
                wide = page.evaluate("() => [...document.querySelectorAll('body *')].filter(e => "
                                     "e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5)"
                                     ".map(e => e.tagName + '#' + e.id + '.' + e.className)")
                self.problems.append(f"{where}: scrolls sideways ({wide})")
            bad = axe_violations(page, ("critical", "serious"))
            if bad:
                self.problems.append(f"{where}: axe\n{axe_summary(bad)}")
            if targets and size == "phone":
                small = page.evaluate(SMALL_TARGETS)
                if small:
                    self.problems.append(f"{where}: touch targets under 44 px: {small}")
            SHOTS.mkdir(parents=True, exist_ok=True)
            path = SHOTS / f"gallery-{name}-{state}-{size}.png"
            if element:
                page.locator(element).scroll_into_view_if_needed()
                page.locator(element).screenshot(path=str(path))
            else:
                page.screenshot(path=str(path), full_page=True)
            self.shots.append(path.name)


def post_as(page: Any, path: str, body: dict[str, Any]) -> None:
    status, text = page.evaluate(POST_AS_PAGE, [path, body])
    assert status == 200, (path, body, status, text)


def events(d: httpx.Client, table: str, *bodies: dict[str, Any]) -> None:
    for body in bodies:
        r = d.post(f"/api/tables/{table}/events", json=body)
        assert r.status_code == 200, (table, body, r.text)


def calls(dealer: str, *bids: str) -> list[dict[str, Any]]:
    """An auction's calls as events, in turn from the dealer."""
    order = "NESW"[("NESW".index(dealer)):] + "NESW"[:"NESW".index(dealer)]
    return [{"type": "call", "seat": order[i % 4], "call": bid} for i, bid in enumerate(bids)]


def open_page(browser: Any, url: str, errors: list[str]) -> Any:
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(f"{url}: {e}"))
    page.on("dialog", lambda d: d.accept())
    page.goto(url)
    return page


def faced_to_east(page: Any, d: httpx.Client, table: str, statement: str) -> None:
    """A claim on a defender's page: the statement, and the claimer's remaining cards shown to him (Law 68)."""
    claimer = d.get(f"/api/tables/{table}").json()["claim"]["seat"]
    cards = d.get(f"/api/tables/{table}").json()["hands"][claimer]["cards"]
    assert page.locator("#claim-section .claim-statement").inner_text() == statement
    page.locator(f".hand.{claimer}").wait_for(timeout=10000)
    shown = page.evaluate("s => [...document.querySelectorAll(`.hand.${s} .card`)].map(c => c.dataset.card)", claimer)
    assert sorted(shown) == sorted(cards), (shown, cards)
    assert "faced with the claim" in page.locator(f".hand.{claimer} .hand-name").inner_text()


def dd_ready(public: httpx.Client, board: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        view = public.get("/api/public/results").json()
        entry = next(b for b in view["boards"] if b["board"] == board)
        if (entry.get("deal") or {}).get("dd"):
            return
        assert time.monotonic() < deadline, f"no double-dummy figures for board {board}"
        time.sleep(0.2)


@pytest.mark.slow
def test_every_page_in_its_states_at_phone_and_tablet_size(tmp_path: Path, browser: Any) -> None:
    g = Gallery()
    errors: list[str] = []
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, srv.client() as public:
        d.post("/api/tables/3/kind", json={"kind": "scoring"}).raise_for_status()
        d.post("/api/players", json={"csv": "number;name\n1234;Wang Li\n2001;陳大文\n"}).raise_for_status()
        cards = {t: d.get(f"/api/tables/{t}/cards").json()["seats"] for t in "1234"}
        # table 4 has played board 1 (shared with table 1 in round 1): 4S by South, ten tricks
        events(d, "4", {"type": "board", "board": 1, "deal": deal_for(7, 1).to_pbn()},
               {"type": "contract", "contract": "4S", "declarer": "S"}, {"type": "claim", "seat": "S", "tricks": 10},
               {"type": "claim_response", "seat": "E", "accept": True},
               {"type": "claim_response", "seat": "W", "accept": True})
        pages: list[Any] = []
        try:
            # ------------------------------------------------------------------------ the seat page
            n1 = open_page(browser, cards["1"]["N"]["link"], errors)
            e1 = open_page(browser, cards["1"]["E"]["link"], errors)
            e2 = open_page(browser, cards["2"]["E"]["link"], errors)
            n3 = open_page(browser, cards["3"]["N"]["link"], errors)
            pages += [n1, e1, e2, n3]
            for p in (n1, e1, e2, n3):
                wait_until(p, "() => typeof state !== 'undefined' && state !== null && "
                              "!document.getElementById('players-section').hidden")
            g.capture(e2, "seat", "names", targets=True)
            e2.locator("#player-E").fill("1234")
            e2.locator("#player-W").fill("Lee Mei")
            e2.locator("#players-form button[type=submit]").click()
            wait_until(e2, "() => document.getElementById('players-section').textContent.includes('Wang Li (1234)')")
            assert e2.locator("#players-section").inner_text().startswith("Pair EW 2: Wang Li (1234), Lee Mei")

            # table 1, board 1 (North deals): the bidding box with the alert toggle on
            events(d, "1", {"type": "board", "board": 1, "deal": deal_for(7, 1).to_pbn()})
            n1.locator("#box .level").first.wait_for(timeout=10000)
            n1.locator('#box .level[data-level="1"]').click()
            n1.locator("#alert-toggle").click()
            wait_until(n1, "() => document.querySelector('#alert-toggle').getAttribute('aria-pressed') === 'true'")
            g.capture(n1, "seat", "bidding", targets=True)
            n1.locator('#box .strain[data-strain="NT"]').click()
            wait_until(n1, "() => state.auction && state.auction.calls.length === 1")
            for seat, call in (("E", "Pass"), ("S", "3NT"), ("W", "Pass"), ("N", "Pass"), ("E", "Pass")):
                events(d, "1", {"type": "call", "seat": seat, "call": call})
            wait_until(n1, "() => state.phase === 'opening_lead'")
            lead = e1.evaluate("() => state.hands.E.cards[0]")
            post_as(e1, "/api/tables/1/events", {"type": "card", "seat": "E", "card": lead})
            wait_until(n1, "() => state.hands.S && state.hands.S.cards.length === 13 && state.turn === 'S'")
            g.capture(n1, "seat", "play-dummy", targets=True)

            # North claims nine tricks: East's page asks for the answer
            post_as(n1, "/api/tables/1/events", {"type": "claim", "seat": "N", "tricks": 9})
            e1.locator("#claim-accept").wait_for(timeout=10000)
            faced_to_east(e1, d, "1", "North claims: declarer's side takes 9 tricks in all")
            g.capture(e1, "seat", "claim-answer", targets=True)
            e1.locator("#claim-accept").click()
            events(d, "1", {"type": "claim_response", "seat": "W", "accept": True})
            e1.locator("#confirm-accept").wait_for(timeout=10000)
            g.capture(e1, "seat", "result-to-confirm", targets=True)
            e1.locator("#confirm-accept").click()
            e1.locator("#result-section .ok-line").wait_for(timeout=10000)
            e1.locator("#traveller table.traveller").wait_for(timeout=10000)
            e1.locator("#running .running").wait_for(timeout=10000)
            g.capture(e1, "seat", "traveller", targets=True)

            # table 3, scoring-only: the keying form, then both boards keyed and confirmed: the guidance
            n3.locator("#key-form").wait_for(timeout=10000)
            n3.locator("#key-level").select_option("4")
            n3.locator("#key-strain").select_option("S")
            g.capture(n3, "seat", "keying", targets=True)
            for board in (7, 8):
                n3.locator("#key-board").fill(str(board))
                n3.locator("#key-level").select_option("4")
                n3.locator("#key-strain").select_option("S")
                n3.locator("#key-declarer").select_option("S")
                n3.locator("#key-tricks").select_option("10")
                n3.locator("#key-send").click()
                wait_until(n3, "n => state && state.board && state.board.number === n && "
                           "state.phase === 'board_complete'", board)
                east3 = d.get("/api/tables/3/tokens").json()["E"]["token"]       # East answers on his own device
                with srv.client(east3) as e3:
                    assert e3.post(f"/api/tables/3/boards/{board}/confirm", json={"accept": True}).status_code == 200
                n3.locator("#result-section .ok-line").wait_for(timeout=10000)
            n3.locator("#guidance-section .guidance").wait_for(timeout=10000)
            g.capture(n3, "seat", "guidance", targets=True)

            # a card that is no good: the page says so (signed out)
            out = open_page(browser, f"{srv.base}/seat#card=not-a-card-code", errors)
            pages.append(out)
            out.locator("#signed-out h2").wait_for(timeout=10000)
            g.capture(out, "seat", "signed-out", targets=True)

            # ------------------------------------------------------------------------ the console
            # table 2, board 3 (South deals): West's insufficient bid waits for a ruling; East calls the director
            events(d, "2", {"type": "board", "board": 3, "deal": deal_for(7, 3).to_pbn()},
                   {"type": "call", "seat": "S", "call": "1H"}, {"type": "call", "seat": "W", "call": "1D"})
            e2.locator("#call-director").click()
            e2.locator("#director-send").click()                     # the first reason: insufficient bid
            console = open_page(browser, f"{srv.base}/console#token={srv.token}", errors)
            pages.append(console)
            console.locator('#calls .call[data-table="2"]').wait_for(timeout=10000)
            console.locator('#alerts .alert[data-code="INSUFFICIENT_BID"]').wait_for(timeout=10000)
            wait_until(console, "() => document.querySelectorAll('#ev-tables .ev-card').length === 4")
            g.capture(console, "console", "tables", targets=True)
            g.capture(console, "console", "evening", element="#event-section")
            wait_until(console, "() => document.querySelectorAll('#boards-list button.pick').length > 0")
            g.capture(console, "console", "boards", element="#boards-section")
            # the pairs have one name everywhere: the console's boards list, the traveller, the guidance ("EW 1")
            row = console.locator('#boards-list li.board-row:has(button[data-key="1|1"])').inner_text()
            assert "NS 1 – EW 1" in row, row
            assert "EW 1" in e1.locator("#traveller tr.mine").inner_text()
            wait_until(console, "() => document.querySelectorAll('#exports a, #exports button').length > 0")
            g.capture(console, "console", "exports", element="#exports-section")

            # ------------------------------------------------------------------------ cards, results, spectate, index
            cards_page = open_page(browser, f"{srv.base}/cards#token={srv.token}", errors)
            pages.append(cards_page)
            wait_until(cards_page, "() => document.querySelectorAll('svg').length >= 16")
            g.capture(cards_page, "cards", "tables", targets=True)

            console.locator("#refresh-results").click()            # the director releases board 1 from the console
            console.locator('#results button.release[data-board="1"]').click(timeout=15000)
            wait_until(console, "() => !document.querySelector('#results button.release[data-board=\"1\"]')")
            dd_ready(public, 1)
            results = open_page(browser, f"{srv.base}/results", errors)
            pages.append(results)
            results.locator('.board[data-board="1"] .diagram').wait_for(timeout=15000)
            results.locator('.board[data-board="1"] .par').wait_for(timeout=15000)
            g.capture(results, "results", "released", targets=True)

            spectate = open_page(browser, f"{srv.base}/spectate", errors)
            pages.append(spectate)
            spectate.locator("#tables .tcard").first.wait_for(timeout=15000)
            spectate.locator("#tables .tcard").first.click()
            spectate.locator("#detail h2").wait_for(timeout=5000)
            g.capture(spectate, "spectate", "table", targets=True)

            index = open_page(browser, f"{srv.base}/", errors)
            pages.append(index)
            index.locator("main").wait_for(timeout=10000)
            g.capture(index, "index", "start", targets=True)

            # ------------------------------------------------------------------------ a penalty card, a claim ruled
            # table 4, board 2: 4S by South, West leads; East shows an honour: a major penalty card (Laws 49, 50)
            # that the offender and declarer each see with what it means for them
            e4 = open_page(browser, cards["4"]["E"]["link"], errors)
            s4 = open_page(browser, cards["4"]["S"]["link"], errors)
            pages += [e4, s4]
            events(d, "4", {"type": "board", "board": 2, "deal": deal_for(7, 2).to_pbn()},
                   *calls("E", "Pass", "1S", "Pass", "3S", "Pass", "4S", "Pass", "Pass", "Pass"))
            hands4 = d.get("/api/tables/4").json()["hands"]
            events(d, "4", {"type": "card", "seat": "W", "card": hands4["W"]["cards"][0]})
            honour = next(c for c in hands4["E"]["cards"] if c[1] in "AKQJT")
            events(d, "4", {"type": "exposed", "seat": "E", "cards": [honour]})
            assert d.get("/api/tables/4").json()["penalty_cards"] == {"E": {honour: "major"}}
            for p, meaning in ((e4, "You must play it at your first legal opportunity"),
                               (s4, "When West is next on lead you choose before he leads")):
                item = p.locator(f'#penalty li.penalty-card.major[data-seat="E"][data-card="{honour}"]')
                item.wait_for(timeout=10000)
                assert meaning in item.inner_text(), item.inner_text()
            exposed = e4.locator('#irregularities .irr[data-code="EXPOSED_CARD"]').first.inner_text()
            assert "East exposed" in exposed and "East East" not in exposed, exposed     # the name once
            g.capture(e4, "seat", "penalty-offender", targets=True)
            g.capture(s4, "seat", "penalty-declarer", targets=True)

            # table 1, board 2: 3NT by North, East leads; North claims nine, East disputes; the director rules
            # with the console's form (Law 70): the claim, the tricks awarded and a note, no prompt()
            events(d, "1", {"type": "board", "board": 2, "deal": deal_for(7, 2).to_pbn()},
                   *calls("E", "Pass", "Pass", "Pass", "1NT", "Pass", "3NT", "Pass", "Pass", "Pass"))
            lead1 = d.get("/api/tables/1").json()["hands"]["E"]["cards"][0]
            events(d, "1", {"type": "card", "seat": "E", "card": lead1}, {"type": "claim", "seat": "N", "tricks": 9})
            e1.locator("#claim-dispute").wait_for(timeout=10000)
            faced_to_east(e1, d, "1", "North claims: declarer's side takes 9 tricks in all")
            e1.locator("#claim-dispute").click()
            form = console.locator('#alerts .alert[data-table="1"] form.claim-ruling[data-code="CLAIM_DISPUTED"]')
            form.wait_for(timeout=10000)
            assert "North claimed 9 tricks in all for declarer's side." in form.inner_text(), form.inner_text()
            tricks = form.locator('input[name="tricks"]')
            assert (tricks.input_value(), tricks.get_attribute("min"), tricks.get_attribute("max")) == ("9", "0", "13")
            assert form.locator("button.claim-rule").first.inner_text() == "Rule the claim"
            tricks.fill("8")
            form.locator('textarea[name="note"]').fill("a trump was still out (70C)")
            wait_until(console, "() => getComputedStyle(document.getElementById('toast')).display === 'none'")
            g.capture(console, "console", "claim-ruling", element='#alerts .alert[data-table="1"]')
            form.locator("button.claim-rule").first.click()
            wait_until(e1, "() => state.phase === 'board_complete' && state.board.number === 2")
            assert d.get("/api/tables/1/boards/2").json()["result"]["tricks"] == 8
        finally:
            for p in pages:
                p.context.close()
    assert len(g.shots) >= 2 * 20, g.shots
    assert not errors, errors
    assert not g.problems, "\n\n".join(g.problems)
