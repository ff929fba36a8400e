"""The engine's translatable sentences (table/texts.py): every key the engine writes has a Chinese entry in
service/web/static/locales/zh-Hant/engine.json with the same placeholders (a missing one would show English on a
Chinese page); a Text is its English sentence, survives copying, and joined pieces keep their keys."""
from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path

from ruling_refusals import ruling_refusals

from table.texts import Text, translatable

ROOT = Path(__file__).resolve().parents[2]
ENGINE_ZH = ROOT / "service" / "web" / "static" / "locales" / "zh-Hant" / "engine.json"


def engine_texts() -> dict[str, str]:
    """Every ``Text(key, english, ...)`` in table/, results/, service/ and drivers/ (the dealing machine's lines):
    key -> the English template a page words (constants only, so a key is greppable)."""
    found: dict[str, str] = {}
    for path in (p for part in ("table", "results", "service", "drivers") for p in (ROOT / part).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Text":
                key = node.args[0]
                page = next((k.value for k in node.keywords if k.arg == "page"), None)
                english = page if page is not None else node.args[1]   # the English a page shows
                assert isinstance(key, ast.Constant) and isinstance(english, ast.Constant), \
                    f"{path}:{node.lineno}: a Text's key and English must be constants"
                assert found.get(key.value, english.value) == english.value, f"{key.value}: two Englishes"
                found[key.value] = english.value
    return found


def placeholders(s: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", s))


def test_every_engine_text_has_its_chinese_with_the_same_placeholders() -> None:
    texts = engine_texts()
    assert len(texts) >= 40, sorted(texts)
    zh = json.loads(ENGINE_ZH.read_text(encoding="utf-8"))
    missing = sorted(k for k in texts if f"engine.{k}" not in zh)
    assert not missing, f"no Chinese for {missing}"
    stale = sorted(k for k in zh if k.removeprefix("engine.") not in texts)
    assert not stale, f"Chinese for keys the engine no longer writes: {stale}"
    for key, english in texts.items():
        chinese = zh[f"engine.{key}"]
        assert placeholders(chinese) == placeholders(english), (key, english, chinese)
        if re.search(r"[A-Za-z]", re.sub(r"\{\w+\}", "", english)):      # words, not only punctuation ("; ")
            assert re.search(r"[\u4e00-\u9fff]", chinese), (key, chinese)


def test_a_text_is_its_english_and_keeps_its_key_through_copies_and_joins() -> None:
    t = Text("auction.insufficient", "{call} does not exceed {call2}", call="1D", call2="1H")
    assert t == "1D does not exceed 1H" and json.dumps(t) == '"1D does not exceed 1H"'
    assert copy.deepcopy(t).params == {"call": "1D", "call2": "1H"}
    joined = "Law 19: " + t + Text("play.all_major", "; two or more penalty cards are all major") + ")"
    assert joined == "Law 19: 1D does not exceed 1H; two or more penalty cards are all major)"
    assert translatable(joined, "detail") == {"detail_parts": [
        {"text": "Law 19: "},
        {"text": "1D does not exceed 1H", "key": "auction.insufficient", "template": "{call} does not exceed {call2}",
         "params": {"call": "1D", "call2": "1H"}},
        {"text": "; two or more penalty cards are all major", "key": "play.all_major",
         "template": "; two or more penalty cards are all major", "params": {}},
        {"text": ")"}]}
    assert translatable("plain", "detail") == {}
    assert Text("play.minor_due", "minor penalty card {card} must be played before another small {suit} (50C)",
                card="S5", suit="S") == "minor penalty card S5 must be played before another small spades (50C)"


def test_a_malformed_events_complaint_is_keyed_not_an_english_parameter() -> None:
    """A card or call that is not one: the complaint (table/cards.py, table/calls.py) is its own keyed piece after
    the event's kind, so a Chinese page words both (it was an English ``why`` parameter)."""
    from table.errors import BridgeError
    from table.events import event_from_dict

    for body, english, keys in (
            ({"type": "card", "seat": "N", "card": "ZZ"}, "card event: not a card: 'ZZ'",
             ["event.malformed", "cards.not_a_card"]),
            ({"type": "call", "seat": "N", "call": "9Z"}, "call event: not a call: '9Z'",
             ["event.malformed", "calls.not_a_call"]),
            # digits str.isdigit() takes and int() refuses or reads (the live-table fuzzer's "¹0")
            ({"type": "call", "seat": "N", "call": "¹0"}, "call event: not a call: '¹0'",
             ["event.malformed", "calls.not_a_call"]),
            ({"type": "call", "seat": "N", "call": "１NT"}, "call event: not a call: '１NT'",
             ["event.malformed", "calls.not_a_call"])):
        try:
            event_from_dict(body)
        except BridgeError as err:
            message = err.args[0]
        else:
            raise AssertionError(body)
        assert message == english and [p.key for p in message.pieces()] == keys


def test_a_refused_ruling_is_keyed_and_its_english_unchanged() -> None:
    """A ruling the engine refuses (issue 24: "'x' is not an option for CODE" was English on a Chinese console):
    each refusal is a keyed sentence, its English as it was written before (these strings, byte for byte)."""
    refused = {what: (str(text), [p.key for p in text.pieces() if isinstance(p, Text)])
               for what, text in ruling_refusals().items()}
    assert refused == {
        "an option the irregularity has not": (
            "'retract' is not an option for OPENING_LEAD_OUT_OF_TURN; the options are spread, accept, refuse",
            ["refusal.not_an_option_among"]),
        "another's choice": ("W may not choose 'accept' for OPENING_LEAD_OUT_OF_TURN: the choice is declarer's",
                             ["refusal.not_the_chooser"]),
        "a revoke option that is none": ("'accept' is not an option for REVOKE; the options are correct, 64B4, 64B5",
                                         ["refusal.not_an_option_among"]),
        "an exemption with no revoke": ("no established REVOKE to exempt", ["refusal.no_revoke_to_exempt"]),
        "a correction with no revoke": (
            "no REVOKE that can still be corrected (63C: once established a revoke stands, except on trick 12, 62D)",
            ["refusal.no_revoke_to_correct", "refusal.established_revoke_stands"]),
        "an omitted card in a trick not played": ("trick 5 is not a completed trick",
                                                  ["refusal.not_a_completed_trick"]),
        "an auction option that is none": ("'retract' is not an option for INSUFFICIENT_BID",
                                           ["refusal.not_an_option"]),
        "a Law 23 question never asked": ("no open COMPARABLE_CALL_RULING to rule on", ["refusal.nothing_open"]),
        "a 27B1 replacement that never was": ("no insufficient bid replaced under 27B1 to rule conventional",
                                              ["refusal.no_27b1_replacement"])}
