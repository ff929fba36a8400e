"""Tables start their own boards, over real HTTP (service/api/board_start.py, service/event/board_start.py): the
number typed again, the deal from the evening's hand record at a table of phones (each seat sees exactly its own
hand), a wrong board refused and put to the director with Law 15, his rulings, "my cards differ" (Laws 13, 87),
and the lead check at a scoring-only table (off, warn, must comply) that never tells where a card is."""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from service_harness import ServerProcess, ServiceThread

from table.cards import Deal, Seat
from table.dealgen import HashDRBG, random_deal
from table.handrecords import HandRecordBoard, to_bytes

CONFIG = {"tables": [{"id": str(t)} for t in range(1, 5)],
          "event": {"name": "Board start", "movement": {"kind": "mitchell", "tables": 4, "boards_per_round": 4}}}
SET = [HandRecordBoard.of(n, random_deal(HashDRBG(f"board-start-{n}"))) for n in range(1, 17)]
DEALS = {b.board: Deal.from_pbn(b.deal.to_pbn()) for b in SET}
SEATS = ("N", "E", "S", "W")
HOLDERS = re.compile(r"\b(N|E|S|W|North|East|South|West|NS|EW)\b")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServiceThread(tmp_path_factory.mktemp("boardstart"), CONFIG) as srv:
        yield srv


@pytest.fixture(scope="module")
def director(server: ServerProcess) -> Iterator[httpx.Client]:
    with server.client(server.token) as c:
        yield c


def seat(server: ServerProcess, director: httpx.Client, table: str, s: str) -> httpx.Client:
    return server.client(str(director.get(f"/api/tables/{table}/tokens").json()[s]["token"]))


def calls(director: httpx.Client, code: str, table: str) -> list[dict[str, Any]]:
    return [c for c in director.get("/api/director-calls").json() if c.get("code") == code and c["table"] == table]


def test_a_table_of_phones_starts_its_board_from_the_hand_record(server: ServerProcess,
                                                                 director: httpx.Client) -> None:
    with seat(server, director, "1", "N") as north:
        offered = north.get("/api/tables/1/offered-boards").json()
        assert offered["boards"] == [1, 2, 3, 4] and offered["round"] == 1 and offered["hand_records"] is False
        r = north.post("/api/tables/1/boards/2/start", json={"confirm": 2})
        assert r.status_code == 409 and r.json()["detail"] == "the director has not loaded the hand records"

        body = {"filename": "set.pbn", "content": to_bytes(SET, "PBN").decode()}
        assert director.post("/api/event/hand-records", json=body).status_code == 200
        assert north.get("/api/tables/1/offered-boards").json()["hand_records"] is True

        r = north.post("/api/tables/1/boards/2/start", json={"confirm": 3})     # the number typed again differs
        assert r.status_code == 422 and "is not board 2" in r.json()["detail"]
        for bad in ({}, {"confirm": "2"}, {"confirm": 0}, {"confirm": 2, "deal": "N:..."}):
            assert north.post("/api/tables/1/boards/2/start", json=bad).status_code == 422, bad
        with seat(server, director, "2", "N") as other, server.client() as anyone:
            assert other.post("/api/tables/1/boards/2/start", json={"confirm": 2}).status_code == 403
            assert anyone.post("/api/tables/1/boards/2/start", json={"confirm": 2}).status_code == 401
            assert anyone.get("/api/tables/1/offered-boards").status_code == 401
        assert director.get("/api/tables/1").json()["board"] is None

        r = north.post("/api/tables/1/boards/2/start", json={"confirm": 2})
        assert r.status_code == 200, r.text
        assert r.json()["board"] == 2 and r.json()["dealer"] == "E" and r.json()["phase"] == "board_ready"
        assert north.post("/api/tables/1/boards/2/start", json={"confirm": 2}).status_code == 200  # a second phone

    deal = DEALS[2]
    for s in SEATS:
        with seat(server, director, "1", s) as me:
            state = me.get("/api/tables/1").json()
            assert set(state["hands"]) == {s}, (s, state["hands"])
            assert sorted(state["hands"][s]["cards"]) == sorted(deal.hands[Seat(s)])
    journal = director.get("/api/tables/1/events", params={"board": 2}).json()
    assert journal[0]["actor"] == "seat:1:N" and journal[0]["body"]["source"] == "hand_records"


def test_a_wrong_board_calls_the_director_with_law_15_and_he_rules(server: ServerProcess,
                                                                   director: httpx.Client) -> None:
    grid = director.get("/api/event/boards").json()
    # table 1's, two rounds ahead (a board of the next round moves the table on: service/event/start_rule.py)
    later = next(b["board"] for b in grid if b["table"] == "1" and b["round"] == 3)
    never = next(n for n in range(1, 17) if not any(b["table"] == "1" and b["board"] == n for b in grid))
    with seat(server, director, "1", "E") as east:
        for _ in range(2):                       # asking twice makes one call
            r = east.post(f"/api/tables/1/boards/{later}/start", json={"confirm": later})
            assert r.status_code == 409, r.text
            got = r.json()
            assert got["code"] == "WRONG_BOARD" and got["law"] == "15" and "Law 15" in got["detail"]
            assert f"board {later}" in got["detail"] and "director is called" in got["detail"]
        assert director.get("/api/tables/1").json()["board"]["number"] == 2             # nothing started
        [call] = calls(director, "WRONG_BOARD", "1")
        assert call["board"] == later and call["law"] == "15" and call["seat"] == "E"
        assert "Law 15" in call["reason"] and call["law_text"].startswith("A board not designated")

        # the director lets it be played here: granted, the terminal offers it and the table starts it
        ruled = director.post(f"/api/director-calls/{call['id']}/rule", json={"ruling": "play_here"})
        assert ruled.status_code == 200, ruled.text
        assert ruled.json()["answered"] and "granted" in ruled.json()["ruling"]
        assert later in east.get("/api/tables/1/offered-boards").json()["boards"]
        r = east.post(f"/api/tables/1/boards/{later}/start", json={"confirm": later})
        assert r.status_code == 200, r.text
        dealer = r.json()["dealer"]

        r = east.post(f"/api/tables/1/boards/{never}/start", json={"confirm": never})
        assert r.status_code == 409 and r.json()["code"] == "WRONG_BOARD"
        [call] = [c for c in calls(director, "WRONG_BOARD", "1") if not c["answered"]]
        refused = director.post(f"/api/director-calls/{call['id']}/rule", json={"ruling": "play_here"})
        assert refused.status_code == 409                                           # no comparison for these pairs
        assert [p["key"] for p in refused.json()["detail_parts"]] == ["refusal.late_not_in_movement"]
        ruled = director.post(f"/api/director-calls/{call['id']}/rule", json={"ruling": "correct_board"}).json()
        assert ruled["ruling"].startswith("Law 15A: table 1 plays its own boards (1, 2, 3, 4)")
        assert [p["key"] for p in ruled["ruling_parts"]] == ["ruling.correct_board"]    # a Chinese console words it
        assert director.post(f"/api/director-calls/{call['id']}/rule",
                             json={"ruling": "correct_board"}).status_code == 409    # answered already
        assert director.post(f"/api/director-calls/{call['id']}/rule", json={"ruling": "x"}).status_code == 422
        assert east.post(f"/api/director-calls/{call['id']}/rule",
                         json={"ruling": "play_here"}).status_code == 403

        assert director.post("/api/tables/1/events", json={"type": "call", "seat": dealer, "call": "Pass"}).is_success
        r = east.post("/api/tables/1/boards/1/start", json={"confirm": 1})         # the auction has begun
        assert r.status_code == 409 and r.json()["code"] == "IN_PLAY" and "finish it first" in r.json()["detail"]


def test_my_cards_differ_calls_the_director(server: ServerProcess, director: httpx.Client) -> None:
    with seat(server, director, "1", "W") as west:
        r = west.post("/api/tables/1/director", json={"reason": "cards_differ"})
        assert r.status_code == 200, r.text
        assert r.json()["code"] == "CARDS_DIFFER" and r.json()["law"] == "13, 87"
        assert west.post("/api/tables/1/director", json={"reason": "lost"}).status_code == 422
    board = director.get("/api/tables/1").json()["board"]["number"]
    [call] = calls(director, "CARDS_DIFFER", "1")
    assert call["board"] == board and call["seat"] == "W"
    assert call["reason"] == f"the cards of board {board} differ from the hand record"
    assert call["law_text"].startswith("Incorrect number of cards")
    with seat(server, director, "4", "N") as idle:                # no board at table 4: which cards?
        assert idle.post("/api/tables/4/director", json={"reason": "cards_differ"}).status_code == 409


def _lead(board: int, declarer: str, held: bool) -> str:
    """A card the leader (declarer's left) holds, or one he does not."""
    deal = DEALS[board]
    leader = Seat(declarer).lho
    pool = deal.hands[leader] if held else deal.hands[leader.partner]
    return sorted(pool)[0]


def _key(me: httpx.Client, board: int, lead: str) -> httpx.Response:
    r = me.post(f"/api/tables/3/boards/{board}/start", json={"confirm": board})
    assert r.status_code == 200, r.text
    return me.post("/api/tables/3/events", json={"type": "result", "contract": "3NT", "declarer": "S", "tricks": 9,
                                                 "lead": lead})


def test_the_lead_check_off_warn_must_comply(server: ServerProcess, director: httpx.Client) -> None:
    director.post("/api/tables/3/kind", json={"kind": "scoring"}).raise_for_status()
    assert director.get("/api/event/lead-check").json()["mode"] == "off"
    with seat(server, director, "3", "N") as north:
        boards = north.get("/api/tables/3/offered-boards").json()["boards"]
        assert len(boards) == 4
        assert north.post("/api/event/lead-check", json={"mode": "warn"}).status_code == 403
        assert director.post("/api/event/lead-check", json={"mode": "sometimes"}).status_code == 422

        r = _key(north, boards[0], _lead(boards[0], "S", held=False))        # off: no check
        assert r.status_code == 200 and "warning" not in r.json()
        r = north.post(f"/api/tables/3/boards/{boards[0]}/start", json={"confirm": boards[0]})
        assert r.status_code == 409 and r.json()["code"] == "PLAYED"

        director.post("/api/event/lead-check", json={"mode": "warn"}).raise_for_status()
        r = _key(north, boards[1], _lead(boards[1], "S", held=False))
        assert r.status_code == 200, r.text
        warning = r.json()["warning"]
        assert warning["code"] == "LEAD_NOT_IN_HAND"
        assert warning["text"] == "the lead is not in the leader's hand per the hand record: the director is told"
        assert [p["key"] for p in warning["text_parts"]] == ["refusal.lead_not_in_hand", "refusal.lead_told"]
        [call] = calls(director, "LEAD_CHECK", "3")
        assert call["board"] == boards[1] and "warned" in call["reason"]
        # the call's words in keyed pieces, so a Chinese console words the card and the count (issue 24)
        [piece] = call["reason_parts"]
        assert piece["key"] == "call.lead_check_warned" and piece["params"]["board"] == str(boards[1])
        assert f"({piece['params']['card']})" in call["reason"]

        got = director.post("/api/event/lead-check", json={"mode": "must comply"}).json()
        assert got["mode"] == "must comply" and got["tables"]["3"] == "must comply"
        r = _key(north, boards[2], _lead(boards[2], "S", held=False))
        assert r.status_code == 409
        first = r.json()["detail"]
        assert first == "the lead is not in the leader's hand per the hand record: check the opening lead"
        assert [p["key"] for p in r.json()["detail_parts"]] == ["refusal.lead_not_in_hand", "refusal.lead_check_lead"]
        assert director.get("/api/tables/3").json()["phase"] == "board_ready"          # refused: nothing keyed
        # starting the board again does not reset the count
        assert north.post("/api/tables/3/events", json={"type": "board", "board": boards[2]}).status_code == 200
        # the second wrong lead: refused, the director called, the board no longer checked (no probing the deal)
        other = sorted(DEALS[boards[2]].hands[Seat("S").lho.partner])[1]
        r = north.post("/api/tables/3/events", json={"type": "result", "contract": "3NT", "declarer": "S",
                                                     "tricks": 9, "lead": other})
        assert r.status_code == 409 and r.json()["detail"].endswith("the director is called")
        for text in (first, r.json()["detail"]):
            assert not HOLDERS.search(text), text                        # never who holds the card
        assert len(calls(director, "LEAD_CHECK", "3")) == 2
        refused = [c for c in calls(director, "LEAD_CHECK", "3") if c["board"] == boards[2]]
        assert [p["key"] for c in refused for p in c["reason_parts"]] == ["call.lead_check_refused"]
        assert refused[0]["reason_parts"][0]["params"]["count"] == "2" and "refused 2 times" in refused[0]["reason"]
        r = north.post("/api/tables/3/events", json={"type": "result", "contract": "3NT", "declarer": "S",
                                                     "tricks": 9, "lead": sorted(DEALS[boards[2]].hands[Seat("N")])[0]})
        assert r.status_code == 200 and "warning" not in r.json()        # unchecked now, whatever it says

        r = _key(north, boards[3], _lead(boards[3], "S", held=True))        # a right lead passes
        assert r.status_code == 200 and "warning" not in r.json(), r.text

    with seat(server, director, "2", "N") as stranger:                   # another table's seat learns nothing
        r = stranger.post("/api/tables/3/events", json={"type": "result", "contract": "3NT", "declarer": "S",
                                                        "tricks": 9, "lead": "SA"})
        assert r.status_code == 403
