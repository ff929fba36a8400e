"""The pages in Chinese in a real headless browser: the director sets the club's default to traditional Chinese
(POST /api/language) and a browser whose own language is English then sees the console, a seat page, the results
page and the start page in Chinese (axe-core finds no critical or serious violation); the console's law text is
the seed's Chinese wording, as the service gives it; the header's EN / 中文 switch brings English back
(remembered in that browser). Screenshots: tests/artifacts/zh-<page>-<phone|tablet>.png, en-<page>-... after
the switch."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from headless import ARTIFACTS, axe_summary, axe_violations, browser_session, wait_until
from service_harness import ServiceThread

from service.sim.dealing import deal_for

SIZES = {"phone": (390, 844), "tablet": (820, 1180)}
CONFIG = {"tables": [{"id": "1"}], "regulation": {"spectators": {"delay_s": 0}, "results_release": "immediate"}}
LOCALES = Path(__file__).resolve().parents[2] / "service" / "web" / "static" / "locales" / "zh-Hant"
NO_SIDEWAYS = "() => document.documentElement.scrollWidth <= window.innerWidth"
TEXT_IS = "([sel, text]) => { const e = document.querySelector(sel); return !!e && e.textContent.trim() === text; }"


def zh(page: str, key: str) -> str:
    return str(json.loads((LOCALES / f"{page}.json").read_text(encoding="utf-8"))[key])


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def switch_to_english(page: Any) -> None:
    with page.expect_navigation():
        page.locator(".lang-switch a[data-lang=en]").click()
    page.wait_for_load_state()
    wait_until(page, "() => document.documentElement.lang === 'en' && "
                     "!!document.querySelector('.lang-switch a[data-lang=en][aria-current]')")


@pytest.mark.slow
@pytest.mark.parametrize("size", list(SIZES))
def test_club_default_chinese_then_the_switch_brings_english_back(tmp_path: Path, size: str) -> None:
    width, height = SIZES[size]
    with ServiceThread(tmp_path, CONFIG) as srv, browser_session() as browser, srv.client(srv.token) as api:
        api.post("/api/language", json={"language": "zh-Hant"}).raise_for_status()
        links = {s: v["link"] for s, v in api.get("/api/tables/1/tokens").json().items()}
        errors: list[str] = []
        def new_page(who: str) -> Any:
            ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US",
                                      is_mobile=size == "phone", has_touch=size == "phone")
            page = ctx.new_page()
            page.on("pageerror", lambda e: errors.append(f"{who}: {e}"))
            return page
        console, east, south, results, start = (new_page(w) for w in ("console", "E", "S", "results", "start"))
        assert console.evaluate("() => navigator.language") == "en-US"

        console.goto(f"{srv.base}/console#token={srv.token}")
        for seat, page in (("E", east), ("S", south)):
            page.goto(srv.base + links[seat])
        # board 2 (East deals): East opens 1H, South bids 1D, insufficient (Law 27)
        api.post("/api/tables/1/events", json={"type": "board", "board": 2, "deal": deal_for(7, 2).to_pbn()}
                 ).raise_for_status()
        east.locator("#box .level").first.wait_for(timeout=10000)
        east.locator('#box .level[data-level="1"]').click()
        east.locator('#box .strain[data-strain="H"]').click()
        wait_until(south, "() => state && state.auction && state.auction.calls.length >= 1")
        south.locator('#box .level[data-level="1"]').click()
        south.locator('#box .strain[data-strain="D"]').click()
        wait_until(south, "() => state.phase === 'awaiting_ruling'")

        # the console in Chinese: its own texts, a part's, the irregularity's label and the seed's law text
        wait_until(console, "() => document.documentElement.lang === 'zh-Hant'")
        wait_until(console, TEXT_IS, ["header h1", zh("console", "console.title")])
        wait_until(console, TEXT_IS, ["#ev-title", zh("console_event", "console_event.title")])
        rulings_link = '#console-nav a[href="#alerts-section"] span'
        wait_until(console, TEXT_IS, [rulings_link, zh("console", "console.nav.rulings")])
        alert = console.locator('#alerts .alert[data-code="INSUFFICIENT_BID"]')
        alert.wait_for(timeout=15000)
        assert zh("common", "common.irr.INSUFFICIENT_BID") in alert.locator(".code").inner_text()
        choice = api.get("/api/tables/1").json()["choices"][0]
        seed = api.get(f"/api/laws/{choice['law']}", params={"table": "1", "lang": "zh"}).json()
        assert seed["lang"] == "zh" and re.search(r"[\u4e00-\u9fff]", seed["text"]), seed
        quote = alert.locator(".law-quote")
        quote.wait_for(timeout=10000)
        assert quote.get_attribute("lang") == "zh-Hant"
        assert re.sub(r"\s+", "", quote.inner_text()) == re.sub(r"\s+", "", seed["text"])   # \n: <br>
        wait_until(console, "() => document.getElementById('nav-alerts-badge').textContent === '1'")
        console.locator("#table-1").wait_for(timeout=10000)
        assert zh("common", "common.phase.awaiting_ruling") in console.locator("#table-1").inner_text()

        # the seat page and the results page in Chinese
        wait_until(south, TEXT_IS, ["#bidding-section h2", zh("seat", "seat.auction")])
        wait_until(south, TEXT_IS, ["#call-director", zh("seat", "seat.call_director")])
        assert south.evaluate("() => document.documentElement.lang") == "zh-Hant"
        results.goto(f"{srv.base}/results")
        wait_until(results, TEXT_IS, ["#screen-toggle", zh("results", "results.big_screen")])
        wait_until(results, TEXT_IS, [".lang-switch a[aria-current]", "中文"])

        start.goto(f"{srv.base}/")
        wait_until(start, TEXT_IS, ['a[href="/console"]', zh("index", "index.console")])
        assert start.locator('a[href="/results?screen=1"]').inner_text() == zh("index", "index.screen")

        pages = {"console": console, "seat": south, "results": results, "start": start}
        for name, page in pages.items():
            if size == "phone":
                assert page.evaluate(NO_SIDEWAYS), f"{name} scrolls sideways at 390 px in Chinese"
            shot(page, f"zh-{name}-{size}")
            bad = axe_violations(page)
            assert not bad, f"{name} in Chinese:\n" + axe_summary(bad)

        # the switch: English again on each page, the seat still signed in, and it stays after a reload
        for page in pages.values():
            switch_to_english(page)
        wait_until(console, TEXT_IS, ["header h1", "Director console"])
        wait_until(console, TEXT_IS, ["#ev-title", "The evening: event, rounds, clock"])
        console.locator('#alerts .alert[data-code="INSUFFICIENT_BID"] .law').wait_for(timeout=15000)
        assert "Law " in console.locator('#alerts .alert[data-code="INSUFFICIENT_BID"] .law').inner_text()
        wait_until(south, TEXT_IS, ["#bidding-section h2", "Auction"])
        wait_until(south, "() => state && state.phase === 'awaiting_ruling'")
        wait_until(results, TEXT_IS, ["#screen-toggle", "Big screen"])
        wait_until(start, TEXT_IS, ['a[href="/console"]', "Director console"])
        results.goto(f"{srv.base}/results")
        wait_until(results, TEXT_IS, ["#screen-toggle", "Big screen"])
        for name, page in pages.items():
            shot(page, f"en-{name}-{size}")
        assert not errors, errors


@pytest.mark.slow
def test_console_greys_the_tables_an_event_left_behind(tmp_path: Path) -> None:
    """A Mitchell of 4 tables replaced by a Howell of 6 pairs (3 tables): table 4 stays in the club but is not in
    the event, and the console says so (in the page's language)."""
    with ServiceThread(tmp_path) as srv, browser_session() as browser, srv.client(srv.token) as api:
        api.post("/api/event", json={"name": "Mitchell", "scoring": "MP", "movement": {
            "kind": "mitchell", "tables": 4, "boards_per_round": 2, "even": "relay"}}).raise_for_status()
        page = browser.new_page(viewport={"width": 820, "height": 1180})
        page.goto(f"{srv.base}/console?lang=zh-Hant#token={srv.token}")
        page.locator("#table-4").wait_for(timeout=15000)
        wait_until(page, "() => document.querySelectorAll('#tables .tcard').length === 4")
        assert page.locator("#tables .tcard.not-in-event").count() == 0
        api.post("/api/event", json={"name": "Howell", "scoring": "MP", "movement": {
            "kind": "howell", "pairs": 6, "boards_per_round": 2}}).raise_for_status()
        wait_until(page, "() => !!document.querySelector('#table-4.not-in-event')", timeout=20)
        assert zh("console", "console.not_in_event") in page.locator("#table-4").inner_text()
        assert page.locator("#tables .tcard.not-in-event").count() == 1
        shot(page, "zh-console-not-in-event-tablet")
