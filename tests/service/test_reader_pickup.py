"""Tables with card readers start their boards from the hands picked up, through the real service: simulated seat
readers and bidding boxes (hw_sim, the real wire protocol over TCP) at two tables of a 4-table Mitchell whose hand
records were imported over HTTP. The director's ``/ws/club`` stream is read the whole time.

* table 1 picks up a board of another round: its first two hands name it, the director is told WRONG_BOARD (Law 15),
  the board is not started and a call on the bidding box is refused; the players put it back and take their board,
  which starts from its hand record and is played to the end with the readers and the boxes;
* table 3, readers at North and South only, starts its board from those two hands;
* table 2 picks up its board fouled (a hand of another board at North, East one card short): once every hand is
  read the director is told FOULED_BOARD (Law 87) and INCORRECT_HAND_COUNT (Law 13), nothing is started and the
  director's own call is refused; North and East take the right hands and the board starts.
"""
from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from service_harness import ServerProcess, ServiceThread
from websockets.sync.client import connect

from drivers.decks import DeckRegistry
from hw_sim.devices import BiddingBox, SeatReader
from hw_sim.port import DevicePort
from hw_sim.tags import deck_uids
from hw_sim.tcp import TcpEndpoint
from service.sim.robot import next_event
from table.cards import ALL_CARDS, SEATS, Deal, Seat
from table.dealgen import HashDRBG, random_deal
from table.events import event_from_dict
from table.handrecords import HandRecordBoard, to_bytes
from table.machine import Table

UIDS = deck_uids("club-1")


def _wait(fn: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


class Director:
    """The director's ``/ws/club`` stream, read on a thread: every message kept."""

    def __init__(self, srv: ServerProcess) -> None:
        self.messages: list[dict[str, Any]] = []
        self.url = f"{srv.ws_base}/ws/club?token={srv.token}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        _wait(lambda: self.messages, "the director's stream")          # subscribed: nothing said from now is lost

    def _read(self) -> None:
        with connect(self.url, open_timeout=10, max_size=None) as ws:
            while not self._stop.is_set():
                try:
                    self.messages.append(json.loads(ws.recv(timeout=0.2)))
                except TimeoutError:
                    continue

    def flagged(self, table: str) -> list[dict[str, Any]]:
        return [m for m in list(self.messages) if m.get("type") == "flagged" and m.get("table") == table]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)


class ReaderTable:
    """Four seat readers (and optionally four bidding boxes) of one table, each on its own TCP port."""

    def __init__(self, table: str, boxes: bool, seats: tuple[Seat, ...] = SEATS) -> None:
        self.table = table
        self.readers = {s: DevicePort(SeatReader(f"SR-{table}-{s}")) for s in seats}
        self.boxes = {s: DevicePort(BiddingBox(f"BB-{table}-{s}")) for s in SEATS} if boxes else {}
        self.endpoints = {(kind, s): TcpEndpoint(port) for kind, ports in (("reader", self.readers),
                                                                              ("box", self.boxes))
                          for s, port in ports.items()}

    def config(self) -> dict[str, Any]:
        seats: dict[str, dict[str, str]] = {}
        for (kind, s), ep in self.endpoints.items():
            seats.setdefault(str(s), {})[kind] = ep.url
        return {"id": self.table, "seats": seats}

    def pick_up(self, seat: Seat, cards: Any) -> None:
        self.readers[seat].act(lambda dev: dev.pick_up_hand([UIDS[c] for c in sorted(cards)]))

    def close(self) -> None:
        for ep in self.endpoints.values():
            ep.close()


@contextmanager
def club(tmp_path: Path) -> Iterator[tuple[ServerProcess, ReaderTable, ReaderTable, ReaderTable]]:
    decks = DeckRegistry()
    decks.learn("club-1", [UIDS[c] for c in ALL_CARDS])
    decks.save(tmp_path / "decks.json")
    one, two = ReaderTable("1", boxes=True), ReaderTable("2", boxes=False)
    three = ReaderTable("3", boxes=False, seats=(Seat.N, Seat.S))       # readers at two seats only
    cfg = {"tables": [one.config(), two.config(), three.config(), {"id": "4"}], "decks": str(tmp_path / "decks.json"),
           "event": {"name": "Readers", "movement": {"kind": "mitchell", "tables": 4, "boards_per_round": 4}}}
    try:
        with ServiceThread(tmp_path / "srv", cfg) as srv:
            yield srv, one, two, three
    finally:
        for t in (one, two, three):
            t.close()


def evening() -> dict[int, Deal]:
    rng = HashDRBG("reader-pickup")
    return {n: random_deal(rng) for n in range(1, 17)}


def test_wrong_and_fouled_boards_are_caught_from_the_hands_picked_up(tmp_path: Path) -> None:
    deals = evening()
    with club(tmp_path) as (srv, one, two, three), srv.client(srv.token) as d:
        _wait(lambda: (lambda dv: len(dv.get("1", [])) == 8 and len(dv.get("2", [])) == 4 and len(dv.get("3", [])) == 2
                       and all(h["connected"] for t in ("1", "2", "3") for h in dv[t]))(d.get("/api/devices").json()),
              "every device connected")
        text = to_bytes([HandRecordBoard.of(n, deal) for n, deal in deals.items()], "PBN").decode()
        assert d.post("/api/event/hand-records", json={"filename": "evening.pbn", "content": text}).status_code == 200
        rounds = {p["table"]: p["boards"] for p in d.get("/api/event").json()["progress"]}
        mine1, mine2 = rounds["1"], rounds["2"]
        wrong = rounds["3"][0]                        # table 1 plays table 2's or table 4's boards next round
        director = Director(srv)
        try:
            _wrong_board_then_the_right_one(d, director, one, deals, wrong, mine1[0])
            _fouled_board_then_corrected(d, director, two, deals, mine2[0], other=wrong)
            _the_director_lets_a_wrong_board_be_played(d, director, one, deals, wrong)
            board3 = rounds["3"][1]                      # readers at North and South: their two hands start it
            three.pick_up(Seat.N, deals[board3].hands[Seat.N])
            three.pick_up(Seat.S, deals[board3].hands[Seat.S])
            rows = _wait(lambda: (lambda rs: rs if len(rs) == 3 else None)(_events(d, "3")), "table 3's board")
            assert rows[0]["actor"] == "pickup" and rows[0]["body"]["board"] == board3
            assert director.flagged("3") == []
            alerts = d.get("/api/event").json()["alerts"]
            assert [(a["table"], a["irregularity"]["code"], a.get("source")) for a in alerts] == [
                ("1", "WRONG_BOARD", "pickup"), ("2", "INCORRECT_HAND_COUNT", "pickup"),
                ("2", "FOULED_BOARD", "pickup"), ("1", "WRONG_BOARD", "pickup"), ("1", "WRONG_BOARD", "event")]
        finally:
            director.close()


def _events(d: Any, table: str) -> list[dict[str, Any]]:
    return [r for r in d.get(f"/api/tables/{table}/events").json()]


def _wrong_board_then_the_right_one(d: Any, director: Director, one: ReaderTable, deals: dict[int, Deal],
                                    wrong: int, board: int) -> None:
    one.pick_up(Seat.N, deals[wrong].hands[Seat.N])                    # each hand names its board: two agree
    one.pick_up(Seat.E, deals[wrong].hands[Seat.E])
    (msg,) = _wait(lambda: director.flagged("1"), "the wrong board on the director's stream")
    irr = msg["irregularity"]
    assert msg["board"] == wrong and irr["code"] == "WRONG_BOARD" and irr["law"] == "15"
    assert f"board {wrong} is not one of table 1's boards in round 1" in irr["detail"]
    assert "before the first call" in irr["detail"] and irr["law_text"]
    for s in (Seat.S, Seat.W):
        one.pick_up(s, deals[wrong].hands[s])
    one.boxes[Seat.N].act(lambda dev: dev.press("1C"))                 # held: no call before the board starts
    refused = _wait(lambda: [m for m in list(director.messages) if m.get("type") == "device"
                             and m.get("code") == "REFUSED" and m.get("table") == "1"], "the call refused")
    assert f"board {wrong} is not one of table 1's boards" in refused[0]["detail"]
    assert _events(d, "1") == [] and len(director.flagged("1")) == 1    # nothing started; told once

    for s in SEATS:                                                    # the right board, taken out of its pockets
        one.pick_up(s, deals[board].hands[s])
    _wait(lambda: len(_events(d, "1")) == 5, "the board started and its four hands")
    rows = _events(d, "1")
    assert rows[0]["actor"] == "pickup" and rows[0]["body"]["board"] == board
    assert Deal.from_pbn(rows[0]["body"]["deal"]) == deals[board]
    assert [r["body"]["type"] for r in rows[1:]] == ["hand"] * 4 and all(r["actor"].startswith("device:SR-1-")
                                                                         for r in rows[1:])
    _play(d, one, board, rows)
    view = d.get("/api/tables/1").json()
    assert view["phase"] == "board_complete" and not [m for m in director.flagged("1")[1:]]
    n = len(_events(d, "1"))
    one.pick_up(Seat.N, deals[board].hands[Seat.N])                    # back into its pocket (Law 7C): the engine's
    back = _wait(lambda: (lambda rs: rs[n:] if len(rs) > n else None)(_events(d, "1")), "the hand returned")
    assert back[0]["body"]["type"] == "hand" and back[0]["body"]["seat"] == "N"
    assert d.get("/api/tables/1").json()["phase"] == "board_complete" and len(director.flagged("1")) == 1


def _play(d: Any, one: ReaderTable, board: int, rows: list[dict[str, Any]]) -> None:
    """The board played to the end: each call pressed on its seat's box, each card laid on its owner's reader
    (dummy's cards on dummy's), waiting for the service to take each before the next."""
    mirror = Table("mirror")
    for r in rows:
        mirror.apply(event_from_dict(r["body"]))
    rng = random.Random(7)
    seq = rows[-1]["seq"]
    while True:
        step = next_event(mirror, rng)
        if step is None:
            break
        ev, _ = step
        if ev["type"] == "call":
            one.boxes[Seat(ev["seat"])].act(lambda dev, c=ev["call"]: dev.press(c))
        else:
            owner = mirror.deal.owner[ev["card"]] if mirror.deal else Seat(ev["seat"])
            one.readers[owner].act(lambda dev, c=ev["card"]: dev.place_card(UIDS[c]))
        seq += 1
        _wait(lambda s=seq: d.get("/api/tables/1").json()["seq"] >= s, f"event {seq} ({ev})")
        mirror.apply(event_from_dict(ev))
    assert mirror.state == "board_complete"
    played = [r for r in _events(d, "1") if r["body"]["type"] in ("call", "card")]
    assert all(r["actor"].startswith("device:") for r in played) and len(played) >= 52 + 4


def _fouled_board_then_corrected(d: Any, director: Director, two: ReaderTable, deals: dict[int, Deal],
                                 board: int, other: int) -> None:
    record = deals[board]
    short = sorted(record.hands[Seat.E])[1:]                           # East's hand one card short
    two.pick_up(Seat.N, deals[other].hands[Seat.N])                    # North: the same seat's hand of another board
    two.pick_up(Seat.E, short)
    two.pick_up(Seat.S, record.hands[Seat.S])
    time.sleep(0.5)
    assert director.flagged("2") == []                                 # nothing said before every hand is read
    two.pick_up(Seat.W, record.hands[Seat.W])
    flagged = _wait(lambda: (lambda f: f if len(f) == 2 else None)(director.flagged("2")), "the fouled board")
    by_code = {m["irregularity"]["code"]: m for m in flagged}
    count, fouled = by_code["INCORRECT_HAND_COUNT"], by_code["FOULED_BOARD"]
    assert count["irregularity"]["law"] == "13" and count["irregularity"]["seat"] == "E"
    assert "East holds 12 card(s)" in count["irregularity"]["detail"]
    assert f"missing {sorted(record.hands[Seat.E])[0]}" in count["irregularity"]["detail"]
    assert fouled["irregularity"]["law"] == "87" and fouled["board"] == board
    assert f"North holds board {other}'s North hand" in fouled["irregularity"]["detail"]
    assert [o["code"] for o in fouled["irregularity"]["options"]] == ["correct", "score_in_groups"]
    r = d.post("/api/tables/2/events", json={"type": "call", "seat": "N", "call": "1C"})
    assert r.status_code == 409 and "do not match its hand record (Law 13, 87)" in r.json()["detail"]
    assert _events(d, "2") == [] and "do not match" in d.get("/api/tables/2").json()["held"]   # the console's card

    two.pick_up(Seat.N, record.hands[Seat.N])                          # corrected from the hand record, read again
    two.pick_up(Seat.E, record.hands[Seat.E])
    _wait(lambda: len(_events(d, "2")) == 5, "the corrected board started")
    rows = _events(d, "2")
    assert rows[0]["actor"] == "pickup" and Deal.from_pbn(rows[0]["body"]["deal"]) == record
    assert d.get("/api/tables/2").json()["held"] is None and len(director.flagged("2")) == 2
    assert d.post("/api/tables/2/events", json={"type": "call", "seat": str(rows[0]["body"]["dealer"]),
                                                "call": "1C"}).status_code == 200


def _the_director_lets_a_wrong_board_be_played(d: Any, director: Director, one: ReaderTable, deals: dict[int, Deal],
                                               wrong: int) -> None:
    """After its first board, table 1 takes the wrong board again; the director lets it be played (Law 15A) by
    starting it by hand: the hands already read are applied to it."""
    before = len(_events(d, "1"))
    told = len(director.flagged("1"))
    one.pick_up(Seat.S, deals[wrong].hands[Seat.S])
    one.pick_up(Seat.W, deals[wrong].hands[Seat.W])
    _wait(lambda: len(director.flagged("1")) == told + 1, "the wrong board told again")
    assert len(_events(d, "1")) == before                             # not the completed board's hands going back
    r = d.post("/api/tables/1/events", json={"type": "board", "board": wrong, "deal": deals[wrong].to_pbn()})
    assert r.status_code == 200, r.text
    rows = _wait(lambda: (lambda rs: rs if len(rs) == before + 3 else None)(_events(d, "1")), "the hands applied")
    assert [(r["body"]["type"], r["body"].get("seat")) for r in rows[before:]] == [
        ("board", None), ("hand", "S"), ("hand", "W")]
    call = {"type": "call", "seat": str(rows[before]["body"]["dealer"]), "call": "1C"}
    assert d.post("/api/tables/1/events", json=call).status_code == 200      # no longer held


def import_the_evening(d: Any, deals: dict[int, Deal]) -> tuple[int, int]:
    """The evening's deals imported as the event's hand records (a PBN file); table 1's first board and table 3's,
    a board that is not table 1's."""
    text = to_bytes([HandRecordBoard.of(n, deal) for n, deal in deals.items()], "PBN").decode()
    assert d.post("/api/event/hand-records", json={"filename": "evening.pbn", "content": text}).status_code == 200
    rounds = {p["table"]: p["boards"] for p in d.get("/api/event").json()["progress"]}
    return rounds["1"][0], rounds["3"][0]


def console_watching(browser: Any, srv: ServerProcess, viewport: dict[str, int]) -> tuple[Any, list[str]]:
    """The director's console on a page of its own, its stream open; the page's script errors, collected."""
    page = browser.new_page(viewport=viewport)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{srv.base}/console#token={srv.token}")
    page.locator("#table-1").wait_for(timeout=15000)
    time.sleep(0.5)                                              # the console's stream is open
    return page, errors


@pytest.mark.slow
def test_the_console_shows_the_pickup_in_words(tmp_path: Path) -> None:
    """The director console in headless Chromium: a wrong board and then a fouled board picked up at table 1 are
    told in its feed with the law, the table's card says it is held; the corrected board starts."""
    from headless import ARTIFACTS, browser_session, wait_until
    deals = evening()
    with club(tmp_path) as (srv, one, _two, _three), srv.client(srv.token) as d, browser_session() as browser:
        _wait(lambda: all(h["connected"] for h in d.get("/api/devices").json().get("1", [])), "table 1's devices")
        board, wrong = import_the_evening(d, deals)
        page, errors = console_watching(browser, srv, {"width": 1280, "height": 1000})

        one.pick_up(Seat.N, deals[wrong].hands[Seat.N])
        one.pick_up(Seat.E, deals[wrong].hands[Seat.E])
        wait_until(page, "() => document.getElementById('feed').textContent.includes('(Law 15)')", timeout=20)
        feed = page.locator("#feed").inner_text()
        assert f"Table 1 board {wrong}" in feed and f"board {wrong} is not one of table 1's boards" in feed
        page.locator("#table-1 .held").wait_for(timeout=10000)

        one.pick_up(Seat.E, deals[board].hands[Seat.E])              # the wrong board put back, theirs taken
        _wait(lambda: "not yet: North, South, West" in (d.get("/api/tables/1").json()["held"] or ""),
              "a new pickup")
        for s in (Seat.S, Seat.W, Seat.N):                           # North holds the other board's hand
            one.pick_up(s, deals[wrong if s == Seat.N else board].hands[s])
        wait_until(page, "() => document.getElementById('feed').textContent.includes('(Law 87)')", timeout=20)
        assert f"North holds board {wrong}'s North hand" in page.locator("#feed").inner_text()
        assert page.locator("#table-1 .held").is_visible()
        page.screenshot(path=str(ARTIFACTS / "console-reader-pickup.png"), full_page=True)

        one.pick_up(Seat.N, deals[board].hands[Seat.N])              # corrected: the board starts
        wait_until(page, "(b) => document.getElementById('table-1').textContent.includes('board ' + b)", board,
                   timeout=20)
        page.locator("#table-1 .held").wait_for(state="detached", timeout=15000)
        assert not errors, errors
