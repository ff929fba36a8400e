"""A signed-out tab signs in again from the table card's link, in headless Chromium: the player's tab was signed
out (the director ended the seat's sign-ins), the card is reprinted, and the player opens its link in the same
tab (only the page's #fragment changes, so the browser loads nothing by itself): the tab signs in as a fresh
tab would."""
from __future__ import annotations

from pathlib import Path

import pytest
from headless import browser_session, wait_until
from service_harness import ServiceThread

CONFIG = {"tables": [{"id": "1"}, {"id": "2"}],
          "event": {"name": "Again", "movement": {"kind": "mitchell", "tables": 2, "boards_per_round": 2}}}
SIGNED_OUT = "!document.getElementById('signed-out').hidden"


@pytest.mark.slow
def test_a_signed_out_tab_signs_in_from_the_reprinted_card(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, browser_session() as browser:
        first = d.get("/api/tables/1/cards").json()["seats"]["S"]["link"]
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(first)
        wait_until(page, "document.getElementById('title').textContent.includes('seat S')")
        assert page.evaluate(SIGNED_OUT) is False

        assert d.post("/api/tables/1/revoke", params={"seat": "S"}).status_code == 200
        wait_until(page, SIGNED_OUT, timeout=30)
        again = d.get("/api/tables/1/cards").json()["seats"]["S"]["link"]
        assert again != first                           # the reprinted card carries a new code

        with page.expect_event("load"):                 # the page loads itself again for the new link
            page.goto(again)                            # the same tab: only the fragment changes
        wait_until(page, "document.getElementById('signed-out').hidden && "
                         "document.getElementById('title').textContent.includes('seat S')", timeout=30)
        token = page.evaluate("sessionStorage.getItem('bt-token')")
        assert d.get("/api/whoami", headers={"Authorization": f"Bearer {token}"}).json()["role"] == "seat"
