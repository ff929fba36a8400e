"""A refusal reaches a player in his page's language (issue 24): the service's 4xx answer carries, beside its English
``detail``, the sentence's pieces (``detail_parts``: key, English template, parameters; table/texts.py), and the
pages word it with ``refusalWords()`` (common.js) through ``locales/<lang>/engine.json``.

* ``test_a_refusal_carries_its_pieces``: over HTTP, a seat's refused card (``authorize``, 403) and a call before
  any board (the engine's ``TableError`` through ``Conflict``, 409) answer with ``detail_parts`` whose keys have
  their Chinese in engine.json, the English ``detail`` unchanged;
* ``test_refusals_on_a_chinese_seat_page_are_chinese``: West's page in Chinese, in headless Chromium, posts six
  refused actions with the page's own ``post``/``send``/``choose``; each toast is Chinese (no word in Latin letters
  but card and call symbols and law numbers), not the English, and has no "(403)"; North's English page shows the
  English sentence, without the status; West's sign-in revoked, his page says why in Chinese.

* ``test_director_refusals_carry_their_pieces``: over HTTP, the director's refusals (a movement larger than the
  console plans, an export with no event, adjustments of a board the table never played, a call that does not
  exist, a table that does not exist) carry their keys, the English unchanged, and their Chinese has no Latin word;
* ``test_director_refusals_on_a_chinese_console_are_chinese``: the console in Chinese, in headless Chromium, shows
  each of them in its toast (the page's own ``api``/``toast``/``refusalWords``) in Chinese, no Latin word, and words
  the law engine's refusals of a ruling (tests/ruling_refusals.py: an option an irregularity has not, another's
  choice, a revoke that cannot be corrected...) in Chinese the same way;
* ``test_a_malformed_hand_record_file_is_refused_in_chinese``: the Chinese console's hand-record import refuses a
  truncated .dup, a .ber of bad owner digits and a .pbn short of the event's boards in Chinese (the readers'
  messages keyed, table/handrecords), no Latin word but the file's name, the English detail unchanged.

Before the refusals were keyed, every toast here was the English detail with its status ("seat W may play only
its own cards (403)")."""
from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import serial
from headless import ARTIFACTS, wait_until
from ruling_refusals import ruling_refusals
from service_harness import ServerProcess, ServiceThread, free_port

from service.live.board_results import AdjustmentError, adjustment
from service.sim.dealing import deal_for
from table.texts import Text, translatable

CONFIG = {"tables": [{"id": "1"}, {"id": "2"}], "regulation": {"spectators": {"delay_s": 0}}}
ENGINE_ZH = json.loads((Path(__file__).resolve().parents[2] / "service" / "web" / "static" / "locales" / "zh-Hant"
                        / "engine.json").read_text(encoding="utf-8"))
THREE_NT = [("N", "1NT"), ("E", "Pass"), ("S", "3NT"), ("W", "Pass"), ("N", "Pass"), ("E", "Pass")]
# as tests/service/test_zh_everywhere_browser.py: a word in Latin letters a Chinese page may show is a symbol (a
# call, a law number such as 43A1a, X/XX/NT, a holding, a single letter, NS/EW)
SYMBOL = re.compile(r"^(?:[0-9][0-9A-Za-z]*|X{1,2}|NT|[AKQJT2-9]+|[A-Za-z]|NS|EW)$")
LATIN = re.compile(r"[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*")
CJK = re.compile(r"[\u4e00-\u9fff]")


def latin_words(text: str) -> list[str]:
    return [w for w in LATIN.findall(text) if not SYMBOL.match(w)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServiceThread(tmp_path_factory.mktemp("refusals"), CONFIG) as srv:
        yield srv


def keys_of(body: dict[str, Any]) -> list[str]:
    return [p["key"] for p in body.get("detail_parts", []) if p.get("key")]


def test_a_refusal_carries_its_pieces(server: ServerProcess) -> None:
    with server.seat_client("2", "W") as west, server.client(server.token) as d:
        early = west.post("/api/tables/2/events", json={"type": "call", "seat": "W", "call": "Pass"})
        assert early.status_code == 409, early.text
        body = early.json()
        assert body["detail"] == "call event before any board event"
        assert keys_of(body) == ["refusal.before_board"]
        assert body["detail_parts"][0]["params"] == {"kind": "call"}

        d.post("/api/tables/2/events", json={"type": "board", "board": 1,
                                             "deal": deal_for(7, 1).to_pbn()}).raise_for_status()
        north = d.get("/api/tables/2").json()["hands"]["N"]["cards"][0]
        card = west.post("/api/tables/2/events", json={"type": "card", "seat": "N", "card": north})
        assert card.status_code == 403, card.text
        body = card.json()
        assert body["detail"] == "seat W may play only its own cards"
        assert body["detail_parts"] == [{"text": "seat W may play only its own cards", "key": "refusal.own_cards",
                                         "template": "seat {seat} may play only its own cards",
                                         "params": {"seat": "W"}}]
        for b in (early.json(), body):
            for key in keys_of(b):
                assert CJK.search(ENGINE_ZH[f"engine.{key}"]), key

        # a director's action a seat tries is refused in pieces too
        kind = west.post("/api/tables/2/kind", json={"kind": "scoring"})
        assert kind.status_code == 403 and kind.json()["detail"] == "only the director may do this", kind.text
        assert keys_of(kind.json()) == ["refusal.director_only"]


def toast_after(page: Any, action: str) -> str:
    """The page's toast after ``action`` (an expression of the page's own functions, awaited)."""
    page.evaluate("() => { document.getElementById('toast').textContent = ''; }")
    page.evaluate(f"async () => {{ await {action}; }}")
    wait_until(page, "() => document.getElementById('toast').textContent !== ''")
    return str(page.evaluate("() => document.getElementById('toast').textContent"))


def test_refusals_on_a_chinese_seat_page_are_chinese(server: ServerProcess, browser: Any) -> None:
    errors: list[str] = []
    with server.client(server.token) as d:
        links = {s: v["link"] for s, v in d.get("/api/tables/1/tokens").json().items()}
        pages: dict[str, Any] = {}
        try:
            for seat, lang in (("W", "zh-Hant"), ("N", "en")):
                ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
                page = ctx.new_page()
                page.on("pageerror", lambda e, seat=seat: errors.append(f"{seat}: {e}"))
                page.goto(server.base + links[seat].replace("/seat#", f"/seat?lang={lang}#"))
                wait_until(page, "s => ME === s && TABLE === '1' && state !== null", seat, timeout=30)
                pages[seat] = page
            west, north = pages["W"], pages["N"]

            shown: dict[str, tuple[str, str]] = {}        # what -> (the toast, the English it must not be)
            shown["a call before the board"] = (toast_after(west, "post({type: 'call', seat: 'W', call: 'Pass'})"),
                                                "call event before any board event")
            d.post("/api/tables/1/events", json={"type": "board", "board": 1,
                                                 "deal": deal_for(7, 1).to_pbn()}).raise_for_status()
            for seat, call in THREE_NT:
                d.post("/api/tables/1/events", json={"type": "call", "seat": seat, "call": call}).raise_for_status()
            wait_until(west, "() => state && state.phase === 'opening_lead'")
            north_card = d.get("/api/tables/1").json()["hands"]["N"]["cards"][0]
            shown["North's card"] = (toast_after(west, f"post({{type: 'card', seat: 'N', card: '{north_card}'}})"),
                                     "seat W may play only its own cards")
            shown["East's call"] = (toast_after(west, "post({type: 'call', seat: 'E', call: 'Pass'})"),
                                    "seat W may only act for itself, not E")
            shown["a contract"] = (toast_after(west, "post({type: 'contract', contract: '3NT', declarer: 'N'})"),
                                   "a contract event is entered by the director or a device")
            shown["another's ruling"] = (toast_after(west, "choose('INSUFFICIENT_BID', 'accept')"),
                                         "seat W may not choose 'accept' for INSUFFICIENT_BID")
            shown["a call with no note"] = (toast_after(west, "send(tableUrl('/director'), {reason: 'other'})"),
                                            "say in a few words why the director is called")
            west.screenshot(path=str(ARTIFACTS / "refusal-words-zh.png"), full_page=True)
            for what, (toast, english) in shown.items():
                assert CJK.search(toast), (what, toast)
                assert not latin_words(toast), (what, toast, latin_words(toast))
                assert english not in toast and "(4" not in toast, (what, toast)
            assert "西只能打自己的牌" in shown["North's card"][0]
            assert "不足叫" in shown["another's ruling"][0], shown["another's ruling"]   # the code in words

            english = toast_after(north, "post({type: 'call', seat: 'E', call: 'Pass'})")
            assert english == "seat North may only act for itself, not East", english   # seats worded, as engine texts

            # the director revokes West's sign-in: his page says why it signed out, in Chinese
            d.post("/api/tables/1/revoke", params={"seat": "W"}).raise_for_status()
            wait_until(west, "() => !document.getElementById('signed-out').hidden", timeout=30)
            why = str(west.evaluate("() => document.getElementById('board').textContent"))
            west.screenshot(path=str(ARTIFACTS / "refusal-words-zh-signed-out.png"), full_page=True)
            assert "撤銷" in why and not latin_words(why), why
        finally:
            for page in pages.values():
                page.context.close()
    assert not errors, errors


# an event the console's form could send (a table count typed by hand) that the schema refuses
BAD_EVENT = {"name": "Tuesday", "scoring": "MP",
             "movement": {"kind": "mitchell", "tables": 1, "even": "both", "boards_per_round": 2.5}}
# the director's refusals (issue 24): what is asked, its status, its key and its English
DIRECTOR_REFUSALS: list[tuple[str, str, dict[str, Any] | None, int, str, str]] = [
    ("POST", "/api/event", {"name": "Tuesday", "scoring": "MP",
                            "movement": {"kind": "mitchell", "tables": 99, "boards_per_round": 2}},
     422, "refusal.movement_max_tables", "movement tables is at most 60 here (got 99)"),
    ("GET", "/api/exports/usebio", None, 404, "refusal.exports_no_event",
     "no event is running: the exports need one (an [event] in the configuration)"),
    ("POST", "/api/tables/1/boards/42/adjustment",
     {"kind": "assigned", "contract": "4S", "declarer": "N", "tricks": 10}, 422, "refusal.adjust_not_played",
     "table 1 has not played board 42: only an artificial adjusted score (not played) or its cancellation applies"),
    ("POST", "/api/tables/1/boards/43/adjustment", {"kind": "cancel"}, 404, "refusal.no_adjustment",
     "table 1 has no adjustment on board 43 to cancel"),
    ("POST", "/api/director-calls/99/answer", None, 404, "refusal.no_call", "no director call 99"),
    ("POST", "/api/director-calls/98/rule", {"ruling": "play_here"}, 404, "refusal.no_call", "no director call 98"),
    ("POST", "/api/tables/9/kind", {"kind": "scoring"}, 404, "refusal.no_table", "no table '9'"),
]


def chinese_of(part: dict[str, Any]) -> str:
    """A piece's Chinese, its parameters filled as they are (numbers and table ids here)."""
    zh = ENGINE_ZH[f"engine.{part['key']}"]
    return re.sub(r"\{(\w+)\}", lambda m: str(part["params"][m.group(1)]), zh)


def test_an_assigned_contract_that_is_none_is_refused_in_the_scorings_words() -> None:
    """The director's assigned score (Law 12C2) with a contract that is not one: the refusal is the scoring's own
    keyed sentence (table/scoring.py), the English as before, its Chinese without a Latin word but the contract."""
    for body, key, english in (
            ({"kind": "assigned", "contract": "4Q", "declarer": "N", "tricks": 10}, "scoring.not_a_contract",
             "not a contract: '4Q' (expected e.g. '4S', '3NTX', '6H**' or 'Pass')"),
            ({"kind": "assigned", "contract": "4S", "declarer": "Z", "tricks": 10}, "scoring.declarer",
             "declarer must be N, E, S or W, not 'Z'")):
        with pytest.raises(AdjustmentError) as refused:
            adjustment(body, "None")
        text = refused.value.args[0]
        assert str(text) == english and isinstance(text, Text) and text.key == key
        chinese = chinese_of({"key": text.key, "params": text.params})
        assert CJK.search(chinese) and not latin_words(chinese), chinese


def test_director_refusals_carry_their_pieces(server: ServerProcess) -> None:
    with server.client(server.token) as d:
        for method, path, body, status, key, english in DIRECTOR_REFUSALS:
            r = d.request(method, path, json=body)
            assert r.status_code == status, (path, r.text)
            answer = r.json()
            assert answer["detail"] == english, (path, answer)
            assert keys_of(answer) == [key], (path, answer)
            chinese = "".join(chinese_of(p) for p in answer["detail_parts"])
            assert CJK.search(chinese) and not latin_words(chinese), (path, chinese)
        # a request that does not fit the schema: FastAPI's list stays the detail; its pieces name the fields
        r = d.post("/api/tables/1/boards/0/adjustment", json={"kind": "cancel"})
        assert r.status_code == 422 and isinstance(r.json()["detail"], list), r.text
        assert keys_of(r.json()) == ["refusal.schema"] and r.json()["detail_parts"][0]["params"] == {"fields": "number"}
        # a movement the schema refuses (the console's form let through): pydantic's complaints keyed, one a field
        r = d.post("/api/event", json=BAD_EVENT)
        assert r.status_code == 422 and r.json()["detail"] == (
            "the event is not valid: movement.tables: Input should be greater than or equal to 2; "
            "movement.boards_per_round: Input should be a valid integer, got a number with a fractional part; "
            "movement.even: Input should be 'skip' or 'relay'"), r.text
        assert keys_of(r.json()) == ["refusal.event_not_valid", "refusal.field_at_least", "refusal.field_separator",
                                     "refusal.field_fraction", "refusal.field_separator", "refusal.field_one_of"], \
            r.json()
        assert r.json()["detail_parts"][1]["params"] == {"field": "movement.tables", "limit": "2"}
        # a movement the planner refuses: its complaint a keyed piece after the refusal's (not an English parameter)
        r = d.post("/api/event", json={"name": "Tuesday", "scoring": "MP", "movement": {
            "kind": "mitchell", "tables": 3, "rounds": 9, "boards_per_round": 2}})
        assert r.status_code == 422 and r.json()["detail"] == ("the event cannot be planned: a 3-table Mitchell (odd) "
                                                               "has at most 3 rounds"), r.text
        assert keys_of(r.json()) == ["refusal.event_not_planned", "movement.mitchell_rounds_odd"]
        for movement, key in (({"kind": "mitchell"}, "movement.needs_tables"),
                              ({"kind": "howell"}, "movement.needs_pairs"),
                              ({"kind": "teams"}, "movement.needs_boards"),
                              ({"kind": "round_robin"}, "movement.needs_teams")):
            r = d.post("/api/event", json={"name": "Tuesday", "scoring": "MP", "movement": movement})
            assert r.status_code == 422 and keys_of(r.json()) == ["refusal.event_not_planned", key], r.text
        chinese = "".join(chinese_of(p) for p in r.json()["detail_parts"])
        assert CJK.search(chinese) and not latin_words(chinese), chinese


def test_director_refusals_on_a_chinese_console_are_chinese(server: ServerProcess, browser: Any) -> None:
    errors: list[str] = []
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.base}/console?lang=zh-Hant#token={server.token}")
        wait_until(page, "() => TOKEN !== '' && I18N.lang === 'zh-Hant' && 'engine.refusal.no_call' in I18N.dict",
                   timeout=30)
        toasts: dict[str, tuple[str, str]] = {}
        for method, path, body, _status, _key, english in DIRECTOR_REFUSALS:
            options = json.dumps({"method": method, **({"body": json.dumps(body)} if body is not None else {})})
            action = f"api({json.dumps(path)}, {options}, TOKEN).catch(e => toast(refusalWords(e)))"
            toasts[path] = (toast_after(page, action), english)
        toasts["an event the schema refuses"] = (toast_after(page, "api('/api/event', {method: 'POST', body: "
                                                            f"JSON.stringify({json.dumps(BAD_EVENT)})}}, TOKEN)"
                                                            ".catch(e => toast(refusalWords(e)))"),
                                                 "the event is not valid")
        # the exports' own download (a fetch, not api()): its refusal is worded the same way
        page.locator('#exports button.export[data-kind="usebio"]').click()
        wait_until(page, "() => /賽事/.test(document.getElementById('exports-status').textContent)")
        toasts["the USEBIO download"] = (str(page.evaluate("() => document.getElementById('exports-status')"
                                                           ".textContent")), "no event is running")
        page.screenshot(path=str(ARTIFACTS / "refusal-words-zh-console.png"), full_page=True)
        for path, (toast, english) in toasts.items():
            assert CJK.search(toast), (path, toast)
            assert not latin_words(toast), (path, toast, latin_words(toast))
            assert english not in toast and "(4" not in toast, (path, toast)
        assert "第 1 桌沒有打第 42 副牌" in toasts["/api/tables/1/boards/42/adjustment"][0], toasts
        assert toasts["an event the schema refuses"][0] == ("賽事設定無效：桌數：至少須為 2；"
                                                            "每輪牌數：須為整數，不能有小數；"
                                                            "偶數桌：須為「半程後跳桌」或「接力與空牌架」"), toasts
        # the law engine's refusals of a ruling (tests/ruling_refusals.py), worded by the console's engineText
        worded = {what: str(page.evaluate("([e, p]) => engineText(e, p)",
                                          [str(text), translatable(text, "detail")["detail_parts"]]))
                  for what, text in ruling_refusals().items()}
        for what, words in worded.items():
            assert CJK.search(words) and not latin_words(words), (what, words, latin_words(words))
        # a device that cannot be opened: the system's words (pyserial's, a real failure here) by their error number
        for url, words in (("/dev/ttyUSB-none", "找不到這個裝置或檔案"), (f"socket://127.0.0.1:{free_port()}",
                                                                   "連線被拒絕：對方沒有在接收")):
            try:
                serial.serial_for_url(url)
            except serial.SerialException as err:
                text = Text("refusal.dealing_cannot_open", "the dealing machine at {machine} cannot be opened "
                            "({error})", machine=url, error=err)
            else:
                raise AssertionError(url)
            shown = str(page.evaluate("([e, p]) => engineText(e, p)",
                                      [str(text), translatable(text, "detail")["detail_parts"]]))
            assert words in shown and "Errno" not in shown and url in shown, shown
        assert worded["a revoke option that is none"] == ("「接受」不是藏牌的選項；可選的是：更正、"
                                                         "不罰（第 64B4 條）、不罰（第 64B5 條）"), worded
    finally:
        ctx.close()
    assert not errors, errors


def test_an_events_director_refusals_carry_their_pieces(tmp_path: Path) -> None:
    """With an event (a server of its own): an export before any result, a release of a board the tables still
    have to play, late play of a board the movement does not give the table, a round it does not have."""
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d:
        d.post("/api/event", json={"name": "Tuesday", "scoring": "MP", "movement": {
            "kind": "mitchell", "tables": 2, "boards_per_round": 2}}).raise_for_status()
        asked = {"an export before results": (d.get("/api/exports/lin"), 409,
                                              ["refusal.nothing_to_export", "results.none"]),
                 "a release still owed": (d.post("/api/boards/1/release"), 409, ["refusal.release_owing"]),
                 "late play off the movement": (d.post("/api/tables/1/late-play", json={"board": 40}), 422,
                                                ["refusal.not_in_movement"]),
                 "a round the event has not": (d.post("/api/event/round", json={"round": 9}), 422,
                                               ["refusal.round_range"])}
        for what, (r, status, keys) in asked.items():
            assert r.status_code == status, (what, r.text)
            assert keys_of(r.json()) == keys, (what, r.json())
            chinese = "".join(chinese_of(p) for p in r.json()["detail_parts"])
            assert CJK.search(chinese) and not latin_words(chinese), (what, chinese)
        assert asked["an export before results"][0].json()["detail"] == "nothing to export yet: no results to write"


def test_a_malformed_hand_record_file_is_refused_in_chinese(tmp_path: Path, browser: Any) -> None:
    """The Chinese console imports hand-record files through its own form (a file chosen, the import pressed): a
    truncated Duplimate file, a file of owner digits that are not, a PBN file short of the event's boards. Each
    refusal is the reader's complaint in Chinese, no Latin word but the file's name; the API's English detail is
    unchanged. Before the readers' messages were keyed, the console showed them in English."""
    from table.dealgen import HashDRBG, random_deal
    from table.handrecords import HandRecordBoard, to_bytes

    config = {**CONFIG, "event": {"name": "Hand records", "movement": {"kind": "mitchell", "tables": 2,
                                                                      "boards_per_round": 2}}}
    deals = [HandRecordBoard.of(n, random_deal(HashDRBG("zh-records"))) for n in range(1, 5)]
    files = {"cut.dup": to_bytes(deals, "DUP")[:-3], "digits.ber": b"5" * 52, "short.pbn": to_bytes(deals[:2], "PBN")}
    errors: list[str] = []

    def late_listing(route: Any) -> None:
        if route.request.method == "GET":
            time.sleep(1.5)
        route.continue_()

    with ServiceThread(tmp_path / "srv", config) as srv:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
        try:
            page = ctx.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            # the listing the console reads again after a refusal arrives late, as from a loaded service: the next
            # file is chosen meanwhile and must be the one imported (a loaded whole run lost it to that race)
            page.route("**/api/event/hand-records", late_listing)
            page.goto(f"{srv.base}/console?lang=zh-Hant#token={srv.token}")
            wait_until(page, "() => I18N.lang === 'zh-Hant' && 'engine.refusal.no_call' in I18N.dict && "
                             "!document.getElementById('handrecords-section').hidden", timeout=30)
            shown: dict[str, tuple[str, str]] = {}
            for name, data in files.items():
                path = tmp_path / name
                path.write_bytes(data)
                # the last file's refusal cleared, its mark too: the wait below is for this file's
                page.evaluate("() => { const s = document.getElementById('hr-status'); s.textContent = '';"
                              " s.classList.remove('hr-bad'); }")
                page.locator("#hr-file").set_input_files(str(path))
                with page.expect_response(lambda r: r.url.endswith("/api/event/hand-records")
                                          and r.request.method == "POST") as answer:
                    page.locator("#hr-import").click()
                english = answer.value.json()["detail"]
                wait_until(page, "() => document.getElementById('hr-status').classList.contains('hr-bad') && "
                                 "document.getElementById('hr-status').textContent.length > 0")
                shown[name] = (str(page.locator("#hr-status").inner_text()), english)
            page.screenshot(path=str(ARTIFACTS / "refusal-words-zh-hand-records.png"), full_page=True)
        finally:
            ctx.close()
    assert shown["cut.dup"][1] == "cut.dup, board 4: truncated: 621 bytes is not a whole number of 156-byte boards"
    assert shown["digits.ber"][1] == "digits.ber, board 1: '5' is not an owner digit 1-4"
    assert shown["short.pbn"][1] == "the hand records do not match the event's boards: missing board(s): 3, 4"
    for name, (status, english) in shown.items():
        words = latin_words(status.replace(name, ""))
        assert CJK.search(status) and not words, (name, status, words)
        assert english not in status, (name, status)
    assert "第 4 副牌" in shown["cut.dup"][0] and "156" in shown["cut.dup"][0], shown
    assert "缺少的牌：第 3, 4 副" in shown["short.pbn"][0], shown
    assert not errors, errors


def test_a_ruling_given_twice_is_refused_in_its_words(server: ServerProcess) -> None:
    """The second of two rulings on one irregularity (two directors' devices at once): refused (409) with its key,
    the English unchanged; its Chinese has no Latin word but the irregularity the page words."""
    with server.client(server.token) as d:
        for event in ({"type": "board", "board": 5, "deal": deal_for(3, 5).to_pbn()},
                      {"type": "call", "seat": "N", "call": "1S"}, {"type": "call", "seat": "E", "call": "1H"}):
            d.post("/api/tables/1/events", json=event).raise_for_status()
        ruling = {"code": "INSUFFICIENT_BID", "option": "refuse"}
        d.post("/api/tables/1/rulings", json=ruling).raise_for_status()
        again = d.post("/api/tables/1/rulings", json=ruling)
        assert again.status_code == 409, again.text
        answer = again.json()
        assert answer["detail"] == ("INSUFFICIENT_BID has already been ruled on; the table now complies with that "
                                    "ruling")
        assert keys_of(answer) == ["refusal.already_ruled"]
        assert answer["detail_parts"][0]["params"] == {"code": "INSUFFICIENT_BID"}
        chinese = ENGINE_ZH["engine.refusal.already_ruled"].replace("{code}", "")
        assert CJK.search(chinese) and not latin_words(chinese), chinese
