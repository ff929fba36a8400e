"""A club evening run by a scoring program through the Data Connector: the unmodified PyPI client sets up a
4-table Mitchell from its own DTOs; the simulated club's robots play tables 1-3 (``simulation.tables = 3``) and
four seat pages in headless Chromium play table 4 (every call, card, claim and claim answer a click on a page;
a new pair scans the table's card each round; a name and a call for the director come from the pages too), and
the results come back through the queues, board by board equal to the service's own; a correction put by the
client shows in the director's console and on ``/results``; a restart in the middle loses nothing from any
queue."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from bridgemate_dataconnector import DataConnectorClient
from bridgemate_dataconnector.dto import (
    Bridgemate3SettingsDTO,
    DataConnectorResponseData,
    ErrorType,
    HandrecordDTO,
    InitDTO,
    ParticipationDTO,
    PlayerDataDTO,
    ResultDTO,
    RoundDTO,
    ScoringGroupDTO,
    SectionDTO,
    SessionDTO,
    TableDirection,
    TableDTO,
)
from dc_helpers import CLUB_ID, LICENCE_KEY, DcServer
from dc_pages import PAGE_TIMEOUT, SeatPages
from headless import ARTIFACTS, browser_session, wait_until

from service.sim.dealing import deal_for

SESSION, EVENT = "0123456789ABCDEF0123456789ABCDEF", "FEDCBA9876543210FEDCBA9876543210"
TABLES, ROUNDS, BOARDS = 4, 3, 8
PAGES_TABLE = 4                            # the seat pages' table; the robots play the others
SEAT_DIR = {"N": TableDirection.North, "E": TableDirection.East, "S": TableDirection.South, "W": TableDirection.West}


def sitting(table: int, rnd: int) -> tuple[int, int, int]:
    """The scoring program's own 4-table Mitchell (EW up one table a round, a skip before round 3, boards down
    one): North-South pair, East-West pair and the first board at ``table`` in ``rnd`` (pairs 1-4 both ways)."""
    for ew in range(1, TABLES + 1):
        if (ew - rnd - (1 if rnd >= 3 else 0)) % TABLES + 1 == table:
            return table, ew, ((table - rnd) % TABLES) * 2 + 1
    raise AssertionError


def init_dto() -> InitDTO:
    rounds_of = []
    for t in range(1, TABLES + 1):
        rounds = []
        for r in range(1, ROUNDS + 1):
            ns, ew, low = sitting(t, r)
            rounds.append(RoundDTO(session_guid=SESSION, section_letters="A", table_number=t, round_number=r,
                                   low_board_number=low, high_board_number=low + 1, pair_ns=ns, pair_ew=ew))
        rounds_of.append(TableDTO(session_guid=SESSION, section_letters="A", table_number=t, rounds=rounds))
    section = SectionDTO(session_guid=SESSION, scoring_group_number=1, letters="A", name="Section A", winners=2,
                         game_type=SectionDTO.GameType_Pairs, tables=rounds_of)
    group = ScoringGroupDTO(session_guid=SESSION, scoring_group_number=1, name="Pairs", sections=[section],
                            scoring_method=ScoringGroupDTO.ScoringType_Pairs)
    session = SessionDTO(event_guid=EVENT, session_guid=SESSION, name="Tuesday pairs", year=2026, month=12, day=3,
                         hour=19, minute=30, scoring_groups=[group])
    players = [PlayerDataDTO(session_guid=SESSION, player_number=str(1000 + i), first_name=f"Ann{i}",
                             last_name=f"Lee{i}") for i in range(1, 5)]
    seats = [ParticipationDTO(session_guid=SESSION, section_letters="A", table_number=1, direction=SEAT_DIR[s],
                              round_number=1, player_number=str(1000 + i)) for i, s in enumerate("NSEW", 1)]
    hands = []
    for n in range(1, BOARDS + 1):
        deal = deal_for(7, n)
        h = HandrecordDTO(session_guid=SESSION, scoring_group_number=1, section_letters="A", board_number=n)
        for seat, word in (("N", "north"), ("E", "east"), ("S", "south"), ("W", "west")):
            for suit, name in (("S", "spades"), ("H", "hearts"), ("D", "diamonds"), ("C", "clubs")):
                ranks = [c[1] for c in deal.hands[seat] if c[0] == suit]   # type: ignore[index]
                setattr(h, f"{word}_{name}", "".join(sorted(ranks, key="AKQJT98765432".index)))
        hands.append(h)
    bm3 = Bridgemate3SettingsDTO(session_guid=SESSION, section_letters="A")
    bm3.bm3_lead_card_entry = 2            # type: ignore[assignment]
    bm3.bm3_screen_brightness, bm3.bm3_pi_ncode = 5, "4321"
    return InitDTO(commands=7, event_guid=EVENT, sessions=[session], player_data=players, participations=seats,
                   handrecords=hands, bridgemate3_settings=[bm3])


def results_by_key(items: list[ResultDTO]) -> dict[tuple[int, int], ResultDTO]:
    out = {}
    for r in items:                        # later items replace earlier ones (a correction, an erasure)
        out[(r.table_number, r.board_number)] = r
    return out


def service_results(server: DcServer) -> dict[tuple[int, int], dict[str, Any]]:
    got = httpx.get(server.base + "/api/results", headers={"Authorization": f"Bearer {server.token}"}).json()
    return {(int(e["table"]), b["board"]): e for b in got for e in b["results"] if b["board"] <= BOARDS}


def contract_of(r: ResultDTO) -> tuple[str, str | None, int | None]:
    if r.level == 0:                           # passed out
        return ("PASS", None, None)
    strain = {1: "C", 2: "D", 3: "H", 4: "S", 5: "NT"}[r.denomination]
    return (f"{r.level}{strain}{['', 'X', 'XX'][r.stake]}", "NESW"[r.declarer_direction - 1], r.total_tricks)


def wait_for(what: str, check: Any, timeout: float = 240.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def play_round_one(table: SeatPages) -> None:
    """The pages' first round: East enters his name; the low board bid (the third hand opens 1C), one trick played
    card by card and declarer's claim accepted by the defenders; the high board passed out."""
    _ns, _ew, low = sitting(PAGES_TABLE, 1)
    table.sit_down()
    table.enter_name("E", "Bo Chan")
    table.put_board(low)
    dealer = table.wait_board(low)
    table.auction(dealer, ["Pass", "Pass", "1C", "Pass", "Pass", "Pass"])
    declarer = "NESW"["NESW".index(dealer) - 2]
    table.wait_phase("opening_lead")
    table.play_cards(4, declarer)
    side = "NS" if declarer in "NS" else "EW"
    won = int(table.pages[declarer].evaluate("s => state.tricks_won[s]", side))
    table.claim(declarer, won + 6)
    table.put_board(low + 1)
    table.pass_out(low + 1)


def play_later_round(table: SeatPages, rnd: int) -> None:
    """A later round: the board of the new round goes on the table (the table moves on), the pair arriving
    scans the card, and both boards are passed out on the pages."""
    _ns, _ew, low = sitting(PAGES_TABLE, rnd)
    for n in (low, low + 1):
        table.put_board(n)
        if n == low:
            table.sit_down()
        table.pass_out(n)


def pages_played(server: DcServer, board: int) -> list[str]:
    """Who made each call, card, claim and claim answer of ``board`` at the pages' table."""
    rows = httpx.get(f"{server.base}/api/tables/{PAGES_TABLE}/events", params={"board": board},
                     headers={"Authorization": f"Bearer {server.token}"}).json()
    return [r["actor"] for r in rows if r["kind"] == "event" and r["body"].get("type") in
            ("call", "card", "claim", "claim_response")]


@pytest.mark.slow
def test_scoring_program_runs_the_evening(tmp_path: Path) -> None:
    config = {"simulation": {"tables": TABLES - 1, "pace_s": 0.02, "irregularity_rate": 0, "seed": 7, "boards": 6},
              "dataconnector": {"table_kind": "played"}}
    server = DcServer(tmp_path / "srv", config).start()
    errors: list[str] = []
    try:
        with browser_session() as browser:
            evening(server, SeatPages(browser, server.base, server.token, str(PAGES_TABLE), errors), browser)
        assert not errors, errors
    finally:
        server.stop()


def evening(server: DcServer, table4: SeatPages, browser: Any) -> None:
    client = DataConnectorClient(CLUB_ID, LICENCE_KEY, server.dc_base)
    assert client.connect().data_type == DataConnectorResponseData.OK
    wrong = DataConnectorClient(CLUB_ID, "not-the-key", server.dc_base).initialize(init_dto())
    assert (wrong.data_type, wrong.error_type) == (DataConnectorResponseData.Error, ErrorType.Validation)
    response = client.initialize(init_dto())
    assert response.data_type == DataConnectorResponseData.OK, response.serialized_data

    # the movement as sent, not recomputed: each table's pairs and boards in each round
    director = {"Authorization": f"Bearer {server.token}"}
    for t in range(1, TABLES + 1):
        for r in range(1, ROUNDS + 1):
            got = httpx.get(server.base + "/api/event/guidance", headers=director,
                            params={"table": str(t), "round": r}).json()
            ns, ew, low = sitting(t, r)
            labels = [(p["direction"], p["label"]) for p in got["pairs"]]
            assert (labels, got["boards"]["numbers"]) == ([("NS", f"NS {ns}"), ("EW", f"EW {ew}")],
                                                          [low, low + 1]), got

    # the scoring program's lead-card setting (BM3LeadCardEntry 2) is the tables' lead check until the director sets
    # one himself
    lead = httpx.get(server.base + "/api/event/lead-check", headers=director).json()
    assert lead["set_by"] is None and lead["tables"]["1"] == "must comply", lead

    # results arrive while the robots play; polling again without accepting returns the same items
    first = wait_for("four results", lambda: (lambda r: r if len(r) >= 4 else None)(
        client.poll_for_results(SESSION)))
    again = client.poll_for_results(SESSION)
    assert [r.to_dict() for r in again[:len(first)]] == [r.to_dict() for r in first]
    accepted_id = client.get_last_queue_item_id(DataConnectorResponseData.Results)
    assert client.accept_queue_data(SESSION, DataConnectorResponseData.Results).data_type == \
        DataConnectorResponseData.OK

    # table 4's first round on its seat pages (East's name entered on his page); then South calls the director
    play_round_one(table4)
    table4.pages["S"].locator("#call-director").click()
    table4.pages["S"].locator('#director-form input[value="other"]').check()
    table4.pages["S"].locator("#director-form [name=note]").fill("a question about the movement")
    table4.pages["S"].locator("#director-send").click()
    before_restart = client.poll_for_results(SESSION, all=True)
    participations = wait_for("the names", lambda: client.poll_for_participations(SESSION), 30)
    assert [(p.table_number, p.round_number, p.direction, p.first_name, p.last_name) for p in participations] == \
        [(PAGES_TABLE, 1, TableDirection.East, "Bo", "Chan")]
    td_calls = wait_for("the TD call", lambda: client.poll_for_td_calls(SESSION), 30)
    assert [(c.table_number, c.round_number, c.status) for c in td_calls] == [(PAGES_TABLE, 1, 1)]
    table4.close()                        # the pair leaves the table; its pages go with it

    # a restart in the middle of the evening loses nothing from any queue
    assert len(results_by_key(before_restart)) < TABLES * 6
    server.stop()
    server.start()
    client = DataConnectorClient(CLUB_ID, LICENCE_KEY, server.dc_base)
    after = client.poll_for_results(SESSION, all=True)
    assert [r.to_dict() for r in after[:len(before_restart)]] == [r.to_dict() for r in before_restart]
    assert [p.to_dict() for p in client.poll_for_participations(SESSION)] == [p.to_dict() for p in participations]
    assert [c.to_dict() for c in client.poll_for_td_calls(SESSION)] == [c.to_dict() for c in td_calls]
    new = client.poll_for_results(SESSION)            # only what came after the accepted id
    assert not new or client.get_last_queue_item_id(DataConnectorResponseData.Results) > accepted_id
    everything = client.poll_for_results(SESSION, all=True)
    assert [r.to_dict() for r in new] == [r.to_dict() for r in everything[len(again):len(again) + len(new)]]

    # table 4's later rounds on the pages of the pairs that sit there then
    for rnd in range(2, ROUNDS + 1):
        play_later_round(table4, rnd)
    table4.close()

    # the evening ends: every table's six boards, and the queue equals the service's results board by board
    wait_for("the evening", lambda: len([e for e in service_results(server).values() if e["complete"]])
             == TABLES * 6, timeout=600)
    own = service_results(server)
    wait_for("the queue to catch up", lambda: len(results_by_key(client.poll_for_results(SESSION, all=True)))
             >= len(own), 30)
    queued = results_by_key(client.poll_for_results(SESSION, all=True))
    assert sorted(queued) == sorted(own)
    for key, entry in own.items():
        assert contract_of(queued[key]) == (entry["contract"], entry["declarer"], entry["tricks"]), key
        if queued[key].level:
            assert queued[key].lead_card_suit in (1, 2, 3, 4) and 2 <= queued[key].lead_card_rank <= 14
    for (t, b), item in queued.items():        # the scoring program's pair numbers and rounds come back
        rnd = next(x for x in range(1, ROUNDS + 1) if b in (sitting(t, x)[2], sitting(t, x)[2] + 1))
        assert (item.round_number, item.pair_north_south, item.pair_east_west) == (rnd, *sitting(t, rnd)[:2])
    # every result of table 4 came from its pages: each call, card, claim and answer a seat's, none a robot's
    mine = sorted(b for t, b in own if t == PAGES_TABLE)
    assert mine == sorted(b for rd in range(1, ROUNDS + 1) for b in (sitting(PAGES_TABLE, rd)[2],
                                                                     sitting(PAGES_TABLE, rd)[2] + 1))
    for b in mine:
        actors = pages_played(server, b)
        assert actors and all(a.startswith(f"seat:{PAGES_TABLE}:") for a in actors), (b, actors)
    played = sitting(PAGES_TABLE, 1)[2]
    assert own[(PAGES_TABLE, played)]["contract"] == "1C" and queued[(PAGES_TABLE, played)].level == 1

    client.poll_for_results(SESSION)
    assert client.accept_queue_data(SESSION, DataConnectorResponseData.Results).data_type == \
        DataConnectorResponseData.OK
    assert client.poll_for_results(SESSION) == []

    # the scoring program's correction of the pages' board: a director's adjustment, in the console and on /results
    t, b = PAGES_TABLE, played
    fix = queued[(t, b)]
    fix.level, fix.denomination, fix.stake, fix.declarer_direction, fix.total_tricks = 3, 5, 0, 1, 10
    put = client.send_results(SESSION, [fix])
    assert put.data_type == DataConnectorResponseData.OK, put.serialized_data
    entry = service_results(server)[(t, b)]
    assert entry["adjustment"]["kind"] == "assigned" and entry["adjustment"]["contract"] == "3NT"
    assert entry["score_ns"] == entry["adjustment"]["score_ns"]
    public = httpx.get(server.base + "/api/public/results").json()
    rows = [row for brd in public["boards"] if brd["board"] == b for tr in brd.get("travellers", [])
            for row in tr["rows"] if row["table"] == str(t)]
    assert rows and rows[0]["contract"] == "3NT", rows
    seen_on_pages(server, browser, t, b, entry["score_ns"])
    assert client.poll_for_results(SESSION) == []            # its own correction is not sent back
    server.stop()                                              # not after a restart either
    server.start()
    client = DataConnectorClient(CLUB_ID, LICENCE_KEY, server.dc_base)
    assert client.poll_for_results(SESSION) == []

    # the director replaces another result by an artificial score: no contract to send, so an erasure
    t2, b2 = sorted(own)[0]
    adj = httpx.post(server.base + f"/api/tables/{t2}/boards/{b2}/adjustment", headers=director,
                     json={"kind": "artificial", "ns": "A+", "ew": "A-"})
    assert adj.status_code == 200, adj.text
    erased = wait_for("the erasure", lambda: client.poll_for_results(SESSION), 30)
    assert [(r.table_number, r.board_number, r.is_deleted) for r in erased] == [(t2, b2, True)]
    # and the director's cancellation sends the table's own result again
    httpx.post(server.base + f"/api/tables/{t2}/boards/{b2}/adjustment", headers=director,
               json={"kind": "cancel"}).raise_for_status()
    client.accept_queue_data(SESSION, DataConnectorResponseData.Results)
    back = wait_for("the result again", lambda: client.poll_for_results(SESSION), 30)
    assert [r.to_dict() for r in back] == [queued[(t2, b2)].to_dict()]


def seen_on_pages(server: DcServer, browser: Any, table: int, board: int, score_ns: int) -> None:
    """The scoring program's correction (3NT by North, 10 tricks) on the director's console (its boards of every
    round and its results) and on the public ``/results`` page, in the pages' text."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        console = ctx.new_page()
        console.goto(f"{server.base}/console#token={server.token}")
        row = console.locator("#boards-list li.board-row").filter(
            has_text=f"table {table} · board {board}")
        row.wait_for(timeout=PAGE_TIMEOUT * 1000)
        assert f"assigned 3NT N 10: NS {score_ns}" in row.inner_text(), row.inner_text()
        console.locator("#refresh-results").click()
        wait_until(console, "s => document.querySelector('#results').innerText.includes(s)",
                   f"T{table} ", timeout=PAGE_TIMEOUT)
        line = next(part for div in console.locator("#results > div").all_inner_texts()
                    if div.startswith(f"Board {board}") for part in div.split("|") if f"T{table} " in part)
        assert f"NS {score_ns}" in line and "adj" in line, line
        console.screenshot(path=str(ARTIFACTS / "dc-correction-console.png"), full_page=True)
        public = ctx.new_page()
        public.goto(f"{server.base}/results")
        traveller = public.locator(f'article[data-board="{board}"] tr.result[data-table="{table}"]')
        traveller.wait_for(timeout=PAGE_TIMEOUT * 1000)
        text = traveller.inner_text()
        assert "3NT" in text and str(abs(score_ns)) in text, text
        public.screenshot(path=str(ARTIFACTS / "dc-correction-results.png"), full_page=True)
    finally:
        ctx.close()
