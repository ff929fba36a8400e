"""The console's hand records (static/console_handrecords.js) in a real headless Chromium at desktop (1280x900) and
phone (390x844) size, through the page only: the section appears once an event is set up from the form; the
director chooses a Duplimate (.dup) file written here, the page reads it and sends it, and the console shows its
source and its boards; a file short of boards and a file of no known format are refused in the service's words
and change nothing; a secure set replaces the file and the file replaces it again; once the first board starts
the section says the set is frozen and offers nothing; a new event has no set and the section says so. The
demonstration's set (``--simulate``) shows there too.
Screenshots: tests/artifacts/console-handrecords-<desktop|phone>.png."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServiceThread

from table.dealgen import HashDRBG, random_deal
from table.handrecords import HandRecordBoard, to_bytes

SIZES = {"desktop": (1280, 900), "phone": (390, 844)}
CONFIG = {"tables": [{"id": str(t)} for t in range(1, 5)]}          # no event until the director sets one up


def boards(last: int, seed: str) -> list[HandRecordBoard]:
    rng = HashDRBG(seed)
    return [HandRecordBoard.of(n, random_deal(rng)) for n in range(1, last + 1)]


def text(page: Any, selector: str) -> str:
    return str(page.locator(selector).inner_text())


def set_up_event(page: Any, name: str) -> None:
    """A 4-table Mitchell, 4 boards a round: boards 1 to 16, from the evening's form."""
    if not page.locator("#ev-setup").evaluate("d => d.open"):
        page.locator("#ev-setup summary").click()
    page.locator("#ev-form [name=name]").fill(name)
    sec = page.locator("#ev-sections .ev-sec").first
    sec.locator("[name=kind]").select_option("mitchell")
    sec.locator("[name=count]").fill("4")
    sec.locator("[name=bpr]").fill("4")
    page.locator("#ev-create").click()
    wait_until(page, "n => document.getElementById('ev-summary').textContent.includes(n)", name)


def import_file(page: Any, path: Path) -> None:
    page.locator("#hr-file").set_input_files(str(path))
    with page.expect_response(lambda r: r.url.endswith("/api/event/hand-records")
                              and r.request.method == "POST"):
        page.locator("#hr-import").click()
    wait_until(page, "() => !document.getElementById('hr-import').disabled || "
                     "document.getElementById('handrecords-section').classList.contains('hr-frozen')")


@pytest.mark.slow
@pytest.mark.parametrize("size", list(SIZES))
def test_the_director_imports_the_hand_records_from_the_console(tmp_path: Path, size: str) -> None:
    width, height = SIZES[size]
    dup = boards(16, f"console-dup-{size}")
    good, short, notes = tmp_path / "session.dup", tmp_path / "short.dup", tmp_path / "notes.txt"
    good.write_bytes(to_bytes(dup, "DUP"))
    short.write_bytes(to_bytes(dup[:12], "DUP"))
    notes.write_text("not a hand-record file\n", encoding="utf-8")
    with ServiceThread(tmp_path / "srv", CONFIG) as srv, srv.client(srv.token) as d, \
            browser_session() as browser:
        page = browser.new_page(viewport={"width": width, "height": height})
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(f"{srv.base}/console#token={srv.token}")
        wait_until(page, "() => document.getElementById('ev-summary').textContent.length > 0")
        wait_until(page, "() => document.getElementById('hr-summary') !== null")
        # no event: no hand records to import (nothing to check them against)
        assert page.locator("#handrecords-section").is_hidden()
        assert page.locator("#nav-handrecords").is_hidden()

        set_up_event(page, "Hand-record night")
        wait_until(page, "() => !document.getElementById('handrecords-section').hidden")
        assert "No hand records yet" in text(page, "#hr-summary")
        assert page.locator("#nav-handrecords").is_visible()

        # refused in the service's words; nothing is loaded
        import_file(page, short)
        assert "missing board(s): 13, 14, 15, 16" in text(page, "#hr-status")
        assert page.locator("#hr-status.hr-bad").count() == 1
        import_file(page, notes)
        assert "unknown hand-record format" in text(page, "#hr-status")
        assert d.get("/api/event/hand-records").json()["boards"] == []
        assert "No hand records yet" in text(page, "#hr-summary")

        # the Duplimate file, read by the page and sent with its name
        import_file(page, good)
        assert "Imported session.dup: 16 boards." in text(page, "#hr-status")
        assert page.locator("#hr-status.hr-bad").count() == 0
        summary = text(page, "#hr-summary")
        assert "session.dup" in summary and "16 boards (1–16)" in summary and "can be replaced" in summary
        listing = d.get("/api/event/hand-records").json()
        assert listing["source"] == "session.dup"
        assert [b["deal"] for b in listing["boards"]] == [b.deal.to_pbn() for b in dup]

        # a secure set replaces it (the page asks first), then the file replaces that again
        with page.expect_response(lambda r: r.url.endswith("/generate")):
            page.locator("#hr-generate").click()
        wait_until(page, "() => document.getElementById('hr-summary').textContent.includes('generated')")
        assert "nobody can deal it again" in text(page, "#hr-status")
        assert d.get("/api/event/hand-records").json()["source"] == "generated"
        import_file(page, good)
        assert "session.dup" in text(page, "#hr-summary")

        # nothing scrolls sideways; the controls are 44 px touch targets
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), size
        section = page.locator("#handrecords-section")
        assert section.evaluate("s => s.scrollWidth <= s.clientWidth"), size
        for sel in ("#hr-import", "#hr-generate", "#hr-file"):
            assert page.locator(sel).bounding_box()["height"] >= 44, sel
        section.screenshot(path=str(ARTIFACTS / f"console-handrecords-{size}.png"))

        # the first board starts: the set is frozen, the section says so and offers nothing
        r = d.post("/api/tables/1/events", json={"type": "board", "board": 1, "deal": dup[0].deal.to_pbn()})
        assert r.status_code == 200, r.text
        page.reload()
        wait_until(page, "() => (document.getElementById('hr-summary') || {}).textContent?.includes('frozen')")
        for sel in ("#hr-file", "#hr-import", "#hr-generate"):
            assert page.locator(sel).is_disabled(), sel
        assert d.get("/api/event/hand-records").json()["replaceable"] is False

        # a new event (the page asks before replacing one with play) has no set yet: the section follows it
        set_up_event(page, "Second night")
        wait_until(page, "() => document.getElementById('hr-summary').textContent.includes('No hand records yet')")
        assert page.locator("#hr-import").is_enabled()
        import_file(page, good)
        assert "session.dup" in text(page, "#hr-summary") and "can be replaced" in text(page, "#hr-summary")
        assert d.get("/api/event/hand-records").json()["source"] == "session.dup"
        page.close()


@pytest.mark.slow
def test_the_console_shows_the_demonstrations_hand_records(tmp_path: Path) -> None:
    """``make run``'s robots play a set the console lists like an imported one, frozen once they started."""
    srv = ServiceThread(tmp_path, {}, simulate=2, extra_args=("--pace", "0.05", "--seed", "3"))
    with srv, browser_session() as browser:
        page = browser.new_page(viewport=dict(zip(("width", "height"), SIZES["phone"])))
        page.goto(f"{srv.base}/console#token={srv.token}")
        wait_until(page, "() => (document.getElementById('hr-summary') || {}).textContent?.includes('frozen')",
                   timeout=60)
        summary = text(page, "#hr-summary")
        assert "generated for the demonstration (seed 3" in summary, summary
        assert page.locator("#hr-generate").is_disabled()
