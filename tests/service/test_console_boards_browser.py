"""Headless Chromium at phone and tablet size: in the console's boards section the director adjusts a board of a
finished round (an assigned score) and the service records it; a refresh of the list keeps what was typed in the
form; the section (and the console) never scrolls sideways at 390 px. Screenshots:
tests/artifacts/console-adjust-<phone|tablet>.png."""
from __future__ import annotations

from pathlib import Path

import pytest
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServiceThread
from test_board_control import CONFIG, boards, pass_out

SIZES = {"phone": (390, 844), "tablet": (820, 1180)}


@pytest.mark.slow
def test_the_console_adjusts_a_board_of_a_finished_round(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, browser_session() as browser:
        listed = boards(d)
        played = {}
        for table in ("1", "2"):
            played[table] = min(e["board"] for e in listed.values() if e["table"] == table and e["round"] == 1)
            pass_out(d, table, played[table])
        assert d.post("/api/event/round", json={"round": 2}).status_code == 200
        for (size, (w, h)), table in zip(SIZES.items(), ("1", "2")):
            board = played[table]
            page = browser.new_page(viewport={"width": w, "height": h})
            page.goto(f"{srv.base}/console#token={srv.token}")
            wait_until(page, "document.querySelectorAll('#boards-list button.pick').length === 18")
            page.select_option("#boards-table", table)
            page.select_option("#boards-round", "1")
            page.locator(f'#boards-list button.pick[data-key="{table}|{board}"]').click()
            form = page.locator("#board-form")
            form.locator('input[name="contract"]').fill("4S")
            form.locator('select[name="declarer"]').select_option("N")
            form.locator('input[name="tricks"]').fill("10")
            # a refresh (the console's own every 10 s, or the button) keeps what the director typed
            with page.expect_response(lambda r: r.url.endswith("/api/event/boards")):
                page.locator("#boards-refresh").click()
            assert form.locator('input[name="contract"]').input_value() == "4S"
            assert form.locator('input[name="tricks"]').input_value() == "10"
            adjusting = lambda r: r.url.endswith("/adjustment") and r.request.method == "POST"
            with page.expect_response(adjusting) as sent:
                form.locator('button[name="assigned"]').click()
            assert sent.value.status == 200, sent.value.text()
            wait_until(page, "document.getElementById('board-form-status').textContent.length > 0")
            wait_until(page, "[...document.querySelectorAll('#boards-list .board-row b')]"
                             ".some(b => b.textContent.includes('assigned 4S N 10'))")
            adj = boards(d)[(table, board)]["adjustment"]
            assert (adj["kind"], adj["contract"], adj["declarer"], adj["tricks"]) == ("assigned", "4S", "N", 10)
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), size
            section = page.locator("#boards-section")
            assert section.evaluate("s => s.scrollWidth <= s.clientWidth"), size
            assert page.locator("#boards-list button.pick").first.bounding_box()["height"] >= 44
            section.screenshot(path=str(ARTIFACTS / f"console-adjust-{size}.png"))
            page.close()
