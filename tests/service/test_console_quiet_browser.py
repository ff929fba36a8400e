"""The console before the evening, in headless Chromium: with no event set up yet, nothing it polls fails (no
404 every few seconds in the log, no error in the browser's console) and the boards section says what to do;
once the event exists the same page lists its boards without a reload."""
from __future__ import annotations

from pathlib import Path

import pytest
from headless import browser_session, wait_until
from service_harness import ServiceThread

EVENT = {"name": "Quiet", "movement": {"kind": "mitchell", "tables": 2, "boards_per_round": 2}}


@pytest.mark.slow
def test_the_console_polls_nothing_that_fails_before_an_event(tmp_path: Path) -> None:
    config = {"tables": [{"id": "1"}, {"id": "2"}]}
    with ServiceThread(tmp_path, config) as srv, srv.client(srv.token) as d, browser_session() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        failed: list[str] = []
        errors: list[str] = []
        page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{srv.base}/console#token={srv.token}")
        wait_until(page, "document.getElementById('boards-list')?.textContent.includes('No event yet')")
        polled: list[str] = []
        page.on("request", lambda r: polled.append(r.url))
        page.wait_for_timeout(12_000)   # longer than every poll's period (the boards list: 10 s)
        assert any(u.endswith("/api/event") for u in polled), polled
        assert failed == [] and errors == [], (failed, errors)

        r = d.post("/api/event", json=EVENT)
        assert r.status_code == 200, r.text
        page.locator("#boards-refresh").click()
        wait_until(page, "document.querySelectorAll('#boards-list button.pick').length > 0")
        assert failed == [] and errors == [], (failed, errors)
