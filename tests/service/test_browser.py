"""A real headless browser (Playwright + Debian's Chromium) on the director console: an irregularity from a
simulated table appears, the director clicks a rectification, the table plays on; a screenshot is saved to
tests/artifacts/console.png (the folder ignores itself in git)."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServiceThread

PREFERRED = ("refuse", "correct", "accept", "spread")


@pytest.mark.slow
def test_director_console_rules_an_irregularity(tmp_path: Path) -> None:
    srv = ServiceThread(tmp_path, {"regulation": {"spectators": {"delay_s": 0}}}, simulate=2,
                        extra_args=("--pace", "0.04", "--irregularity-rate", "1", "--ruling-wait", "600"))
    with srv, browser_session() as browser, srv.client(srv.token) as api:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(f"{srv.base}/console?token={srv.token}")
        page.locator("#tables .tcard").first.wait_for(timeout=15000)
        alert = page.locator("#alerts .alert").first
        alert.wait_for(timeout=60000)
        table, code = alert.get_attribute("data-table"), alert.get_attribute("data-code")
        assert table and code
        assert "Law " in alert.locator(".law").inner_text()
        assert alert.locator(".muted").first.inner_text().strip(), "the law's short statement is shown"
        options = [b.get_attribute("data-option") for b in alert.locator("button.option").all()]
        option = next((o for o in PREFERRED if o in options), options[0])
        seq_at_click = api.get(f"/api/tables/{table}").json()["seq"]
        page.screenshot(path=str(ARTIFACTS / "console-alert.png"), full_page=True)
        alert.locator(f'button.option[data-option="{option}"]').click()

        # the alert goes away ...
        wait_until(page,
            "([t, c]) => !document.querySelector(`#alerts .alert[data-table='${t}'][data-code='${c}']`)",
            [table, code], timeout=15)
        rows = api.get(f"/api/tables/{table}/events", params={"after": seq_at_click - 1}).json()
        ruling = [r for r in rows if r["body"]["type"] == "ruling"]
        assert ruling and ruling[0]["actor"] == "director" and ruling[0]["body"]["option"] == option
        # ... and the table plays on, as the console shows
        wait_until(page,
            "([t, s]) => { const e = document.querySelector(`#table-${t} .seq`); return e && +e.dataset.seq > s; }",
            [table, ruling[0]["seq"] + 3], timeout=30)
        page.locator(f"#table-{table}").click()
        page.locator("#detail h2").wait_for(timeout=5000)
        time.sleep(0.5)
        page.screenshot(path=str(ARTIFACTS / "console.png"), full_page=True)
        assert (ARTIFACTS / "console.png").stat().st_size > 10000


@pytest.mark.slow
def test_seat_and_spectator_pages_render(tmp_path: Path) -> None:
    srv = ServiceThread(tmp_path, {"regulation": {"spectators": {"delay_s": 0}}}, simulate=1,
                        extra_args=("--pace", "0.05", "--irregularity-rate", "0"))
    with srv, browser_session() as browser, srv.client(srv.token) as api:
        token = api.get("/api/tables/1/tokens").json()["S"]["token"]
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{srv.base}/seat?token={token}")
        page.locator(".hand.S .card").first.wait_for(timeout=15000)
        # partner's cards only as dummy's, or once the board is over (the table is racing at --pace 0.05)
        seen = page.evaluate("() => ({north: document.querySelectorAll('.hand.N .card').length, "
                             "dummy: state.dummy, phase: state.phase})")
        assert seen["north"] == 0 or seen["dummy"] == "N" or seen["phase"] == "board_complete", seen
        assert "Table 1, seat S" in page.locator("#title").inner_text()
        page.goto(f"{srv.base}/spectate")
        page.locator("#tables .tcard").first.wait_for(timeout=15000)
        page.locator("#tables .tcard").first.click()
        page.locator("#detail h2").wait_for(timeout=5000)
        assert not errors, errors
