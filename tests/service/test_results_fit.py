"""The live results (``/results``) and the club's big screen (``/results?screen=1``) fit the screens clubs use:
in headless Chromium at 1920x1080 and 1280x720 (the big screen, and the page on a laptop) and 390x844 (a phone),
every cell of every traveller and ranking on screen lies inside the box that holds it, inside its section and
inside the viewport, and no table hides a column behind sideways scrolling. A table too wide for its box turns
into one card a row (each cell under its column's name). An evening of 3 tables with long names, every board
played. Screenshots: tests/artifacts/results-fit-<view>-<width>x<height>.png."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from headless import ARTIFACTS, wait_until
from service_harness import ServiceThread
from test_results_page import play

# the guide's pictures of the results at a television's and a phone's size: rewritten only with BRIDGETABLE_DOC_IMAGES=1
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "images" / "pages" if os.environ.get(
    "BRIDGETABLE_DOC_IMAGES") == "1" else ARTIFACTS

NAMES = ["Margaret Worthington-Smythe", "Bartholomew Fitzgerald", "Anastasia Kowalczyk-Nguyen",
         "Christopher Vanderbilt", "Philippa Montgomery-Jones", "Alexander Papadopoulos",
         "Guinevere Oyelaran-Castillo", "Maximilian Rasmussen",
         "Evangeline Abernathy-Holt", "Sebastian Szczepanski", "Theodora Bartholomew", "Leopold Wojciechowski"]
EVENT = {"name": "Thursday pairs", "scoring": "MP",
         "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2},
         "entrants": {str(p): NAMES[2 * p - 2: 2 * p] for p in range(1, 7)}}
CONFIG = {"tables": [{"id": "1"}, {"id": "2"}, {"id": "3"}], "event": EVENT,
          "regulation": {"spectators": {"delay_s": 0}, "results_release": "all_tables"}}
# round r: table t plays set (t + r - 2) % 3 + 1 (3-table Mitchell, boards down one table a round)
ROUNDS = [{t: [2 * ((t + r - 2) % 3) + 1, 2 * ((t + r - 2) % 3) + 2] for t in (1, 2, 3)} for r in (1, 2, 3)]
CONTRACTS = [("4S", "N", 10), ("3NTX", "E", 7), ("6HXX", "S", 12), ("1C", "W", 9), ("PASS", None, None),
             ("5DX", "N", 8)]

SIZES = {"1920x1080": (1920, 1080), "1280x720": (1280, 720), "390x844": (390, 844)}
# every cell on screen: [cell text, its box, the table's holder's box, the section's box]; and the holders' widths
MEASURE = """() => {
  const vw = document.documentElement.clientWidth;
  const out = {cells: [], scrolls: [], vw, docw: document.documentElement.scrollWidth};
  document.querySelectorAll('table.traveller, table.ranking').forEach(table => {
    if (!table.offsetParent) return;
    const holder = table.parentElement, section = table.closest('section');
    out.scrolls.push([holder.scrollWidth, holder.clientWidth]);
    const h = holder.getBoundingClientRect(), s = section.getBoundingClientRect();
    table.querySelectorAll('td, th').forEach(c => {
      const r = c.getBoundingClientRect();
      if (!r.width || !r.height) return;
      out.cells.push([c.textContent.trim().slice(0, 40), [r.left, r.right], [h.left, h.right], [s.left, s.right]]);
    });
  });
  return out; }"""


def check_fits(page: Any, what: str) -> int:
    m = page.evaluate(MEASURE)
    assert m["docw"] <= m["vw"], (what, "the page scrolls sideways", m["docw"], m["vw"])
    for scroll_w, client_w in m["scrolls"]:
        assert scroll_w <= client_w + 1, (what, "a table scrolls sideways", scroll_w, client_w)
    for text, (left, right), (hl, hr), (sl, sr) in m["cells"]:
        assert hl - 1 <= left and right <= hr + 1, (what, text, "outside its table's box", left, right, hl, hr)
        assert sl - 1 <= left and right <= sr + 1, (what, text, "outside its section", left, right, sl, sr)
        assert 0 <= left and right <= m["vw"] + 1, (what, text, "outside the screen", left, right, m["vw"])
    return len(m["cells"])


@pytest.mark.parametrize("size", list(SIZES))
def test_results_and_big_screen_fit(tmp_path: Path, browser: Any, size: str) -> None:
    width, height = SIZES[size]
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as director:
        i = 0
        for rnd in ROUNDS:
            for table, boards in rnd.items():
                for b in boards:
                    contract, declarer, tricks = CONTRACTS[i % len(CONTRACTS)]
                    i += 1
                    play(director, str(table), b, contract, declarer, tricks)
            if rnd is not ROUNDS[-1]:
                director.post("/api/event/advance", json={}).raise_for_status()
        ctx = browser.new_context(viewport={"width": width, "height": height})
        try:
            page = ctx.new_page()
            for view, path in (("page", "/results"), ("screen", "/results?screen=1")):
                page.goto(srv.base + path)
                wait_until(page, "() => document.querySelectorAll('table.traveller').length > 0 && "
                                 "document.querySelectorAll('table.ranking tr.rank').length === 6")
                page.wait_for_timeout(300)
                shown = page.evaluate("() => [...document.querySelectorAll('table.traveller, table.ranking')]"
                                      ".filter(t => t.offsetParent).length")
                assert shown >= 3, (view, size, shown)      # a traveller and both fields' rankings at least
                cells = check_fits(page, f"{view} {size}")
                assert cells > 50, (view, size, cells)
                # every score of the traveller on screen is there to read, inside the screen
                scores = page.evaluate("() => [...document.querySelectorAll('table.traveller td.num')]"
                                       ".filter(c => c.offsetParent && c.textContent.trim()).length")
                assert scores > 0, (view, size)
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOTS / f"results-fit-{view}-{size}.png"), full_page=True)
        finally:
            ctx.close()
