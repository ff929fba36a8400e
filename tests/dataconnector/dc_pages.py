"""A table of the club evening played by four seat pages in headless Chromium: the players scan the table's card
(``GET /api/tables/{id}/cards``, the director's printable cards), and every call, card, claim and claim answer is
a click on their pages. The board itself is put on the table by the dealing machine; here the director's API
stands in for it, with the evening's hand record. Every wait is on a condition, with generous timeouts (the test
machine is loaded)."""
from __future__ import annotations

from typing import Any

import httpx
from headless import PLAY_ONE, wait_until
from service_harness import PLAIN_HTTP

SEATS = "NESW"
LHO = {"N": "E", "E": "S", "S": "W", "W": "N"}
PARTNER = {"N": "S", "E": "W", "S": "N", "W": "E"}
PAGE_TIMEOUT = 60.0

CARDS_PLAYED = "() => state ? (state.tricks_won ? state.tricks_won.NS + state.tricks_won.EW : 0) * 4 + " \
    "(state.trick ? state.trick.cards.length : 0) : -1"


class SeatPages:
    """The four seat pages of table ``table``; ``sit_down()`` opens them from the table's card (again each round:
    a new pair sits down and scans the card; the pages of the pair that left are closed)."""

    def __init__(self, browser: Any, base: str, director_token: str, table: str, errors: list[str]) -> None:
        self.browser, self.base, self.table, self.errors = browser, base, table, errors
        self.director = {"Authorization": f"Bearer {director_token}"}
        self.pages: dict[str, Any] = {}
        self._contexts: list[Any] = []

    def close(self) -> None:
        for ctx in self._contexts:
            ctx.close()
        self._contexts, self.pages = [], {}

    def sit_down(self) -> None:
        self.close()
        cards = httpx.get(f"{self.base}/api/tables/{self.table}/cards", headers=self.director, timeout=30,
                          verify=PLAIN_HTTP)
        cards.raise_for_status()
        for seat in SEATS:
            ctx = self.browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            self._contexts.append(ctx)
            page = ctx.new_page()
            page.on("pageerror", lambda e, seat=seat: self.errors.append(f"table {self.table} {seat}: {e}"))
            page.goto(cards.json()["seats"][seat]["link"])
            self.pages[seat] = page
        for seat, page in self.pages.items():
            wait_until(page, "([t, s]) => TABLE === t && ME === s && !!state", [self.table, seat], timeout=PAGE_TIMEOUT)

    def enter_name(self, seat: str, name: str) -> None:
        """The player types his name in his page's form for his pair this round (before the round's first board)."""
        page = self.pages[seat]
        field = page.locator(f"#players-form #player-{seat}")
        field.wait_for(timeout=PAGE_TIMEOUT * 1000)
        field.fill(name)
        page.locator('#players-form button[type="submit"]').click()
        wait_until(page, "n => document.querySelector('#players-section').innerText.includes(n)", name,
                   timeout=PAGE_TIMEOUT)

    def put_board(self, number: int) -> None:
        """The dealing machine's part: the board, dealt as the evening's hand record says, goes on the table."""
        records = httpx.get(f"{self.base}/api/event/hand-records", headers=self.director, timeout=30,
                            verify=PLAIN_HTTP).json()
        deal = next(b["deal"] for b in records["boards"] if b["board"] == number)
        httpx.post(f"{self.base}/api/tables/{self.table}/events", headers=self.director, timeout=30, verify=PLAIN_HTTP,
                   json={"type": "board", "board": number, "deal": deal}).raise_for_status()

    def wait_board(self, number: int) -> str:
        """Every page shows board ``number``; its dealer."""
        for page in self.pages.values():
            wait_until(page, "n => state && state.board && state.board.number === n", number, timeout=PAGE_TIMEOUT)
        return str(self.pages["N"].evaluate("() => state.board.dealer"))

    def call(self, seat: str, bid: str) -> None:
        page = self.pages[seat]
        wait_until(page, "s => state && state.turn === s && !!document.querySelector('#box button.call')", seat,
                   timeout=PAGE_TIMEOUT)
        made = page.evaluate("() => state.auction ? state.auction.calls.length : 0")
        if bid in ("Pass", "X", "XX"):
            page.locator(f'#box button.call[data-call="{bid}"]').click()
        else:
            page.locator(f'#box .level[data-level="{bid[0]}"]').click()
            page.locator(f'#box .strain[data-strain="{bid[1:]}"]').click()
        wait_until(page, "n => state.auction && state.auction.calls.length > n || "
                   "['opening_lead', 'board_complete', 'awaiting_ruling'].includes(state.phase)", made,
                   timeout=PAGE_TIMEOUT)

    def auction(self, dealer: str, calls: list[str]) -> None:
        seat = dealer
        for bid in calls:
            self.call(seat, bid)
            seat = LHO[seat]

    def pass_out(self, number: int) -> None:
        dealer = self.wait_board(number)
        self.auction(dealer, ["Pass"] * 4)
        self.wait_phase("board_complete")

    def play_cards(self, n: int, declarer: str) -> None:
        """``n`` cards, each clicked on the page of the seat due (declarer's page plays dummy's)."""
        dummy = PARTNER[declarer]
        for _ in range(n):
            played = self.pages[declarer].evaluate(CARDS_PLAYED)
            for page in self.pages.values():
                wait_until(page, "n => (" + CARDS_PLAYED + ")() >= n", played, timeout=PAGE_TIMEOUT)
            turn = str(self.pages[declarer].evaluate("() => state.turn"))
            page = self.pages[declarer if turn == dummy else turn]
            if not page.evaluate(PLAY_ONE):
                raise AssertionError(f"{turn}'s card cannot be played: " + str(page.evaluate("() => state")))
            wait_until(self.pages[declarer], "n => (" + CARDS_PLAYED + ")() > n", played, timeout=PAGE_TIMEOUT)

    def claim(self, declarer: str, tricks: int) -> None:
        """Declarer claims ``tricks`` in all; the defenders accept on their pages."""
        page = self.pages[declarer]
        page.locator("#claim-open").click()
        page.locator("#claim-tricks").select_option(str(tricks))
        page.locator("#claim-send").click()
        first, second = LHO[declarer], PARTNER[LHO[declarer]]
        self.pages[first].locator("#claim-accept").wait_for(timeout=PAGE_TIMEOUT * 1000)
        self.pages[first].locator("#claim-accept").click()
        wait_until(self.pages[second], "s => state.claim && state.claim.responses[s] === true", first,
                   timeout=PAGE_TIMEOUT)
        self.pages[second].locator("#claim-accept").click()
        self.wait_phase("board_complete")

    def wait_phase(self, phase: str) -> None:
        for page in self.pages.values():
            wait_until(page, "p => state && state.phase === p", phase, timeout=PAGE_TIMEOUT)
