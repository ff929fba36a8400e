"""A whole evening of phones, in headless Chromium through real HTTP/WebSocket (issue 23, must-show 1): every change
goes through a page; the test's own client only reads, to check.

The director, in the console, sets up a 4-table relay Mitchell (2 boards a round, tables of phones), imports the
Duplimate (.dup) file written here with exactly the event's boards, and follows the console's link to the table cards;
sixteen phone pages (390x844) open the cards' links. Every board of rounds 1 and 2 is played at all four tables
from the phones: the board is started on North's phone (the offered board, its number typed again), a short
auction (one bid, three passes; the declarer and the contract vary), all 13 tricks by clicking the cards (declarer
clicks dummy's), the opponents accept the result. Tables sharing a set in the relay never hold the same board at
once. Table 2 first names a board that is not its own: its phone says why (Law 15), the console shows the call
and the director has the correct board played; a player at table 3 presses "My cards differ" and the console's
calls list it with Laws 13 and 87. The director moves the evening to round 2 from the console; the pages follow
their pairs. Each table's result of each board equals the score the test computes from the deal, the auction and
the cards clicked (trick winners worked out here, scored by the small function below)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from endplay.types import Contract, Vul
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServiceThread

from results.movement import mitchell
from table.cards import Seat
from table.dealgen import HashDRBG, random_deal
from table.handrecords import HandRecordBoard, to_bytes

# Seventeen browsers share one client address here (in a club each phone has its own): the per-address cap on
# open connections (64 by default: docs/security.md) is raised so that no page's script is refused with a 429.
CONFIG = {"tables": [{"id": str(t)} for t in range(1, 5)],
          "regulation": {"spectators": {"delay_s": 0}, "results_release": "immediate"},
          "limits": {"connections_per_address": 512}}
PHONE = {"width": 390, "height": 844}
MOVEMENT = mitchell(4, boards_per_round=2, even="relay")
BOARDS = sorted({b for s in MOVEMENT.sittings for b in s.boards})          # the event's boards: 1 to 8
SET = [HandRecordBoard.of(n, random_deal(HashDRBG(f"phone-evening-{n}"))) for n in BOARDS]
DEALS = {b.board: b.deal for b in SET}
SEATS = "NESW"
SIDE = {"N": "NS", "S": "NS", "E": "EW", "W": "EW"}
TOAST = "() => document.getElementById('toast').textContent"
TIMEOUT = 60.0

# what a page holds of its table now (the page's own copy of the stream's state)
SUMMARY = """() => state && {seq: state.seq, board: state.board ? state.board.number : null, phase: state.phase,
  turn: state.turn, declarer: state.declarer, dummy: state.dummy, dealer: state.board ? state.board.dealer : null,
  contract: state.contract || null, accepted: !!(state.confirm && state.confirm.answer && state.confirm.answer.accept),
  side: state.confirm ? state.confirm.side : null, table: TABLE, me: ME}"""
# a call from the page's bidding box: a level then a strain, or Pass
CALL = """bid => {
  if (bid === 'Pass') { const p = document.querySelector('#box button.call[data-call="Pass"]'); if (!p) return false;
    p.click(); return true; }
  const l = document.querySelector(`#box .level[data-level="${bid[0]}"]`); if (!l) return false;
  l.click();
  const s = document.querySelector(`#box .strain[data-strain="${bid.slice(1)}"]:not([disabled])`); if (!s) return false;
  s.click(); return true;
}"""
# a legal card of the seat on turn, clicked on this page (its own hand, or dummy's on declarer's page): it follows
# the suit led when it can; ``pick`` varies the card among those it may play
PLAY = """([seat, pick]) => {
  if (!state || state.turn !== seat) return null;
  const buttons = [...document.querySelectorAll(`.hand.${seat} button.card.play`)];
  if (!buttons.length) return null;
  const t = state.trick && state.trick.cards.length < 4 ? state.trick.cards : [];
  const led = t.length ? t[0].card[0] : null;
  const follow = buttons.filter(b => led && b.dataset.card[0] === led);
  const legal = follow.length ? follow : buttons;
  const b = legal[pick % legal.length];
  b.click(); return b.dataset.card;
}"""


# ------------------------------------------------------------------------------------------ the score, worked out here
def dealer_and_vulnerability(board: int) -> tuple[str, str]:
    """The standard cycle of 16 boards: dealer N E S W, vulnerability None NS EW All rotated."""
    vul = ["None", "NS", "EW", "All", "NS", "EW", "All", "None",
           "EW", "All", "None", "NS", "All", "None", "NS", "EW"][(board - 1) % 16]
    return SEATS[(board - 1) % 4], vul


def trick_winner(cards: list[tuple[str, str]], trumps: str) -> str:
    """The seat that wins a trick of four (seat, card) in play order; ``trumps`` is a suit letter or "NT"."""
    order = "23456789TJQKA"
    led = cards[0][1][0]

    def power(card: str) -> int:
        return (200 if card[0] == trumps else 100 if card[0] == led else 0) + order.index(card[1])
    return max(cards, key=lambda sc: power(sc[1]))[0]


def duplicate_score(level: int, strain: str, vulnerable: bool, tricks: int) -> int:
    """Declarer's score of an undoubled contract (the duplicate scoring table)."""
    need = level + 6
    if tricks < need:
        return -(need - tricks) * (100 if vulnerable else 50)
    per = 20 if strain in "CD" else 30
    contracted = per * level + (10 if strain == "NT" else 0)
    score = contracted + per * (tricks - need)
    score += (500 if vulnerable else 300) if contracted >= 100 else 50
    if level == 6:
        score += 750 if vulnerable else 500
    if level == 7:
        score += 1500 if vulnerable else 1000
    return score



def test_the_score_worked_out_here_is_the_scoring_table() -> None:
    """The small function above agrees with endplay's scoring for every undoubled contract and result."""
    for level in range(1, 8):
        for strain in ("C", "D", "H", "S", "NT"):
            for vulnerable in (False, True):
                for tricks in range(14):
                    c = Contract(f"{level}{strain}N")
                    c.result = tricks - level - 6
                    vul = Vul.both if vulnerable else Vul.none
                    assert duplicate_score(level, strain, vulnerable, tricks) == c.score(vul), (level, strain, tricks)
    assert trick_winner([("W", "H2"), ("N", "HA"), ("E", "S2"), ("S", "HK")], "S") == "E"
    assert trick_winner([("W", "H2"), ("N", "HA"), ("E", "S2"), ("S", "HK")], "NT") == "N"

@dataclass
class Play:
    """One board at one table as the phones played it."""
    board: int
    declarer: str
    bid: str
    calls: list[str] = field(default_factory=list)
    cards: list[tuple[str, str]] = field(default_factory=list)
    started: bool = False

    def auction(self) -> list[str]:
        """Passes from the dealer round to the declarer, his bid, three passes."""
        dealer, _ = dealer_and_vulnerability(self.board)
        before = (SEATS.index(self.declarer) - SEATS.index(dealer)) % 4
        return ["Pass"] * before + [self.bid] + ["Pass"] * 3

    def expected(self) -> tuple[int, int]:
        """Declarer's tricks and the NS score, from the deal and the cards clicked."""
        level, strain = int(self.bid[0]), self.bid[1:]
        trumps = "NT" if strain == "NT" else strain
        won = 0
        for i in range(0, 52, 4):
            winner = trick_winner(self.cards[i:i + 4], trumps)
            won += SIDE[winner] == SIDE[self.declarer]
        _, vul = dealer_and_vulnerability(self.board)
        score = duplicate_score(level, strain, vul == "All" or vul == SIDE[self.declarer], won)
        return won, score if SIDE[self.declarer] == "NS" else -score


def plan(table: int, board: int) -> Play:
    """A varied short auction: the declarer and the contract change with the table and the board."""
    declarer = SEATS[(table + board) % 4]
    bid = ["1NT", "2C", "1H", "2S", "1D", "3NT", "2H", "1S"][(table * 3 + board) % 8]
    return Play(board, declarer, bid)


# ------------------------------------------------------------------------------------------ the pages
@dataclass
class Table:
    id: str
    pages: dict[str, Any]                    # seat -> its phone page
    queue: list[int]                         # the round's boards, in the order this table plays them
    plays: dict[int, Play] = field(default_factory=dict)
    last: Any = None                         # what the pages showed when the table last acted
    on_started: Any = None                   # called once the table's first board is being bid

    @property
    def done(self) -> bool:
        return not self.queue


def set_up_event(console: Any) -> None:
    console.locator("#ev-setup summary").click()
    console.locator("#ev-form [name=name]").fill("Phones evening")
    sec = console.locator("#ev-sections .ev-sec").first
    sec.locator("[name=kind]").select_option("mitchell")
    sec.locator("[name=count]").fill("4")
    sec.locator("[name=bpr]").fill("2")
    sec.locator("[name=even]").select_option("relay")
    console.locator("[name=table_kinds]").select_option("played")
    console.locator("#ev-create").click()
    wait_until(console, "() => document.querySelectorAll('#ev-tables .ev-card').length === 4", timeout=TIMEOUT)


def import_hand_records(console: Any, path: Path) -> None:
    wait_until(console, "() => { const f = document.getElementById('hr-file'); return f && !f.disabled; }",
               timeout=TIMEOUT)
    console.locator("#hr-file").set_input_files(str(path))
    with console.expect_response(lambda r: r.url.endswith("/api/event/hand-records") and r.request.method == "POST"):
        console.locator("#hr-import").click()
    wait_until(console, "n => document.getElementById('hr-summary').textContent.includes(n)", path.name,
               timeout=TIMEOUT)


def card_links(console: Any) -> dict[str, dict[str, str]]:
    """The director follows the console's link to the table cards (the same tab: his token with it), reads each
    seat's link off the cards and goes back to the console."""
    with console.expect_navigation():
        console.locator("#exports a[href='/cards']").click()
    console.wait_for_load_state()
    wait_until(console, "() => location.pathname === '/cards' && document.body.dataset.loaded === '4'",
               timeout=TIMEOUT)
    console.screenshot(path=str(ARTIFACTS / "phone-evening-cards.png"), full_page=True)
    found = console.evaluate("""() => Object.fromEntries([...document.querySelectorAll('article.table-card')].map(a =>
      [a.dataset.table, [...a.querySelectorAll('.seat-cell .link')].map(p => p.textContent)]))""")
    console.go_back()
    console.wait_for_load_state()
    wait_until(console, "() => location.pathname === '/console' && "
                        "document.querySelectorAll('#ev-tables .ev-card').length === 4", timeout=TIMEOUT)
    return {t: dict(zip(SEATS, links)) for t, links in found.items()}


def start_board(page: Any, board: str, typed: int, named: int | None = None) -> None:
    """On a phone: pick the board (or "Another board" and name it), type its number again, send."""
    page.locator(f"#start-section button.start-board[data-board='{board}']").click()
    wait_until(page, "() => { const f = document.getElementById('start-form'); return f && !f.hidden; }",
               timeout=TIMEOUT)
    if named is not None:
        page.fill("#start-number", str(named))
    page.fill("#start-confirm", str(typed))
    page.click("#start-send")


def step(table: Table, busy: dict[int, str]) -> bool:
    """One action at ``table`` if its four pages agree on what the table is doing and it has moved on since the
    table's last action; False when it waits."""
    views: dict[str, Any] = {}
    for s, p in table.pages.items():
        v = views[s] = p.evaluate(SUMMARY)
        if v is None or (v["seq"], v["accepted"]) == table.last:
            return False            # this page has not moved on: the four cannot agree on a new state yet
    now = {(v["seq"], v["accepted"]) for v in views.values()}
    if len(now) != 1 or now == {table.last}:
        return False
    v = views["N"]
    board = table.queue[0]
    play = table.plays.setdefault(board, plan(int(table.id), board))
    if v["board"] != board:                                   # the next board: started on North's phone
        if busy.get(board, table.id) != table.id:              # the other table of the relay holds it
            return False
        north = table.pages["N"]
        if not north.evaluate("b => !!document.querySelector(`#start-section:not([hidden]) "
                              "button.start-board[data-board='${b}']`)", board):
            return False
        busy[board] = table.id
        table.last = now.pop()
        start_board(north, str(board), board)
        return True
    if not play.started:
        dealer, vul = dealer_and_vulnerability(board)
        assert v["dealer"] == dealer, (table.id, board, v)
        play.started = True
    phase = v["phase"]
    if phase in ("board_ready", "auction"):
        expected = play.auction()
        dealer, _ = dealer_and_vulnerability(board)
        assert v["turn"] == SEATS[(SEATS.index(dealer) + len(play.calls)) % 4], (table.id, board, v, play.calls)
        bid = expected[len(play.calls)]
        if not table.pages[v["turn"]].evaluate(CALL, bid):
            return False
        play.calls.append(bid)
        table.last = now.pop()
        if table.on_started is not None:
            hook, table.on_started = table.on_started, None
            hook(table)
        return True
    if phase in ("opening_lead", "play"):
        if len(play.cards) == 0:
            assert v["contract"] == play.bid and v["declarer"] == play.declarer, (table.id, board, v)
        turn = v["turn"]
        actor = v["declarer"] if turn == v["dummy"] else turn
        card = table.pages[actor].evaluate(PLAY, [turn, board * 7 + len(play.cards) * 3 + int(table.id)])
        if card is None:
            return False
        assert card in DEALS[board].hands[Seat(turn)], (table.id, board, turn, card)   # the hand record's hand
        play.cards.append((turn, card))
        table.last = now.pop()
        return True
    if phase == "board_complete":
        assert len(play.cards) == 52, (table.id, board, len(play.cards))
        if v["accepted"]:                                       # the opponents accepted: the next board
            busy.pop(board, None)
            table.queue.pop(0)                                  # nothing sent: the start follows at once
            return True
        answering = next(s for s in SEATS if SIDE[s] == v["side"])
        page = table.pages[answering]
        if not page.evaluate("() => !!document.getElementById('confirm-accept')"):
            return False
        page.click("#confirm-accept")
        table.last = now.pop()
        return True
    raise AssertionError(f"table {table.id}, board {board}: unexpected phase {phase}: {v}")


def play_round(tables: list[Table], deadline_s: float = 300.0) -> None:
    """Every table plays its round's boards, the tables side by side (an action at each in turn)."""
    busy: dict[int, str] = {}
    deadline = time.monotonic() + deadline_s
    while not all(t.done for t in tables):
        moved = False
        for t in tables:
            if not t.done:
                moved = step(t, busy) or moved
        if not moved:
            if time.monotonic() > deadline:
                raise TimeoutError("the round did not finish: " + str({t.id: (t.queue, t.pages["N"].evaluate(SUMMARY))
                                                                      for t in tables}))
            time.sleep(0.05)


def round_queues(rnd: int) -> dict[str, list[int]]:
    """Each table's boards of the round; of two tables sharing a set (the relay) the higher plays them backwards,
    so each starts with a board the other does not hold."""
    queues: dict[str, list[int]] = {}
    for s in sorted((s for s in MOVEMENT.sittings if s.round == rnd), key=lambda s: s.table):
        shared = any(o.table < s.table and o.boards == s.boards for o in MOVEMENT.sittings if o.round == rnd)
        queues[str(s.table)] = list(reversed(s.boards)) if shared else list(s.boards)
    return queues


@pytest.mark.slow
def test_sixteen_phones_play_two_rounds_of_a_relay_mitchell_from_the_hand_records(tmp_path: Path) -> None:
    dup = tmp_path / "evening.dup"
    dup.write_bytes(to_bytes(SET, "DUP"))
    with ServiceThread(tmp_path / "srv", CONFIG) as srv, srv.client(srv.token) as reader, \
            browser_session() as browser:
        errors: list[str] = []
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        console = ctx.new_page()
        console.on("dialog", lambda d: d.accept())
        console.on("pageerror", lambda e: errors.append(f"console: {e}"))
        console.goto(f"{srv.base}/console#token={srv.token}")
        wait_until(console, "() => document.getElementById('ev-summary').textContent.length > 0", timeout=TIMEOUT)
        set_up_event(console)
        import_hand_records(console, dup)
        assert reader.get("/api/event/hand-records").json()["source"] == "evening.dup"
        links = card_links(console)
        assert sorted(links) == ["1", "2", "3", "4"]

        phones: dict[tuple[str, str], Any] = {}
        for t, seats in sorted(links.items()):
            for s, link in seats.items():
                page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
                page.on("pageerror", lambda e, who=f"{t}{s}": errors.append(f"{who}: {e}"))
                page.goto(link)
                phones[(t, s)] = page
        for (t, s), page in phones.items():
            wait_until(page, "([t, s]) => TABLE === t && ME === s && state !== null", [t, s], timeout=TIMEOUT)

        # table 2 names a board that is not its own (table 3's): refused in words, the director rules
        north2 = phones[("2", "N")]
        near = {b for s in MOVEMENT.sittings if s.table == 2 and s.round in (1, 2) for b in s.boards}
        wrong = next(b for b in BOARDS if b not in near)
        wait_until(north2, "() => !!document.querySelector('#start-section:not([hidden]) button.start-other')",
                   timeout=TIMEOUT)
        start_board(north2, "other", wrong, named=wrong)
        wait_until(north2, f"() => ({TOAST})().includes('Law 15')", timeout=TIMEOUT)
        assert f"Board {wrong} is not one of this table's boards now" in north2.evaluate(TOAST)
        wait_until(console, "() => document.querySelector('#calls .alert[data-table=\"2\"] "
                            ".reason[data-code=\"WRONG_BOARD\"]') !== null", timeout=TIMEOUT)
        assert "Law 15" in console.locator("#calls .alert[data-table='2']").inner_text()
        assert reader.get("/api/tables/2").json()["board"] is None
        console.locator("#calls .alert[data-table='2'] button.rule[data-ruling='correct_board']").click()
        wait_until(console, "() => document.querySelector('#calls .alert[data-table=\"2\"]') === null",
                   timeout=TIMEOUT)
        [ruled] = [c for c in reader.get("/api/director-calls").json() if c.get("code") == "WRONG_BOARD"]
        assert ruled["answered"] and ruled["ruling"].startswith("Law 15A: table 2 plays its own boards")

        def cards_differ(table: Table) -> None:
            """East at table 3 finds his cards are not those his phone shows: the director is called."""
            east = table.pages["E"]
            east.locator("#cards-differ").click()
            wait_until(east, f"() => ({TOAST})().includes('Laws 13 and 87')", timeout=TIMEOUT)
            wait_until(console, "() => document.querySelector('#calls .alert[data-table=\"3\"] "
                                ".reason[data-code=\"CARDS_DIFFER\"]') !== null", timeout=TIMEOUT)
            text = console.locator("#calls .alert[data-table='3']").inner_text()
            assert "Law 13, 87" in text and "seat E" in text, text
            console.locator("#calls-section").screenshot(path=str(ARTIFACTS / "phone-evening-calls.png"))
            console.locator("#calls .alert[data-table='3'] button.answer").click()
            wait_until(console, "() => document.querySelector('#calls .alert[data-table=\"3\"]') === null",
                       timeout=TIMEOUT)

        plays: dict[tuple[str, int], Play] = {}
        for rnd in (1, 2):
            pages_of = {t: {s: phones[(t, s)] for s in SEATS} for t in links}
            tables = [Table(t, pages_of[t], q) for t, q in round_queues(rnd).items()]
            if rnd == 1:
                tables[2].on_started = cards_differ
            play_round(tables)
            for tb in tables:
                plays.update({(tb.id, b): p for b, p in tb.plays.items()})
            phones[("1", "N")].screenshot(path=str(ARTIFACTS / f"phone-evening-r{rnd}-phone.png"), full_page=True)
            if rnd == 2:
                break
            # the director moves every table on from the console; each page follows its pair
            old = {k: p.evaluate("() => TOKEN") for k, p in phones.items()}
            console.locator("#ev-advance-all").click()
            wait_until(console, "() => [...document.querySelectorAll('#ev-tables .ev-round')]"
                                ".every(e => e.textContent.includes('round 2 of'))", timeout=TIMEOUT)
            moved: dict[tuple[str, str], Any] = {}
            for key, page in phones.items():
                wait_until(page, "old => TOKEN !== old && TOKEN.startsWith('seat.') && state !== null",
                           old[key], timeout=TIMEOUT)
                moved[tuple(page.evaluate("() => [TABLE, ME]"))] = page
            assert sorted(moved) == sorted(phones)
            phones = moved

        # every table's result of every board equals the score worked out here
        assert len(plays) == 16
        assert len({p.expected()[1] for p in plays.values()}) >= 4          # the comparison has something to see
        for (t, b), p in sorted(plays.items()):
            tricks, score_ns = p.expected()
            got = reader.get(f"/api/tables/{t}/boards/{b}").json()["result"]
            assert (got["contract"], got["declarer"], got["tricks"], got["score_ns"]) == \
                (p.bid, p.declarer, tricks, score_ns), (t, b, got, p)
        public = reader.get("/api/public/results").json()
        rows = {(str(r["table"]), e["board"]): r for e in public["boards"] for tr in e["travellers"]
                for r in tr["rows"]}
        for (t, b), p in plays.items():
            assert rows[(t, b)]["score_ns"] == p.expected()[1], (t, b, rows[(t, b)])
        assert not errors, errors
