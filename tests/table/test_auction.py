"""The auction engine (Laws 17-39, 1997 WBF numbering), against the laws' auction rectifications
(docs/laws.md) and scenarios B2-B15.

Every auction irregularity the devices can detect is flagged with its code, law, offender and options
(who chooses), then followed two ways: acceptance by action (the offender's LHO calls) and an explicit
ruling (cancel / refuse), checking the forced passes (scope and seat) and the Law 26 lead penalties.
Property tests run random legal auctions and random single corruptions of them.

Notation in the scripts: ``"N:1H E:P S:X W:XX"`` -- seat, colon, call (any alias ``parse_call`` reads).
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table.auction import NEXT_TURN, REST_OF_AUCTION, Auction, AuctionRulingError
from table.calls import DOUBLE, PASS, REDOUBLE, STRAINS, bid_key, bid_strain, is_bid, parse_call
from table.cards import SEATS, Seat
from table.editions import EDITION_1997, EDITION_2017, Edition

N, E, S, W = Seat.N, Seat.E, Seat.S, Seat.W
ALL_BIDS = [f"{lvl}{s}" for lvl in range(1, 8) for s in STRAINS]


# ---------------------------------------------------------------------------------------------- helpers
def run(a: Auction, script: str) -> list:
    """Apply the calls of ``script``; return what the last call flagged."""
    flags: list = []
    for tok in script.split():
        seat, call = tok.split(":")
        flags = a.call(Seat(seat), parse_call(call))
    return flags


def make(script: str = "", dealer: str = "N") -> tuple[Auction, list]:
    a = Auction(Seat(dealer))
    return a, run(a, script)


def one(flags: list):
    assert len(flags) == 1, [f.code for f in flags]
    return flags[0]


def options(irr) -> dict[str, str]:
    return {o.code: o.chooser for o in irr.options}


def stood(a: Auction) -> str:
    return " ".join(f"{e.seat}:{e.effective}" for e in a.stood)


def penalties(a: Auction) -> list[tuple[str, str, str, str]]:
    """(offender, restricted seat, law, related suits) of each Law 26 lead penalty."""
    return [(lp.offender, lp.restricted, lp.law, "".join(sorted(lp.suits))) for lp in a.lead_penalties]


def last_irr(a: Auction, code: str):
    return next(i for i in reversed(a.irregularities) if i.code == code)


def assert_clean(a: Auction, script: str) -> None:
    """Every call of ``script`` is legal: nothing is flagged."""
    for tok in script.split():
        seat, call = tok.split(":")
        assert a.call(Seat(seat), parse_call(call)) == [], tok


# ================================================================================================
# Law 27 -- insufficient bid
# ================================================================================================
class TestInsufficientBid:
    def test_flag(self):
        a, flags = make("N:1H E:1D")
        irr = one(flags)
        assert (irr.code, irr.law, irr.seat, irr.phase) == ("INSUFFICIENT_BID", "27", "E", "auction")
        assert irr.position == {"call": 1}
        assert options(irr) == {"accept": "S", "refuse": "S"}     # LHO chooses (27A), privately (10C2)
        assert irr.open and a.pending is not None and a.pending.kind == "INSUFFICIENT_BID"
        assert a.next_seat == S

    @pytest.mark.parametrize("script", ["N:1H E:1H", "N:1NT E:1S", "N:2C E:1NT", "N:7NT E:7S", "N:3D E:3C"])
    def test_equal_or_lower_is_insufficient(self, script):
        _, flags = make(script)
        assert one(flags).code == "INSUFFICIENT_BID"

    def test_accepted_by_lho_call_next_call_judged_against_it(self):
        a, _ = make("N:1H E:1D")
        assert run(a, "S:1S") == []                     # sufficient over the accepted 1D (not over 1H)
        irr = a.irregularities[0]
        assert (irr.disposition, irr.disposition_law) == ("accepted_by_action", "27A")
        assert a.pending is None and a.obligations == {} and a.lead_penalties == []
        assert stood(a) == "N:1H E:1D S:1S"

    def test_after_acceptance_a_bid_not_over_the_accepted_bid_is_insufficient(self):
        a, _ = make("N:1H E:1D")
        irr = one(run(a, "S:1C"))                       # 1C does not exceed 1D
        assert (irr.code, irr.seat) == ("INSUFFICIENT_BID", "S")
        assert options(irr) == {"accept": "W", "refuse": "W"}
        assert a.irregularities[0].disposition == "accepted_by_action"

    def test_explicit_accept(self):
        a, _ = make("N:1H E:1D")
        assert a.ruling("INSUFFICIENT_BID", "accept") == []
        assert a.irregularities[0].disposition == "accepted" and a.pending is None
        assert_clean(a, "S:2D W:P N:P E:P")
        assert a.contract() == ("2D", "", S)

    def test_refuse_lowest_sufficient_same_denomination_27B1(self):       # B4
        a, _ = make("N:1H E:1D")
        a.ruling("INSUFFICIENT_BID", "refuse")
        assert a.next_seat == E and stood(a) == "N:1H"
        assert run(a, "E:2D") == []
        irr = a.irregularities[0]
        assert (irr.disposition, irr.disposition_law) == ("replaced_lowest_same_denomination", "27B1")
        assert a.obligations == {} and a.lead_penalties == []
        assert options(irr)["conventional"] == "director"      # the director may still find it conventional
        assert stood(a) == "N:1H E:2D" and a.next_seat == S

    def test_27B1_ruled_conventional_becomes_27B2(self):
        a, _ = make("N:1H E:1D")
        a.ruling("INSUFFICIENT_BID", "refuse")
        run(a, "E:2D")
        a.ruling("INSUFFICIENT_BID", "conventional")
        irr = a.irregularities[0]
        assert irr.disposition_law == "27B2"
        assert a.obligations == {W: REST_OF_AUCTION}
        assert penalties(a) == [("E", "W", "26A", "D")]

    @pytest.mark.parametrize("script,replacement", [
        ("N:1NT E:1S", "2S"), ("N:2H E:2C", "3C"), ("N:1S E:1H", "2H"), ("N:3NT E:2NT", "4NT"),
        ("N:1D E:1C", "2C"),
    ])
    def test_27B1_is_the_lowest_sufficient_bid_in_that_denomination(self, script, replacement):
        a, _ = make(script)
        a.ruling("INSUFFICIENT_BID", "refuse")
        assert run(a, f"E:{replacement}") == []
        assert a.irregularities[0].disposition_law == "27B1" and a.obligations == {}

    def test_refuse_other_sufficient_bid_27B2(self):                       # B5
        a, _ = make("N:1H E:1D")
        a.ruling("INSUFFICIENT_BID", "refuse")
        assert run(a, "E:2C") == []
        irr = a.irregularities[0]
        assert (irr.disposition, irr.disposition_law) == ("replaced", "27B2")
        assert a.obligations == {W: REST_OF_AUCTION}           # offender's partner, for the rest of the auction
        assert penalties(a) == [("E", "W", "26A", "D")]        # related suit: diamonds, at W's first lead
        assert options(irr)["lead_penalty"] == "declarer"

    def test_refuse_higher_level_same_denomination_is_27B2(self):
        a, _ = make("N:1H E:1D")
        a.ruling("INSUFFICIENT_BID", "refuse")
        run(a, "E:3D")                                          # not the *lowest* sufficient diamond bid
        assert a.irregularities[0].disposition_law == "27B2"
        assert a.obligations == {W: REST_OF_AUCTION}

    def test_refuse_pass_27B2(self):
        a, _ = make("N:1H E:1D")
        a.ruling("INSUFFICIENT_BID", "refuse")
        assert run(a, "E:P") == []
        assert a.irregularities[0].disposition_law == "27B2"
        assert a.obligations == {W: REST_OF_AUCTION}
        assert penalties(a) == [("E", "W", "26A", "D")]

    def test_refuse_nt_insufficient_bid_gives_26B(self):
        a, _ = make("N:2H E:1NT")
        a.ruling("INSUFFICIENT_BID", "refuse")
        run(a, "E:P")
        assert penalties(a) == [("E", "W", "26B", "")]          # NT relates to no suit: forbid one suit (26B)

    def test_refuse_double_27B3(self):                                      # B6
        a, _ = make("N:1H E:1D")
        a.ruling("INSUFFICIENT_BID", "refuse")
        assert run(a, "E:X") == []
        irr = a.irregularities[0]
        assert irr.disposition_law == "27B3"
        assert a.obligations == {W: REST_OF_AUCTION}
        assert a.next_seat == E and stood(a) == "N:1H"          # the double is cancelled; E still owes a call
        assert run(a, "E:2D") == []                             # even the lowest diamond bid: W stays barred
        assert a.obligations == {W: REST_OF_AUCTION}
        assert stood(a) == "N:1H E:2D"

    def test_offender_replaces_without_a_ruling(self):
        """The offender calls again before LHO chose: LHO did not accept (27B)."""
        a, _ = make("N:1H E:1D")
        assert run(a, "E:2C") == []
        assert a.irregularities[0].disposition_law == "27B2"
        assert stood(a) == "N:1H E:2C" and a.obligations == {W: REST_OF_AUCTION}

    def test_no_sufficient_bid_in_the_denomination_after_7NT(self):
        a, _ = make("N:7NT E:7S")
        a.ruling("INSUFFICIENT_BID", "refuse")
        run(a, "E:P")
        assert a.irregularities[0].disposition_law == "27B2"
        assert a.obligations == {W: REST_OF_AUCTION}

    def test_barred_partner_bidding_is_law_37(self):
        a, _ = make("N:1H E:1D")
        a.ruling("INSUFFICIENT_BID", "refuse")
        irr = one(run(a, "E:2C S:P W:2D"))
        assert (irr.code, irr.law, irr.seat) == ("CALL_IN_VIOLATION_OF_PASS_OBLIGATION", "37", "W")

    def test_unknown_option_rejected(self):
        a, _ = make("N:1H E:1D")
        with pytest.raises(AuctionRulingError):
            a.ruling("INSUFFICIENT_BID", "cancel_everything")
        with pytest.raises(AuctionRulingError):
            a.ruling("BID_OUT_OF_ROTATION", "cancel")


# ================================================================================================
# Law 30 -- pass out of rotation
# ================================================================================================
class TestPassOutOfRotation:
    def test_30A_flag(self):
        a, flags = make("E:P")                                  # dealer N; E passes at N's (RHO's) turn
        irr = one(flags)
        assert (irr.code, irr.law, irr.seat) == ("PASS_OUT_OF_ROTATION", "30A", "E")
        assert options(irr) == {"accept": "S", "cancel": "S"}

    @pytest.mark.parametrize("offender", ["E", "S", "W"])
    def test_30A_applies_before_any_bid_whoever_passed(self, offender):
        a, flags = make(f"{offender}:P")
        assert one(flags).law == "30A"
        a.ruling("PASS_OUT_OF_ROTATION", "cancel")
        assert a.obligations == {Seat(offender): NEXT_TURN} and a.next_seat == N
        assert a.lead_penalties == []

    def test_30A_accepted_by_lho_call(self):
        a, _ = make("E:P")
        assert run(a, "S:1H") == []
        irr = a.irregularities[0]
        assert (irr.disposition, irr.disposition_law) == ("accepted_by_action", "29A")
        assert a.next_seat == W and a.obligations == {}         # rotation continues from the accepted pass

    def test_30A_cancel_offender_passes_at_next_turn_only(self):
        a, _ = make("E:P")
        a.ruling("PASS_OUT_OF_ROTATION", "cancel")
        irr = a.irregularities[0]
        assert (irr.disposition, irr.disposition_law) == ("cancelled", "30A")
        assert a.next_seat == N and stood(a) == ""
        assert a.obligations == {E: NEXT_TURN}
        assert_clean(a, "N:1H E:P S:1S W:P N:2H")
        assert a.obligations == {}
        assert_clean(a, "E:2S")                                   # only the next turn was barred

    def test_30A_barred_offender_bids_at_next_turn(self):
        a, _ = make("E:P")
        a.ruling("PASS_OUT_OF_ROTATION", "cancel")
        irr = one(run(a, "N:1H E:1S"))
        assert (irr.code, irr.law, irr.seat) == ("CALL_IN_VIOLATION_OF_PASS_OBLIGATION", "37", "E")

    def test_30B1_at_rho_turn(self):
        a, _ = make("N:1C")
        irr = one(run(a, "S:P"))                               # S passes at E's (his RHO's) turn
        assert (irr.code, irr.law, irr.seat) == ("PASS_OUT_OF_ROTATION", "30B1", "S")
        assert options(irr) == {"accept": "W", "cancel": "W"}
        a.ruling("PASS_OUT_OF_ROTATION", "cancel")
        assert a.next_seat == E and a.obligations == {S: NEXT_TURN}
        assert_clean(a, "E:1H S:P W:P N:2C E:P")
        assert a.obligations == {}
        assert_clean(a, "S:2H")                                   # next turn only

    def test_30B2_at_partner_turn(self):                                    # B10
        a, _ = make("N:1C E:1H")
        irr = one(run(a, "N:P"))                               # N passes at S's (partner's) turn
        assert (irr.code, irr.law, irr.seat) == ("PASS_OUT_OF_ROTATION", "30B2", "N")
        assert options(irr) == {"accept": "E", "cancel": "E"}
        a.ruling("PASS_OUT_OF_ROTATION", "cancel")
        assert a.next_seat == S
        assert a.obligations == {N: REST_OF_AUCTION}           # the offender himself, for the rest
        assert a.no_double_now == {S}                          # partner: no X/XX at this turn (30B2b)
        assert a.lead_penalties == []

    def test_30B2b_partner_may_not_double_at_that_turn(self):
        a, _ = make("N:1C E:1H N:P")
        a.ruling("PASS_OUT_OF_ROTATION", "cancel")
        flags = run(a, "S:X")                                  # otherwise a legal double of 1H
        assert [f.code for f in flags] == ["FORBIDDEN_DOUBLE_AFTER_30B2"]
        assert flags[0].law == "30B2b" and flags[0].seat == "S"
        assert options(flags[0]) == {"rule": "director"}

    def test_30B2b_partner_may_bid_then_double_later(self):
        a, _ = make("N:1C E:1H N:P")
        a.ruling("PASS_OUT_OF_ROTATION", "cancel")
        assert_clean(a, "S:1S W:2H N:P E:P")
        assert a.no_double_now == set()
        assert_clean(a, "S:X")                                    # a later turn: the double is fine
        assert a.obligations == {N: REST_OF_AUCTION}
        irr = one(run(a, "W:P N:XX"))
        assert (irr.code, irr.law, irr.seat) == ("CALL_IN_VIOLATION_OF_PASS_OBLIGATION", "37", "N")

    def test_30B2_accepted(self):
        a, _ = make("N:1C E:1H N:P")
        assert run(a, "E:P") == []                             # E (N's LHO) calls: accepted
        assert a.irregularities[0].disposition == "accepted_by_action"
        assert a.obligations == {} and a.no_double_now == set()

    def test_30B3_pass_at_lho_turn_after_own_call_is_a_change_of_call(self):
        a, _ = make("N:1H E:1S")
        irr = one(run(a, "E:P"))                               # E passes at S's (his LHO's) turn
        assert (irr.code, irr.law, irr.seat) == ("CHANGE_OF_CALL", "25", "E")


# ================================================================================================
# Law 31 -- bid out of rotation
# ================================================================================================
class TestBidOutOfRotation:
    def test_31A_flag(self):
        a, flags = make("E:1S")                                 # dealer N: at RHO's turn
        irr = one(flags)
        assert (irr.code, irr.law, irr.seat) == ("BID_OUT_OF_ROTATION", "31A", "E")
        assert options(irr) == {"accept": "S", "cancel": "S"}

    def test_accepted_rotation_continues_from_it(self):
        a, _ = make("E:1S")
        assert run(a, "S:2H") == []
        assert a.irregularities[0].disposition == "accepted_by_action"
        assert a.irregularities[0].disposition_law == "29A"
        assert a.next_seat == W
        irr = one(run(a, "W:1NT"))                             # judged against the accepted calls
        assert irr.code == "INSUFFICIENT_BID"

    def test_accepted_lho_bid_is_judged_against_the_accepted_bid(self):
        a, _ = make("E:1S")
        assert one(run(a, "S:1H")).code == "INSUFFICIENT_BID"  # 1H does not exceed the accepted 1S
        assert a.irregularities[0].disposition == "accepted_by_action"

    def test_31A1_rho_passes_offender_repeats(self):                       # B7
        a, _ = make("E:1S")
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        assert a.next_seat == N and stood(a) == ""
        assert run(a, "N:P E:1S") == []
        irr = a.irregularities[0]
        assert (irr.disposition, irr.disposition_law) == ("rectified", "31A1")
        assert a.obligations == {} and a.lead_penalties == []

    def test_31A1_not_repeated_is_flagged(self):
        a, _ = make("E:1S")
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        irr = one(run(a, "N:P E:2S"))
        assert (irr.code, irr.law, irr.seat) == ("CALL_NOT_REPEATED", "31A1", "E")

    def test_31A2a_same_denomination_partner_passes_next_turn_only(self):  # B8
        a, _ = make("E:1S")
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        assert run(a, "N:1H E:2S") == []
        assert a.irregularities[0].disposition_law == "31A2a"
        assert a.obligations == {W: NEXT_TURN}
        assert a.lead_penalties == []
        assert_clean(a, "S:3H W:P N:P E:P")                       # W's single pass
        assert a.obligations == {}

    def test_31A2a_partner_bidding_at_that_turn_is_law_37(self):
        a, _ = make("E:1S")
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        irr = one(run(a, "N:1H E:2S S:P W:3S"))
        assert (irr.code, irr.seat) == ("CALL_IN_VIOLATION_OF_PASS_OBLIGATION", "W")

    def test_31A2a_after_rho_double(self):
        a, _ = make("N:1H E:P S:2H")
        irr = one(run(a, "N:2S"))                              # N bids at W's turn: RHO's turn
        assert (irr.law, irr.seat) == ("31A", "N")
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        run(a, "W:X N:3S")                                     # RHO doubled; N repeats the strain
        assert a.irregularities[-1].disposition_law == "31A2a"
        assert a.obligations == {S: NEXT_TURN}

    def test_31A2b_other_call_partner_rest_of_auction_and_law_26(self):
        a, _ = make("E:1S")
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        assert run(a, "N:1H E:2C") == []
        assert a.irregularities[0].disposition_law == "31A2b"
        assert a.obligations == {W: REST_OF_AUCTION}
        assert penalties(a) == [("E", "W", "26A", "S")]

    def test_31A2b_lead_penalty_lapses_if_offender_later_bids_spades(self):    # 26A1
        a, _ = make("E:1S")
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        assert_clean(a, "N:1H E:2C S:2H W:P N:P E:2S S:3H W:P N:P")
        assert penalties(a) == [("E", "W", "26A", "S")]         # still owed while the auction is open
        assert_clean(a, "E:P")
        assert a.contract() == ("3H", "", N) and a.lead_penalties == []

    def test_31A2b_pass_is_another_call(self):
        a, _ = make("E:1S")
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        run(a, "N:1H E:P")
        assert a.irregularities[0].disposition_law == "31A2b"
        assert a.obligations == {W: REST_OF_AUCTION}

    def test_31B_at_partner_turn(self):                                    # B9
        a, flags = make("S:1C")
        irr = one(flags)
        assert (irr.code, irr.law, irr.seat) == ("BID_OUT_OF_ROTATION", "31B", "S")
        assert options(irr) == {"accept": "W", "cancel": "W"}
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        assert (irr.disposition, irr.disposition_law) == ("cancelled", "31B")
        assert a.next_seat == N
        assert a.obligations == {N: REST_OF_AUCTION}
        assert penalties(a) == [("S", "N", "26A", "C")]

    def test_31B_at_lho_turn_offender_had_not_called(self):
        a, flags = make("W:1D")                                 # dealer N is W's LHO
        irr = one(flags)
        assert (irr.code, irr.law) == ("BID_OUT_OF_ROTATION", "31B")
        assert options(irr) == {"accept": "N", "cancel": "N"}
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        assert a.obligations == {E: REST_OF_AUCTION}
        assert penalties(a) == [("W", "E", "26A", "D")]

    def test_bid_at_lho_turn_after_own_call_is_a_change_of_call(self):
        a, _ = make("N:1H E:P")
        irr = one(run(a, "E:1S"))
        assert (irr.code, irr.law) == ("CHANGE_OF_CALL", "25")

    def test_insufficient_bid_out_of_rotation_is_law_31(self):             # 27C
        a, _ = make("N:2H")
        irr = one(run(a, "W:1S"))                               # W at E's (partner's) turn, also insufficient
        assert (irr.code, irr.law, irr.seat) == ("BID_OUT_OF_ROTATION", "31B", "W")


# ================================================================================================
# Law 28 -- calls considered to be in rotation
# ================================================================================================
class TestLaw28:
    def test_28A_barred_rho_pass_deemed_made(self):
        a, _ = make("E:P")
        a.ruling("PASS_OUT_OF_ROTATION", "cancel")                # E must pass at his next turn
        run(a, "N:1H")
        assert run(a, "S:1S") == []                             # S calls before barred E passed
        assert stood(a) == "N:1H E:Pass S:1S"
        assert a.stood[1].deemed and a.obligations == {}
        assert [e.call for e in a.final_calls()] == ["1H", "1S"]

    def test_28A_deemed_final_pass_closes_the_auction(self):
        a, _ = make("N:1H W:P")                                # W passes at E's (partner's) turn
        a.ruling("PASS_OUT_OF_ROTATION", "cancel")                # 30B2: W passes for the rest
        run(a, "E:P S:P")
        irr = one(run(a, "N:2H"))                              # W's compulsory pass ends the auction (28A)
        assert (irr.code, irr.law, irr.seat) == ("CALL_AFTER_FINAL_PASS", "39A", "N")
        assert a.closed and a.contract() == ("1H", "", N)

    def test_28B_player_whose_turn_it_was_calls(self):
        a, _ = make("E:1S")                                     # E bids at N's turn
        assert run(a, "N:1H") == []                             # N, whose turn it was, calls
        irr = a.irregularities[0]
        assert (irr.disposition, irr.disposition_law) == ("rotation_restored", "28B")
        assert a.pending is None and a.obligations == {} and a.lead_penalties == []
        assert stood(a) == "N:1H" and a.next_seat == E
        assert run(a, "E:1S") == []                             # E calls afresh at his own turn
        assert a._watches == []

    def test_28B_not_for_the_offender_partner(self):                       # B9, second part
        a, _ = make("S:1C")                                     # S bids at N's (partner's) turn
        flags = run(a, "N:1H")                                 # N, offender's partner, calls before the ruling
        irr = one(flags)
        assert (irr.code, irr.seat) == ("OTHER_CALL_BEFORE_RECTIFICATION", "N")
        assert options(irr) == {"rule": "director"}
        oor = a.irregularities[0]
        assert oor.open and oor.disposition_law != "28B"       # W keeps his rights
        assert a.pending.irr is oor
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        assert oor.disposition_law == "31B"
        assert a.obligations == {N: REST_OF_AUCTION} and a.next_seat == N


# ================================================================================================
# Law 32 -- double / redouble out of rotation
# ================================================================================================
class TestDoubleOutOfRotation:
    def test_32A_flag_and_cancel(self):
        a, _ = make("N:1H")
        irr = one(run(a, "W:X"))                               # W doubles at E's (partner's) turn
        assert (irr.code, irr.law, irr.seat) == ("DOUBLE_OUT_OF_ROTATION", "32A", "W")
        assert options(irr) == {"accept": "N", "cancel": "N"}
        a.ruling("DOUBLE_OUT_OF_ROTATION", "cancel")
        assert (irr.disposition, irr.disposition_law) == ("cancelled", "32A")
        assert a.next_seat == E and stood(a) == "N:1H"
        assert a.obligations == {E: REST_OF_AUCTION}
        assert penalties(a) == [("W", "E", "26B", "")]

    def test_32A_accepted_then_redouble_is_legal(self):
        a, _ = make("N:1H W:X")
        assert run(a, "N:XX") == []                            # N accepts by calling; XX over the accepted X
        assert a.irregularities[0].disposition == "accepted_by_action"
        assert_clean(a, "E:P S:P W:P")
        assert a.contract() == ("1H", "XX", N)

    def test_32B1_rho_passes_offender_repeats(self):
        a, _ = make("N:P E:1H S:P")
        irr = one(run(a, "N:X"))                               # N doubles at W's (RHO's) turn
        assert (irr.code, irr.law, irr.seat) == ("DOUBLE_OUT_OF_ROTATION", "32B", "N")
        a.ruling("DOUBLE_OUT_OF_ROTATION", "cancel")
        assert a.next_seat == W
        assert run(a, "W:P N:X") == []
        assert irr.disposition_law == "32B1"
        assert a.obligations == {} and a.lead_penalties == []

    def test_32B2_rho_calls_partner_rest_of_auction_and_26B(self):
        a, _ = make("N:P E:1H S:P N:X")
        a.ruling("DOUBLE_OUT_OF_ROTATION", "cancel")
        run(a, "W:2H")
        assert a.irregularities[0].disposition_law == "32B2"
        assert a.obligations == {S: REST_OF_AUCTION}
        assert penalties(a) == [("N", "S", "26B", "")]

    def test_redouble_out_of_rotation(self):
        a, _ = make("N:1H E:X")
        irr = one(run(a, "N:XX"))                              # N redoubles at S's (partner's) turn
        assert (irr.code, irr.law, irr.seat) == ("REDOUBLE_OUT_OF_ROTATION", "32A", "N")
        assert options(irr) == {"accept": "E", "cancel": "E"}
        a.ruling("REDOUBLE_OUT_OF_ROTATION", "cancel")
        assert a.obligations == {S: REST_OF_AUCTION}
        assert penalties(a) == [("N", "S", "26B", "")]

    def test_inadmissible_double_out_of_rotation_cannot_be_accepted(self):
        a, _ = make("N:1H")
        irr = one(run(a, "S:X"))                               # S doubles partner's bid at E's turn
        assert irr.code == "DOUBLE_OUT_OF_ROTATION"
        assert options(irr) == {"cancel": "W"}                 # no "accept" (32, 35A)
        with pytest.raises(AuctionRulingError):
            a.ruling("DOUBLE_OUT_OF_ROTATION", "accept")

    def test_inadmissible_double_out_of_rotation_condoned_35A(self):
        a, _ = make("N:1H S:X")
        assert run(a, "W:1S") == []                            # LHO calls over it
        irr = a.irregularities[0]
        assert (irr.disposition, irr.disposition_law) == ("condoned_no_effect", "35A")
        assert stood(a) == "N:1H" and a.next_seat == E         # both cancelled; E, whose turn it was
        assert a.obligations == {} and a.lead_penalties == []


# ================================================================================================
# Law 36 -- inadmissible double / redouble in turn; Law 35A
# ================================================================================================
class TestInadmissibleDouble:
    @pytest.mark.parametrize("script,code", [
        ("N:1H E:P S:X", "INADMISSIBLE_DOUBLE"),        # partner's bid
        ("N:X", "INADMISSIBLE_DOUBLE"),                 # nothing to double
        ("N:1H E:X S:X", "INADMISSIBLE_DOUBLE"),        # last non-pass call is a double
        ("N:1H E:1S S:P W:X", "INADMISSIBLE_DOUBLE"),   # partner's bid, passes since
        ("N:1H E:X S:P W:XX", "INADMISSIBLE_REDOUBLE"), # partner's double
        ("N:1H E:P S:XX", "INADMISSIBLE_REDOUBLE"),     # no double to redouble
        ("N:1H E:X S:XX W:XX", "INADMISSIBLE_REDOUBLE"),
        ("N:1H E:X S:1S W:P N:XX", "INADMISSIBLE_REDOUBLE"),   # the double was superseded (19C)
    ])
    def test_flag(self, script, code):
        a, flags = make(script)
        irr = one(flags)
        offender = script.split()[-1].split(":")[0]
        assert (irr.code, irr.law, irr.seat) == (code, "36", offender)
        assert options(irr) == {"cancel": "director"}          # never acceptable

    def test_cancel(self):                                                 # B11
        a, _ = make("N:1H E:P S:X")
        a.ruling("INADMISSIBLE_DOUBLE", "cancel")
        irr = a.irregularities[0]
        assert (irr.disposition, irr.disposition_law) == ("cancelled", "36")
        assert stood(a) == "N:1H E:Pass" and a.next_seat == S  # offender substitutes a legal call
        assert a.obligations == {N: REST_OF_AUCTION}
        assert penalties(a) == [("S", "N", "26B", "")]
        assert_clean(a, "S:2S W:P N:P E:P")
        assert a.contract() == ("2S", "", S)

    def test_condoned_35A(self):                                           # B11, second part
        a, _ = make("N:1H E:P S:X")
        assert run(a, "W:P") == []
        irr = a.irregularities[0]
        assert (irr.disposition, irr.disposition_law) == ("condoned_no_effect", "35A")
        assert stood(a) == "N:1H E:Pass" and a.next_seat == S  # double and W's call cancelled
        assert a.obligations == {} and a.lead_penalties == []
        assert not a.calls[3].stands                            # W's call
        assert_clean(a, "S:P W:P")
        assert a.closed and a.contract() == ("1H", "", N)

    def test_redouble_cancel(self):                                        # B12
        a, _ = make("N:1H E:X S:P W:XX")
        a.ruling("INADMISSIBLE_REDOUBLE", "cancel")
        assert a.obligations == {E: REST_OF_AUCTION}
        assert penalties(a) == [("W", "E", "26B", "")]
        assert a.next_seat == W
        assert_clean(a, "W:P N:P")
        assert a.closed
        assert a.contract() == ("1H", "X", N)


# ================================================================================================
# Law 37 -- call by a player required to pass; Law 35B
# ================================================================================================
def barred_north() -> Auction:
    a, _ = make("S:1C")
    a.ruling("BID_OUT_OF_ROTATION", "cancel")                 # 31B: N passes for the rest of the auction
    return a


class TestViolationOfPassObligation:
    def test_flag(self):
        a = barred_north()
        irr = one(run(a, "N:1H"))
        assert (irr.code, irr.law, irr.seat) == ("CALL_IN_VIOLATION_OF_PASS_OBLIGATION", "37", "N")
        assert options(irr) == {"cancel": "director"}

    @pytest.mark.parametrize("call", ["X", "XX", "1NT"])
    def test_any_non_pass_call(self, call):
        a = barred_north()
        run(a, "N:P E:1H S:P W:2H")
        assert one(run(a, f"N:{call}")).code == "CALL_IN_VIOLATION_OF_PASS_OBLIGATION"

    def test_cancel_both_members_rest_of_auction(self):
        a = barred_north()
        run(a, "N:1H")
        a.ruling("CALL_IN_VIOLATION_OF_PASS_OBLIGATION", "cancel")
        assert a.obligations == {N: REST_OF_AUCTION, S: REST_OF_AUCTION}
        assert ("N", "S", "26A", "H") in penalties(a)
        assert a.next_seat == N and stood(a) == ""
        assert_clean(a, "N:P E:1D S:P W:P N:P")
        assert a.contract() == ("1D", "", E)

    def test_condoned_35B_call_stands_and_bar_continues(self):
        a = barred_north()
        run(a, "N:1H")
        assert run(a, "E:P") == []
        irr = a.irregularities[-1]
        assert (irr.disposition, irr.disposition_law) == ("condoned_stands", "35B")
        assert stood(a) == "N:1H E:Pass"
        assert a.obligations == {N: REST_OF_AUCTION}           # still barred at later turns
        run(a, "S:2H W:P")
        assert one(run(a, "N:3H")).code == "CALL_IN_VIOLATION_OF_PASS_OBLIGATION"

    def test_condoned_35B_next_turn_bar_is_spent(self):
        a, _ = make("E:P")
        a.ruling("PASS_OUT_OF_ROTATION", "cancel")                # E passes at his next turn
        run(a, "N:1H E:1S")                                    # violation
        assert run(a, "S:2H") == []                            # condoned
        assert a.irregularities[-1].disposition_law == "35B"
        assert a.obligations == {}
        assert_clean(a, "W:P N:P E:2S")


# ================================================================================================
# Law 38 -- bid above seven; Law 35C
# ================================================================================================
class TestBidAboveSeven:
    def test_flag_and_cancel(self):                                        # B13
        a, _ = make("N:7NT")
        irr = one(run(a, "E:8C"))
        assert (irr.code, irr.law, irr.seat) == ("BID_ABOVE_SEVEN", "38", "E")
        assert options(irr) == {"cancel": "director"}
        a.ruling("BID_ABOVE_SEVEN", "cancel")
        assert a.obligations == {E: REST_OF_AUCTION, W: REST_OF_AUCTION}
        assert penalties(a) == [("E", "W", "26A", "C")]
        assert a.next_seat == E and stood(a) == "N:7NT"
        assert_clean(a, "E:P S:P W:P")
        assert a.contract() == ("7NT", "", N)

    def test_condoned_35C(self):                                           # B13, second part
        a, _ = make("N:7NT E:8C")
        assert run(a, "S:P") == []
        irr = a.irregularities[0]
        assert (irr.disposition, irr.disposition_law) == ("condoned_offender_passes", "35C")
        assert stood(a) == "N:7NT E:Pass"                       # 8C became a pass; S's call cancelled
        assert not a.calls[2].stands
        assert a.next_seat == S
        assert a.obligations == {} and a.lead_penalties == []
        assert_clean(a, "S:P W:P")
        assert a.contract() == ("7NT", "", N)

    def test_condoned_35C_substituted_pass_can_end_the_auction(self):
        a, _ = make("N:1NT E:P S:P W:8S")
        assert run(a, "N:2C") == []
        assert a.closed and a.contract() == ("1NT", "", N)

    def test_after_a_cancelled_bid_above_seven_any_bid_is_judged_on_the_real_auction(self):
        a, _ = make("N:1C E:8C")
        a.ruling("BID_ABOVE_SEVEN", "cancel")
        assert run(a, "E:P") == [] and stood(a) == "N:1C E:Pass"
        assert_clean(a, "S:1D")


# ================================================================================================
# Law 39 -- calls after the final pass; Law 35D
# ================================================================================================
class TestCallAfterFinalPass:
    def test_39B_future_defender_bid(self):                                # B14
        a, _ = make("N:1NT E:P S:P W:P")
        assert a.closed
        irr = one(run(a, "W:2S"))
        assert (irr.code, irr.law, irr.seat) == ("CALL_AFTER_FINAL_PASS", "39B", "W")
        assert (irr.disposition, irr.disposition_law) == ("cancelled", "39B")
        assert penalties(a) == [("W", "E", "26A", "S")]         # E is the opening leader
        assert options(irr)["lead_penalty"] == "declarer"
        assert a.contract() == ("1NT", "", N) and stood(a) == "N:1NT E:Pass S:Pass W:Pass"

    @pytest.mark.parametrize("seat,call", [("S", "2S"), ("N", "X"), ("S", "P"), ("E", "P"), ("W", "P")])
    def test_39A_no_penalty(self, seat, call):
        a, _ = make("N:1NT E:P S:P W:P")
        irr = one(run(a, f"{seat}:{call}"))
        assert (irr.code, irr.law, irr.disposition) == ("CALL_AFTER_FINAL_PASS", "39A", "cancelled")
        assert a.lead_penalties == []

    @pytest.mark.parametrize("call", ["X", "XX", "3C"])
    def test_39B_defender_double_and_redouble(self, call):
        a, _ = make("N:1NT E:P S:P W:P")
        irr = one(run(a, f"E:{call}"))
        assert irr.law == "39B"
        assert penalties(a)[0][:3] == ("E", "W", "26B" if call in ("X", "XX") else "26A")

    def test_after_passed_out(self):
        a, _ = make("N:P E:P S:P W:P")
        irr = one(run(a, "N:1C"))
        assert (irr.code, irr.law) == ("CALL_AFTER_FINAL_PASS", "39A")
        assert a.passed_out and a.contract() is None

    def test_35D_lho_calls_over_it_no_penalty(self):
        a, _ = make("N:1NT E:P S:P W:P W:2S")
        irr = a.irregularities[0]
        assert a.lead_penalties
        flags = run(a, "N:P")                                  # declarer, W's LHO, calls over it
        assert one(flags).law == "39A"
        assert (irr.disposition, irr.disposition_law) == ("condoned_no_penalty", "35D")
        assert a.lead_penalties == []


# ================================================================================================
# Law 25 -- change of call
# ================================================================================================
class TestChangeOfCall:
    def test_flag(self):
        a, _ = make("N:1H")
        irr = one(run(a, "N:2H"))
        assert (irr.code, irr.law, irr.seat) == ("CHANGE_OF_CALL", "25", "N")
        assert options(irr) == {"inadvertent": "director", "accept": "E", "first_stands": "N",
                                "other_call": "N"}
        assert stood(a) == "N:2H" and a.next_seat == E

    def test_accepted_by_lho_call(self):
        a, _ = make("N:1H N:2H")
        assert one(run(a, "E:2D")).code == "INSUFFICIENT_BID"  # judged against the accepted 2H
        irr = a.irregularities[0]
        assert (irr.disposition, irr.disposition_law) == ("accepted_by_action", "25B1")
        assert a.obligations == {} and a.lead_penalties == []

    def test_inadvertent(self):
        a, _ = make("N:1H N:2H")
        a.ruling("CHANGE_OF_CALL", "inadvertent")
        assert a.irregularities[0].disposition_law == "25A"
        assert stood(a) == "N:2H" and a.obligations == {} and a.lead_penalties == []

    def test_first_call_stands_partner_next_turn_and_law_26(self):
        a, _ = make("N:1H N:2C")
        a.ruling("CHANGE_OF_CALL", "first_stands")
        assert a.irregularities[0].disposition_law == "25B2b1"
        assert stood(a) == "N:1H" and a.next_seat == E
        assert a.obligations == {S: NEXT_TURN}
        assert penalties(a) == [("N", "S", "26A", "C")]         # the withdrawn call is the 2C substitute
        assert_clean(a, "E:P S:P W:P")

    def test_other_call_law_26_for_the_withdrawn_first_call(self):
        a, _ = make("N:1H N:2C")
        a.ruling("CHANGE_OF_CALL", "other_call")
        assert a.irregularities[0].disposition_law == "25B2b2"
        assert stood(a) == "N:2C" and a.obligations == {}
        assert penalties(a) == [("N", "S", "26A", "H")]

    @pytest.mark.xfail(reason="design question: under 25B2b2 the substituted call is cancelled and the offender "
                              "may make ANY other legal call; the engine keeps the substitute as that call, so a "
                              "different second choice is flagged as a new change of call", strict=True)
    def test_other_call_may_differ_from_the_substitute(self):
        a, _ = make("N:1H N:2C")
        a.ruling("CHANGE_OF_CALL", "other_call")
        assert run(a, "N:2D") == []
        assert stood(a) == "N:2D"

    def test_change_to_the_third_pass_ends_nothing_until_accepted(self):
        a, _ = make("N:1C E:P S:P W:1H")
        irr = one(run(a, "W:P"))                               # W changes 1H to pass at N's turn
        assert irr.code == "CHANGE_OF_CALL"
        assert not a.closed and a.next_seat == N
        flags = run(a, "N:P")                                  # N accepts: the substituted pass was the final pass
        assert (irr.disposition, irr.disposition_law) == ("accepted_by_action", "25B1")
        assert a.closed and a.contract() == ("1C", "", N)
        assert one(flags).code == "CALL_AFTER_FINAL_PASS"      # N's own call came after it

    @pytest.mark.parametrize("option,closed", [("inadvertent", True), ("accept", True), ("other_call", True),
                                               ("first_stands", False)])
    def test_change_to_the_third_pass_ruled(self, option, closed):
        a, _ = make("N:1C E:P S:P W:1H W:P")
        a.ruling("CHANGE_OF_CALL", option)
        assert a.closed is closed
        if not closed:
            assert stood(a) == "N:1C E:Pass S:Pass W:1H" and a.obligations == {E: NEXT_TURN}

    def test_pass_changed_to_a_bid(self):
        a, _ = make("N:P")
        irr = one(run(a, "N:1C"))
        assert irr.code == "CHANGE_OF_CALL"
        a.ruling("CHANGE_OF_CALL", "first_stands")
        assert stood(a) == "N:Pass" and a.obligations == {S: NEXT_TURN}

    def test_bad_option(self):
        a, _ = make("N:1H N:2C")
        with pytest.raises(AuctionRulingError):
            a.ruling("CHANGE_OF_CALL", "cancel")


# ================================================================================================
# Law 34 -- retention of the right to call; Law 22A
# ================================================================================================
class TestLaw34:
    def test_reversion(self):                                              # B15
        a, _ = make("N:1H E:P")
        assert one(run(a, "W:P")).law == "30B1"                 # W passes at S's turn
        flags = run(a, "N:P")                                  # N accepts: three passes follow 1H
        irr = one(flags)
        assert (irr.code, irr.law, irr.seat) == ("PASS_OOR_DEPRIVED_TURN", "34", "W")
        assert irr.disposition == "auction_reverted"
        assert not a.closed and a.next_seat == S
        assert stood(a) == "N:1H E:Pass W:Pass"                 # N's pass cancelled
        assert not a.calls[3].stands
        assert_clean(a, "S:2S W:P N:P E:P")
        assert a.closed and a.contract() == ("2S", "", S)

    def test_reversion_without_a_bid(self):
        a, _ = make("N:P S:P")                                 # S passes at E's (partner's) turn, 30A
        run(a, "W:P")
        assert one(run(a, "N:P")).code == "PASS_OOR_DEPRIVED_TURN"
        assert not a.closed and a.next_seat == E

    def test_accepted_first_pass_out_of_rotation_then_all_four_pass(self):
        """Nobody lost a turn: each of the four players passed once -- passed out (22A), no Law 34."""
        a, _ = make("E:P S:P W:P")
        assert run(a, "N:P") == []
        assert a.closed and a.passed_out and a.contract() is None
        assert [i.code for i in a.irregularities] == ["PASS_OUT_OF_ROTATION"]

    def test_unaccepted_pass_out_of_rotation_as_third_pass_waits_for_lho(self):
        a, _ = make("N:1H E:P S:P")
        irr = one(run(a, "E:P"))                               # E passes at W's (partner's) turn
        assert irr.law == "30B2"
        assert not a.closed and a.next_seat == S               # S may still accept it by calling
        flags = run(a, "S:P")                                  # accepted; three passes follow 1H, W lost his turn
        assert irr.disposition == "accepted_by_action"
        assert one(flags).code == "PASS_OOR_DEPRIVED_TURN"
        assert not a.closed and a.next_seat == W
        assert stood(a) == "N:1H E:Pass S:Pass E:Pass"          # S's accepting pass cancelled (34)

    def test_unaccepted_pass_out_of_rotation_as_third_pass_cancelled(self):
        a, _ = make("N:1H E:P S:P E:P")
        a.ruling("PASS_OUT_OF_ROTATION", "cancel")
        assert stood(a) == "N:1H E:Pass S:Pass" and a.next_seat == W
        assert a.obligations == {E: REST_OF_AUCTION} and a.no_double_now == {W}

    def test_explicitly_accepted_pass_out_of_rotation_as_third_pass(self):
        a, _ = make("N:1H E:P S:P E:P")
        flags = a.ruling("PASS_OUT_OF_ROTATION", "accept")
        assert [f.code for f in flags] == ["PASS_OOR_DEPRIVED_TURN"]
        assert not a.closed and a.next_seat == W

    def test_change_of_call_after_reversion_replaces_his_own_call(self):
        a, _ = make("N:1H E:P W:P N:P")                        # reverted to S
        irr = one(run(a, "E:2C"))                              # E calls again at S's turn
        assert irr.code == "CHANGE_OF_CALL" and irr.seat == "E"
        assert stood(a) == "N:1H W:Pass E:2C"                   # W's pass untouched


# ================================================================================================
# Appendix B -- law test scenarios (dealer N)
# ================================================================================================
class TestAppendixB:
    def test_B2_passed_out(self):
        a, flags = make("N:P E:P S:P W:P")
        assert flags == [] and a.irregularities == []
        assert a.closed and a.passed_out and a.contract() is None

    def test_B3_insufficient_bid_accepted_by_lho_call(self):
        a, _ = make("N:1H E:1D")
        assert run(a, "S:2C") == []
        irr = a.irregularities[0]
        assert irr.code == "INSUFFICIENT_BID" and irr.disposition == "accepted_by_action"
        assert a.pending is None and not any(i.open for i in a.irregularities)
        assert one(run(a, "W:1S")).code == "INSUFFICIENT_BID"  # must exceed 2C now
        a2, _ = make("N:1H E:1D")
        assert run(a2, "S:1S") == []                           # exceeding 1D suffices

    def test_B4(self):
        a, _ = make("N:1H E:1D")
        a.ruling("INSUFFICIENT_BID", "refuse")
        run(a, "E:2D")
        assert a.irregularities[0].disposition_law == "27B1"
        assert a.obligations == {} and a.lead_penalties == []

    def test_B5(self):
        a, _ = make("N:1H E:1D")
        a.ruling("INSUFFICIENT_BID", "refuse")
        assert_clean(a, "E:2C S:2H W:P N:P E:P")
        assert a.contract() == ("2H", "", N)
        assert penalties(a) == [("E", "W", "26A", "D")]         # EW defend: require/forbid diamonds

    def test_B5_26A1_offender_later_bid_diamonds(self):
        a, _ = make("N:1H E:1D")
        a.ruling("INSUFFICIENT_BID", "refuse")
        assert_clean(a, "E:2C S:2H W:P N:P E:3D S:3H W:P N:P E:P")
        assert a.contract() == ("3H", "", N)
        assert a.lead_penalties == []                           # 26A1

    def test_B6(self):
        a, _ = make("N:1H E:1D")
        a.ruling("INSUFFICIENT_BID", "refuse")
        run(a, "E:X")
        assert a.next_seat == E and a.obligations == {W: REST_OF_AUCTION}
        assert a.irregularities[0].disposition_law == "27B3"

    def test_B7(self):
        a, _ = make("E:1S")
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        assert run(a, "N:P E:1S") == []
        assert a.obligations == {} and a.lead_penalties == []
        assert a.irregularities[0].disposition_law == "31A1"

    @pytest.mark.parametrize("repeat,law,obligation,lead", [
        ("2S", "31A2a", NEXT_TURN, []),
        ("4S", "31A2a", NEXT_TURN, []),
        ("2C", "31A2b", REST_OF_AUCTION, [("E", "W", "26A", "S")]),
        ("1NT", "31A2b", REST_OF_AUCTION, [("E", "W", "26A", "S")]),
        ("X", "31A2b", REST_OF_AUCTION, [("E", "W", "26A", "S")]),
    ])
    def test_B8(self, repeat, law, obligation, lead):
        a, _ = make("E:1S")
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        run(a, f"N:1H E:{repeat}")
        assert a.irregularities[0].disposition_law == law
        assert a.obligations == {W: obligation}
        assert penalties(a) == lead

    def test_B9(self):
        a, _ = make("S:1C")
        a.ruling("BID_OUT_OF_ROTATION", "cancel")
        assert a.obligations == {N: REST_OF_AUCTION}
        assert penalties(a) == [("S", "N", "26A", "C")]
        assert_clean(a, "N:P E:1H S:2C W:P N:P E:P")

    def test_B9_accepted_when_w_called_first(self):
        a, _ = make("S:1C")
        assert_clean(a, "W:P N:1H")
        assert a.irregularities[0].disposition == "accepted_by_action"

    def test_B9_28B_example(self):
        a, _ = make("E:1S N:1H")
        assert a.irregularities[0].disposition_law == "28B"
        assert_clean(a, "E:P S:P W:P")
        assert a.contract() == ("1H", "", N)

    def test_B10(self):
        a, _ = make("N:1C E:P N:P")
        a.ruling("PASS_OUT_OF_ROTATION", "cancel")
        assert a.obligations == {N: REST_OF_AUCTION} and a.no_double_now == {S}
        assert a.next_seat == S

    def test_B11(self):
        a, flags = make("N:1H E:P S:X")
        assert one(flags).code == "INADMISSIBLE_DOUBLE"
        a.ruling("INADMISSIBLE_DOUBLE", "cancel")
        assert a.obligations == {N: REST_OF_AUCTION} and a.next_seat == S
        assert penalties(a) == [("S", "N", "26B", "")]

    def test_B12(self):
        a, flags = make("N:1H E:X S:P W:XX")
        assert one(flags).code == "INADMISSIBLE_REDOUBLE"
        a.ruling("INADMISSIBLE_REDOUBLE", "cancel")
        assert a.obligations == {E: REST_OF_AUCTION}

    def test_B13(self):
        a, flags = make("N:7NT E:8C")
        assert one(flags).code == "BID_ABOVE_SEVEN"
        a.ruling("BID_ABOVE_SEVEN", "cancel")
        assert a.obligations == {E: REST_OF_AUCTION, W: REST_OF_AUCTION}
        b, _ = make("N:7NT E:8C S:P")
        assert b.irregularities[0].disposition_law == "35C" and stood(b) == "N:7NT E:Pass"
        assert b.lead_penalties == [] and b.next_seat == S

    def test_B14(self):
        a, _ = make("N:1NT E:P S:P W:P W:2S")
        assert a.irregularities[0].law == "39B"
        assert penalties(a) == [("W", "E", "26A", "S")]
        b, _ = make("N:1NT E:P S:P W:P S:2S")
        assert b.irregularities[0].law == "39A" and b.lead_penalties == []

    def test_B15(self):
        a, _ = make("N:1H E:P W:P N:P")
        assert not a.closed and a.next_seat == S
        assert stood(a) == "N:1H E:Pass W:Pass"
        assert a.irregularities[-1].law == "34"


# ================================================================================================
# Contract, declarer, closure (Laws 19, 22, 17E)
# ================================================================================================
class TestContract:
    def test_opener_declares(self):
        a, _ = make("N:1H E:P S:2H W:P N:4H E:P S:P W:P")
        assert a.contract() == ("4H", "", N)

    def test_partner_named_strain_first(self):
        a, _ = make("N:1C E:P S:1H W:P N:2H E:P S:4H W:P N:P E:P")
        assert a.contract() == ("4H", "", S)

    def test_doubles_do_not_name_a_strain(self):
        a, _ = make("N:1S E:X S:P W:2S N:P E:4S S:P W:P N:P")
        assert a.contract() == ("4S", "", W)                    # E's double of 1S named nothing

    def test_opponents_naming_the_strain_do_not_count(self):
        a, _ = make("N:1H E:2H S:4H W:P N:P E:P")
        assert a.contract() == ("4H", "", N)

    def test_strain_named_at_a_different_level_by_the_other_partner(self):
        a, _ = make("N:P E:1D S:P W:1S N:P E:1NT S:P W:3NT N:P E:P S:P")
        assert a.contract() == ("3NT", "", E)

    def test_doubled_and_redoubled(self):
        a, _ = make("N:1NT E:X S:P W:P N:P")
        assert a.contract() == ("1NT", "X", N)
        a, _ = make("N:1NT E:X S:XX W:P N:P E:P")
        assert a.contract() == ("1NT", "XX", N)
        a, _ = make("N:1NT E:X S:P W:P N:XX E:P S:P W:P")
        assert a.contract() == ("1NT", "XX", N)

    def test_new_bid_supersedes_double(self):                               # 19C
        a, _ = make("N:1NT E:X S:2C W:P N:P E:P")
        assert a.contract() == ("2C", "", S)

    @pytest.mark.parametrize("dealer", ["N", "E", "S", "W"])
    def test_passed_out(self, dealer):
        a = Auction(Seat(dealer))
        s = Seat(dealer)
        for _ in range(3):
            assert a.call(s, PASS) == [] and not a.closed
            s = s.lho
        assert a.call(s, PASS) == []
        assert a.closed and a.passed_out and a.contract() is None

    def test_three_passes_after_a_bid(self):
        a, _ = make("N:P E:P S:1C W:P N:P")
        assert not a.closed
        assert run(a, "E:P") == []
        assert a.closed and not a.passed_out
        assert a.contract() == ("1C", "", S)

    def test_three_passes_after_a_double(self):
        a, _ = make("E:1S S:X W:P N:P E:P", dealer="E")
        assert a.closed and a.contract() == ("1S", "X", E)

    def test_not_closed_before_three_passes(self):
        a, _ = make("N:1C E:P S:P")
        assert not a.closed and a.contract() is None and a.next_seat == W


# ================================================================================================
# Property tests
# ================================================================================================
class Model:
    """An independent reference for legal auctions (Laws 18, 19, 22)."""

    def __init__(self, dealer: Seat):
        self.dealer = dealer
        self.calls: list[tuple[Seat, str]] = []

    @property
    def next(self) -> Seat:
        return self.calls[-1][0].lho if self.calls else self.dealer

    def last_bid(self):
        return next(((s, c) for s, c in reversed(self.calls) if is_bid(c)), None)

    def last_nonpass(self):
        return next(((s, c) for s, c in reversed(self.calls) if c != PASS), None)

    def can_double(self, seat: Seat) -> bool:
        last = self.last_nonpass()
        return last is not None and is_bid(last[1]) and last[0].side != seat.side

    def can_redouble(self, seat: Seat) -> bool:
        last = self.last_nonpass()
        return last is not None and last[1] == DOUBLE and last[0].side != seat.side

    def sufficient(self) -> list[str]:
        lb = self.last_bid()
        return [b for b in ALL_BIDS if lb is None or bid_key(b) > bid_key(lb[1])]

    def ended(self) -> bool:
        c = self.calls
        if len(c) == 4 and all(x == PASS for _, x in c):
            return True
        return len(c) >= 4 and self.last_bid() is not None and all(x == PASS for _, x in c[-3:])

    def contract(self):
        lb = self.last_bid()
        if lb is None:
            return None
        after = [x for _, x in self.calls[self.calls.index(lb) + 1:] if x != PASS]
        risk = after[-1] if after else ""
        declarer = next(s for s, x in self.calls
                        if is_bid(x) and s.side == lb[0].side and bid_strain(x) == bid_strain(lb[1]))
        return lb[1], risk, declarer


@st.composite
def legal_auctions(draw) -> Model:
    m = Model(draw(st.sampled_from(SEATS)))
    while not m.ended():
        seat = m.next
        kinds = ["pass"] * 3
        if m.sufficient() and len(m.calls) < 80:
            kinds += ["bid"] * 2
        if m.can_double(seat):
            kinds.append("X")
        if m.can_redouble(seat):
            kinds.append("XX")
        kind = draw(st.sampled_from(kinds))
        if kind == "pass":
            call = PASS
        elif kind == "bid":
            options_ = m.sufficient()
            call = options_[draw(st.integers(0, min(len(options_) - 1, 6)))]   # biased to cheap bids
        else:
            call = DOUBLE if kind == "X" else REDOUBLE
        m.calls.append((seat, call))
    return m


def replay(m: Model, upto: int | None = None, ed: Edition = EDITION_1997) -> Auction:
    a = Auction(m.dealer, ed)
    for seat, call in m.calls[:upto]:
        assert a.call(seat, call) == [], (seat, call, m.calls)
    return a


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# properties of rules both law editions share, or with each edition's expectation (table/editions.py)
BOTH_EDITIONS = pytest.mark.parametrize("ed", [EDITION_1997, EDITION_2017], ids=["1997", "2017"])


@BOTH_EDITIONS
@SETTINGS
@given(legal_auctions())
def test_property_legal_auctions_never_flag_and_close_correctly(ed: Edition, m: Model):
    a = Auction(m.dealer, ed)
    for i, (seat, call) in enumerate(m.calls):
        assert not a.closed
        assert a.next_seat == seat
        assert a.call(seat, call) == [], (i, seat, call)
    assert a.closed and a.irregularities == [] and a.pending is None
    assert a.obligations == {} and a.lead_penalties == []
    assert a.passed_out == (m.last_bid() is None)
    assert a.contract() == m.contract()
    assert [(e.seat, e.call) for e in a.final_calls()] == m.calls


def _oor_expectation(m: Model, seat: Seat, call: str, ed: Edition = EDITION_1997) -> tuple[str, str | None]:
    exp = m.next
    where = "RHO" if exp == seat.rho else "PARTNER" if exp == seat.partner else "LHO"
    if where == "LHO" and any(s == seat for s, _ in m.calls):
        return "CHANGE_OF_CALL", "25"
    if ed is EDITION_2017:
        if call == PASS:
            return "PASS_OUT_OF_ROTATION", "30A" if where == "RHO" else "30B1"
        if is_bid(call):
            return "BID_OUT_OF_ROTATION", "31A" if where == "RHO" else "31B"
        code = "DOUBLE_OUT_OF_ROTATION" if call == DOUBLE else "REDOUBLE_OUT_OF_ROTATION"
        admissible = m.can_double(seat) if call == DOUBLE else m.can_redouble(seat)
        return code, "36B4" if not admissible else "32A" if where == "RHO" else "32B"
    if call == PASS:
        if m.last_bid() is None:
            return "PASS_OUT_OF_ROTATION", "30A"
        return "PASS_OUT_OF_ROTATION", {"RHO": "30B1", "PARTNER": "30B2", "LHO": "30B3"}[where]
    if is_bid(call):
        return "BID_OUT_OF_ROTATION", "31A" if where == "RHO" else "31B"
    code = "DOUBLE_OUT_OF_ROTATION" if call == DOUBLE else "REDOUBLE_OUT_OF_ROTATION"
    return code, {"RHO": "32B", "PARTNER": "32A"}.get(where)


@st.composite
def corrupted(draw, ed: Edition = EDITION_1997):
    m = draw(legal_auctions())
    cut = draw(st.integers(0, len(m.calls) - 1))
    prefix = Model(m.dealer)
    prefix.calls = m.calls[:cut]
    kinds = ["oor", "inadmissible"]
    lb = prefix.last_bid()
    if lb is not None:
        kinds.append("insufficient")
    kind = draw(st.sampled_from(kinds))
    nxt = prefix.next
    if kind == "insufficient":
        seat = nxt
        call = draw(st.sampled_from([b for b in ALL_BIDS if bid_key(b) <= bid_key(lb[1])]))
        expect = ("INSUFFICIENT_BID", "27")
    elif kind == "inadmissible":
        seat = nxt
        call = DOUBLE if not prefix.can_double(seat) else REDOUBLE
        assert not prefix.can_redouble(seat) or call == DOUBLE
        expect = ("INADMISSIBLE_DOUBLE" if call == DOUBLE else "INADMISSIBLE_REDOUBLE", "36")
    else:
        seat = draw(st.sampled_from([s for s in SEATS if s != nxt]))
        call = draw(st.sampled_from([PASS, DOUBLE, REDOUBLE] + ALL_BIDS))
        expect = _oor_expectation(prefix, seat, call, ed)
    return prefix, seat, call, expect


@SETTINGS
@given(st.sampled_from([EDITION_1997, EDITION_2017]).flatmap(lambda ed: st.tuples(st.just(ed), corrupted(ed))))
def test_property_single_corruption_flags_the_right_code(ed_case):
    ed, case = ed_case
    prefix, seat, call, (code, law) = case
    a = replay(prefix, ed=ed)
    flags = a.call(seat, call)
    assert flags, (prefix.calls, seat, call)
    irr = flags[0]
    assert irr.code == code, (prefix.calls, seat, call, [f.code for f in flags])
    assert irr.seat == seat
    if law is not None:
        assert irr.law == law
    assert len(flags) == 1
    assert not a.closed                                        # never closes on an unaccepted call
    assert a.next_seat == seat.lho                             # tentatively standing: LHO may accept by calling
    assert a.pending is not None and a.pending.irr is irr
    admissible = call not in (DOUBLE, REDOUBLE) or code in ("INSUFFICIENT_BID", "CHANGE_OF_CALL") or \
        (prefix.can_double(seat) if call == DOUBLE else prefix.can_redouble(seat))
    if code.startswith("INADMISSIBLE"):
        assert options(irr) == {"cancel": "director"}
    elif code != "CHANGE_OF_CALL":
        assert options(irr).get("accept") == (str(seat.lho) if admissible else None)
        assert options(irr)["cancel" if code != "INSUFFICIENT_BID" else "refuse"] == str(seat.lho)


@BOTH_EDITIONS
@SETTINGS
@given(corrupted())
def test_property_lho_call_accepts_or_condones(ed, case):
    prefix, seat, call, (code, _law) = case
    a = replay(prefix, ed=ed)
    irr = a.call(seat, call)[0]
    a.call(seat.lho, PASS)
    assert not irr.open
    if code.startswith("INADMISSIBLE") or (code.endswith("DOUBLE_OUT_OF_ROTATION") and
                                           not (prefix.can_double(seat) if call == DOUBLE
                                                else prefix.can_redouble(seat))):
        assert irr.disposition_law == ("35A" if ed is EDITION_1997 else "36A")
        assert [(e.seat, e.call) for e in a.stood] == prefix.calls       # X/XX and LHO's pass cancelled
        assert a.next_seat == prefix.next
    else:
        assert irr.disposition == "accepted_by_action"
        assert irr.disposition_law == {"INSUFFICIENT_BID": "27A", "CHANGE_OF_CALL": "25B1"}.get(code, "29A")
    assert a.obligations == {} and a.lead_penalties == []


@SETTINGS
@given(corrupted(EDITION_2017))
def test_property_cancelled_call_out_of_rotation_2017_matrix(case):
    """2017: a cancelled call out of rotation bars nobody beyond the offender's one pass (30A) and the
    36B4 partner; the rest waits for the Law 23 ruling on the offender's next call."""
    prefix, seat, call, (code, law) = case
    if not code.endswith("OUT_OF_ROTATION"):
        return
    a = replay(prefix, ed=EDITION_2017)
    a.call(seat, call)
    a.ruling(code, "cancel")
    assert [(e.seat, e.call) for e in a.stood] == prefix.calls
    assert a.next_seat == prefix.next
    assert a.obligations == {"30A": {seat: NEXT_TURN}, "36B4": {seat.partner: REST_OF_AUCTION}}.get(law, {})
    assert a.no_double_now == set()
    assert [(lp.offender, lp.law) for lp in a.lead_penalties] == ([(seat, "26B")] if law == "36B4" else [])


@SETTINGS
@given(corrupted())
def test_property_cancelled_call_out_of_rotation_installs_the_matrix_rectification(case):
    prefix, seat, call, (code, law) = case
    if not code.endswith("OUT_OF_ROTATION"):
        return
    a = replay(prefix)
    a.call(seat, call)
    a.ruling(code, "cancel")
    assert [(e.seat, e.call) for e in a.stood] == prefix.calls
    assert a.next_seat == prefix.next                          # back to the player whose turn it was
    partner = seat.partner
    expected = {"30A": {seat: NEXT_TURN}, "30B1": {seat: NEXT_TURN}, "30B2": {seat: REST_OF_AUCTION},
                "30B3": {}, "31A": {}, "31B": {partner: REST_OF_AUCTION}, "32B": {}}.get(
        law, {partner: REST_OF_AUCTION})
    assert a.obligations == expected
    assert a.no_double_now == ({partner} if law == "30B2" else set())
    lead = [(lp.offender, lp.restricted) for lp in a.lead_penalties]
    assert lead == ([(seat, partner)] if law in ("31B", "32A", "32", None) and code != "PASS_OUT_OF_ROTATION"
                    else [])


@SETTINGS
@given(corrupted(), st.sampled_from(["lowest", "other", "pass", "double"]), st.data())
def test_property_refused_insufficient_bid_replacement(case, how, data):
    prefix, seat, call, (code, _law) = case
    if code != "INSUFFICIENT_BID":
        return
    a = replay(prefix)
    a.call(seat, call)
    a.ruling("INSUFFICIENT_BID", "refuse")
    assert [(e.seat, e.call) for e in a.stood] == prefix.calls and a.next_seat == seat
    sufficient = prefix.sufficient()
    lowest = next((b for b in sufficient if bid_strain(b) == bid_strain(call)), None)
    if how == "lowest" and lowest is not None:
        replacement, law, barred = lowest, "27B1", {}
    elif how == "double":
        replacement, law, barred = DOUBLE, "27B3", {seat.partner: REST_OF_AUCTION}
    elif how == "other" and [b for b in sufficient if b != lowest]:
        replacement = data.draw(st.sampled_from([b for b in sufficient if b != lowest]))
        law, barred = "27B2", {seat.partner: REST_OF_AUCTION}
    else:
        replacement, law, barred = PASS, "27B2", {seat.partner: REST_OF_AUCTION}
    assert a.call(seat, replacement) == []
    irr = a.irregularities[0]
    assert irr.disposition_law == law
    assert a.obligations == ({} if a.closed else barred)      # a pass may have ended the auction
    suits = "" if bid_strain(call) == "NT" else bid_strain(call)
    assert penalties(a) == ([] if law == "27B1" else [(seat, seat.partner, "26A" if suits else "26B", suits)])
    if law == "27B3":
        assert a.next_seat == seat and [(e.seat, e.call) for e in a.stood] == prefix.calls
    else:
        assert [(e.seat, e.call) for e in a.stood] == prefix.calls + [(seat, replacement)]


@SETTINGS
@given(corrupted(EDITION_2017), st.sampled_from(["lowest", "other", "pass", "double"]), st.data())
def test_property_refused_insufficient_bid_replacement_2017(case, how, data):
    """2017 27B: the lowest sufficient bid in the same (natural) denomination needs nothing (27B1(a)); any
    other replacement opens the Law 23 ruling, and "not comparable" bars partner for the rest (27B2/B3)."""
    prefix, seat, call, (code, _law) = case
    if code != "INSUFFICIENT_BID":
        return
    a = replay(prefix, ed=EDITION_2017)
    a.call(seat, call)
    a.ruling("INSUFFICIENT_BID", "refuse")
    sufficient = prefix.sufficient()
    lowest = next((b for b in sufficient if bid_strain(b) == bid_strain(call)), None)
    if how == "lowest" and lowest is not None:
        assert a.call(seat, lowest) == []
        assert a.irregularities[0].disposition_law == "27B1a" and a.obligations == {} and a.lead_penalties == []
        return
    others = [b for b in sufficient if b != lowest]
    replacement = DOUBLE if how == "double" else (
        data.draw(st.sampled_from(others)) if how == "other" and others else PASS)
    flags = a.call(seat, replacement)
    check = flags[-1]
    assert check.code == "COMPARABLE_CALL_RULING" and check.open and a.obligations == {}
    a.ruling("COMPARABLE_CALL_RULING", "not_comparable")
    assert a.obligations == ({} if a.closed else {seat.partner: REST_OF_AUCTION})
    assert [(lp.offender, lp.law) for lp in a.lead_penalties] == [(seat, "26B")]
    if replacement == DOUBLE:
        assert a.next_seat == seat and [(e.seat, e.call) for e in a.stood] == prefix.calls    # 27B3
