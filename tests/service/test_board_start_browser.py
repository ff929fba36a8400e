"""A table of phones starts its own board, in headless Chromium at 390x844 through real HTTP/WebSocket: the four
seat pages open from the table cards' links (West's in Chinese), the director has loaded the hand records.

* every phone offers the round's four boards; a board the table does not play this round, named on North's
  phone, does not start: North is told why (Law 15) and the console's calls list it in words with the law; the
  director rules from the console ("have the correct board played") and the call is answered with that ruling;
* the number typed again must be the board's: a mismatch starts nothing; the right number starts the board with
  the hand record's deal, and each phone shows exactly its own hand, the hand record's;
* "My cards differ" on East's phone reaches the console's calls in words, with Laws 13 and 87."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServiceThread

from table.cards import Seat
from table.dealgen import HashDRBG, random_deal
from table.handrecords import HandRecordBoard, to_bytes

CONFIG = {"tables": [{"id": str(t)} for t in range(1, 5)],
          "regulation": {"spectators": {"delay_s": 0}},
          "event": {"name": "Phones", "movement": {"kind": "mitchell", "tables": 4, "boards_per_round": 4}}}
PHONE = {"width": 390, "height": 844}
SET = [HandRecordBoard.of(n, random_deal(HashDRBG(f"phones-{n}"))) for n in range(1, 17)]
TOAST = "() => document.getElementById('toast').textContent"


def click_start(page: Any, board: str) -> None:
    page.locator(f"#start-section button.start-board[data-board='{board}']").click()
    wait_until(page, "() => { const f = document.getElementById('start-form'); return f && !f.hidden; }")


@pytest.mark.slow
def test_phones_start_their_board_and_see_their_own_hands(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, browser_session() as browser, srv.client(srv.token) as d:
        body = {"filename": "evening.pbn", "content": to_bytes(SET, "PBN").decode()}
        assert d.post("/api/event/hand-records", json=body).status_code == 200
        errors: list[str] = []
        pages: dict[str, Any] = {}
        cards = d.get("/api/tables/1/cards").json()["seats"]
        for who in ("N", "E", "S", "W", "console"):
            page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
            page.on("pageerror", lambda e, who=who: errors.append(f"{who}: {e}"))
            pages[who] = page
        console = pages["console"]
        console.goto(f"{srv.base}/console#token={srv.token}")
        for s in "NESW":
            link = cards[s]["link"]
            pages[s].goto(link.replace("/seat#", "/seat?lang=zh-Hant#") if s == "W" else link)
            wait_until(pages[s], "s => ME === s && TABLE === '1' && state !== null", s)
        round_one = [b["board"] for b in d.get("/api/event/boards").json() if b["table"] == "1" and b["round"] == 1]
        for s in "NESW":                         # every phone offers the round's boards
            offered = "#start-section button.start-board:not(.start-other)"
            wait_until(pages[s], "([q, n]) => document.querySelectorAll(q).length === n", [offered, len(round_one)])
        assert pages["W"].locator("#start-section h2").inner_text() == "開始一副牌"
        north = pages["N"]

        # a board not the table's this round: refused, North told why, the director called and rules
        grid = d.get("/api/event/boards").json()
        near = {b["board"] for b in grid if b["table"] == "1" and b["round"] in (1, 2)}   # 2: the table moves on
        wrong = next(n for n in range(1, 17) if n not in near)
        click_start(north, "other")
        north.fill("#start-number", str(wrong))
        north.fill("#start-confirm", str(wrong))
        north.click("#start-send")
        wait_until(north, f"() => ({TOAST})().includes('Law 15')")
        assert f"Board {wrong} is not one of this table's boards now" in north.evaluate(TOAST)
        wait_until(north, "() => document.getElementById('start-refusal') !== null")
        assert "Law 15" in north.locator("#start-refusal").inner_text()       # it stays on the page
        north.screenshot(path=str(ARTIFACTS / "seat-start-wrong-board-phone.png"), full_page=True)
        assert d.get("/api/tables/1").json()["board"] is None
        wait_until(console, "() => document.querySelector('#calls .alert[data-table=\"1\"] .reason') !== null")
        call = console.locator("#calls .alert[data-table='1']").inner_text()
        assert f"wrong board: board {wrong} is not one of the table's boards now" in call and "Law 15" in call
        console.locator("#calls-section").screenshot(path=str(ARTIFACTS / "console-calls-law15-phone.png"))
        console.locator("#calls button.rule[data-ruling='correct_board']").click()
        wait_until(console, "() => document.querySelector('#calls .alert') === null")
        [answered] = [c for c in d.get("/api/director-calls").json() if c.get("code") == "WRONG_BOARD"]
        assert answered["answered"] and answered["ruling"].startswith("Law 15A: table 1 plays its own boards")

        # the number typed again must be the board's
        board = round_one[1]
        click_start(north, str(board))
        north.fill("#start-confirm", str(board + 1))
        north.click("#start-send")
        wait_until(north, f"() => ({TOAST})().includes('The number typed is not the board')")
        assert d.get("/api/tables/1").json()["board"] is None
        north.fill("#start-confirm", str(board))
        north.click("#start-send")
        deal = {b.board: b.deal for b in SET}[board]
        for s in "NESW":                         # each phone: its own hand from the hand record, nothing else
            page = pages[s]
            wait_until(page, "n => state && state.board && state.board.number === n && "
                             "document.querySelectorAll('#hands .hand').length === 1", board)
            assert page.evaluate("() => Object.keys(state.hands)") == [s]
            shown = page.evaluate("() => [...document.querySelectorAll('#hands .hand .card')]"
                                  ".map(c => c.dataset.card)")
            assert sorted(shown) == sorted(deal.hands[Seat(s)]), s
            assert page.locator("#start-section").is_hidden()
            assert page.locator("#cards-differ").is_visible()
        assert pages["W"].locator("#cards-differ").inner_text() == "我的牌不符"
        pages["W"].screenshot(path=str(ARTIFACTS / "seat-own-hand-zh-phone.png"), full_page=True)

        # my cards differ: the console's calls say so in words, with the laws
        pages["E"].click("#cards-differ")
        wait_until(pages["E"], f"() => ({TOAST})().includes('Laws 13 and 87')")
        wait_until(console, "() => document.querySelector('#calls .alert .reason[data-code=\"CARDS_DIFFER\"]')"
                            " !== null")
        call = console.locator("#calls .alert[data-table='1']").inner_text()
        assert f"my cards differ: the cards of board {board} differ from the hand record" in call
        assert "Law 13, 87" in call and "seat E" in call
        assert not errors, errors


@pytest.mark.slow
def test_a_scoring_only_terminal_keys_its_board_through_the_same_rule_and_the_lead_check(tmp_path: Path) -> None:
    """North's terminal at a scoring-only table: a board that is not the table's this round, keyed, does not
    start (Law 15, the director called); under "warn" a lead the hand record does not give the leader is accepted
    with the page's warning and the director's call in the console."""
    with ServiceThread(tmp_path, CONFIG) as srv, browser_session() as browser, srv.client(srv.token) as d:
        body = {"filename": "evening.pbn", "content": to_bytes(SET, "PBN").decode()}
        assert d.post("/api/event/hand-records", json=body).status_code == 200
        d.post("/api/tables/3/kind", json={"kind": "scoring"}).raise_for_status()
        d.post("/api/event/lead-check", json={"mode": "warn"}).raise_for_status()
        errors: list[str] = []
        north = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
        console = browser.new_context(viewport=PHONE).new_page()
        for who, page in (("N", north), ("console", console)):
            page.on("pageerror", lambda e, who=who: errors.append(f"{who}: {e}"))
        console.goto(f"{srv.base}/console#token={srv.token}")
        wait_until(console, "() => document.getElementById('lead-check').value === 'warn'")
        north.goto(d.get("/api/tables/3/cards").json()["seats"]["N"]["link"])
        wait_until(north, "() => ME === 'N' && TABLE === '3' && state !== null")
        north.locator("#key-form").wait_for(timeout=10000)
        mine = [b["board"] for b in d.get("/api/event/boards").json() if b["table"] == "3" and b["round"] == 1]
        near = {b["board"] for b in d.get("/api/event/boards").json() if b["table"] == "3" and b["round"] in (1, 2)}
        wrong = next(n for n in range(1, 17) if n not in near)

        def key(board: int, lead: str) -> None:
            north.fill("#key-board", str(board))
            north.select_option("#key-level", "3")
            north.select_option("#key-strain", "NT")
            north.select_option("#key-declarer", "S")
            north.select_option("#key-lead", lead)
            north.select_option("#key-tricks", "9")
            north.click("#key-send")

        key(wrong, "SA")
        wait_until(north, f"() => ({TOAST})().includes('Law 15')")
        assert d.get("/api/tables/3").json()["board"] is None
        wait_until(console, "() => document.querySelector('#calls .reason[data-code=\"WRONG_BOARD\"]') !== null")

        board = mine[0]
        deal = {b.board: b.deal for b in SET}[board]
        # East's card: not the leader's (West's), and not the declaring side's, which is refused outright
        lead = sorted(deal.hands[Seat("E")])[0]
        key(board, lead)
        wait_until(north, f"() => ({TOAST})().includes('the director is told')")
        assert d.get("/api/tables/3").json()["phase"] == "board_complete"
        wait_until(console, "() => document.querySelector('#calls .reason[data-code=\"LEAD_CHECK\"]') !== null")
        call = console.locator("#calls .alert:has(.reason[data-code='LEAD_CHECK'])").inner_text()
        assert f"the opening lead keyed on board {board} is not in the leader's hand" in call
        # the Chinese console words the call whole: the card keyed and that it was only a warning (issue 24)
        zh = browser.new_context(viewport=PHONE).new_page()
        zh.on("pageerror", lambda e: errors.append(f"zh console: {e}"))
        # the page's engine words arrive late, as under load: the call is still worded with them (a CI run
        # of 3ddb8f8 showed it in English when the calls rendered first)
        zh.route("**/static/locales/zh-Hant/engine.json", lambda route: (time.sleep(2), route.continue_()))
        zh.goto(f"{srv.base}/console?lang=zh-Hant#token={srv.token}")
        wait_until(zh, "() => document.querySelector('#calls .reason[data-code=\"LEAD_CHECK\"]') !== null")
        call = zh.locator("#calls .alert:has(.reason[data-code='LEAD_CHECK'])").inner_text()
        symbol = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[lead[0]] + lead[1].replace("T", "10")
        assert f"輸入的首引（{symbol}）依牌譜不在首引者手中（已警告）" in call, call
        assert not errors, errors
