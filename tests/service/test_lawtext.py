"""The law texts per edition: the seed's Chinese wording (1997), brief quotations of the 2017 Laws, the
paraphrases; their lookup and fallbacks, and the route the console and seat pages read over real HTTP."""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from service_harness import ServerProcess, ServiceThread

from service.live.lawtext import SEED, STATEMENTS, WBF2017, LawTextError, edition_name, law_text, statement
from service.sim.dealing import deal_for

TEXTS = Path(__file__).resolve().parents[2] / "service" / "live" / "lawtexts"


# ---------------------------------------------------------------------------------------------- the files
def test_each_file_names_its_source() -> None:
    seed = json.loads((TEXTS / "wbf1997-cba1999.json").read_text(encoding="utf-8"))
    assert seed["source"] == "1997 WBF Laws of Duplicate Contract Bridge, 1999 Chinese Bridge Association edition"
    assert seed["edition"] == SEED and seed["lang"] == "zh-Hant"
    wbf = json.loads((TEXTS / "wbf2017.json").read_text(encoding="utf-8"))
    assert wbf["edition"] == WBF2017 and "2017 WBF Laws" in wbf["source"]
    assert "not an official translation" in wbf["zh"]
    for law, entry in wbf["laws"].items():
        assert entry["kind"] in ("quotation", "summary"), law
        # the project's Chinese summary: Chinese, no word in Latin letters but law numbers (as a Chinese page)
        assert re.search(r"[\u4e00-\u9fff]", entry["zh"]), law
        assert not [w for w in re.findall(r"[A-Za-z0-9]*[A-Za-z][A-Za-z0-9()]*", entry["zh"])
                    if not re.fullmatch(r"[0-9]+[A-Z][0-9A-Za-z()]*|[a-z]", w)], (law, entry["zh"])
        assert entry["zh"].count("「") == entry["zh"].count("」") == entry["text"].count('"') // 2, law
        assert len(entry["text"]) <= 400, f"{law}: a quotation stays brief"
        assert entry["url"] is None or entry["url"].startswith("http"), law


def test_seed_text_covers_every_law_the_matrix_cites() -> None:
    from table.editions import EDITION_1997
    for rect in EDITION_1997.rectifications.values():
        if rect.law != "—":
            found = law_text(rect.law, SEED, "zh")
            assert found is not None and found["lang"] == "zh", rect.law


def test_2017_quotation_for_every_law_of_the_2017_matrix() -> None:
    from table.editions import EDITION_2017
    for rect in EDITION_2017.rectifications.values():
        found = law_text(rect.law, WBF2017)
        assert found is not None and found["edition"] == WBF2017 and "fallback" not in found, rect.law


# ---------------------------------------------------------------------------------------------- lookup
def test_seed_chinese_text_and_its_sections() -> None:
    t = law_text("27B2", "1997", "zh")
    assert t is not None
    assert t["cited"] == "27B2" and t["title"] == "不足叫牌" and t["source"].startswith("1997 WBF Laws")
    assert t["text"].startswith("2.約定叫牌") and "必須永遠不叫" in t["text"]
    whole = law_text("27", None, "zh")
    assert whole is not None and whole["text"].startswith("第27條：不足叫牌") and "27C" not in whole["text"]
    assert "C．越序的不足叫牌" in whole["text"] and "3.更改為加倍或再加倍" in whole["text"]
    sub = law_text("30B2b", SEED)
    assert sub is not None and sub["text"].startswith("（b）對違規者同伴的限制") and "加倍或再加倍" in sub["text"]


def test_fallback_to_the_nearest_parent_and_the_first_of_several() -> None:
    t = law_text("55A9", SEED, "zh")
    assert t is not None and t["cited"] == "55A" and "任一防家" in t["text"]
    assert law_text("30A/30B1", SEED, "zh")["cited"] == "30A"          # type: ignore[index]
    assert law_text("27B1(a)", SEED, "zh")["cited"] == "27B1a"         # type: ignore[index]
    two = law_text("27B1(b)/27B2", WBF2017)
    assert two is not None and two["cited"] == "27B1b" and "comparable" in two["text"]


def test_2017_quotation_with_its_source_and_the_unchanged_laws_fall_back() -> None:
    t = law_text("55A", "2017")
    assert t is not None and t["kind"] == "quotation" and t["lang"] == "en"
    assert "next in turn to the irregular lead shall prevail" in t["text"]
    assert t["url"] == "https://directors.welshbridgeunion.org/rule-of-the-month/april-2020/"
    zh = law_text("55A", "2017", "zh")
    assert zh is not None and zh["lang"] == "zh" and zh["kind"] == "summary_zh" and zh["cited"] == "55A"
    assert zh["original"] == t["text"] and zh["original_kind"] == "quotation" and zh["url"] == t["url"]
    assert "任一防家" in zh["text"] and "「若兩位防家的選擇不同" in zh["text"]
    unchanged = law_text("44C", WBF2017)
    assert unchanged is not None and unchanged["kind"] == "paraphrase" and "fallback" in unchanged
    assert unchanged["text"] == STATEMENTS["44C"]
    unchanged_zh = law_text("44C", WBF2017, "zh")                       # in Chinese: the seed's text of that law
    assert unchanged_zh is not None and unchanged_zh["lang"] == "zh" and unchanged_zh["edition"] == SEED
    assert unchanged_zh["text"] == law_text("44C", SEED, "zh")["text"] and "fallback" in unchanged_zh  # type: ignore[index]


def test_english_paraphrase_and_unknown_laws() -> None:
    t = law_text("30B1", SEED, "en")
    assert t is not None and t["kind"] == "paraphrase" and t["text"] == STATEMENTS["30"] == statement("30B1")
    for unknown in ("999", "94", "0", "", "\x00", "Law", "27Z", None):
        assert law_text(unknown) is None, unknown
    with pytest.raises(LawTextError, match="unknown law edition") as edition:
        law_text("27", "2007")
    with pytest.raises(LawTextError, match="unknown language") as language:
        law_text("27", SEED, "fr")
    # keyed for a page's language (issue 24), the English as before
    assert edition.value.args[0] == "unknown law edition '2007' (available: wbf1997-cba1999, wbf2017)"
    assert edition.value.args[0].key == "refusal.law_edition"
    assert language.value.args[0] == "unknown language 'fr' (available: zh, en)"
    assert language.value.args[0].key == "refusal.law_language"
    assert law_text("27/")["cited"] == "27"                            # type: ignore[index]
    assert edition_name(None, WBF2017) == WBF2017 and edition_name("1997") == SEED


# ---------------------------------------------------------------------------------------------- over HTTP
def _server(tmp: Path, edition: str) -> ServerProcess:
    return ServiceThread(tmp, {"tables": [{"id": "A"}], "regulation": {"law_edition": edition}})


@pytest.fixture(scope="module")
def server2017(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with _server(tmp_path_factory.mktemp("laws2017"), WBF2017) as srv:
        yield srv


@pytest.fixture(scope="module")
def server1997(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with _server(tmp_path_factory.mktemp("laws1997"), SEED) as srv:
        yield srv


def _insufficient_bid(director: httpx.Client) -> dict[str, object]:
    """N 1S, E 1H (insufficient); E then bids 3H (not the lowest sufficient bid): the director's choice."""
    for event in ({"type": "board", "board": 1, "deal": deal_for(3, 1).to_pbn()},
                  {"type": "call", "seat": "N", "call": "1S"}, {"type": "call", "seat": "E", "call": "1H"},
                  {"type": "ruling", "code": "INSUFFICIENT_BID", "option": "refuse"},
                  {"type": "call", "seat": "E", "call": "3H"}):
        r = (director.post("/api/tables/A/rulings", json={k: v for k, v in event.items() if k != "type"})
             if event["type"] == "ruling" else director.post("/api/tables/A/events", json=event))
        assert r.status_code == 200, (event, r.text)
    state: dict[str, object] = director.get("/api/tables/A").json()
    return state


def test_2017_event_shows_the_2017_text_and_options(server2017: ServerProcess) -> None:
    with server2017.client(server2017.token) as director, server2017.client() as anon:
        state = _insufficient_bid(director)
        irrs = {i["code"]: i for i in state["irregularities"]}       # type: ignore[attr-defined]
        comparable = irrs["COMPARABLE_CALL_RULING"]
        assert comparable["law"] == "23"
        assert {o["code"] for o in comparable["options"]} == {"comparable", "not_comparable"}
        for law in (comparable["law"], irrs["INSUFFICIENT_BID"]["law"]):
            by_table = anon.get(f"/api/laws/{law}", params={"table": "A"}).json()
            by_default = anon.get(f"/api/laws/{law}").json()
            assert by_table == by_default and by_table["edition"] == WBF2017 and by_table["lang"] == "en"
            assert "fallback" not in by_table, law
        ib = anon.get(f"/api/laws/{irrs['INSUFFICIENT_BID']['law']}", params={"table": "A"}).json()
        assert "comparable call" in ib["text"] and ib["source"].startswith("2017 WBF Laws")
        t = anon.get("/api/laws/23", params={"table": "A"}).json()
        assert "comparable" in t["text"] and t["url"].startswith("https://www.pzbs.pl/")
        ib = anon.get("/api/laws/27B1a").json()
        assert "lowest sufficient bid which specifies the same denomination" in ib["text"]
        # the seed's Chinese is still there when asked for by edition
        seed = anon.get("/api/laws/27B2", params={"edition": SEED}).json()
        assert seed["lang"] == "zh" and "不足叫牌" in seed["title"]
        assert anon.get("/api/laws/999").status_code == 404
        assert anon.get("/api/laws/27", params={"edition": "2007"}).status_code == 422
        assert anon.get("/api/laws/27", params={"lang": "fr"}).status_code == 422
        assert anon.get("/api/laws/27", params={"table": "Z"}).status_code == 404


def test_1997_event_shows_the_seed_chinese_text(server1997: ServerProcess) -> None:
    with server1997.client(server1997.token) as director, server1997.client() as anon:
        state = _insufficient_bid(director)
        codes = [i["code"] for i in state["irregularities"]]        # type: ignore[attr-defined]
        assert "INSUFFICIENT_BID" in codes and "COMPARABLE_CALL_RULING" not in codes
        law = next(i["law"] for i in state["irregularities"] if i["code"] == "INSUFFICIENT_BID")  # type: ignore[attr-defined]
        t = anon.get(f"/api/laws/{law}", params={"table": "A"}).json()
        assert t["edition"] == SEED and t["lang"] == "zh" and t["source"].startswith("1997 WBF Laws")
        assert "不足叫牌" in t["text"] or "不足叫牌" in t["title"]
        assert anon.get("/api/laws/27", params={"lang": "en"}).json()["text"] == STATEMENTS["27"]
        assert anon.get("/api/laws/%00").status_code == 404 and anon.get("/api/laws/999").status_code == 404
