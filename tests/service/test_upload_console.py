"""The director console's Uploads panel in a real headless browser: a receiver refuses a result for good (400),
the panel shows the failure and its error, the director clicks "retry failed" once the receiver is fixed, and
the panel shows it delivered. Screenshot: tests/artifacts/console-uploads.png."""
from __future__ import annotations

from pathlib import Path

import pytest
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServiceThread, free_port
from upload_receiver import ReceiverProcess

SECRET = "webhook-secret-for-tests"


@pytest.mark.slow
def test_console_shows_a_failed_upload_and_retries_it(tmp_path: Path) -> None:
    rp = ReceiverProcess(tmp_path / "receiver", SECRET, free_port(), schedule="400").start()
    cfg = {"tables": [{"id": "A"}],
           "uploads": [{"name": "scorer", "kind": "webhook", "url": rp.url + "/results", "secret": SECRET,
                        "timeout_s": 1, "backoff_base_s": 0.05, "backoff_cap_s": 0.2}]}
    try:
        with ServiceThread(tmp_path / "service", cfg) as srv, srv.client(srv.token) as api, \
                browser_session() as browser:
            for body in ({"type": "board", "board": 1}, {"type": "contract", "contract": "4S", "declarer": "N"},
                         {"type": "claim", "seat": "N", "tricks": 10},
                         {"type": "claim_response", "seat": "E", "accept": True},
                         {"type": "claim_response", "seat": "W", "accept": True}):
                assert api.post("/api/tables/A/events", json=body).status_code == 200
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{srv.base}/console?token={srv.token}")
            row = page.locator('#uploads tr[data-target="scorer"]')
            row.locator("button.upl-retry").wait_for(timeout=15000)       # appears once a message failed
            assert "HTTP 400" in row.inner_text() and "injected permanent refusal" in row.inner_text()
            assert "with failures" in page.locator("#uploads-summary").inner_text()
            page.locator("#uploads-section").screenshot(path=str(ARTIFACTS / "console-uploads.png"))
            rp.kill()
            rp.start(schedule="ok")
            row.locator("button.upl-retry").click()
            wait_until(page,
                "() => { const r = document.querySelector('#uploads tr[data-target=\"scorer\"]');"
                " return r && !r.querySelector('button.upl-retry') && r.children[4].textContent.trim() === '1'; }",
                timeout=15)
            assert "queued again" in page.locator("#feed").inner_text()
        assert rp.state()["counters"]["applied"] == 1
    finally:
        rp.kill()
