"""The evening's part of the director console (static/console_event.js) in a real headless Chromium, on a tablet
(820x1180) and a phone (390x844): a Mitchell set up from the form, then replaced by a Howell, a member list
imported from a file, the round clock started, a table advanced and every table's guidance shown; late tables
are marked on both kinds of table card; nothing scrolls sideways. Screenshots:
tests/artifacts/console-event-<tablet|phone>.png."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServiceThread

SIZES = {"tablet": (820, 1180), "phone": (390, 844)}


def api(page: Any, path: str) -> Any:
    return page.evaluate("p => fetch(p, {headers: {Authorization: 'Bearer ' + sessionStorage.getItem('bt-token')}})"
                         ".then(r => r.json())", path)


def set_section(page: Any, kind: str, count: int, bpr: int, even: str | None = None) -> None:
    sec = page.locator("#ev-sections .ev-sec").first
    sec.locator("[name=kind]").select_option(kind)
    sec.locator("[name=count]").fill(str(count))
    sec.locator("[name=bpr]").fill(str(bpr))
    if even:
        sec.locator("[name=even]").select_option(even)


@pytest.mark.parametrize("size", list(SIZES))
def test_console_sets_up_the_evening(tmp_path: Path, size: str) -> None:
    width, height = SIZES[size]
    members = tmp_path / "members.csv"
    members.write_text("\ufeff會員編號;姓名\n1234;Wang Li\n2001;陳大文\n", encoding="utf-8")
    with ServiceThread(tmp_path / "srv", {"regulation": {"spectators": {"delay_s": 0}}}) as srv, \
            browser_session() as browser:
        page = browser.new_page(viewport={"width": width, "height": height})
        page.on("dialog", lambda d: d.accept())
        page.goto(f"{srv.base}/console#token={srv.token}")
        wait_until(page, "() => document.getElementById('ev-summary').textContent.length > 0")

        # a Mitchell of 4 tables with a relay, from the form
        page.locator("#ev-setup summary").click()
        page.locator("#ev-form [name=name]").fill("Tuesday pairs")
        set_section(page, "mitchell", 4, 2, "relay")
        page.locator("#ev-create").click()
        wait_until(page, "() => document.querySelectorAll('#ev-tables .ev-card').length === 4")
        ev = api(page, "/api/event")
        assert ev["event"]["name"] == "Tuesday pairs" and ev["event"]["sections"][0]["kind"] == "mitchell"
        assert ev["event"]["sections"][0]["rounds"] == 4
        # table 2 plays with real cards and no readers: made scoring-only from its card (an event may mix both)
        page.locator("#ev-tables .ev-card[data-table='2'] select.ev-kind").select_option("scoring")
        deadline = time.monotonic() + 10
        while api(page, "/api/tables/2")["kind"] != "scoring" and time.monotonic() < deadline:
            time.sleep(0.1)
        kinds = {p["table"]: p["kind"] for p in api(page, "/api/event")["progress"]}
        assert kinds == {"1": "played", "2": "scoring", "3": "played", "4": "played"}, kinds

        # replaced by a Howell of 6 pairs (nothing played yet: no question asked)
        set_section(page, "howell", 6, 3)
        page.locator("#ev-form [name=name]").fill("Howell night")
        page.locator("#ev-create").click()
        wait_until(page, "() => document.getElementById('ev-summary').textContent.includes('Howell night')")
        ev = api(page, "/api/event")
        assert ev["event"]["sections"][0]["kind"] == "howell" and len(ev["progress"]) == 3
        wait_until(page, "() => document.querySelectorAll('#ev-tables .ev-card').length === 3")

        # the member list from a file
        page.locator("#ev-members summary").click()
        page.locator("#ev-members-file").set_input_files(str(members))
        page.locator("#ev-members-import").click()
        wait_until(page, "() => document.getElementById('ev-status').textContent.includes('2 members')")
        assert api(page, "/api/players")["members"][1] == {"number": "2001", "name": "陳大文"}

        # the round clock, one table on to round 2, the guidance of every table
        page.locator("#ev-minutes").fill("12")
        page.locator("#ev-clock-start").click()
        wait_until(page, "() => [...document.querySelectorAll('#ev-tables .ev-clock')]"
                         ".every(e => /1[12]:\\d\\d left/.test(e.textContent))")
        page.locator("#ev-tables .ev-card[data-table='2'] button.ev-next").click()
        wait_until(page, "() => document.querySelector(\"#ev-tables .ev-card[data-table='2'] .ev-round\")"
                         ".textContent.includes('round 2 of 5')")
        guidance = {g["table"]: g for g in api(page, "/api/event/guidance/all")}
        for table in ("1", "2", "3"):
            text = page.locator(f"#ev-tables .ev-card[data-table='{table}'] .ev-guide").inner_text()
            g = guidance[table]
            for p in g["pairs"]:
                assert f"pair {p['pair']}" in text and (p["next_table"] is None or
                                                       f"table {p['next_table']} {p['next_direction']}" in text)
            assert ", ".join(map(str, g["boards"]["numbers"])) in text
        no_sideways = "() => document.documentElement.scrollWidth <= window.innerWidth"
        assert page.evaluate(no_sideways), size
        page.screenshot(path=str(ARTIFACTS / f"console-event-{size}.png"), full_page=True)

        # a round's time runs out: the unfinished tables are late, on both kinds of card
        page.locator("#ev-minutes").fill("0.01")
        page.locator("#ev-clock-start").click()
        wait_until(page, "() => document.querySelectorAll('#ev-tables .ev-card.ev-late').length === 3")
        wait_until(page, "() => document.querySelectorAll('#tables .tcard.ev-late').length === 3")
        assert "over time" in page.locator("#ev-tables .ev-card[data-table='1'] .ev-clock").inner_text()
        assert page.evaluate(no_sideways), size
        page.screenshot(path=str(ARTIFACTS / f"console-event-late-{size}.png"), full_page=True)


def test_console_event_in_chinese(tmp_path: Path) -> None:
    with ServiceThread(tmp_path / "srv") as srv, browser_session() as browser:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(f"{srv.base}/console?lang=zh-Hant#token={srv.token}")
        wait_until(page, "() => document.getElementById('ev-title').textContent.includes('本場比賽')")
        assert page.locator("#ev-clock-start").inner_text() == "開始本輪計時"
        wait_until(page, "() => document.getElementById('ev-summary').textContent.includes('尚無賽事')")
        page.locator("#ev-setup summary").click()
        assert page.locator("#ev-sections .ev-count").first.inner_text() == "桌數"
