"""Must-show 2 of issue 23 in headless Chromium: the director deals the evening's Duplimate file (imported through
the API) on the dealing machine from the console. The machine is the simulator on a real pseudo-terminal, the
path the director types as he would /dev/ttyUSB0, with two planted faults: a misread (two cards stuck together,
read as one) and a card in the wrong pocket. The console shows each problem in words as it happens, the board
waiting with the volunteer's choices; the director's clicks fix them (deal the misread board again, the card
moved by hand) and the dealing goes on; at the end the console says the dealt set is the hand records, and the
service's dealt set equals the file. Screenshot: tests/artifacts/console-dealing.png."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServiceThread
from test_dealing_machine import CONFIG, MISREAD_BOARD, WRONG_POCKET_BOARD, import_body, planted, the_file

CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]{2,}")          # a word in Latin letters (a card reads ♠A, a seat 北)


def stopped_at(page, board: int) -> None:
    wait_until(page, f"document.querySelector('#deal-stop:not([hidden])')?.dataset.board === '{board}'",
               timeout=120)


@pytest.mark.slow
def test_the_console_deals_the_file_with_a_misread_and_a_wrong_pocket(tmp_path: Path) -> None:
    file = the_file()
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, planted() as sim, \
            browser_session() as browser:
        assert d.post("/api/event/hand-records", json=import_body(file)).status_code == 200
        page = browser.new_page(viewport={"width": 820, "height": 1180})
        page.goto(f"{srv.base}/console#token={srv.token}")
        wait_until(page, "document.getElementById('deal-machine') !== null")
        wait_until(page, "document.getElementById('deal-status').textContent.includes('Not dealing')")
        page.fill("#deal-machine", sim.url)
        with page.expect_response(lambda r: r.url.endswith("/api/event/dealing")
                                  and r.request.method == "POST") as sent:
            page.click("#deal-start")
        assert sent.value.status == 200, sent.value.text()

        # the misread shows in words, with the volunteer's choices; deal the board again
        stopped_at(page, MISREAD_BOARD)
        stop = page.locator("#deal-stop")
        assert f"Board {MISREAD_BOARD} needs the volunteer" in stop.inner_text()
        assert "read it twice" in stop.inner_text() and "never reached a pocket" in stop.inner_text()
        choices = stop.locator("button.deal-choice")
        assert [choices.nth(k).get_attribute("data-choice") for k in range(choices.count())] == \
            ["continue", "redeal", "skip", "abort"]
        problems = page.locator(f"#deal-problems li[data-board='{MISREAD_BOARD}']")
        assert sorted(problems.nth(k).get_attribute("data-kind") for k in range(problems.count())) == \
            ["DUPLICATE_CARD", "MISSING_CARD"]
        stop.screenshot(path=str(ARTIFACTS / "console-dealing-misread.png"))
        stop.locator("button[data-choice='redeal']").click()

        # the card in the wrong pocket: the volunteer moves it as the console says
        stopped_at(page, WRONG_POCKET_BOARD)
        text = stop.inner_text()
        [wrong] = [p for p in d.get("/api/event/dealing").json()["stop"]["problems"]]
        assert wrong["kind"] == "WRONG_POCKET" and "Take it out and put it in" in wrong["message"]
        assert wrong["message"].split(": ", 1)[1] in text          # the volunteer's step, word for word
        assert "Continue (done as told)" in text
        assert page.locator(f"#deal-boards li[data-board='{MISREAD_BOARD}']").inner_text().endswith("verified")
        stop.locator("button[data-choice='continue']").click()

        wait_until(page, "!document.getElementById('deal-outcome').hidden", timeout=120)
        outcome = page.locator("#deal-outcome")
        assert outcome.get_attribute("class") == "deal-equal", outcome.inner_text()
        assert "The dealt set is the evening's hand records: 16 boards" in outcome.inner_text()
        assert page.locator(f"#deal-boards li[data-board='{WRONG_POCKET_BOARD}']").inner_text() \
            .endswith("fixed by hand")
        assert page.locator("#deal-boards li.deal-ok").count() == 15
        fixes = page.locator("#deal-problems li[data-kind='DECISION']")
        assert [fixes.nth(k).inner_text() for k in range(fixes.count())] == [
            f"Board {WRONG_POCKET_BOARD}: fixed by hand as the console said; the dealing goes on.",
            f"Board {MISREAD_BOARD}: the cards are back in the machine; it is dealt again."]
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.locator("#dealing-section").screenshot(path=str(ARTIFACTS / "console-dealing.png"))

        run = d.get("/api/event/dealing").json()
        assert run["state"] == "done" and run["outcome"]["equal"] is True
        assert run["outcome"]["dealt"] == {str(b.board): b.deal.to_pbn() for b in file}
        listed = d.get("/api/event/hand-records").json()["boards"]
        assert [b["deal"] for b in listed] == [b.deal.to_pbn() for b in file]

        # the same run on a phone, in Chinese: the section's words from the locale, nothing wider than the screen
        phone = browser.new_page(viewport={"width": 390, "height": 844})
        phone.goto(f"{srv.base}/console?lang=zh-Hant#token={srv.token}")
        wait_until(phone, "document.querySelector('#dealing-section h2')?.textContent === '發牌機'")
        wait_until(phone, "document.getElementById('deal-outcome').textContent.startsWith('所發的牌即今晚的牌譜')")
        fixed = phone.locator(f"#deal-boards li[data-board='{WRONG_POCKET_BOARD}']")
        assert fixed.inner_text().endswith("已手動更正")
        # what the machine reported, in Chinese (issue 24: the driver's lines keyed): no word in Latin letters
        reported = phone.locator("#deal-problems li")
        lines = {str(reported.nth(k).get_attribute("data-kind")): reported.nth(k).inner_text()
                 for k in range(reported.count())}
        assert {"DUPLICATE_CARD", "MISSING_CARD", "WRONG_POCKET", "DECISION"} <= set(lines), lines
        for kind, line in lines.items():
            assert CJK.search(line) and not LATIN.search(line), (kind, line)
        assert "牌袋" in lines["WRONG_POCKET"] and "「繼續」" in lines["WRONG_POCKET"], lines
        # a decision the board does not offer: the API's words for the decisions become the console's buttons'
        refused = str(phone.evaluate("""() => engineText('', [{key: 'refusal.dealing_choice', params: {
            decision: 'redeal', board: '3', choices: 'continue, skip'}}])"""))
        assert CJK.search(refused) and not LATIN.search(refused), refused
        assert "重發" in refused and "跳過" in refused, refused
        assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        section = phone.locator("#dealing-section")
        assert section.evaluate("s => s.scrollWidth <= s.clientWidth")
        section.screenshot(path=str(ARTIFACTS / "console-dealing-phone-zh.png"))
