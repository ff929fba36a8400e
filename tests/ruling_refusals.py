"""The law engine's refusals of a ruling, each caused as a director's or a player's device would cause it (shared
by tests/table/test_texts.py, which checks their keys and English, and the Chinese console's test in
tests/service/test_refusal_words_browser.py, which words them on the page)."""
from __future__ import annotations

from table.auction import Auction
from table.calls import parse_call
from table.cards import Deal, Seat
from table.errors import BridgeError
from table.play import Play
from table.texts import Text


def ruling_refusals() -> dict[str, Text]:
    """The engine's refusals of a ruling (table/auction.py, table/play/), each caused here as a director's or a
    player's device would: what was asked -> the refusal."""
    deal = Deal({"N": "SA ST S6 S2 HJ H7 H3 DQ D8 D4 CK C9 C5".split(),
                 "E": "SK S9 S5 HA HT H6 H2 DJ D7 D3 CQ C8 C4".split(),
                 "S": "SQ S8 S4 HK H9 H5 DA DT D6 D2 CJ C7 C3".split(),
                 "W": "SJ S7 S3 HQ H8 H4 DK D9 D5 CA CT C6 C2".split()})
    play = Play(Seat.S, "S", deal)
    play.card(Seat.E, "HA")                                   # East leads out of turn: declarer's choice (54)
    auction = Auction(Seat.N)
    auction.call(Seat.N, parse_call("1H"))
    auction.call(Seat.E, parse_call("1D"))                    # insufficient (27)
    asked = {"an option the irregularity has not": lambda: play.ruling("OPENING_LEAD_OUT_OF_TURN", "retract"),
             "another's choice": lambda: play.ruling("OPENING_LEAD_OUT_OF_TURN", "accept", Seat.W),
             "a revoke option that is none": lambda: play.ruling("REVOKE", "accept"),
             "an exemption with no revoke": lambda: play.ruling("REVOKE", "64B4"),
             "a correction with no revoke": lambda: play.ruling("REVOKE", "correct"),
             "an omitted card in a trick not played": lambda: play.omitted_play(Seat.W, 5, True),
             "an auction option that is none": lambda: auction.ruling("INSUFFICIENT_BID", "retract"),
             "a Law 23 question never asked": lambda: auction.ruling("COMPARABLE_CALL_RULING", "comparable"),
             "a 27B1 replacement that never was": lambda: Auction(Seat.N).ruling("INSUFFICIENT_BID", "conventional")}
    refused: dict[str, Text] = {}
    for what, ask in asked.items():
        try:
            ask()
        except BridgeError as err:
            text = err.args[0]
            assert isinstance(text, Text), (what, text)
            refused[what] = text
        else:
            raise AssertionError(f"{what}: not refused")
    return refused
