"""A director call with its reason and an alert with its explanation, on the seat pages and the console in headless
Chromium (phones at 390x844; East's page in Chinese): North alerts 1NT and writes its explanation; East and West
read it under the auction, South (his partner) finds it nowhere on his page; East asks for the director about a
wrong explanation (Laws 20, 21, 75), West about something else in his own words (markup stays text); the console
shows both calls with their reasons, laws and note. No page scrolls sideways. Screenshots:
tests/artifacts/seat-alert-explained-<seat>.png, seat-call-reason-<zh|W>.png, console-call-reasons.png."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServiceThread

from service.sim.dealing import deal_for

CONFIG = {"tables": [{"id": "1"}], "regulation": {"spectators": {"delay_s": 0}}}
NO_SIDEWAYS = "() => document.documentElement.scrollWidth <= window.innerWidth"
EXPLAINED = "15-17 balanced, may hold a 5-card major"


def test_reasons_and_explanations_on_the_pages(tmp_path: Path) -> None:
    with ServiceThread(tmp_path / "srv", CONFIG) as srv, browser_session() as browser, \
            srv.client(srv.token) as api:
        links = {s: v["link"] for s, v in api.get("/api/tables/1/tokens").json().items()}
        errors: list[str] = []
        pages: dict[str, Any] = {}
        for who in ("N", "E", "S", "W", "console"):
            ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            page = ctx.new_page()
            page.on("pageerror", lambda e, who=who: errors.append(f"{who}: {e}"))
            pages[who] = page
        seats = {s: pages[s] for s in "NESW"}
        console = pages["console"]
        console.goto(f"{srv.base}/console#token={srv.token}")
        for s, page in seats.items():
            path, _, fragment = links[s].partition("#")
            page.goto(srv.base + path + ("?lang=zh-Hant" if s == "E" else "?lang=en") + "#" + fragment)
            wait_until(page, "() => typeof state !== 'undefined' && !!document.querySelector('#title')")
        api.post("/api/tables/1/events", json={"type": "board", "board": 1, "deal": deal_for(7, 1).to_pbn()}
                 ).raise_for_status()

        # North alerts 1NT and explains it
        north = seats["N"]
        north.locator("#box .level").first.wait_for(timeout=10000)
        north.locator("#alert-toggle").click()
        north.locator("#alert-explanation").fill(EXPLAINED)
        assert "partner does not see it" in north.locator("label.explain").inner_text()
        north.locator('#box .level[data-level="1"]').click()
        north.locator("#alert-explanation").wait_for(timeout=5000)     # the redraw keeps what was typed
        assert north.locator("#alert-explanation").input_value() == EXPLAINED
        north.locator('#box .strain[data-strain="NT"]').click()
        for s in "EW":
            wait_until(seats[s], "t => [...document.querySelectorAll('#auction .explanations li')]"
                                 ".some(li => li.dataset.seat === 'N' && li.textContent.includes(t))", EXPLAINED)
        wait_until(seats["S"], "() => state && state.auction && state.auction.calls.length === 1")
        wait_until(seats["S"], "() => !!document.querySelector('#auction td.alerted[data-seat=N]')")
        assert EXPLAINED not in seats["S"].content(), "the partner's page carries the explanation"
        assert seats["S"].locator("#auction .explanations").count() == 0
        assert "15-17" not in seats["S"].evaluate("() => JSON.stringify(state)")
        for s in "EWS":
            seats[s].screenshot(path=str(ARTIFACTS / f"seat-alert-explained-{s}.png"), full_page=True)

        # East (Chinese) at his turn: the explanation field speaks Chinese; he passes without an alert
        east = seats["E"]
        east.locator("#box .level").first.wait_for(timeout=10000)
        east.locator("#alert-toggle").click()
        assert east.locator("label.explain span").inner_text() == "向對手解釋你的叫牌（同伴看不到）"
        east.locator("#alert-toggle").click()
        east.locator('#box button.call[data-call="Pass"]').click()

        # East calls the director: a wrong explanation (Laws 20, 21, 75), in Chinese words
        east.locator("#call-director").click()
        east.locator("#director-section").wait_for(timeout=10000)
        assert east.locator("#director-section h2").inner_text() == "您為什麼呼叫裁判？"
        label = east.locator('#director-form label.reason:has(input[value="misinformation"])').inner_text()
        assert label.strip() == "解釋或提醒錯誤或遺漏（第 20、21、75 條）", label
        east.locator('#director-form input[value="misinformation"]').check()
        assert east.evaluate(NO_SIDEWAYS)
        east.screenshot(path=str(ARTIFACTS / "seat-call-reason-zh.png"), full_page=True)
        east.locator("#director-send").click()
        wait_until(east, "() => document.getElementById('director-section').hidden")

        # West: something else, in his own words; "other" without words is refused on the page itself
        west = seats["W"]
        west.locator("#call-director").click()
        west.locator('#director-form input[value="other"]').check()
        west.locator("#director-send").click()
        wait_until(west, "() => document.getElementById('toast').textContent.includes('Say in a few words')")
        assert not west.locator("#director-section").is_hidden()
        west.locator("#director-form [name=note]").fill("<img src=x onerror=alert(1)> the tray fell")
        west.screenshot(path=str(ARTIFACTS / "seat-call-reason-W.png"), full_page=True)
        west.locator("#director-send").click()
        wait_until(west, "() => document.getElementById('director-section').hidden")

        console.locator('#calls .call[data-table="1"]').nth(1).wait_for(timeout=10000)
        texts = console.locator("#calls .call").all_inner_texts()
        assert any("seat E" in x and "a wrong or missing explanation or alert" in x and "Law 20, 21, 75" in x
                   for x in texts), texts
        assert any("seat W" in x and "other" in x and "<img src=x onerror=alert(1)> the tray fell" in x
                   for x in texts), texts
        assert console.locator("#calls img").count() == 0
        console.screenshot(path=str(ARTIFACTS / "console-call-reasons.png"), full_page=True)
        for who, page in pages.items():
            assert page.evaluate(NO_SIDEWAYS), f"{who} scrolls sideways at 390 px"
        assert not errors, errors
