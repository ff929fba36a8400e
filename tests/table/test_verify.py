"""At-table checks (table.verify), driven by HandRead events from simulated seat readers.

Four ``hw_sim`` seat readers on ``sim://`` (virtual clock) with the real ``SeatReaderDriver``s: a hand
"picked up" at a reader travels as HAND_READ through the wire protocol and the driver, which turns the
tags into the ``HandRead`` event the verifier receives.
"""
from __future__ import annotations

import itertools

import pytest

from drivers.config import SeatMap
from drivers.decks import DeckRegistry
from drivers.seat_reader import SeatReaderDriver
from hw_sim import registry
from hw_sim.clock import VirtualClock
from hw_sim.devices import SeatReader
from hw_sim.port import DevicePort
from hw_sim.tags import deck_uids
from table.cards import ALL_CARDS, SEATS, Deal, Seat
from table.dealgen import generate
from table.events import CallMade, HandRead, board_started
from table.handrecords import HandRecordBoard
from table.machine import Table
from table.verify import BoardVerifier, card_name, check_board, check_returned

_tables = itertools.count(1)


class Readers:
    """The four seat readers of one table and their drivers."""

    def __init__(self) -> None:
        name = f"verify-t{next(_tables)}"
        self.clock = VirtualClock()
        self.uids = deck_uids("deck-0")
        decks = DeckRegistry()
        decks.learn("deck-0", [self.uids[c] for c in ALL_CARDS])
        self.events: list = []
        seats = SeatMap({}, table=1)
        self.ports: dict[Seat, DevicePort] = {}
        self.drivers: dict[Seat, SeatReaderDriver] = {}
        self.names = []
        for s in SEATS:
            serial = f"SR-{name}-{s}"
            port = DevicePort(SeatReader(serial, clock=self.clock), clock=self.clock, name=serial)
            self.names.append(f"{name}-{s}")
            url = registry.register(port, self.names[-1])
            seats.bind(serial, str(s))
            self.ports[s] = port
            self.drivers[s] = SeatReaderDriver(url, self.events.append, seats, decks, clock=self.clock.now,
                                               sleep=self.clock.advance)
        self._pump_until(lambda: all(d.connected for d in self.drivers.values()))

    def _pump_until(self, done) -> None:
        for _ in range(2000):
            if done():
                return
            for d in self.drivers.values():
                d.pump(0.01)
        raise AssertionError("the simulated readers did not deliver")

    def pick_up(self, seat: Seat, cards) -> HandRead:
        """The player at ``seat`` takes ``cards`` out of the board: the reader sees every tag at once."""
        self.events.clear()
        self.ports[seat].act(lambda dev: dev.pick_up_hand([self.uids[c] for c in cards]))
        self._pump_until(lambda: any(isinstance(e, HandRead) for e in self.events))
        (event,) = [e for e in self.events if isinstance(e, HandRead)]
        assert event.seat == seat and sorted(event.cards) == sorted(cards)
        return event

    def close(self) -> None:
        for d in self.drivers.values():
            d.close()
        for n in self.names:
            registry.unregister(n)


@pytest.fixture
def readers():
    r = Readers()
    yield r
    r.close()


@pytest.fixture
def board7() -> HandRecordBoard:
    return HandRecordBoard.of(7, generate(1, seed="table-7")[0].deal)


def hands(deal: Deal) -> dict[Seat, list[str]]:
    return {s: sorted(deal.hands[s]) for s in SEATS}


def swap(deal: Deal, a: Seat, b: Seat) -> tuple[Deal, str, str]:
    """The deal with one card of ``a`` and one of ``b`` exchanged."""
    ca, cb = sorted(deal.hands[a])[0], sorted(deal.hands[b])[0]
    h = {s: set(deal.hands[s]) for s in SEATS}
    h[a] = h[a] - {ca} | {cb}
    h[b] = h[b] - {cb} | {ca}
    return Deal(h), ca, cb


def pickup(readers: Readers, v: BoardVerifier, held: dict[Seat, list[str]], board: int = 7) -> list:
    out = v.apply(board_started(board))
    for s in SEATS:
        out += v.apply(readers.pick_up(s, held[s]))
    return out


# ------------------------------------------------------------------------------------------ pickup

def test_the_right_hands_raise_nothing(readers, board7):
    v = BoardVerifier([board7], expected={7, 8})
    assert pickup(readers, v, hands(board7.deal)) == []
    assert v.ready_for_auction and v.played_deal() == board7.deal


def test_incorrect_number_of_cards_law_13(readers, board7):
    held = hands(board7.deal)
    lost = held[Seat.N].pop()                         # North's hand is short: the card stayed in East's pocket
    held[Seat.E].append(lost)
    v = BoardVerifier(board7)
    found = pickup(readers, v, held)
    codes = [(i.code, i.seat, i.law) for i in found]
    assert codes == [("INCORRECT_HAND_COUNT", "N", "13"), ("INCORRECT_HAND_COUNT", "E", "13")]
    assert f"missing {lost}" in found[0].detail and f"extra {lost} (North's)" in found[1].detail
    assert any("13A1" in o.text for o in found[0].options)
    assert not v.ready_for_auction
    # the board's own Table flags the same from the same events (the machine knows the deal too)
    t = Table("t")
    t.apply(board_started(7, deal=board7.deal.to_pbn()))
    assert t.apply(readers.pick_up(Seat.N, held[Seat.N]))[0].code == "INCORRECT_HAND_COUNT"
    t.close()


@pytest.mark.parametrize("turn", [1, 2, 3])
def test_a_turned_board_is_one_irregularity(readers, board7, turn):
    rec = hands(board7.deal)
    held = {s: rec[SEATS[(i + turn) % 4]] for i, s in enumerate(SEATS)}
    v = BoardVerifier(board7)
    found = pickup(readers, v, held)
    assert len(found) == 1
    irr = found[0]
    assert (irr.code, irr.law, irr.seat, irr.position["rotation"]) == ("HAND_FROM_WRONG_POCKET", "7B1", None, turn)
    assert "turned" in irr.detail and not v.ready_for_auction
    irr.dispose("rectified:turn_board")
    assert v.ready_for_auction


def test_two_players_with_each_others_hands(readers, board7):
    rec = hands(board7.deal)
    held = dict(rec, **{Seat.N: rec[Seat.S], Seat.S: rec[Seat.N]})
    found = pickup(readers, v := BoardVerifier(board7), held)
    assert [(i.code, i.seat, i.position["took"]) for i in found] == [
        ("HAND_FROM_WRONG_POCKET", "N", "S"), ("HAND_FROM_WRONG_POCKET", "S", "N")]
    assert found[0].detail == "North holds South's hand"
    assert not v.ready_for_auction


def test_a_badly_duplicated_board_law_6f(readers, board7):
    wrong, ca, cb = swap(board7.deal, Seat.N, Seat.E)
    found = pickup(readers, BoardVerifier(board7), hands(wrong))
    assert [(i.code, i.law) for i in found] == [("DUPLICATION_MISMATCH", "6F")]
    assert f"{cb} in North's hand (the hand record gives it to East)" in found[0].detail
    assert f"{ca} in East's hand (the hand record gives it to North)" in found[0].detail


def test_a_board_that_differs_from_what_others_played_is_fouled_law_87(readers, board7):
    wrong, ca, cb = swap(board7.deal, Seat.S, Seat.W)
    played = {7: {"table 1": board7.deal, "table 3": board7.deal}}
    found = pickup(readers, BoardVerifier(board7, played=played), hands(wrong))
    assert [(i.code, i.law) for i in found] == [("FOULED_BOARD", "87")]
    assert "table(s) table 1, table 3" in found[0].detail
    assert {o.code for o in found[0].options} == {"restore", "score_in_groups"}
    # the right cards here, but another table played it fouled: the board is fouled all the same
    played = {7: {"table 2": wrong}}
    v = BoardVerifier(board7, played=played)
    assert [i.code for i in pickup(readers, v, hands(board7.deal))] == ["FOULED_BOARD"]


def test_cards_that_match_the_field_but_not_the_record(readers, board7):
    wrong, _, _ = swap(board7.deal, Seat.E, Seat.W)
    v = BoardVerifier(board7, played={7: {"table 1": wrong, "table 2": wrong}})
    found = pickup(readers, v, hands(wrong))
    assert [(i.code, i.law) for i in found] == [("HAND_RECORD_MISMATCH", "13A1")]
    assert found[0].options[0].code == "play_as_played"


def test_wrong_board_for_this_table_and_round_law_15(readers, board7):
    other = HandRecordBoard.of(9, generate(1, seed="nine")[0].deal)
    v = BoardVerifier([board7, other], expected={7, 8}, table=4, round=2)
    found = pickup(readers, v, hands(other.deal), board=9)
    assert [(i.code, i.law) for i in found] == [("WRONG_BOARD", "15")]
    assert found[0].detail == "board 9 is on the table at table 4, but the movement gives board(s) 7, 8 in round 2"
    assert found[0].to_dict()["expected"] == [7, 8]
    irr = check_board(9, {7, 8}, played_here=True, auction_begun=True)
    assert irr.options[0].code == "cancel" and "15C" in irr.options[1].text
    assert check_board(7, {7, 8}) is None and check_board(7, None) is None


def test_hands_are_compared_before_the_auction_goes_on(readers, board7):
    """A call before all four hands are read: the hands read so far are checked at once."""
    wrong, _, _ = swap(board7.deal, Seat.N, Seat.E)
    v = BoardVerifier(board7)
    v.apply(board_started(7))
    assert v.apply(readers.pick_up(Seat.N, sorted(wrong.hands[Seat.N]))) == []
    found = v.apply(CallMade(Seat.N, "1NT"))
    assert [(i.code, i.seat) for i in found] == [("HAND_RECORD_MISMATCH", "N")]
    assert not v.ready_for_auction


# ------------------------------------------------------------------------------------------ after play

def test_a_card_returned_to_the_wrong_pocket_law_7c(readers, board7):
    v = BoardVerifier(board7)
    assert pickup(readers, v, hands(board7.deal)) == []
    north = sorted(board7.deal.hands[Seat.N])
    stray = north[0]
    back = hands(board7.deal)
    back[Seat.N] = north[1:]
    back[Seat.E] = back[Seat.E] + [stray]
    found = []
    for s in SEATS:
        found += v.apply(readers.pick_up(s, back[s]), board_complete=True)
    assert [(i.code, i.law, i.seat) for i in found] == [("CARD_RETURNED_TO_WRONG_POCKET", "7C", "N"),
                                                         ("CARD_RETURNED_TO_WRONG_POCKET", "7C", "E")]
    assert found[0].detail == f"North's pocket lacks {stray}"
    assert found[1].detail == f"the {card_name(stray)} is in East's pocket; it belongs to North"
    assert v.ready_for_auction                      # a return problem does not hold an auction
    assert check_returned(HandRead(Seat.W, tuple(back[Seat.W])), board7.deal, 7) is None


def test_card_names():
    assert card_name("HT") == "10 of hearts" and card_name("SA") == "ace of spades" and card_name("C2") == "2 of clubs"


# ------------------------------------------------------------------------------------------ a board found by its hands

@pytest.fixture
def evening() -> dict[int, Deal]:
    return {b.board: b.deal for b in generate(16, seed="evening")}


def test_one_hand_names_its_board(evening):
    from table.verify import identify
    assert identify({Seat.E: evening[5].hands[Seat.E]}, evening) == 5
    assert identify({Seat.N: evening[5].hands[Seat.W]}, evening) == 5           # from the wrong pocket: still 5
    fouled, _a, _b = swap(evening[9], Seat.N, Seat.S)
    assert identify({Seat.N: fouled.hands[Seat.N]}, evening) == 9              # no exact hand: the most cards
    mixed = {Seat.N: evening[2].hands[Seat.N], Seat.E: evening[2].hands[Seat.E], Seat.S: evening[7].hands[Seat.S]}
    assert identify(mixed, evening) == 2
    assert identify({}, evening) is None and identify(mixed, {}) is None


def test_pickup_checks_against_the_board_it_names(evening):
    from table.verify import check_pickup
    right = {s: evening[3].hands[s] for s in SEATS}
    assert check_pickup(right, evening, 3) == []

    other = dict(right, W=evening[11].hands[Seat.W])                            # a hand of another board
    (irr,) = check_pickup(other, evening, 3)
    assert irr.code == "FOULED_BOARD" and irr.law == "87" and "West holds board 11's West hand" in irr.detail

    fouled, a, b = swap(evening[3], Seat.N, Seat.E)                             # a card in the wrong pocket
    (irr,) = check_pickup({s: fouled.hands[s] for s in SEATS}, evening, 3)
    assert irr.code == "FOULED_BOARD" and f"{b} in North's hand (the hand record gives it to East)" in irr.detail

    short = dict(right, S=sorted(evening[3].hands[Seat.S])[1:])                 # 12 cards
    codes = [(i.code, i.law, i.seat) for i in check_pickup(short, evening, 3)]
    assert codes == [("INCORRECT_HAND_COUNT", "13", "S")]

    turned = {s: evening[3].hands[SEATS[(SEATS.index(s) + 2) % 4]] for s in SEATS}
    (irr,) = check_pickup(turned, evening, 3)
    assert irr.code == "HAND_FROM_WRONG_POCKET" and irr.law == "7B1"
