"""Must-show 3, as the players meet it: the director sets up the event from the console's form (a Mitchell of 4
tables with a relay and bye stand; a Howell of 6 pairs), the tables are scoring-only, every pair has its seat page
open from the table card's QR link (``GET /api/tables/{id}/cards``: North's page for the North-South pair, East's
for the East-West pair) in a headless Chromium at 390x844. Each board is keyed and confirmed over HTTP with those
pages' own seat tokens (for speed); at the end of EVERY round the test reads the guidance each page shows and
compares it, for every table, with the movement itself (``results/movement.py``, computed here from the Movement
object: the next round's seating and where each board set is played next). Then the director moves every table on
with the console's button and every page follows its pair to the pair's table and seat in the next round by itself
(``POST /api/signin/renew`` with its token).
Screenshots: tests/artifacts/seat-guidance-<movement>-r<round>-phone.png, console-guidance-<movement>-phone.png."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from headless import ARTIFACTS, wait_until
from service_harness import ServiceThread

from results.movement import Movement, Sitting, howell, mitchell

PHONE = {"width": 390, "height": 844}
NO_SIDEWAYS = "() => document.documentElement.scrollWidth <= window.innerWidth"
# a POST with the page's own seat token (seat.js keeps it in TOKEN)
POST_AS_PAGE = """async ([path, body]) => {
  const r = await fetch(path, {method: 'POST', body: JSON.stringify(body),
    headers: {'Authorization': 'Bearer ' + TOKEN, 'Content-Type': 'application/json'}});
  return [r.status, await r.text()];
}"""
GUIDANCE = """() => { const el = document.getElementById('guidance-section');
  if (el.hidden || !el.querySelector('h2')) return null;
  return [el.querySelector('h2').textContent, [...el.querySelectorAll('li')].map(li => li.textContent)]; }"""

CASES = {
    "mitchell-4-relay": ({"kind": "mitchell", "count": 4, "bpr": 2, "even": "relay"},
                         mitchell(4, boards_per_round=2, even="relay")),
    "howell-6": ({"kind": "howell", "count": 6, "bpr": 2}, howell(6, 2)),
}


# ------------------------------------------------------------------------------ what the movement itself says
def playing_in(mv: Movement, pair: int, rnd: int) -> Sitting | None:
    found = [s for s in mv.sittings if s.round == rnd and pair in (s.ns, s.ew)]
    return found[0] if found and not found[0].sit_out else None


def expected_guidance(mv: Movement, table: int, rnd: int) -> tuple[str, list[str]]:
    """The heading and lines the seat page must show at ``table`` after round ``rnd`` (its English wording)."""
    here = mv.at(table, rnd)
    last = rnd == mv.rounds[-1]
    lines = []
    for direction, pair in (("NS", here.ns), ("EW", here.ew)):
        if pair is None:
            continue
        label = mv.label(pair)         # as the results name the pair: a Mitchell's EW pair 5 of 4 tables is "EW 1"
        number = label.removeprefix(direction + " ")
        nxt = None if last else playing_in(mv, pair, rnd + 1)
        if nxt is None:
            lines.append(f"{direction} pair {number}: no further round here (a sit-out, or the event ends)")
            continue
        where = "NS" if nxt.ns == pair else "EW"
        lines.append(f"{direction} pair {number}: stay at table {table}, {where}" if nxt.table == table and
                     where == direction else f"{direction} pair {number}: go to table {nxt.table}, sit {where}")
    numbers = ", ".join(map(str, here.boards))
    dest = [] if last else sorted(s.table for s in mv.sittings if s.round == rnd + 1 and s.boards == here.boards)
    again = any(s.round > rnd + 1 and s.boards == here.boards for s in mv.sittings)
    now = [s.table for s in mv.sittings if s.round == rnd and s.boards == here.boards and not s.sit_out
           and s.table != table]
    if now:                       # a relay: the other table plays them this round too; they go on once both are done
        lines.append(f"Boards {numbers} are shared with table {', '.join(map(str, sorted(now)))} this round: "
                     "they go on once both tables have played them.")
    if len(dest) > 1:
        others = ", ".join(map(str, dest[1:]))
        lines.append(f"Boards {numbers} go to table {dest[0]}, which shares them with table {others}.")
    elif dest:
        lines.append(f"Boards {numbers} go to table {dest[0]}.")
    elif again:
        lines.append(f"Boards {numbers} go to the bye stand: a later round plays them.")
    else:
        lines.append(f"Boards {numbers}: not played again; hand them to the director.")
    return ("The last round is over" if last else f"End of round {rnd}"), lines


def test_expected_guidance_reads_the_movement() -> None:
    mv = mitchell(4, boards_per_round=2, even="relay")
    # round 1: EW 1 (pair 5) moves up to table 2, the boards of table 1 (shared with table 4) go down to table 3;
    # table 3's set waits on the bye stand in round 2
    assert expected_guidance(mv, 1, 1) == ("End of round 1", ["NS pair 1: stay at table 1, NS",
                                                               "EW pair 1: go to table 2, sit EW",
                                                               "Boards 1, 2 are shared with table 4 this round: "
                                                               "they go on once both tables have played them.",
                                                               "Boards 1, 2 go to table 3."])
    assert expected_guidance(mv, 3, 1)[1][-1] == "Boards 7, 8 go to the bye stand: a later round plays them."
    # table 2's boards go to table 1, which plays them in round 2 with the relay table 4
    assert expected_guidance(mv, 2, 1)[1][-1] == "Boards 3, 4 go to table 1, which shares them with table 4."
    assert expected_guidance(mv, 2, 4)[0] == "The last round is over"


# ------------------------------------------------------------------------------ the evening
def set_up_from_the_form(console: Any, form: dict[str, Any], tables: int) -> None:
    console.locator("#ev-setup summary").click()
    console.locator("#ev-form [name=name]").fill("Guidance night")
    sec = console.locator("#ev-sections .ev-sec").first
    sec.locator("[name=kind]").select_option(form["kind"])
    sec.locator("[name=count]").fill(str(form["count"]))
    sec.locator("[name=bpr]").fill(str(form["bpr"]))
    if "even" in form:
        sec.locator("[name=even]").select_option(form["even"])
    console.locator("#ev-create").click()
    wait_until(console, "n => document.querySelectorAll('#ev-tables .ev-card').length === n", tables)


def post(page: Any, path: str, body: dict[str, Any]) -> str:
    status, text = page.evaluate(POST_AS_PAGE, [path, body])
    assert status == 200, (path, body, status, text)
    return str(text)


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_every_pair_sees_where_to_go_after_every_round(tmp_path: Path, browser: Any, case: str) -> None:
    form, mv = CASES[case]
    tables = [str(t) for t in mv.tables]
    config = {"regulation": {"spectators": {"delay_s": 0}, "results_release": "immediate"}}
    with ServiceThread(tmp_path, config) as srv, srv.client(srv.token) as director:
        contexts = []
        try:
            ctx = browser.new_context(viewport=PHONE)
            contexts.append(ctx)
            console = ctx.new_page()
            console.on("dialog", lambda d: d.accept())
            console.goto(f"{srv.base}/console#token={srv.token}")
            wait_until(console, "() => document.getElementById('ev-summary').textContent.length > 0")
            set_up_from_the_form(console, form, len(tables))
            # the boards section lists the new event at once (its own refresh comes every 10 s)
            wait_until(console, "n => document.querySelectorAll('#boards-list button.pick').length === n",
                       sum(len(s.boards) for s in mv.sittings), 5)
            event = director.get("/api/event").json()
            assert sorted(p["table"] for p in event["progress"]) == sorted(tables)
            assert event["event"]["sections"][0]["kind"] == form["kind"]
            for t in tables:
                director.post(f"/api/tables/{t}/kind", json={"kind": "scoring"}).raise_for_status()

            # one page per pair: North's (the NS pair) and East's (the EW pair), from the table cards' links
            pages: dict[tuple[str, str], Any] = {}
            for t in tables:
                seats = director.get(f"/api/tables/{t}/cards").json()["seats"]
                for seat in ("N", "E"):
                    c = browser.new_context(viewport=PHONE)
                    contexts.append(c)
                    page = c.new_page()
                    page.goto(seats[seat]["link"])
                    pages[(t, seat)] = page
            for (t, seat), page in pages.items():
                wait_until(page, "([t, s]) => typeof TOKEN === 'string' && TOKEN.startsWith(`seat.${t}.${s}`) && "
                                 "state !== null", [t, seat])

            for rnd in mv.rounds:
                progress = {p["table"]: p for p in director.get("/api/event").json()["progress"]}
                for t in tables:
                    here = mv.at(int(t), rnd)
                    assert progress[t]["round"] == rnd and progress[t]["boards"] == list(here.boards), (t, rnd)
                    north, east = pages[(t, "N")], pages[(t, "E")]
                    for i, board in enumerate(here.boards):      # keyed at the table, the opponents confirm
                        post(north, f"/api/tables/{t}/events", {"type": "board", "board": board})
                        post(north, f"/api/tables/{t}/events", {"type": "result", "contract": "3NT",
                                                                "declarer": "NESW"[(board + i) % 4],
                                                                "tricks": 7 + (board % 5)})
                        post(east, f"/api/tables/{t}/boards/{board}/confirm", {"accept": True})
                for (t, seat), page in pages.items():
                    heading, lines = expected_guidance(mv, int(t), rnd)
                    wait_until(page, f"h => {{ const g = ({GUIDANCE})(); return g !== null && g[0] === h; }}",
                               heading)
                    assert page.evaluate(GUIDANCE) == [heading, lines], (case, t, seat, rnd)
                    mine = page.locator("#guidance-section li.mine").inner_text()
                    assert mine.startswith("NS pair" if seat == "N" else "EW pair"), (t, seat, mine)
                    assert page.evaluate(NO_SIDEWAYS), (t, seat, rnd)
                pages[("1", "E")].screenshot(path=str(ARTIFACTS / f"seat-guidance-{case}-r{rnd}-phone.png"),
                                             full_page=True)
                if rnd == 1:                              # in the relay Mitchell, table 2's boards go to a shared set
                    pages[("2", "N")].screenshot(path=str(ARTIFACTS / f"seat-guidance-{case}-t2-r1-phone.png"),
                                                 full_page=True)
                if rnd == mv.rounds[-1]:
                    break

                # the director moves every table on from the console; every page follows by itself
                old = {k: p.evaluate("() => TOKEN") for k, p in pages.items()}
                console.locator("#ev-advance-all").click()
                wait_until(console, "r => [...document.querySelectorAll('#ev-tables .ev-round')]"
                                    ".every(e => e.textContent.includes(`round ${r} of`))", rnd + 1)
                if rnd == 1:
                    console.screenshot(path=str(ARTIFACTS / f"console-guidance-{case}-phone.png"), full_page=True)
                # each page follows its pair (not its table) to the pair's seat in the new round: the new round
                # shows there (no old result, the names, its first board), and every table has its two pairs' pages
                moved: dict[tuple[str, str], Any] = {}
                for (t, seat), page in pages.items():
                    wait_until(page, "old => TOKEN !== old && TOKEN.startsWith('seat.')", old[(t, seat)], 20)
                    nt, ns = page.evaluate("() => [TABLE, ME]")
                    pair = mv.at(int(t), rnd).ns if seat == "N" else mv.at(int(t), rnd).ew
                    now = mv.at(int(nt), rnd + 1)
                    assert pair == (now.ns if ns == "N" else now.ew), (case, t, seat, nt, ns)   # its own pair
                    first = now.boards[0]
                    wait_until(page, "first => document.getElementById('signed-out').hidden && "
                                     "document.getElementById('guidance-section').hidden && "
                                     "document.getElementById('result-section').hidden && "
                                     "document.getElementById('players-form') !== null && "
                                     "!document.getElementById('players-section').hidden && "
                                     "document.getElementById('key-board') !== null && "
                                     "!document.getElementById('keying-section').hidden && "
                                     "+document.getElementById('key-board').value === first", first, 20)
                    moved[(nt, ns)] = page
                assert sorted(moved) == sorted(pages), (case, sorted(moved))
                pages = moved
        finally:
            for c in contexts:
                c.close()
