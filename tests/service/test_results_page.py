"""The event in the service and the live-results page (service/event/tournament.py, /api/public/results, /results).

In process: the event follows the club (rounds inferred from the boards a table starts, a wrong board flagged
to the director and not refused, results and Law 12 adjustments fed to the session, rebuilt after a restart).
Over real HTTP (a server in a child process): the public view hides a board until every table the movement
schedules has completed it; a seat of a table that still has to play a board never gets its results, even
after a director's release; adjustments update the traveller. In a real headless browser (Playwright +
Debian's Chromium): the page as the public and as a seat of a table that has not played a board yet; a
screenshot goes to tests/artifacts/results-page.png (the folder ignores itself in git)."""
from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from headless import ARTIFACTS, browser_session
from service_harness import ServerProcess, ServiceThread

from service.config.event_plan import build_movement
from service.config.loading import load_settings
from service.config.settings import MovementConfig, Regulation
from service.errors import ConfigError
from service.event.tournament import LiveTournament
from service.live.board_results import AdjustmentError, adjustment, board_results
from service.live.club import Club
from service.live.hub import Hub
from service.live.runtime import TableRuntime
from service.live.visibility import DIRECTOR, SPECTATOR
from service.store.journal import CLUB, Journal, Row, utcnow

# Mitchell, 3 tables, 2 boards a round. Round 1: T1 boards 1-2, T2 3-4, T3 5-6; round 2: T1 3-4, T2 5-6,
# T3 1-2; round 3: T1 5-6, T2 1-2, T3 3-4. Board 1 is played at T1 (round 1), T3 (round 2), T2 (round 3).
EVENT = {"name": "Monday pairs", "scoring": "MP",
         "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2},
         "entrants": {"1": ["Ann Able", "Bob Baker"], "4": ["Cy Cole", "Di Dunn"]}}
CONFIG = {"tables": [{"id": "1"}, {"id": "2"}, {"id": "3"}],
          "regulation": {"spectators": {"delay_s": 0}, "results_release": "all_tables"}, "event": EVENT}


def board_events(board: int, contract: str, declarer: str | None, tricks: int | None) -> list[dict[str, Any]]:
    """A whole board the quick way: the board, its contract, an accepted claim (table/machine.py)."""
    call: dict[str, Any] = {"type": "contract", "contract": contract, **({"declarer": declarer} if declarer else {})}
    out: list[dict[str, Any]] = [{"type": "board", "board": board}, call]
    if contract != "PASS":
        assert declarer is not None
        opponents = "EW" if declarer in "NS" else "NS"
        out += [{"type": "claim", "seat": declarer, "tricks": tricks}]
        out += [{"type": "claim_response", "seat": s, "accept": True} for s in opponents]
    return out


def play(client: httpx.Client, table: str, board: int, contract: str = "4S", declarer: str | None = "N",
         tricks: int | None = 10) -> None:
    for body in board_events(board, contract, declarer, tricks):
        r = client.post(f"/api/tables/{table}/events", json=body)
        assert r.status_code == 200, (body, r.text)


def board_entry(view: dict[str, Any], n: int) -> dict[str, Any]:
    return next(b for b in view["boards"] if b["board"] == n)


def scores(view: dict[str, Any], n: int) -> dict[str, Any]:
    """table -> score NS (or the adjustment) on board n, from a view that shows it."""
    b = board_entry(view, n)
    return {r["table"]: r["adjusted"] if r.get("law") == "12C1" else r["score_ns"]
            for t in b["travellers"] for r in t["rows"]}


# ---------------------------------------------------------------------------------------------- adjustments
def test_an_artificial_adjustment_reads_the_awards_as_results_writes_them() -> None:
    """Law 12C1 awards as ``results.scoring`` spells them (A+, A=, A-) or as A, or a percentage; journalled as
    percentages of the top."""
    for ns, ew, expected in (("A+", "A-", (60.0, 40.0)), ("A=", "A", (50.0, 50.0)), ("55", 45, (55.0, 45.0)),
                             ("ave+", "avg-", (60.0, 40.0))):
        adj = adjustment({"kind": "artificial", "ns": ns, "ew": ew}, "None")
        assert adj["kind"] == "artificial" and (adj["ns"], adj["ew"]) == expected, (ns, ew, adj)
    for bad in ("A*", "101", -1, "nan", "inf", [60], "", None):
        with pytest.raises(AdjustmentError):
            adjustment({"kind": "artificial", "ns": bad, "ew": "A"}, "None")
    average = adjustment({"kind": "artificial"}, "None")                     # a side not given: average
    assert average["kind"] == "artificial" and (average["ns"], average["ew"]) == (50.0, 50.0)


def test_board_results_matchpoint_the_scored_tables() -> None:
    """``GET /api/results``: complete and assigned scores matchpointed among themselves, an artificial
    score at its percentages (in process, tables built from journal rows)."""
    tables = []
    for tid, (contract, declarer, tricks) in {"1": ("4S", "N", 10), "2": ("4S", "N", 11), "3": ("4S", "N", 10),
                                              "4": ("3NT", "S", 9)}.items():
        rt = TableRuntime(tid, Regulation())
        for seq, body in enumerate(board_events(1, contract, declarer, tricks) + [{"type": "board", "board": 2}], 1):
            rt.apply_row(Row(tid, seq, utcnow(), "director", "event", body))
        tables.append(rt)
    art = adjustment({"kind": "artificial", "ns": "A+", "ew": "A-"}, "None")
    tables[3].apply_row(Row("4", 99, utcnow(), "director", "adjustment", {"board": 1, **art}))
    got = {e["table"]: (e["score_ns"], e["ns_percent"], e["ew_percent"]) for e in board_results(1, tables)}
    # 420, 450, 420 among themselves: 450 beats both (top 4: 100 %), each 420 ties one (25 %)
    assert got == {"1": (420, 25.0, 75.0), "2": (450, 100.0, 0.0), "3": (420, 25.0, 75.0), "4": (400, 60.0, 40.0)}


# ---------------------------------------------------------------------------------------------- configuration
def test_event_configuration_is_checked(tmp_path: Path) -> None:
    s = load_settings(None, event=EVENT)
    assert s.event is not None and s.event.movement is not None and s.event.movement.tables == 3
    bad = [
        ({"movement": {"kind": "mitchell", "tables": 3, "file": "x.txt"}}, "not both"),
        ({"movement": {"kind": "howell"}}, "needs pairs"),
        ({"movement": {"kind": "mitchell", "tables": 3}, "tables": {"1": 7}}, "movement has tables"),
        ({"movement": {"kind": "mitchell", "tables": 3}, "tables": {"1": 1, "2": 1}}, "same movement table"),
        ({"movement": {"kind": "mitchell", "tables": 3}, "entrants": {"99": ["X"]}}, "not in the movement"),
        ({"movement": {"kind": "mitchell", "tables": 3}, "colour": "red"}, "Extra inputs"),
        ({"movement": {"kind": "mitchell", "tables": 3}, "scoring": "IMP"}, "teams movement"),
        ({"movement": {"file": str(tmp_path / "missing.txt")}}, "cannot read"),
    ]
    for event, message in bad:
        with pytest.raises(ConfigError) as err:
            load_settings(None, event=event)
        assert message in str(err.value), (event, str(err.value))
    # a table of rounds from a file; and a TOML configuration
    rounds = tmp_path / "rounds.txt"
    rounds.write_text("# name: two tables\n1 1 1 2 1-2\n2 1 3 4 3-4\n1 2 1 4 5-6\n2 2 3 2 7,8\n")
    mv = build_movement(MovementConfig.model_validate({"file": str(rounds)}))
    assert mv.name == "two tables" and mv.expected_boards(2, 2) == (7, 8)
    toml = tmp_path / "club.toml"
    toml.write_text('[event]\nname = "Teams"\nscoring = "IMP"\nmovement = { kind = "teams", boards = 8, '
                    'boards_per_round = 4 }\n[event.entrants]\n1 = "Aces"\n2 = "Kings"\n')
    s = load_settings(toml)
    assert s.event is not None and s.event.scoring == "IMP" and s.event.entrants == {1: "Aces", 2: "Kings"}
    s = load_settings(None, event={"sections": [{"id": "A", "movement": {"kind": "howell", "pairs": 6}},
                                                {"id": "B", "movement": {"file": str(rounds)}}]})
    assert [x.id for x in s.event.sections] == ["A", "B"]                      # type: ignore[union-attr]


# ---------------------------------------------------------------------------------------------- in process
def _club(path: Path, event: dict[str, Any],
          journal_type: type[Journal] = Journal) -> tuple[Club, Journal, LiveTournament, Hub]:
    settings = load_settings(None, database=str(path), event=event, tables=[{"id": "1"}, {"id": "2"}, {"id": "3"}],
                             regulation={"spectators": {"delay_s": 0}})
    journal = journal_type(settings.database)
    hub = Hub()
    club = Club(settings, journal, hub)
    club.load()
    assert settings.event is not None
    ev = LiveTournament(settings.event, club)
    ev.attach(journal.rows(CLUB))
    journal.start()
    club.start()
    return club, journal, ev, hub


def _close(club: Club, journal: Journal) -> None:
    journal.close()
    club.close()


async def _play(club: Club, table: str, board: int, contract: str = "4S", declarer: str | None = "N",
                tricks: int | None = 10) -> None:
    for body in board_events(board, contract, declarer, tricks):
        await club.submit(table, body, "director")


def test_the_event_follows_the_club_in_process(tmp_path: Path) -> None:
    db = tmp_path / "j.db"

    async def first() -> None:
        club, journal, ev, hub = _club(db, EVENT)
        alerts = hub.subscribe(DIRECTOR, None)
        try:
            assert ev.expected_boards("1") == (1, 2) and ev.expected_boards("3") == (5, 6)
            await _play(club, "1", 1)
            await _play(club, "1", 2, "3NT", "S", 9)
            assert ev.rounds["1"] == 1
            await _play(club, "1", 3, "PASS", None, None)           # the next round's board: round 2, inferred
            assert ev.rounds["1"] == 2 and ev.expected_boards("1") == (3, 4)
            assert not ev.alerts
            await club.submit("2", {"type": "board", "board": 1}, "director")    # table 2 plays board 1 in round 3
            assert len(ev.alerts) == 1 and ev.alerts[0]["irregularity"]["code"] == "WRONG_BOARD"
            assert ev.alerts[0]["irregularity"]["law"] == "15" and ev.rounds["2"] == 1
            sent = [json.loads(t) for t in await asyncio.wait_for(alerts.next_batch(), 1)]
            assert any(m["type"] == "flagged" and m["irregularity"]["code"] == "WRONG_BOARD" and m["table"] == "2"
                       for m in sent)
            assert club.tables["2"].board_number == 1        # flagged, not refused (Law 15: the director's call)
            await _play(club, "2", 3, "2H", "E", 8)                      # and table 2 goes on with its own boards
            # the session holds table 1's results with the movement's pairs (table 1 round 1: NS 1 v EW 4)
            s = ev.session
            tr = s.traveller(1)
            assert tr is not None
            assert [(r.ns, r.ew, r.table, r.round, r.score_ns) for r in tr.results] == [(1, 4, 1, 1, 420)]
            assert s.traveller(3) is not None and len(s.traveller(3).results) == 2           # type: ignore[union-attr]
            # Law 12: an adjustment replaces the result, a cancellation restores it
            await club.adjust("1", 1, {"kind": "artificial", "ns": "A+", "ew": "A-"})
            r = s.traveller(1).results[0]                                                    # type: ignore[union-attr]
            assert r.artificial is not None and r.score_ns is None
            await club.adjust("1", 1, {"kind": "assigned", "contract": "4S", "declarer": "N", "tricks": 9})
            assert s.traveller(1).results[0].assigned == (-50, -50)                          # type: ignore[union-attr]
            await club.adjust("1", 1, {"kind": "cancel"})
            assert s.traveller(1).results[0].score_ns == 420                                 # type: ignore[union-attr]
            # nothing is public yet: no board has been completed at every table that plays it
            assert ev.public() == set() and all(not rt.released for rt in club.tables.values())
            pub = ev.view(SPECTATOR)
            assert all(not b["visible"] and "travellers" not in b for b in pub["boards"])
            assert "420" not in json.dumps(pub["boards"]) and all(r["boards"] == 0 for r in pub["rankings"][0]["rows"])
            everything = ev.view(DIRECTOR)
            assert board_entry(everything, 1)["visible"] and everything["alerts"]
            await ev.set_round(3, ["3"])                                 # the director moves table 3 on
            assert ev.rounds["3"] == 3
        finally:
            _close(club, journal)

    asyncio.run(first())

    async def again() -> None:                                           # a restart rebuilds it all from the journal
        club, journal, ev, _hub = _club(db, EVENT)
        try:
            assert ev.rounds == {"1": 2, "2": 1, "3": 3}
            assert [r.score_ns for r in ev.session.traveller(1).results] == [420]          # type: ignore[union-attr]
            assert len(ev.session.traveller(3).results) == 2                               # type: ignore[union-attr]
            assert len(ev.alerts) == 1
        finally:
            _close(club, journal)

    asyncio.run(again())


class HeldJournal(Journal):
    """The real journal, whose next writes can be held back: a slow disk, on demand."""
    gate: asyncio.Event | None = None

    def append(self, row: Any) -> asyncio.Future[None]:
        written = super().append(row)
        if self.gate is None:
            return written
        gate = self.gate

        async def after_the_gate() -> None:
            await gate.wait()
            await written
        return asyncio.ensure_future(after_the_gate())


def test_a_board_is_complete_for_the_results_only_once_its_last_row_is_journalled(tmp_path: Path) -> None:
    """The live table runs ahead of the journal while the last event of a board awaits its write; the
    results page, the release rule and the board list must not count the board complete (nor show a
    traveller lacking that table's row) until the row is durable."""
    async def run() -> None:
        club, journal, ev, _hub = _club(tmp_path / "j.db", EVENT, HeldJournal)
        assert isinstance(journal, HeldJournal)
        try:
            await _play(club, "1", 1)
            await _play(club, "3", 1, "4S", "N", 11)
            *first, last = board_events(1, "3NT", "S", 9)
            for body in first:
                await club.submit("2", body, "director")
            journal.gate = asyncio.Event()
            pending = asyncio.ensure_future(club.submit("2", last, "director"))
            for _ in range(100):
                if club.tables["2"].table.state == "board_complete":
                    break
                await asyncio.sleep(0)
            assert club.tables["2"].table.state == "board_complete", \
                "the last event is applied, its row not yet written"
            assert not pending.done()
            assert 1 not in ev.public()
            assert not board_entry(ev.view(SPECTATOR), 1)["visible"]
            assert not club.tables["2"].completed(1)
            assert not any(e["complete"] for e in club.results(DIRECTOR)[0]["results"] if e["table"] == "2")
            journal.gate.set()
            await pending
            journal.gate = None
            shown = board_entry(ev.view(SPECTATOR), 1)
            assert shown["visible"] and sorted(r["table"] for r in shown["travellers"][0]["rows"]) == ["1", "2", "3"]
        finally:
            _close(club, journal)

    asyncio.run(run())


def test_a_teams_match(tmp_path: Path) -> None:
    teams = {"name": "Club teams", "scoring": "IMP", "movement": {"kind": "teams", "boards": 4, "boards_per_round": 2},
             "entrants": {"1": "Aces", "2": "Kings"}}

    async def run() -> None:
        club, journal, ev, _hub = _club(tmp_path / "j.db", teams)
        try:
            await _play(club, "1", 1, "4S", "N", 10)             # open room: Aces NS +420
            assert not board_entry(ev.view(SPECTATOR), 1)["visible"]
            await _play(club, "2", 1, "4S", "N", 9)              # closed room: Kings NS -50, Aces +50
            view = ev.view(SPECTATOR)
            rows = board_entry(view, 1)["travellers"][0]["rows"]
            assert {(r["table"], r["ns_names"], r["score_ns"], r["ns_value"]) for r in rows} == \
                {("1", "Aces", 420, 10.0), ("2", "Kings", -50, -10.0)}
            ranking = view["rankings"][0]["rows"]
            assert [r["names"] for r in ranking] == ["Aces", "Kings"] and view["event"]["unit"] == "IMPs"
        finally:
            _close(club, journal)

    asyncio.run(run())


def test_teams_ranking_counts_a_board_once() -> None:
    from results import BoardResult, Session, teams_match
    s = Session("t", "IMP", teams_match(range(1, 3), 1, 2))
    s.add_result(BoardResult(1, 1, 2, score_ns=420))        # open room: team 1 NS
    s.add_result(BoardResult(1, 2, 1, score_ns=-50))        # closed room: team 2 NS; team 1 +470 = 10 IMPs
    assert {r.entrant: r.score for r in s.ranking()} == {1: 10.0, 2: -10.0}


def _club_without_event(tmp_path: Path) -> tuple[Club, Journal]:
    """Tables A and B, no event (the release rule alone), journal started."""
    settings = load_settings(None, database=str(tmp_path / "j.db"), tables=[{"id": "A"}, {"id": "B"}])
    journal = Journal(settings.database)
    club = Club(settings, journal, Hub())
    club.load()
    journal.start()
    return club, journal


def test_without_an_event_the_page_shows_released_boards_as_before(tmp_path: Path) -> None:
    from service.event.public_screen import PublicScreen

    async def run() -> None:
        club, journal = _club_without_event(tmp_path)
        try:
            await _play(club, "A", 1)
            assert club.tournament is None
            screen = PublicScreen(club, lambda: None, lambda: None)
            assert screen.view(SPECTATOR)["boards"] == []
            await _play(club, "B", 1, "4S", "N", 11)                      # all_tables: every table that started it
            out = screen.view(SPECTATOR)
            assert out["event"] is None and out["rankings"] == []
            assert [r["score_ns"] for r in out["boards"][0]["travellers"][0]["rows"]] == [420, 450]
        finally:
            _close(club, journal)

    asyncio.run(run())


def test_a_release_reaches_the_results_push_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The release's own journal row wakes the push: with its periodic re-check set to a minute, a subscriber
    still has the released board within seconds (and had nothing of it before)."""
    from service.event import public_screen
    from service.live.hub import Subscriber
    monkeypatch.setattr(public_screen, "RECHECK_S", 60.0)

    async def run() -> None:
        club, journal = _club_without_event(tmp_path)
        try:
            await _play(club, "A", 1)
            await club.submit("B", {"type": "board", "board": 1}, "director")   # in play at B: not public
            screen = public_screen.PublicScreen(club, lambda: None, lambda: None)
            sub = Subscriber(SPECTATOR, None)
            screen.subscribe(sub)
            (first,) = await asyncio.wait_for(sub.next_batch(), 5)
            assert json.loads(first)["results"]["boards"] == []
            await club.release(1, force=True)            # in play at B: only a forced release
            (pushed,) = await asyncio.wait_for(sub.next_batch(), 5)
            boards = json.loads(pushed)["results"]["boards"]
            assert [b["board"] for b in boards] == [1]
            assert [r["score_ns"] for r in boards[0]["travellers"][0]["rows"]] == [420, None]   # B still playing
            screen.unsubscribe(sub)
            screen.wake()
        finally:
            _close(club, journal)

    asyncio.run(run())


def test_simulated_tables_follow_the_movement(tmp_path: Path) -> None:
    """--simulate with no event: a Mitchell for the simulated tables, whose robots play its boards round by round."""
    srv = ServiceThread(tmp_path, {"regulation": {"spectators": {"delay_s": 0}}}, simulate=3,
                        extra_args=("--pace", "0.002", "--irregularity-rate", "0"))
    with srv, srv.client(srv.token) as d, srv.client() as anon:
        deadline = time.monotonic() + 60
        view: dict[str, Any] = {}
        while time.monotonic() < deadline:
            view = anon.get("/api/public/results").json()
            if any(b["visible"] for b in view["boards"]):
                break
            time.sleep(0.3)
        assert view["event"]["name"] == "Simulated pairs, 3 tables"
        shown = [b for b in view["boards"] if b["visible"]]
        assert shown, "a board completed at all three tables becomes public"
        assert all(len(b["travellers"][0]["rows"]) == 3 for b in shown)
        info = d.get("/api/event").json()
        assert info["alerts"] == [], "the robots play the movement's boards: no wrong board"
        for t in ("1", "2", "3"):
            rows = d.get(f"/api/tables/{t}/events").json()
            played = [r["body"]["board"] for r in rows if r["body"].get("type") == "board"]
            expected = {"1": [1, 2, 3, 4, 5, 6], "2": [3, 4, 5, 6, 1, 2], "3": [5, 6, 1, 2, 3, 4]}[t]
            # the movement's boards round by round; a fast robot may go on past the event (boards beyond it)
            assert played[:len(expected)] == expected[:len(played)], (t, played)
            assert all(b > 6 for b in played[len(expected):]), (t, played)


# ---------------------------------------------------------------------------------------------- over HTTP
# Each test has its own server and plays the rounds it needs (ROUNDS), so it runs alone and in any order.
ROUNDS: dict[int, list[tuple[str, int, str, str | None, int | None]]] = {
    1: [("1", 1, "4S", "N", 10),             # 420 (board 1: nobody vulnerable)
        ("1", 2, "3NT", "S", 9),             # 600 (board 2: NS vulnerable)
        ("2", 3, "2H", "E", 8), ("2", 4, "PASS", None, None), ("3", 5, "1NT", "N", 7), ("3", 6, "4H", "W", 10)],
    2: [("3", 1, "4S", "N", 11),             # 450
        ("3", 2, "3NT", "S", 10),            # 630
        ("1", 3, "2H", "E", 7), ("1", 4, "1C", "N", 8), ("2", 5, "1NT", "N", 8), ("2", 6, "4H", "W", 9)],
    3: [("2", 1, "4S", "N", 10),             # 420
        ("2", 2, "3NT", "S", 9), ("1", 5, "1NT", "N", 6), ("1", 6, "4H", "W", 10), ("3", 3, "2H", "E", 8),
        ("3", 4, "PASS", None, None)],
}


def play_round(client: httpx.Client, rnd: int) -> None:
    for table, board, contract, declarer, tricks in ROUNDS[rnd]:
        play(client, table, board, contract, declarer, tricks)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServiceThread(tmp_path / "results", CONFIG) as srv:
        yield srv


@pytest.fixture
def clients(server: ServerProcess) -> Iterator[dict[str, httpx.Client]]:
    with server.client(server.token) as d:
        # a seat's sign-in ends with its round: each player signs in again with the next round's link
        seats = {f"seat{t}": server.seat_client(t, "N") for t in ("1", "2", "3")}
        cs = {"director": d, "public": server.client(), **seats}
        try:
            yield cs
        finally:
            for k, c in cs.items():
                if k != "director":
                    c.close()


def get(c: httpx.Client, since: int | None = None) -> dict[str, Any]:
    r = c.get("/api/public/results", params={} if since is None else {"since": since})
    assert r.status_code == 200, r.text
    view: dict[str, Any] = r.json()
    return view


def test_public_results_wait_for_every_scheduled_table(server: ServerProcess, clients: dict[str, httpx.Client]) -> None:
    d, public = clients["director"], clients["public"]
    play_round(d, 1)
    view = get(public)
    assert view["event"]["name"] == "Monday pairs" and view["view"] == "public"
    assert all(not b["visible"] and "travellers" not in b for b in view["boards"])
    assert board_entry(view, 1)["played"] == 1 and board_entry(view, 1)["tables"] == 3
    rows = view["rankings"][0]["rows"]
    assert {r["names"] for r in rows} >= {"Ann Able - Bob Baker", "Cy Cole - Di Dunn"}
    assert all(r["boards"] == 0 and r["score"] == 0 for r in rows)
    assert [p["round"] for p in view["progress"]] == [1, 1, 1]
    play_round(d, 2)                         # the round is inferred from the boards the tables start
    view = get(public)
    assert [p["round"] for p in view["progress"]] == [2, 2, 2]
    assert all(not b["visible"] for b in view["boards"]), "every board still has a table to play it"
    assert "450" not in json.dumps(view["boards"]) and all(r["boards"] == 0 for r in view["rankings"][0]["rows"])
    # the director sees everything
    full = get(d)
    assert scores(full, 1) == {"1": 420, "3": 450} and full["view"] == "director"
    # the old results endpoint agrees: nothing released to the public
    assert all(not b["results"] for b in public.get("/api/results").json())


def test_a_table_that_still_has_to_play_a_board_never_sees_it(server: ServerProcess,
                                                              clients: dict[str, httpx.Client]) -> None:
    d, public = clients["director"], clients["public"]
    seat1, seat2, seat3 = clients["seat1"], clients["seat2"], clients["seat3"]
    play_round(d, 1)
    play_round(d, 2)
    before = get(public)
    t2 = get(seat2)
    assert t2["view"] == "table" and t2["table"] == "2"
    assert board_entry(t2, 1)["reason"] == "your_table" and board_entry(get(seat1), 1)["reason"] == "waiting"
    # the director releases board 1 by mistake: table 2 has still to play it (round 3)
    refused = d.post("/api/boards/1/release")
    assert refused.status_code == 409 and refused.json()["tables"] == ["2"], refused.text
    assert d.post("/api/boards/1/release?force=true").status_code == 200
    view = get(public, since=before["revision"])
    assert not view.get("unchanged") and board_entry(view, 1)["visible"]
    assert scores(view, 1) == {"1": 420, "3": 450}
    assert board_entry(get(seat1), 1)["visible"] and board_entry(get(seat3), 1)["visible"]
    t2 = get(seat2)
    assert not board_entry(t2, 1)["visible"] and board_entry(t2, 1)["reason"] == "your_table"
    text = json.dumps(t2)
    assert "450" not in text and "420" not in text, "no score of board 1 reaches table 2's view"
    assert all(r["boards"] == 0 for r in t2["rankings"][0]["rows"]), "nor does its ranking move"
    # the existing endpoints follow the table-specific rule too
    assert all(b["board"] != 1 for b in seat2.get("/api/results").json())
    assert any(b["board"] == 1 and b["results"] for b in seat1.get("/api/results").json())
    assert seat2.get("/api/tables/1/boards/1").status_code == 403
    assert seat3.get("/api/tables/1/boards/1").status_code == 200
    # round 3: table 2 plays board 1; everything completes
    first, *rest = ROUNDS[3]
    play(d, *first)
    t2 = get(seat2)
    assert board_entry(t2, 1)["visible"] and scores(t2, 1) == {"1": 420, "3": 450, "2": 420}
    for table, board, contract, declarer, tricks in rest:
        play(d, table, board, contract, declarer, tricks)
    view = get(public)
    assert all(b["visible"] for b in view["boards"])
    assert all(p["finished"] for p in view["progress"])
    ranking = view["rankings"][0]["rows"]
    assert all(r["boards"] == 6 for r in ranking)
    assert {r["field"] for r in ranking} == {"NS", "EW"}                 # a two-winner Mitchell
    ns = [r for r in ranking if r["field"] == "NS"]
    assert round(sum(r["total"] for r in ns), 6) == round(sum(r["top"] for r in ns) / 2, 6), \
        "matchpoints share the tops"
    # a revision that has not moved answers cheaply
    assert get(public, since=view["revision"]) == {"revision": view["revision"], "unchanged": True}


def test_adjustments_update_the_traveller(server: ServerProcess, clients: dict[str, httpx.Client]) -> None:
    d, public = clients["director"], clients["public"]
    for rnd in ROUNDS:
        play_round(d, rnd)
    assert scores(get(public), 1) == {"1": 420, "3": 450, "2": 420}
    r = d.post("/api/tables/3/boards/1/adjustment", json={"kind": "artificial", "ns": "A+", "ew": "A-"})
    assert r.status_code == 200
    row = next(x for x in board_entry(get(public), 1)["travellers"][0]["rows"] if x["table"] == "3")
    assert row["adjusted"] == "A+/A-" and row["ns_percent"] == 60.0 and row["ew_percent"] == 40.0
    # average (shown as A=); percentages; anything else is refused
    for body, shown in (({"ns": "A", "ew": "A"}, "A=/A="), ({"ns": "55", "ew": 45}, "55/45")):
        assert d.post("/api/tables/3/boards/1/adjustment", json={"kind": "artificial", **body}).status_code == 200
        row = next(x for x in board_entry(get(public), 1)["travellers"][0]["rows"] if x["table"] == "3")
        assert row["adjusted"] == shown, (body, row)
    for bad in ("A*", "101", -1, "nan"):
        r = d.post("/api/tables/3/boards/1/adjustment", json={"kind": "artificial", "ns": bad, "ew": "A"})
        assert r.status_code == 422, (bad, r.text)
    assigned = {"kind": "assigned", "contract": "4S", "declarer": "N", "tricks": 9}
    assert d.post("/api/tables/3/boards/1/adjustment", json=assigned).status_code == 200
    assert scores(get(public), 1) == {"1": 420, "3": -50, "2": 420}
    d.post("/api/tables/3/boards/1/adjustment", json={"kind": "cancel"})
    view = get(public)
    assert scores(view, 1) == {"1": 420, "3": 450, "2": 420}
    row = next(x for x in board_entry(view, 1)["travellers"][0]["rows"] if x["table"] == "3")
    assert row["adjusted"] is None and row["ns_percent"] == 100.0 and row["result"] == "+1"


def test_wrong_board_rounds_and_restart(server: ServerProcess, clients: dict[str, httpx.Client]) -> None:
    d, public = clients["director"], clients["public"]
    for rnd in ROUNDS:
        play_round(d, rnd)
    assert all(b["visible"] for b in get(public)["boards"])
    # table 1, in its last round, starts board 3 again: flagged to the director, not refused
    r = d.post("/api/tables/1/events", json={"type": "board", "board": 3})
    assert r.status_code == 200
    alerts = d.get("/api/event").json()["alerts"]
    assert alerts[-1]["table"] == "1" and alerts[-1]["irregularity"]["code"] == "WRONG_BOARD"
    assert "alerts" not in public.get("/api/event").json()
    assert not board_entry(get(public), 3)["visible"], "a table is (re)playing board 3"
    for body in board_events(3, "2H", "E", 7)[1:]:
        assert d.post("/api/tables/1/events", json=body).status_code == 200
    assert board_entry(get(public), 3)["visible"]
    # the director sets rounds (journalled)
    assert d.post("/api/event/round", json={"round": 2, "tables": ["2"]}).status_code == 200
    assert public.post("/api/event/round", json={"round": 2}).status_code == 401
    assert clients["seat1"].post("/api/event/round", json={"round": 2}).status_code == 403
    assert d.post("/api/event/round", json={"round": 9}).status_code == 422
    assert d.post("/api/event/round", json={"round": 1, "tables": ["nope"]}).status_code == 404
    before = get(public)
    server.stop()
    server.start()
    with server.client() as anon:
        after = anon.get("/api/public/results").json()
    for k in ("boards", "rankings", "progress"):
        assert after[k] == before[k], k
    assert after["progress"][1]["round"] == 2


# ---------------------------------------------------------------------------------------------- the browser
@pytest.mark.slow
def test_results_page_in_a_headless_browser(tmp_path: Path) -> None:
    srv = ServiceThread(tmp_path, CONFIG)
    with srv, browser_session() as browser, srv.client(srv.token) as d:
        # boards 1, 3 and 4 completed at all three tables; board 2 at tables 1 and 3 only (table 2: round 3)
        play(d, "1", 1, "4S", "N", 10)
        play(d, "1", 2, "6NT", "N", 12)          # 1440 (board 2: NS vulnerable)
        play(d, "2", 3, "2H", "E", 8)
        play(d, "2", 4, "3C", "S", 9)
        play(d, "3", 5, "1NT", "N", 7)
        play(d, "3", 6, "4H", "W", 10)
        play(d, "3", 1, "4S", "N", 11)
        play(d, "3", 2, "7NT", "N", 13)          # 2220
        play(d, "1", 3, "2H", "E", 7)
        play(d, "1", 4, "3C", "S", 8)
        play(d, "2", 5, "1NT", "N", 8)
        play(d, "2", 6, "4H", "W", 9)
        play(d, "2", 1, "4S", "N", 10)
        play(d, "3", 3, "2H", "E", 9)
        play(d, "3", 4, "3C", "S", 10)
        seat2 = d.get("/api/tables/2/tokens").json()["N"]["token"]     # a seat's token is its table's round's
        errors: list[str] = []
        pages = {}
        frames: dict[str, list[str]] = {"public": [], "seat": []}    # what each page's /ws/results received
        for name, url in (("public", f"{srv.base}/results"), ("seat", f"{srv.base}/results?token={seat2}")):
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("websocket", lambda ws, got=frames[name]: ws.on(
                "framereceived", lambda p: got.append(p if isinstance(p, str) else p.decode())))
            page.goto(url)
            page.locator('.board[data-board="1"] table.traveller').wait_for(timeout=15000)
            pages[name] = page
        for name, page in pages.items():
            assert page.locator("#title").inner_text() == "Monday pairs"
            assert page.locator("table.ranking tr.rank").count() == 6
            assert "Ann Able - Bob Baker" in page.locator("#ranking").inner_text()
            for n in (1, 3, 4):
                assert page.locator(f'.board[data-board="{n}"] tr.result').count() == 3, (name, n)
            b2 = page.locator('.board[data-board="2"]')
            assert b2.locator("table.traveller").count() == 0
            text = b2.inner_text()
            assert "Board 2: " in text and "results appear when every table has played it" in text
            body = page.locator("body").inner_text()
            assert "2220" not in body and "1440" not in body, f"{name}: board 2's scores must not show"
            assert page.locator('.board[data-board="5"] .placeholder').count() == 1
        assert "table 2's view" in pages["seat"].locator("#view").inner_text()
        assert "your table still has to play" in pages["seat"].locator('.board[data-board="2"]').inner_text()
        assert "your table" not in pages["public"].locator('.board[data-board="2"]').inner_text()
        assert "2 of 3 tables" in pages["public"].locator('.board[data-board="2"]').inner_text()
        pages["public"].screenshot(path=str(ARTIFACTS / "results-page-before.png"), full_page=True)
        director = browser.new_page()
        director.on("pageerror", lambda e: errors.append(str(e)))
        director.goto(f"{srv.base}/results?token={srv.token}")
        director.locator('.board[data-board="2"] table.traveller').wait_for(timeout=15000)   # everything
        assert "director" in director.locator("#view").inner_text()
        assert "2220" in director.locator('.board[data-board="2"]').inner_text()
        director.close()
        # the last table completes board 2: both pages show it within a poll or two
        play(d, "2", 2, "7NT", "N", 12)          # -100
        for name, page in pages.items():
            page.locator('.board[data-board="2"] table.traveller').wait_for(timeout=10000)
            t = page.locator('.board[data-board="2"]').inner_text()
            assert "2220" in t and "1440" in t and "100" in t, (name, t)
            assert page.locator('.board[data-board="2"] .placeholder').count() == 0
            # the change came as a patch of the page's version (service/live/patches.py), applied by the page
            assert any('"type":"results_patch"' in f for f in frames[name]), (name, [f[:80] for f in frames[name]])
        time.sleep(0.3)
        pages["public"].screenshot(path=str(ARTIFACTS / "results-page.png"), full_page=True)
        pages["seat"].screenshot(path=str(ARTIFACTS / "results-page-seat.png"), full_page=True)
        assert (ARTIFACTS / "results-page.png").stat().st_size > 10000
        assert not errors, errors
