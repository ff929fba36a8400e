"""Names and corrections on the seat page in headless Chromium at a phone's 390x844 (issue 24, items 6 and 10):
North saves his name and South's page shows it without a reload (the table's stream) while keeping what South
is typing; South saves his, and both pages show the pair's names; after the round
change the stationary pair's pages show the names and no form; a scoring-only table's one device enters the
opponents' names too, keys a result, corrects it with **Correct the result**, and once the opponents accept it the
button is gone. Screenshots: tests/artifacts/seat-names-<what>-phone.png; the guide's pictures
seat-names-both-pairs.png and seat-correct-result.png (docs/images/club-night/ with BRIDGETABLE_DOC_IMAGES=1)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import SeatSignIn, ServerProcess, ServiceThread
from test_club_night_guide import picture

EVENT = {"name": "Names", "movement": {"kind": "mitchell", "tables": 3, "rounds": 3, "boards_per_round": 2}}
CONFIG = {"regulation": {"spectators": {"delay_s": 0}}, "tables": [{"id": t} for t in "123"], "event": EVENT}
SECTION_HAS = "text => document.getElementById('players-section').innerText.includes(text)"


def open_seat(browser: Any, srv: ServerProcess, d: httpx.Client, table: str, seat: str, errors: list[str]) -> Any:
    page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
    page.on("pageerror", lambda e: errors.append(f"{table}{seat}: {e}"))
    page.goto(srv.base + d.get(f"/api/tables/{table}/tokens").json()[seat]["link"])
    wait_until(page, "([t, s]) => TABLE === t && ME === s && !!state", [table, seat])
    return page


@pytest.mark.slow
def test_names_reach_partner_stay_for_the_round_and_a_keyed_result_is_corrected(tmp_path: Path) -> None:
    srv = ServiceThread(tmp_path, CONFIG)
    errors: list[str] = []
    with srv, srv.client(srv.token) as d, browser_session() as browser:
        d.post("/api/tables/2/kind", json={"kind": "scoring"}).raise_for_status()
        north, south = (open_seat(browser, srv, d, "1", s, errors) for s in "NS")
        for page in (north, south):
            page.locator("#players-form #player-N").wait_for(timeout=10000)
        south.locator("#player-S").fill("Bob Baker")           # South is typing his name meanwhile
        north.locator("#player-N").fill("Ann Able")
        north.locator("#players-form button[type=submit]").click()
        # South's page: North's name arrives on the stream (no reload) and what South typed stays
        wait_until(south, SECTION_HAS, "Ann Able")
        assert south.locator("#player-S").input_value() == "Bob Baker"
        south.locator("#players-form button[type=submit]").click()
        # both pages: the pair's two names, the form gone
        for page in (north, south):
            wait_until(page, SECTION_HAS, "Ann Able, Bob Baker")
        wait_until(south, "() => !document.getElementById('players-form') && "
                          "!!document.querySelector('#players-section .players-change')")
        assert south.evaluate("() => performance.getEntriesByType('navigation').length") == 1
        south.screenshot(path=str(ARTIFACTS / "seat-names-partner-phone.png"), full_page=True)

        # the scoring-only table's one device: both pairs' names, then a result keyed and corrected
        terminal = open_seat(browser, srv, d, "2", "N", errors)
        terminal.locator("#players-form-other #player-E").wait_for(timeout=10000)
        terminal.locator("#player-N").fill("Cy Cole")
        terminal.locator("#player-S").fill("Di Dunn")
        terminal.locator("#players-form button[type=submit]").click()
        wait_until(terminal, SECTION_HAS, "Cy Cole, Di Dunn")
        terminal.locator("#player-E").fill("Ed Eng")
        terminal.locator("#player-W").fill("Flo Fox")
        with terminal.expect_response(lambda r: r.url.endswith("/players") and r.request.method == "POST",
                                      timeout=30000) as saved:
            terminal.locator("#players-form-other button[type=submit]").click()
        assert saved.value.status == 200, saved.value.text()
        wait_until(terminal, SECTION_HAS, "Ed Eng, Flo Fox", timeout=30)
        assert not terminal.locator("#players-section form").count()
        terminal.screenshot(path=str(ARTIFACTS / "seat-names-scoring-both-phone.png"), full_page=True)
        picture(terminal.locator("#players-section"), "seat-names-both-pairs.png")
        shown = d.get("/api/tables/2/players").json()
        assert (shown["NS"]["names"], shown["EW"]["names"]) == (["Cy Cole", "Di Dunn"], ["Ed Eng", "Flo Fox"])

        board = int(terminal.locator("#key-board").input_value())
        terminal.locator("#key-level").select_option("3")
        terminal.locator("#key-strain").select_option("NT")
        terminal.locator("#key-declarer").select_option("S")
        terminal.locator("#key-tricks").select_option("9")
        terminal.locator("#key-send").click()
        wait_until(terminal, "n => state.board && state.board.number === n && state.phase === 'board_complete'",
                   board)
        terminal.locator("#correct-result").click()
        wait_until(terminal, "() => document.getElementById('key-board').readOnly && "
                             "document.getElementById('key-tricks').value === '9'")
        terminal.screenshot(path=str(ARTIFACTS / "seat-names-correcting-phone.png"), full_page=True)
        picture(terminal.locator("#keying-section"), "seat-correct-result.png")
        terminal.locator("#key-tricks").select_option("10")
        terminal.locator("#key-send").click()
        wait_until(terminal, "() => state.result && state.result.tricks === 10 && "
                             "!!document.getElementById('correct-result')")
        with httpx.Client(base_url=srv.base, auth=SeatSignIn(srv, "2", "E"), timeout=10) as east:
            r = east.post(f"/api/tables/2/boards/{board}/confirm", json={"accept": True})
            assert r.status_code == 200, r.text
        terminal.locator("#result-section .ok-line").wait_for(timeout=10000)
        assert not terminal.locator("#correct-result").count()
        rows = d.get("/api/tables/2/events", params={"board": board}).json()
        assert [r["body"]["tricks"] for r in rows if r["body"].get("type") == "result"] == [9, 10]

        # the next round: the stationary NS pair's pages show its names, no form to fill again
        d.post("/api/event/advance", json={}).raise_for_status()
        for page in (north, south):
            wait_until(page, "() => UI.players && UI.players.round === 2", timeout=20)
            wait_until(page, SECTION_HAS, "Ann Able, Bob Baker")
            assert page.evaluate("() => document.getElementById('players-form') === null")
        north.screenshot(path=str(ARTIFACTS / "seat-names-next-round-phone.png"), full_page=True)
        assert not errors, errors
