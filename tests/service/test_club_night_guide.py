"""docs/club-night.md, step by step against a running service, in headless Chromium through the pages only (the
console at 1280x800, the seat pages on phones at 390x844).

* The director sets up a 4-table Mitchell from the form (a relay and a bye stand), imports the session's Duplimate
  file, deals it on the dealing machine (the simulator on a pseudo-terminal, its path typed as a serial port, with
  a misread and a card in the wrong pocket), chooses the lead check, makes table 3 scoring only, opens the table
  cards.
* The four phones of table 1 open the links printed on the cards and offer the round's boards; a wrong board is
  refused and ruled from the console (Law 15); the right board, its number typed again, starts with each phone's
  own hand; "My cards differ" calls the director. North's terminal at scoring-only table 3 keys a result with a
  lead the hand record does not give the leader (warn).
* A table with card readers (simulated readers over TCP): a wrong board and then a fouled board picked up are
  caught before the first call, the console says so and holds the table; the corrected hands start the board.

Every sentence the guide quotes from a page is asserted here; the guide's new pictures are written to
docs/images/club-night/ (cropped to their section, a 64-colour palette)."""
from __future__ import annotations

import io
import os
import time
from pathlib import Path
from typing import Any

import pytest
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServiceThread
from test_console_hand_records_browser import set_up_event
from test_dealing_machine import MISREAD_BOARD, WRONG_POCKET_BOARD, planted, the_file
from test_reader_pickup import club, console_watching, evening, import_the_evening

from table.cards import Seat
from table.handrecords import to_bytes

# The guide's own pictures are rewritten only on request (BRIDGETABLE_DOC_IMAGES=1): an ordinary run leaves the
# working tree as it was and puts them with the other artifacts.
IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images" / "club-night" if os.environ.get(
    "BRIDGETABLE_DOC_IMAGES") == "1" else ARTIFACTS / "club-night"
CONFIG = {"tables": [{"id": str(t)} for t in range(1, 5)], "regulation": {"spectators": {"delay_s": 0}}}
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SAID = "s => window.toasts.includes(s)"
TOASTS = ("() => { window.toasts = []; const el = document.getElementById('toast'); "
          "new MutationObserver(() => window.toasts.push(el.textContent))"
          ".observe(el, {childList: true, characterData: true, subtree: true}); }")


def picture(locator: Any, name: str) -> None:
    """The element's screenshot, as a small palette PNG in docs/images/club-night/."""
    from PIL import Image
    im = Image.open(io.BytesIO(locator.screenshot())).convert("RGB")
    im = im.quantize(colors=64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    IMAGES.mkdir(parents=True, exist_ok=True)
    im.save(IMAGES / name, optimize=True)


def text(page: Any, selector: str) -> str:
    return str(page.locator(selector).inner_text())


@pytest.mark.slow
def test_the_club_night_guide_step_by_step(tmp_path: Path) -> None:
    file = the_file()
    dup = tmp_path / "tonight.dup"
    dup.write_bytes(to_bytes(file, "DUP"))
    deals = {b.board: b.deal for b in file}
    with ServiceThread(tmp_path / "srv", CONFIG) as srv, srv.client(srv.token) as d, planted() as machine, \
            browser_session() as browser:
        errors: list[str] = []
        console = browser.new_page(viewport=DESKTOP)
        console.on("pageerror", lambda e: errors.append(f"console: {e}"))
        console.on("dialog", lambda dialog: dialog.accept())
        console.goto(f"{srv.base}/console#token={srv.token}")
        wait_until(console, "() => document.getElementById('ev-summary').textContent.length > 0")

        # Before the evening, 3: set up the event (a 4-table Mitchell, 4 boards a round: boards 1 to 16)
        set_up_event(console, "Tuesday pairs")
        wait_until(console, "() => !document.getElementById('handrecords-section').hidden")
        assert "No hand records yet: import the session's file or generate a secure set." in \
            text(console, "#handrecords-section")

        # 4: import the session's file
        console.locator("#hr-file").set_input_files(str(dup))
        with console.expect_response(lambda r: r.url.endswith("/api/event/hand-records")
                                     and r.request.method == "POST") as sent:
            console.locator("#hr-import").click()
        assert sent.value.status == 200, sent.value.text()
        wait_until(console, "() => document.getElementById('hr-summary').textContent.includes('tonight.dup')")
        assert "Loaded: tonight.dup · 16 boards (1–16) · can be replaced until the first board starts" in \
            text(console, "#hr-summary")
        assert "Generate a secure set" in text(console, "#handrecords-section")
        picture(console.locator("#handrecords-section"), "console-hand-records.png")

        # 5: deal them on the machine; the two problems, each with its fix
        wait_until(console, "() => document.getElementById('deal-status')?.textContent.includes('Not dealing')")
        console.fill("#deal-machine", machine.url)
        console.click("#deal-start")
        stop = console.locator("#deal-stop")
        for board, choice in ((MISREAD_BOARD, "redeal"), (WRONG_POCKET_BOARD, "continue")):
            wait_until(console, f"() => document.querySelector('#deal-stop:not([hidden])')?.dataset.board"
                                f" === '{board}'", timeout=180)
            assert f"Board {board} needs the volunteer" in stop.inner_text()
            if choice == "continue":
                assert "Take it out and put it in" in stop.inner_text()
                picture(stop, "console-dealing-stop.png")
            stop.locator(f"button[data-choice='{choice}']").click()
        wait_until(console, "() => !document.getElementById('deal-outcome').hidden", timeout=180)
        assert "The dealt set is the evening's hand records: 16 boards" in text(console, "#deal-outcome")
        picture(console.locator("#dealing-section"), "console-dealing.png")

        # 6: the lead check (the console asks for it once an event exists: load the page again)
        console.reload()
        wait_until(console, "() => document.getElementById('lead-check').onchange !== null")
        console.evaluate(TOASTS)
        console.select_option("#lead-check", "warn")
        wait_until(console, SAID, "Lead check: warn")
        picture(console.locator("#lead-check-section"), "console-lead-check.png")

        # table 3 plays with real cards only: the Table list on its card in the evening section
        console.select_option("#ev-tables select.ev-kind[data-table='3']", "scoring")
        wait_until(console, "() => document.getElementById('ev-status').textContent"
                            ".includes('Table 3: scoring only')")
        assert d.get("/api/tables/3/offered-boards").json()["kind"] == "scoring"
        tables = text(console, "#ev-tables")                  # the form's default: a relay and a bye stand
        assert "shared with table 4" in tables and "the bye stand" in tables
        picture(console.locator("#ev-tables"), "console-evening.png")

        # During the evening: a table of phones, from the table cards
        # 8: the table cards, printed from the console's link; each seat's link is printed under its QR code
        printed = browser.new_page(viewport=DESKTOP)
        printed.goto(f"{srv.base}/cards#token={srv.token}")
        wait_until(printed, "document.body.dataset.loaded === '4'")          # four tables' cards
        cards = {t: dict(zip("NESW", printed.evaluate(
            "t => [...document.querySelectorAll(`article[data-table='${t}'] .seat-cell .link`)]"
            ".map(p => p.textContent)", t))) for t in ("1", "3")}
        assert "Tuesday pairs" in text(printed, "article[data-table='1'] .event")
        printed.close()
        phones: dict[str, Any] = {}
        for s in "NESW":
            page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
            page.on("pageerror", lambda e, s=s: errors.append(f"{s}: {e}"))
            page.goto(cards["1"][s])        # the phone's camera opens the link of the QR code
            wait_until(page, "s => ME === s && TABLE === '1' && state !== null", s)
            page.evaluate(TOASTS)
            phones[s] = page
        north = phones["N"]
        grid = d.get("/api/event/boards").json()
        round_one = [b["board"] for b in grid if b["table"] == "1" and b["round"] == 1]
        offered = "#start-section button.start-board:not(.start-other)"
        wait_until(north, "([q, n]) => document.querySelectorAll(q).length === n", [offered, len(round_one)])
        section = text(north, "#start-section")
        assert "Start a board" in section and "Another board" in section

        # a wrong board: refused, the director called (Law 15), ruled from the console
        near = {b["board"] for b in grid if b["table"] == "1" and b["round"] in (1, 2)}
        wrong = next(n for n in range(1, 17) if n not in near)
        north.locator("#start-section button.start-board[data-board='other']").click()
        north.fill("#start-number", str(wrong))
        north.fill("#start-confirm", str(wrong))
        north.click("#start-send")
        wait_until(north, "() => document.getElementById('start-refusal') !== null")
        assert "Law 15" in text(north, "#start-refusal")
        wait_until(north, SAID, f"Board {wrong} is not one of this table's boards now: it does not start. "
                                "The director is called (Law 15).")
        wait_until(console, "() => document.querySelector('#calls .alert[data-table=\"1\"] .reason') !== null")
        call = text(console, "#calls .alert[data-table='1']")
        assert f"wrong board: board {wrong} is not one of the table's boards now" in call and "Law 15" in call
        rulings = console.locator("#calls .alert[data-table='1'] button.rule")
        assert [rulings.nth(k).get_attribute("data-ruling") for k in range(rulings.count())] == \
            ["play_here", "correct_board"]
        assert "Have the correct board played" in call and f"Let board {wrong} be played here" in call
        picture(console.locator("#calls-section"), "console-wrong-board.png")
        console.locator("#calls button.rule[data-ruling='correct_board']").click()
        wait_until(console, "() => document.querySelector('#calls .alert') === null")

        # the right board, its number typed again: each phone shows its own hand from the hand record
        board = round_one[0]
        # the ruling re-lays the phones' pages as it arrives: a tap made while the page moves lands elsewhere
        # (on "Another board" below), and the player taps the board again, as here until the board is picked
        for _tap in range(3):
            north.locator(f"#start-section button.start-board[data-board='{board}']").click()
            try:
                wait_until(north, "n => document.getElementById('start-send')?.textContent === `Start board ${n}`",
                           board, timeout=10)
                break
            except TimeoutError:
                continue
        north.fill("#start-confirm", str(board + 1))
        north.click("#start-send")
        wait_until(north, SAID, "The number typed is not the board's: check the number printed on the board.")
        north.fill("#start-confirm", str(board))
        assert "Type the number printed on the board" in text(north, "#start-section")
        assert text(north, "#start-send") == f"Start board {board}"
        picture(north.locator("#start-section"), "seat-start-board.png")
        north.click("#start-send")
        for s, page in phones.items():
            wait_until(page, "n => state && state.board && state.board.number === n && "
                             "document.querySelectorAll('#hands .hand').length === 1", board)
            shown = page.evaluate("() => [...document.querySelectorAll('#hands .hand .card')]"
                                  ".map(c => c.dataset.card)")
            assert sorted(shown) == sorted(deals[board].hands[Seat(s)]), s
        assert text(phones["E"], "#cards-differ") == "My cards differ"
        picture(phones["E"].locator("body"), "seat-own-hand.png")

        # my cards differ
        phones["E"].click("#cards-differ")
        wait_until(phones["E"], SAID,
                   "The director has been called: your cards differ from the hand record (Laws 13 and 87).")
        wait_until(console, "() => document.querySelector('#calls .alert .reason[data-code=\"CARDS_DIFFER\"]')"
                            " !== null")
        call = text(console, "#calls .alert[data-table='1']")
        assert f"my cards differ: the cards of board {board} differ from the hand record" in call
        assert "Law 13, 87" in call and "seat E" in call
        picture(console.locator("#calls-section"), "console-cards-differ.png")

        # a scoring-only table: North's terminal keys the board and the result; the lead check warns
        key = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
        key.on("pageerror", lambda e: errors.append(f"table 3: {e}"))
        key.goto(cards["3"]["N"])
        wait_until(key, "() => ME === 'N' && TABLE === '3' && state !== null")
        key.locator("#key-form").wait_for(timeout=15000)
        mine = [b["board"] for b in grid if b["table"] == "3" and b["round"] == 1][0]
        key.fill("#key-board", str(mine))
        key.select_option("#key-level", "3")
        key.select_option("#key-strain", "NT")
        key.select_option("#key-declarer", "S")
        key.select_option("#key-lead", sorted(deals[mine].hands[Seat("E")])[0])   # East's, not West's
        key.select_option("#key-tricks", "9")
        picture(key.locator("#key-form"), "seat-keying.png")
        key.evaluate(TOASTS)                                  # every message, however briefly shown
        key.click("#key-send")
        said = "The lead is not in the leader's hand per the hand record: the director is told."
        wait_until(key, SAID, said, timeout=30)
        wait_until(console, "() => document.querySelector('#calls .reason[data-code=\"LEAD_CHECK\"]') !== null")
        assert f"the opening lead keyed on board {mine} is not in the leader's hand" in \
            text(console, "#calls .alert:has(.reason[data-code='LEAD_CHECK'])")
        assert d.get("/api/tables/3").json()["phase"] == "board_complete"
        assert not errors, errors


@pytest.mark.slow
def test_the_guide_s_reader_table(tmp_path: Path) -> None:
    """The guide's table with card readers: the hands picked up name their board; a board of another round is
    caught before the first call (Law 15), then the players' own board picked up fouled (Law 87); the console's
    feed says so in words and the table's card says it is held; the corrected hands start the board."""
    deals = evening()
    with club(tmp_path) as (srv, one, _two, _three), srv.client(srv.token) as d, browser_session() as browser:
        wait_devices = [h["connected"] for h in d.get("/api/devices").json().get("1", [])]
        for _ in range(300):
            if wait_devices and all(wait_devices):
                break
            time.sleep(0.1)
            wait_devices = [h["connected"] for h in d.get("/api/devices").json().get("1", [])]
        board, wrong = import_the_evening(d, deals)
        page, errors = console_watching(browser, srv, DESKTOP)
        one.pick_up(Seat.N, deals[wrong].hands[Seat.N])
        one.pick_up(Seat.E, deals[wrong].hands[Seat.E])
        wait_until(page, "() => document.getElementById('feed').textContent.includes('(Law 15)')", timeout=30)
        feed = text(page, "#feed")
        assert f"board {wrong} is not one of table 1's boards" in feed and "Wrong board (Law 15)" in feed
        assert "caught from the hands picked up, before the first call; the board is not started" in feed
        page.locator("#table-1 .held").wait_for(timeout=15000)
        assert "held: no call yet (the hands picked up)" in text(page, "#table-1")
        one.pick_up(Seat.E, deals[board].hands[Seat.E])              # the wrong board put back, theirs taken
        for _ in range(300):
            if "not yet: North, South, West" in (d.get("/api/tables/1").json()["held"] or ""):
                break
            time.sleep(0.1)
        for s in (Seat.S, Seat.W, Seat.N):                           # North holds the other board's hand
            one.pick_up(s, deals[wrong if s == Seat.N else board].hands[s])
        wait_until(page, "() => document.getElementById('feed').textContent.includes('(Law 87)')", timeout=30)
        assert f"Fouled board (Law 87) by -: the hands picked up are not board {board}'s: " \
            f"North holds board {wrong}'s North hand" in text(page, "#feed")
        assert d.get("/api/tables/1").json()["board"] is None      # nothing started, no call possible
        # the console draws the table cards once for the messages of 200 ms: the last of them drawn first
        wait_until(page, "() => overviewTimer === null")
        picture(page.locator("#table-1"), "console-reader-held.png")
        picture(page.locator("#feed-section"), "console-reader-feed.png")
        one.pick_up(Seat.N, deals[board].hands[Seat.N])              # corrected from the hand record: it starts
        page.locator("#table-1 .held").wait_for(state="detached", timeout=30000)
        assert d.get("/api/tables/1").json()["board"]["number"] == board
        assert not errors, errors
