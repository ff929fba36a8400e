"""The evening's hand records are the deals everything prints, over real HTTP: once a set is imported the
hand-record sheets (``GET /api/exports/handrecords``) are the set's, every board, played or not; a board a table
played without knowing its cards (no deal read) carries the hand record's deal in the PBN and LIN exports; the
public screen shows a board's hands, the hand record's, only once no table still has to play it (Law 16B), and a
board nobody played shows none."""
from __future__ import annotations

import base64
import io
import time
import zipfile
from pathlib import Path
from typing import Any

import httpx
from service_harness import ServiceThread

from table.board import dealer_for
from table.cards import SEATS, Deal, sort_cards
from table.dealgen import HashDRBG, random_deal
from table.events import BoardStarted
from table.formats.lin import read_lin
from table.formats.pbn import read_pbn
from table.handrecords import HandRecordBoard, to_bytes
from table.handrecords.sheets import render
from table.record import GameRecord

# the solver at nice 0: at 19 it waited minutes beside four busy test workers; the content is what is tested
CONFIG = {"analysis_nice": 0, "regulation": {"spectators": {"delay_s": 0}}, "tables": [{"id": "1"}, {"id": "2"}],
          "event": {"name": "Match", "scoring": "IMP", "movement": {"kind": "teams", "boards": 4,
                                                                   "boards_per_round": 2}}}
RNG = HashDRBG("everywhere")
SET = [HandRecordBoard.of(n, random_deal(RNG)) for n in range(1, 5)]


def pass_out(d: httpx.Client, table: str, board: int, deal: str | None) -> None:
    """``board`` at ``table``: started (with the cards read, or none: real cards, no readers) and passed out."""
    body: dict[str, Any] = {"type": "board", "board": board} | ({"deal": deal} if deal else {})
    r = d.post(f"/api/tables/{table}/events", json=body)
    assert r.status_code == 200, r.text
    first = "NESW".index(str(dealer_for(board)))
    for i in range(4):
        call = {"type": "call", "seat": "NESW"[(first + i) % 4], "call": "Pass"}
        r = d.post(f"/api/tables/{table}/events", json=call)
        assert r.status_code == 200, r.text


def deal_of(rec: GameRecord) -> tuple[int | None, str | None] | None:
    """(board, PBN deal) of a record of an export: its BoardStarted event."""
    start = next((e for e in rec.events if isinstance(e, BoardStarted)), None)
    return (start.board, start.deal) if start is not None else None


def lin_text(d: httpx.Client) -> str:
    r = d.get("/api/exports/lin")
    assert r.status_code == 200, r.text
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        return "".join(z.read(n).decode() for n in z.namelist())


def public_board(c: httpx.Client, board: int) -> dict[str, Any]:
    return next((b for b in c.get("/api/public/results").json()["boards"] if b["board"] == board), {})


def sheets_when_ready(d: httpx.Client) -> httpx.Response:
    """The sheets, asked again while the service says the analysis is under way (202 with Retry-After and how
    many boards are ready): it never holds a request for the solver."""
    deadline = time.monotonic() + 120
    while True:
        r = d.get("/api/exports/handrecords")
        if r.status_code != 202 or time.monotonic() > deadline:
            return r
        body = r.json()
        assert int(r.headers["retry-after"]) >= 1 and 0 <= body["ready"] < body["boards"], r.text
        assert "still being computed" in body["detail"]
        time.sleep(0.5)


def test_the_sheets_the_exports_and_the_public_screen_print_the_hand_records(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, srv.client() as anon:
        # without a set and before a board: no sheet
        assert d.get("/api/exports/handrecords").status_code == 409
        content = base64.b64encode(to_bytes(SET, "DUP")).decode()
        r = d.post("/api/event/hand-records", json={"filename": "match.dup", "content_base64": content})
        assert r.status_code == 200, r.text

        # the sheets are the set's, all four boards, before any table started one
        r = sheets_when_ready(d)
        assert r.status_code == 200, r.text
        assert r.text == render(SET, "Match")

        # table 1 plays board 1 with real cards and no readers (its deal is not read); table 2 has not played it
        pass_out(d, "1", 1, None)
        assert d.get("/api/tables/1/boards/1").json()["deal"] in (None, "")
        for name, records in (("pbn", read_pbn(io.StringIO(d.get("/api/exports/pbn").text))),
                              ("lin", read_lin(io.StringIO(lin_text(d))))):
            dealt = [deal_of(rec) for rec in records if deal_of(rec) is not None]
            board_1 = [deal for n, deal in dealt if n == 1]
            assert board_1 and all(Deal.from_pbn(str(deal)) == SET[0].deal for deal in board_1), (name, dealt)

        # the public screen: board 1 still to be played at table 2, so no hands anywhere
        assert "deal" not in public_board(anon, 1)
        assert "deal" not in public_board(d, 1)

        # table 2 plays it, without readers too: now the public sees its hands, which only the hand record knows
        pass_out(d, "2", 1, None)
        deadline = time.monotonic() + 30
        while "deal" not in public_board(anon, 1) and time.monotonic() < deadline:
            time.sleep(0.2)
        shown = public_board(anon, 1)["deal"]
        assert shown["hands"] == {str(s): sort_cards(SET[0].deal.hands[s]) for s in SEATS}
        assert all("deal" not in public_board(anon, n) for n in (2, 3, 4))
