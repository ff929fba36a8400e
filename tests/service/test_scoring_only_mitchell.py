"""A scoring-only Mitchell (4 tables x 3 rounds x 3 boards: 36 results) keyed entirely from the table terminals:
the tables play real cards, each North terminal keys contract, declarer, opening lead and tricks (table/events.py
``result``), the opponents confirm (on their own device), and the travellers and
rankings of ``GET /api/public/results`` equal an independent calculation written here: the Law 77 score table
written out, matchpoints 2 per result beaten and 1 per tie, percentages of the top. Table 1's first round is
keyed through the seat page in a headless Chromium at 390x844; the other results over HTTP with seat tokens."""
from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
import pytest
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import SeatSignIn, ServerProcess, ServiceThread

EVENT = {"name": "Scoring-only Mitchell", "scoring": "MP",
         "movement": {"kind": "mitchell", "tables": 4, "rounds": 3, "boards_per_round": 3}}
CONFIG = {"tables": [{"id": str(t)} for t in range(1, 5)],
          "regulation": {"spectators": {"delay_s": 0}, "results_release": "all_tables"}, "event": EVENT}

# --------------------------------------------------------------------------------- Law 77, written out here
VUL_CYCLE = ["-", "NS", "EW", "All", "NS", "EW", "All", "-", "EW", "All", "-", "NS", "All", "-", "NS", "EW"]
TRICK_VALUE = {"C": (20, 20), "D": (20, 20), "H": (30, 30), "S": (30, 30), "NT": (40, 30)}   # first, each later
UNDER = {  # undertricks 1, 2, 3, each further: (not vulnerable, vulnerable) x (undoubled, doubled, redoubled)
    False: {"": (50, 50, 50, 50), "X": (100, 200, 200, 300), "XX": (200, 400, 400, 600)},
    True: {"": (100, 100, 100, 100), "X": (200, 300, 300, 300), "XX": (400, 600, 600, 600)},
}


def declarer_vulnerable(board: int, declarer: str) -> bool:
    v = VUL_CYCLE[(board - 1) % 16]
    return v == "All" or (v != "-" and declarer in v)


def law77(level: int, strain: str, risk: str, vul: bool, tricks: int) -> int:
    """The declaring side's score (negative: the defenders')."""
    need = level + 6
    mult = {"": 1, "X": 2, "XX": 4}[risk]
    if tricks < need:
        down = need - tricks
        steps = UNDER[vul][risk]
        return -sum(steps[min(i, 3)] for i in range(down))
    first, later = TRICK_VALUE[strain]
    contract_points = (first + later * (level - 1)) * mult
    score = contract_points
    score += (500 if vul else 300) if contract_points >= 100 else 50
    if level == 6:
        score += 750 if vul else 500
    if level == 7:
        score += 1500 if vul else 1000
    score += {"": 0, "X": 50, "XX": 100}[risk]
    over = tricks - need
    if risk == "":
        score += over * later
    else:
        score += over * (200 if vul else 100) * mult // 2
    return score


def test_law77_table_spot_checks() -> None:
    assert law77(4, "S", "", False, 10) == 420 and law77(3, "NT", "", True, 9) == 600
    assert law77(4, "S", "X", False, 10) == 590 and law77(1, "NT", "", False, 8) == 120
    assert law77(6, "H", "", True, 12) == 1430 and law77(7, "NT", "XX", True, 13) == 2980
    assert law77(4, "H", "X", False, 6) == -800 and law77(3, "C", "XX", True, 5) == -2200
    assert law77(2, "H", "X", True, 8) == 670 and law77(2, "D", "X", True, 9) == 380
    assert law77(1, "C", "", False, 7) == 70 and law77(5, "C", "XX", False, 12) == 1000


def matchpoints(scores: list[int]) -> list[int]:
    """North-South matchpoints on one board: 2 for each score beaten, 1 for each tie."""
    return [sum(2 if s > o else 1 if s == o else 0 for j, o in enumerate(scores) if j != i)
            for i, s in enumerate(scores)]


# --------------------------------------------------------------------------------- the evening
def random_result(rng: random.Random) -> dict[str, Any]:
    if rng.random() < 0.06:
        return {"type": "result", "contract": "PASS"}
    level, strain = rng.choice([1, 2, 2, 3, 3, 4, 4, 4, 5, 6, 7]), rng.choice(["C", "D", "H", "S", "NT"])
    risk = rng.choice(["", "", "", "X", "XX"])
    need = level + 6
    tricks = max(0, min(13, need + rng.choice([-3, -2, -1, -1, 0, 0, 0, 1, 1, 2])))
    suit, rank = rng.choice("SHDC"), rng.choice("AKQJT98765432")
    return {"type": "result", "contract": f"{level}{strain}{risk}", "declarer": rng.choice("NESW"),
            "lead": suit + rank, "tricks": tricks}


def key_over_http(srv: ServerProcess, table: str, board: int, result: dict[str, Any],
                  clients: dict[tuple[str, str], httpx.Client]) -> None:
    north = clients[(table, "N")]
    north.post(f"/api/tables/{table}/events", json={"type": "board", "board": board}).raise_for_status()
    r = north.post(f"/api/tables/{table}/events", json=result)
    assert r.status_code == 200, (table, board, result, r.text)
    confirmer = clients[(table, "E")]
    r = confirmer.post(f"/api/tables/{table}/boards/{board}/confirm", json={"accept": True})
    assert r.status_code == 200 and r.json()["side"] == "EW", r.text


# The page's requests for the round's guidance wait until the result is keyed on the page but not yet sent: its last
# field chosen (a script run before the page's own, through the DevTools protocol, which the page's
# Content-Security-Policy does not govern).
ROUND_ARRIVES_WHILE_KEYING = """(() => {
  let keyed; const first = new Promise(r => keyed = r);
  document.addEventListener("input", e => {
    if (e.target.id === "key-tricks" || (e.target.id === "key-level" && e.target.value === "PASS")) keyed();
  }, true);
  const fetch = window.fetch;
  window.fetch = (url, opts) => String(url).includes("/api/event/guidance") ? first.then(() => fetch(url, opts))
                                                                            : fetch(url, opts);
})()"""


def key_on_the_page(page: Any, board: int, result: dict[str, Any], west: httpx.Client) -> None:
    page.locator("#key-form").wait_for(timeout=10000)
    page.locator("#key-board").fill(str(board))
    if result["contract"] == "PASS":
        page.locator("#key-level").select_option("PASS")
    else:
        c = result["contract"]
        level, rest = c[0], c[1:]
        risk = "XX" if rest.endswith("XX") else "X" if rest.endswith("X") else ""
        page.locator("#key-level").select_option(level)
        page.locator("#key-strain").select_option(rest[:len(rest) - len(risk)])
        page.locator("#key-risk").select_option(risk)
        page.locator("#key-declarer").select_option(result["declarer"])
        page.locator("#key-lead").select_option(result["lead"])
        page.locator("#key-tricks").select_option(str(result["tricks"]))
    # the round's listing is in before the result goes (on the first board it arrives while keying, above)
    wait_until(page, "() => UI.roundBoards !== null")
    page.locator("#key-send").click()
    wait_until(page, "n => state && state.board && state.board.number === n && state.phase === 'board_complete'", board)
    r = west.post(f"/api/tables/1/boards/{board}/confirm", json={"accept": True})   # on West's own device
    assert r.status_code == 200, r.text
    page.locator("#result-section .ok-line").wait_for(timeout=10000)


@pytest.mark.slow
def test_a_scoring_only_mitchell_keyed_from_the_terminals(tmp_path: Path) -> None:
    rng = random.Random(14)
    srv = ServiceThread(tmp_path, CONFIG)
    keyed: dict[tuple[str, int], dict[str, Any]] = {}
    with srv, srv.client(srv.token) as director, browser_session() as browser:
        for t in "1234":
            director.post(f"/api/tables/{t}/kind", json={"kind": "scoring"}).raise_for_status()
        clients = {(t, s): httpx.Client(base_url=srv.base, auth=SeatSignIn(srv, t, s), timeout=10)
                   for t in "1234" for s in "NE"}
        clients[("1", "W")] = httpx.Client(base_url=srv.base, auth=SeatSignIn(srv, "1", "W"), timeout=10)
        try:
            for rnd in (1, 2, 3):
                if rnd > 1:
                    director.post("/api/event/round", json={"round": rnd}).raise_for_status()
                progress = {p["table"]: p for p in director.get("/api/event").json()["progress"]}
                for t in "1234":
                    assert progress[t]["round"] == rnd
                    boards = progress[t]["boards"]
                    assert len(boards) == 3
                    if t == "1" and rnd == 1:                     # this table's first round on the page
                        link = director.get("/api/tables/1/tokens").json()["N"]["link"]
                        page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
                        errors: list[str] = []
                        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
                        # the round's listing arrives once the player has begun keying, as on a slow network:
                        # what he has keyed stays (a loaded whole run lost it when the form was drawn again)
                        page.add_init_script(ROUND_ARRIVES_WHILE_KEYING)
                        page.goto(srv.base + link)
                        for i, b in enumerate(boards):
                            keyed[(t, b)] = random_result(rng)
                            key_on_the_page(page, b, keyed[(t, b)], clients[("1", "W")])
                            if i == 0:
                                page.screenshot(path=str(ARTIFACTS / "seat-scoring-confirmed-phone.png"),
                                                full_page=True)
                        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
                        page.locator("#key-form").wait_for(timeout=10000)
                        page.screenshot(path=str(ARTIFACTS / "seat-scoring-keying-phone.png"), full_page=True)
                        assert not errors, errors
                        rows = director.get("/api/tables/1/events", params={"board": boards[0]}).json()
                        conf = [r["body"] for r in rows if r["kind"] == "confirmation"]
                        assert conf == [{"board": boards[0], "accept": True, "side": "EW", "seat": "W"}]
                        continue
                    for b in boards:
                        keyed[(t, b)] = random_result(rng)
                        key_over_http(srv, t, b, keyed[(t, b)], clients)
                # a seat never sees a board its table still has to play
                if rnd == 1:
                    seat_view = clients[("1", "E")].get("/api/public/results").json()
                    later = {b for (tt, b) in keyed if tt != "1"} - {b for (tt, b) in keyed if tt == "1"}
                    for b in seat_view["boards"]:
                        if b["board"] in later:
                            assert not b["visible"] and "travellers" not in b
        finally:
            for c in clients.values():
                c.close()
        assert len(keyed) == 36
        view = director.get("/api/public/results").json()

    # ----------------------------------------------------------------------- the independent calculation
    travellers = {b["board"]: [r for tr in b["travellers"] for r in tr["rows"]] for b in view["boards"]}
    assert sorted(travellers) == list(range(1, 13)) and all(len(rows) == 3 for rows in travellers.values())
    totals: dict[tuple[str, int], list[float]] = defaultdict(lambda: [0.0, 0.0])     # (field, pair) -> [mp, top]
    for board, rows in travellers.items():
        expected_scores = []
        for r in rows:
            res = keyed[(r["table"], board)]
            if res["contract"] == "PASS":
                assert r["contract"] in ("PASS", None) and r["declarer"] is None, r
                score = 0
            else:
                c = res["contract"]
                risk = "XX" if c.endswith("XX") else "X" if c.endswith("X") else ""
                level, strain = int(c[0]), c[1:len(c) - len(risk)]
                decl = res["declarer"]
                s = law77(level, strain, risk, declarer_vulnerable(board, decl), res["tricks"])
                score = s if decl in "NS" else -s
                assert (r["contract"], r["declarer"], r["tricks"], r["lead"]) == (c, decl, res["tricks"], res["lead"])
            assert r["score_ns"] == score, (board, r, res)
            expected_scores.append(score)
        mps = matchpoints(expected_scores)
        top = 2 * (len(rows) - 1)
        for r, mp in zip(rows, mps):
            assert r["ns_value"] == pytest.approx(mp), (board, r)
            assert r["ew_value"] == pytest.approx(top - mp), (board, r)
            assert r["ns_percent"] == pytest.approx(100 * mp / top, abs=0.01)
            totals[("NS", r["ns"])][0] += mp
            totals[("NS", r["ns"])][1] += top
            totals[("EW", r["ew"])][0] += top - mp
            totals[("EW", r["ew"])][1] += top
    ranking = [row for rk in view["rankings"] for row in rk["rows"]]
    assert len(ranking) == 8
    for row in ranking:
        field = "EW" if str(row["field"]).upper().startswith("E") else "NS"
        pair_mp, pair_top = totals[(field, row["entrant"])]
        assert row["total"] == pytest.approx(pair_mp) and row["top"] == pytest.approx(pair_top), row
        assert row["score"] == pytest.approx(round(100 * pair_mp / pair_top, 2), abs=0.01), row
    for field in ("NS", "EW"):
        mine = [r for r in ranking if ("EW" if str(r["field"]).upper().startswith("E") else "NS") == field]
        by_score = sorted(mine, key=lambda r: -r["score"])
        assert [r["entrant"] for r in by_score] == [r["entrant"] for r in mine], "ranked by percentage"
