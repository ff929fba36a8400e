"""The law edition and the opening-lead check chosen in the director console's event form, in headless Chromium
(a tablet, English; a phone, Chinese): the summary shows them, the service holds them, the boards the tables start
are played under that edition, and the edition list of the running event is refused in words once a board has
started (it then shows the event's edition again); on the Chinese console a 2017 irregularity's law is the
project's Chinese summary of the 2017 entry, marked as one. Screenshots: tests/artifacts/console-event-laws.png,
console-law-2017-zh.png."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServiceThread

from service.sim.dealing import deal_for

SUMMARY = "() => document.getElementById('ev-summary').textContent"


def api(page: Any, path: str) -> Any:
    return page.evaluate("p => fetch(p, {headers: {Authorization: 'Bearer ' + sessionStorage.getItem('bt-token')}})"
                         ".then(r => r.json())", path)


def test_console_chooses_the_edition_and_the_lead_check(tmp_path: Path) -> None:
    with ServiceThread(tmp_path / "srv", {"regulation": {"spectators": {"delay_s": 0}}}) as srv, \
            browser_session() as browser:
        page = browser.new_page(viewport={"width": 820, "height": 1180})
        page.on("dialog", lambda d: d.accept())
        page.goto(f"{srv.base}/console#token={srv.token}")
        wait_until(page, f"() => ({SUMMARY})().length > 0")
        assert page.locator("#ev-laws-now").is_hidden()          # no event: nothing to change yet
        page.locator("#ev-setup summary").click()
        page.locator("#ev-form [name=name]").fill("Laws night")
        page.locator("#ev-form [name=law_edition]").select_option("wbf2017")
        page.locator("#ev-form [name=lead_check]").select_option("warn")
        page.locator("#ev-create").click()
        wait_until(page, f"() => ({SUMMARY})().includes('Laws: 2017 Laws')")
        assert "opening lead: checked: warn" in page.evaluate(SUMMARY)
        ev = api(page, "/api/event")
        assert ev["event"]["law_edition"] == "wbf2017" and ev["lead_check"] == "warn"
        assert page.locator("#ev-laws-now").input_value() == "wbf2017"

        # before any board: the running event's edition changes from its list
        page.locator("#ev-laws-now").select_option("wbf1997-cba1999")
        wait_until(page, f"() => ({SUMMARY})().includes('Laws: 1997 Laws (1999 Chinese edition)')")
        page.locator("#ev-laws-now").select_option("wbf2017")
        wait_until(page, f"() => ({SUMMARY})().includes('Laws: 2017 Laws')")

        # a table starts a board: a 2017 board; the edition is then refused in words
        with srv.client(srv.token) as d:
            r = d.post("/api/tables/1/events", json={"type": "board", "board": 1, "deal": deal_for(1, 1).to_pbn()})
            assert r.status_code == 200, r.text
            assert [e for e in d.get("/api/tables/1/events").json()
                    if e["body"].get("type") == "board"][-1]["body"]["laws"] == "2017"
        page.locator("#ev-laws-now").select_option("wbf1997-cba1999")
        wait_until(page, "() => document.getElementById('ev-status').textContent"
                         ".includes('cannot change within an event')")
        assert "boards have started at table 1 under the 2017 Laws" in page.locator("#ev-status").inner_text()
        assert "ev-bad" in (page.locator("#ev-status").get_attribute("class") or "")
        wait_until(page, "() => document.getElementById('ev-laws-now').value === 'wbf2017'")
        assert api(page, "/api/event")["event"]["law_edition"] == "wbf2017"
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(ARTIFACTS / "console-event-laws.png"), full_page=True)

        # the phone in Chinese: the same choices in Chinese words
        zh = browser.new_page(viewport={"width": 390, "height": 844})
        zh.goto(f"{srv.base}/console?lang=zh-Hant#token={srv.token}")
        wait_until(zh, f"() => ({SUMMARY})().includes('法規：2017 年法規')")
        assert "首攻：核對：警告" in zh.evaluate(SUMMARY)
        zh.locator("#ev-setup summary").click()
        assert zh.locator("#ev-form [name=law_edition] option[value=wbf2017]").inner_text() == "2017 年法規"
        assert zh.locator("#ev-form [name=lead_check] option[value='must comply']").inner_text() == "核對：必須相符"
        zh.locator("#ev-laws-now").select_option("wbf1997-cba1999")         # refused in Chinese words
        wait_until(zh, "() => document.getElementById('ev-status').textContent"
                       ".includes('同一賽事中不能更改法規版本')")
        assert "第 1 桌已依2017 年法規開始打牌" in zh.locator("#ev-status").inner_text()
        assert zh.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")

        # an insufficient bid on the 2017 board: the Chinese console quotes the law in the project's Chinese
        # summary of the 2017 entry, says it is one, and shows no word in Latin letters but law numbers
        with srv.client(srv.token) as d:
            for seat, call in (("N", "1S"), ("E", "1H")):
                d.post("/api/tables/1/events", json={"type": "call", "seat": seat, "call": call}
                       ).raise_for_status()
        wait_until(zh, "() => [...document.querySelectorAll('#alerts .law-text')]"
                       ".some(e => e.textContent.includes('非官方譯文'))", timeout=30)
        law = str(zh.locator("#alerts .law-text").first.inner_text())
        assert "不足叫牌" in law and "下家可以接受" in law and "本程式所寫的中文摘要" in law, law
        latin = [w for w in re.findall(r"[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*", law)
                 if not re.fullmatch(r"[0-9]+[A-Z][0-9A-Za-z]*|[a-z]", w)]
        assert not latin, (law, latin)
        zh.screenshot(path=str(ARTIFACTS / "console-law-2017-zh.png"), full_page=True)
