"""The play engine (table/play.py): Laws 41-71 from card events, 1997 WBF numbering.

Base deal (every seat holds every suit, so revokes are always possible):

    N: SAT62 HJ73 DQ84 CK95        E: SK95 HAT62 DJ73 CQ84
    S: SQ84 HK95 DAT62 CJ73        W: SJ73 HQ84 DK95 CAT62
"""
from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import table.play as play_package
from table.cards import ALL_CARDS, SEATS, Deal, Seat
from table.codes import IrregularityCode
from table.editions import EDITION_1997, EDITION_2017
from table.errors import BridgeError
from table.irregularity import LeadPenalty
from table.play import Play, PlayRulingError
from table.play.revokes import REVOKE_CODES
from table.play.rulings import DIRECTOR_ONLY, RULINGS
from table.tricks import trick_winner_index

N, E, S, W = Seat.N, Seat.E, Seat.S, Seat.W

DEAL = Deal({"N": "SA ST S6 S2 HJ H7 H3 DQ D8 D4 CK C9 C5".split(),
             "E": "SK S9 S5 HA HT H6 H2 DJ D7 D3 CQ C8 C4".split(),
             "S": "SQ S8 S4 HK H9 H5 DA DT D6 D2 CJ C7 C3".split(),
             "W": "SJ S7 S3 HQ H8 H4 DK D9 D5 CA CT C6 C2".split()})

# A legal 13-trick play of DEAL in NT by S (W leads).
LEGAL = ["W:CA N:C5 E:C4 S:C3", "W:CT N:C9 E:C8 S:C7", "W:C6 N:CK E:CQ S:CJ", "N:SA E:S5 S:S4 W:S3",
         "N:ST E:S9 S:S8 W:S7", "N:S6 E:SK S:SQ W:SJ", "E:HA S:H5 W:H4 N:H3", "E:HT S:H9 W:H8 N:H7",
         "E:H6 S:HK W:HQ N:HJ", "S:DA W:D5 N:D4 E:D3", "S:DT W:D9 N:D8 E:D7", "S:D6 W:DK N:DQ E:DJ",
         "W:C2 N:S2 E:H2 S:D2"]
LEGAL_WINNERS = [W, W, N, N, N, E, E, E, S, S, S, W, W]


def play_cards(play: Play, *tricks: str) -> list:
    """Apply ``"W:CA N:C5 ..."`` tokens in order; returns every irregularity flagged on the way."""
    flags = []
    for t in tricks:
        for tok in t.split():
            flags += play.card(Seat(tok[0]), tok[2:])
    return flags


def codes(flags) -> list[str]:
    return [f.code for f in flags]


def only(play: Play, code: str):
    found = [i for i in play.irregularities if i.code == code]
    assert len(found) == 1, [i.to_dict() for i in play.irregularities]
    return found[0]


def option_map(irr) -> dict[str, str]:
    return {o.code: o.chooser for o in irr.options}


def legal_choices(play: Play, seat: Seat) -> list[str]:
    rem = sorted(play.remaining(seat))
    trick = play.tricks[-1]
    if trick:
        follow = [c for c in rem if c[0] == trick[0][1][0]]
        return follow or rem
    return rem


def robot(play: Play, until_trick: int = 14) -> list:
    """Play legal cards (the lowest-sorted legal card) until trick ``until_trick`` begins or the end."""
    flags = []
    while not play.complete and play.trick_number < until_trick:
        seat = play.next_seat
        flags += play.card(seat, legal_choices(play, seat)[0])
    return flags


def new_nt() -> Play:
    return Play(S, "NT", DEAL)


# ---------------------------------------------------------------------------------------- legal play
def test_legal_board_no_flags_and_winners():
    p = new_nt()
    assert p.next_seat == W and p.awaiting is None
    assert play_cards(p, *LEGAL) == []
    assert p.complete and p.irregularities == []
    assert p.winners == LEGAL_WINNERS
    assert (p.declarer_tricks, p.defender_tricks) == (6, 7)
    assert all(len(t) == 4 for t in p.tricks) and len(p.tricks) == 13
    assert p.finish() == 6
    assert p.irregularities == []
    assert all(not p.remaining(s) for s in SEATS)


def test_trump_contract_winners():
    p = Play(S, "H", DEAL)
    # W leads a club, dummy ruffs? No: N holds clubs. Trick 13 of LEGAL has E's H2 as a trump discard.
    play_cards(p, *LEGAL[:12])
    assert p.winners == LEGAL_WINNERS[:12]
    play_cards(p, LEGAL[12])
    assert p.winners[12] == E            # the H2 is the only trump in the last trick
    assert p.irregularities == []


def test_next_seat_and_dummy_cards_reported_with_dummys_seat():
    p = new_nt()
    p.card(W, "CA")
    assert p.next_seat == N and p.dummy == N
    assert p.remaining(N) == frozenset(DEAL.hands[N])
    p.card(N, "C5")
    assert "C5" not in p.remaining(N) and p.next_seat == E


def test_bad_input_is_an_error_not_an_irregularity():
    with pytest.raises(ValueError):
        Play(S, "X", DEAL)
    p = new_nt()
    with pytest.raises(ValueError):
        p.card(W, "ZZ")


# ---------------------------------------------------------------------------------------- opening lead (54), B17
def test_b17_opening_lead_out_of_turn_options():
    p = Play(S, "S", DEAL)                       # 4S by S: W should lead
    flags = p.card(E, "HA")
    assert codes(flags) == ["OPENING_LEAD_OUT_OF_TURN"]
    f = flags[0]
    assert (f.law, f.seat, f.phase, f.position) == ("54", "E", "play", {"trick": 1, "card": 0})
    assert option_map(f) == {"spread": "declarer", "accept": "declarer", "refuse": "declarer"}
    assert "54C" in next(o.text for o in f.options if o.code == "accept")   # must accept if he saw dummy
    assert p.awaiting is f and f.open


def test_b17_spread_makes_partner_declarer():
    p = Play(S, "S", DEAL)
    p.card(E, "HA")
    p.ruling("OPENING_LEAD_OUT_OF_TURN", "spread", S)
    f = only(p, "OPENING_LEAD_OUT_OF_TURN")
    assert (f.disposition, f.disposition_law) == ("rectified:spread", "54A")
    assert p.declarer == N and p.dummy == S
    assert p.tricks[0] == [(E, "HA")] and p.next_seat == S     # E's card is the opening lead, S is dummy
    assert play_cards(p, "S:H5 W:H4 N:H3") == [] and p.winners == [E]


def test_b17_accept_second_card_from_declarers_hand():
    p = Play(S, "S", DEAL)
    p.card(E, "HA")
    p.ruling("OPENING_LEAD_OUT_OF_TURN", "accept", S)
    assert only(p, "OPENING_LEAD_OUT_OF_TURN").disposition == "rectified:accept"
    assert p.next_seat == S and p.awaiting is None
    assert play_cards(p, "S:H5 W:H4 N:H3") == [] and p.winners == [E]


def test_b17_accepted_by_declarers_play():
    p = Play(S, "S", DEAL)
    p.card(E, "HA")
    assert p.card(S, "H5") == []
    f = only(p, "OPENING_LEAD_OUT_OF_TURN")
    assert (f.disposition, f.disposition_law) == ("accepted_by_action", "54B1")
    assert p.awaiting is None and p.next_seat == W


def test_b17_second_card_from_dummy_stands():
    p = Play(S, "S", DEAL)
    p.card(E, "HA")
    assert p.card(N, "H3") == []                         # 54B2: cannot be withdrawn; no further flag
    assert only(p, "OPENING_LEAD_OUT_OF_TURN").disposition_law == "54B2"
    assert p.next_seat == S
    play_cards(p, "S:H5 W:H4")
    assert p.winners == [E] and p.irregularities[-1].code == "OPENING_LEAD_OUT_OF_TURN"


def test_b17_refuse_major_penalty_card_and_50d2_options():
    p = Play(S, "S", DEAL)
    p.card(E, "HA")
    flags = p.ruling("OPENING_LEAD_OUT_OF_TURN", "refuse", S)
    assert only(p, "OPENING_LEAD_OUT_OF_TURN").disposition == "rectified:refuse"
    assert p.tricks[0] == [] and p.next_seat == W
    assert p.penalty_cards(E) == {"HA": "major"} and "HA" in p.remaining(E)
    assert codes(flags) == ["PENALTY_CARD"]
    pc = flags[0]
    assert (pc.law, pc.seat) == ("50D2", "W") and p.awaiting is pc
    assert option_map(pc) == {"require:H": "declarer", "forbid:H": "declarer", "none": "declarer"}


def test_b17_refuse_then_require_hearts():
    p = Play(S, "S", DEAL)
    p.card(E, "HA")
    p.ruling("OPENING_LEAD_OUT_OF_TURN", "refuse")
    p.ruling("PENALTY_CARD", "require:H", S)
    assert p.penalty_cards(E) == {}                        # picked up (50D2a)
    assert only(p, "PENALTY_CARD").disposition == "rectified:require:H"
    assert play_cards(p, "W:H4 N:H3 E:H2 S:H5") == []       # E may now play any heart
    assert p.winners == [S]


def test_b17_refuse_then_require_violated_is_a_revoke():
    p = Play(S, "S", DEAL)
    p.card(E, "HA")
    p.ruling("OPENING_LEAD_OUT_OF_TURN", "refuse")
    p.ruling("PENALTY_CARD", "require:H")
    flags = p.card(W, "C2")
    assert codes(flags) == ["REVOKE"]
    assert (flags[0].law, flags[0].seat) == ("61A", "W")


def test_b17_refuse_then_no_restriction_penalty_card_must_be_played():
    p = Play(S, "S", DEAL)
    p.card(E, "HA")
    p.ruling("OPENING_LEAD_OUT_OF_TURN", "refuse")
    p.ruling("PENALTY_CARD", "none")
    assert p.penalty_cards(E) == {"HA": "major"}
    assert play_cards(p, "W:H4 N:H3") == []
    flags = p.card(E, "H2")                                # HA was due (50D1)
    assert codes(flags) == ["FAILURE_TO_PLAY_PENALTY_CARD", "REVOKE"]
    fail, rv = flags
    assert fail.law == "52" and option_map(fail) == {"accept": "declarer", "substitute": "declarer"}
    assert "64B3" in rv.detail


def test_opening_lead_before_declarer_chooses_lapses_penalty_card_choice():
    p = Play(S, "S", DEAL)
    p.card(E, "HA")
    p.ruling("OPENING_LEAD_OUT_OF_TURN", "refuse")
    p.card(W, "C2")                                         # led before declarer chose
    pc = only(p, "PENALTY_CARD")
    assert pc.disposition == "lapsed_no_choice" and "before declarer chose" in pc.detail
    assert p.tricks[0] == [(W, "C2")]


def test_ruling_errors():
    p = Play(S, "S", DEAL)
    with pytest.raises(PlayRulingError):
        p.ruling("OPENING_LEAD_OUT_OF_TURN", "accept")      # nothing open
    p.card(E, "HA")
    with pytest.raises(PlayRulingError):
        p.ruling("OPENING_LEAD_OUT_OF_TURN", "retract")     # not an option of 54
    with pytest.raises(PlayRulingError):
        p.ruling("OPENING_LEAD_OUT_OF_TURN", "accept", W)    # the choice is declarer's
    p.card(S, "H5")
    with pytest.raises(PlayRulingError, match="accepted_by_action"):
        p.ruling("OPENING_LEAD_OUT_OF_TURN", "refuse", S)


# ---------------------------------------------------------------------------------------- leads out of turn in play
def test_b19_defender_lead_out_of_turn_accepted_by_next_hand():
    p = new_nt()
    play_cards(p, LEGAL[0])                                  # W wins trick 1 and should lead
    flags = p.card(E, "D3")
    assert codes(flags) == ["LEAD_OUT_OF_TURN_DEFENDER"]
    f = flags[0]
    assert (f.law, f.seat, f.position) == ("56", "E", {"trick": 2, "card": 0})
    assert option_map(f) == {"accept": "declarer", "refuse": "declarer"}
    assert p.next_seat == S                                  # rotation goes on from the lead, provisionally
    assert p.card(S, "D2") == []
    assert (f.disposition, f.disposition_law) == ("accepted_by_action", "53A")
    assert play_cards(p, "W:D5 N:D4") == [] and p.winners[-1] == W   # D5 is the highest diamond played


def test_defender_lead_out_of_turn_refused():
    p = new_nt()
    play_cards(p, LEGAL[0])
    p.card(E, "D3")
    flags = p.ruling("LEAD_OUT_OF_TURN_DEFENDER", "refuse", S)
    assert only(p, "LEAD_OUT_OF_TURN_DEFENDER").disposition == "rectified:refuse"
    assert p.penalty_cards(E) == {"D3": "major"}
    assert codes(flags) == ["PENALTY_CARD"] and p.next_seat == W     # 50D2: W, E's partner, is on lead
    assert p.tricks[1] == []


def test_defender_lead_out_of_turn_53c_correct_leader_leads():
    p = new_nt()
    play_cards(p, *LEGAL[:3])                               # N won trick 3
    p.card(E, "H2")                                          # E leads out of turn; N (E's RHO) should lead
    assert p.card(N, "SA") == []                             # 53C: N's proper lead stands
    f = only(p, "LEAD_OUT_OF_TURN_DEFENDER")
    assert (f.disposition, f.disposition_law) == ("superseded_by_correct_lead", "53C")
    assert p.tricks[3] == [(N, "SA")] and "H2" in p.remaining(E) and p.penalty_cards(E) == {}
    assert play_cards(p, "E:S5 S:S4 W:S3") == [] and p.winners[-1] == N


def test_declarer_lead_out_of_turn_55b1():
    p = new_nt()
    play_cards(p, LEGAL[0])                                  # W should lead trick 2
    flags = p.card(N, "D4")                                  # dummy leads
    f = flags[0]
    assert codes(flags) == ["LEAD_OUT_OF_TURN_DECLARER"]
    assert (f.law, f.seat) == ("55B1", "N")
    assert option_map(f) == {"accept": "defenders", "retract": "defenders"}
    with pytest.raises(PlayRulingError):
        p.ruling("LEAD_OUT_OF_TURN_DECLARER", "retract", S)  # the choice is the defenders'
    p.ruling("LEAD_OUT_OF_TURN_DECLARER", "retract", E)
    assert f.disposition == "rectified:retract" and "D4" in p.remaining(N)
    assert p.tricks[1] == [] and p.next_seat == W


def test_declarer_lead_out_of_turn_accepted_by_lho():
    p = new_nt()
    play_cards(p, LEGAL[0])
    p.card(N, "D4")
    assert p.card(E, "D3") == []
    assert only(p, "LEAD_OUT_OF_TURN_DECLARER").disposition_law == "53A"
    assert p.next_seat == S


def test_declarer_lead_out_of_turn_53c():
    p = new_nt()
    play_cards(p, LEGAL[0])                                  # W to lead
    p.card(N, "D4")                                          # W is N's RHO and the correct leader
    assert p.card(W, "D5") == []
    assert only(p, "LEAD_OUT_OF_TURN_DECLARER").disposition_law == "53C"
    assert p.tricks[1] == [(W, "D5")] and "D4" in p.remaining(N) and p.next_seat == N


def test_declarer_lead_out_of_turn_53b_then_57():
    p = new_nt()
    play_cards(p, LEGAL[0])                                  # W to lead
    p.card(S, "D2")                                          # declarer leads from hand; E is S's RHO
    flags = p.card(E, "D3")
    assert only(p, "LEAD_OUT_OF_TURN_DECLARER").disposition_law == "53B"
    assert codes(flags) == ["PREMATURE_PLAY"] and flags[0].law == "57A" and flags[0].seat == "E"


def test_b18_lead_from_wrong_hand():
    p = new_nt()
    play_cards(p, "W:D5 N:DQ E:D3 S:D2")                    # dummy wins trick 1
    assert p.winners == [N]
    flags = p.card(S, "H5")
    f = flags[0]
    assert codes(flags) == ["LEAD_FROM_WRONG_HAND"] and (f.law, f.seat) == ("55B2", "S")
    assert option_map(f) == {"accept": "defenders", "lead_from_correct_hand": "defenders"}
    p.ruling("LEAD_FROM_WRONG_HAND", "lead_from_correct_hand", W)
    assert f.disposition == "rectified:lead_from_correct_hand" and p.next_seat == N
    assert "H5" in p.remaining(S) and p.tricks[1] == []
    flags = p.card(W, "H4")                                  # 60B: before dummy led
    assert codes(flags) == ["PLAY_AFTER_IRREGULAR_LEAD"]
    assert (flags[0].law, flags[0].disposition) == ("60B", "penalty_card")
    assert p.penalty_cards(W) == {"H4": "major"}
    assert p.card(N, "H3") == [] and p.tricks[1] == [(N, "H3")]


def test_b18_lead_from_wrong_hand_accepted_by_lho():
    p = new_nt()
    play_cards(p, "W:D5 N:DQ E:D3 S:D2")
    p.card(S, "H5")
    assert p.card(W, "H4") == []
    assert only(p, "LEAD_FROM_WRONG_HAND").disposition == "accepted_by_action"
    assert play_cards(p, "N:H3 E:HA") == [] and p.winners[-1] == E


# ---------------------------------------------------------------------------------------- premature play (57), B20
def _s_on_lead() -> Play:
    p = new_nt()
    play_cards(p, "W:D5 N:D4 E:D3 S:DA")                   # S wins trick 1
    return p


def test_b20_premature_play_options():
    p = _s_on_lead()
    p.card(S, "S4")
    flags = p.card(E, "SK")                                  # before W played
    f = flags[0]
    assert codes(flags) == ["PREMATURE_PLAY"]
    assert (f.law, f.seat, f.position) == ("57A", "E", {"trick": 2, "card": 1})
    assert option_map(f) == {"highest": "declarer", "lowest": "declarer", "forbid:H": "declarer",
                             "forbid:D": "declarer", "forbid:C": "declarer"}
    assert p.awaiting is f and p.next_seat == W


def test_b20_premature_play_lowest_chosen():
    p = _s_on_lead()
    p.card(S, "S4")
    p.card(E, "SK")
    p.ruling("PREMATURE_PLAY", "lowest", S)
    assert p.penalty_cards(E) == {"SK": "major"} and p.tricks[1] == [(S, "S4")]
    assert p.next_seat == W
    flags = p.card(W, "S7")                                  # lowest spade is S3
    assert codes(flags) == ["REVOKE"] and "57A" in flags[0].detail


def test_b20_premature_play_lowest_complied_then_penalty_card():
    p = _s_on_lead()
    p.card(S, "S4")
    p.card(E, "SK")
    p.ruling("PREMATURE_PLAY", "lowest")
    assert play_cards(p, "W:S3 N:S2") == []
    flags = p.card(E, "S5")                                 # SK is due: it follows suit
    assert codes(flags) == ["FAILURE_TO_PLAY_PENALTY_CARD", "REVOKE"]
    # declarer makes him substitute the penalty card (52B2): S5 becomes a major penalty card
    p.ruling("FAILURE_TO_PLAY_PENALTY_CARD", "substitute", S)
    assert p.tricks[1] == [(S, "S4"), (W, "S3"), (N, "S2"), (E, "SK")]
    assert p.winners == [S, E] and p.penalty_cards(E) == {"S5": "major"}
    rv = [i for i in p.irregularities if i.code == "REVOKE"][-1]
    assert rv.disposition == "corrected"


def test_premature_play_forfeited_by_nos_play():
    p = _s_on_lead()
    p.card(S, "S4")
    p.card(E, "SK")
    flags = p.card(N, "S2")                                 # declarer plays on from dummy (W still due)
    f = only(p, "PREMATURE_PLAY")
    assert (f.disposition, f.disposition_law) == ("accepted_by_action", "60A1")
    assert codes(flags) == ["PLAY_OUT_OF_TURN"] and flags[0].law == "45C"
    assert p.penalty_cards(E) == {} and p.next_seat == W
    assert p.card(W, "S3") == [] and p.winners[-1] == E


def test_57c_no_penalty_after_declarer_played_both_hands():
    p = new_nt()
    play_cards(p, *LEGAL[:3])                                # N on lead
    p.card(N, "SA")
    flags = p.card(S, "S4")                                  # declarer plays before E
    assert codes(flags) == ["PLAY_OUT_OF_TURN"] and flags[0].disposition == "stands"
    flags = p.card(W, "S3")                                  # W before his partner E
    assert codes(flags) == ["PREMATURE_PLAY"]
    assert (flags[0].disposition, flags[0].disposition_law) == ("no_penalty", "57C")
    assert p.card(E, "S5") == [] and p.winners[-1] == N


def test_premature_lead_57a():
    p = new_nt()
    play_cards(p, "W:CA N:C5")
    flags = p.card(W, "C2")                                  # W leads again before E played
    f = flags[0]
    assert codes(flags) == ["PREMATURE_LEAD"] and (f.law, f.seat) == ("57A", "W")
    assert p.penalty_cards(W) == {"C2": "major"} and p.tricks[0] == [(W, "CA"), (N, "C5")]
    assert option_map(f)["highest"] == "declarer" and p.next_seat == E
    p.ruling("PREMATURE_LEAD", "highest", S)
    flags = p.card(E, "C4")                                  # highest club is CQ
    assert codes(flags) == ["REVOKE"] and "57A" in flags[0].detail


def test_premature_lead_no_penalty_after_declarer_played_both_hands():
    p = _s_on_lead()
    play_cards(p, "S:S4 W:S3 N:S2")
    flags = p.card(W, "C2")
    assert codes(flags) == ["PREMATURE_LEAD"] and flags[0].disposition_law == "57C"
    assert p.penalty_cards(W) == {} and "C2" in p.remaining(W)


def test_premature_play_partner_plays_before_choice_goes_to_director():
    p = _s_on_lead()
    p.card(S, "S4")
    p.card(E, "SK")
    assert p.card(W, "S3") == []
    f = only(p, "PREMATURE_PLAY")
    assert (f.disposition, f.disposition_law) == ("referred_to_director", "60C")
    assert p.tricks[1] == [(S, "S4"), (E, "SK"), (W, "S3")] and p.next_seat == N


def test_premature_lead_forfeited_by_nos_play():
    p = new_nt()
    play_cards(p, "W:CA N:C5")
    p.card(W, "C2")
    assert codes(p.card(S, "C3")) == ["PLAY_OUT_OF_TURN"]   # declarer plays on although E was due
    f = only(p, "PREMATURE_LEAD")
    assert (f.disposition, f.disposition_law) == ("accepted_by_action", "60A1")
    assert p.penalty_cards(W) == {} and "C2" in p.remaining(W)


def test_defender_play_out_of_turn_after_partner_played():
    p = new_nt()
    p.card(W, "CA")
    flags = p.card(E, "C4")                                  # dummy (N) was due; W, E's partner, has played
    f = flags[0]
    assert codes(flags) == ["PLAY_OUT_OF_TURN"] and (f.law, f.seat) == ("49", "E")
    assert option_map(f) == {"stands": "director", "penalty_card": "director"}
    assert p.awaiting is f and p.tricks[0] == [(W, "CA"), (E, "C4")] and p.next_seat == N
    assert p.card(N, "C5") == []
    assert (f.disposition, f.disposition_law) == ("accepted_by_action", "60A1")
    assert p.card(S, "C3") == [] and p.winners == [W]


def test_defender_play_out_of_turn_ruled_penalty_card():
    p = new_nt()
    p.card(W, "CA")
    p.card(E, "C4")
    p.ruling("PLAY_OUT_OF_TURN", "penalty_card")
    assert p.penalty_cards(E) == {"C4": "major"} and p.tricks[0] == [(W, "CA")]
    assert play_cards(p, "N:C5") == []
    assert codes(p.card(E, "C8")) == ["FAILURE_TO_PLAY_PENALTY_CARD", "REVOKE"]   # C4 is due first


def test_defender_lead_out_of_turn_accepted_by_statement():
    p = new_nt()
    play_cards(p, LEGAL[0])
    p.card(E, "D3")
    p.ruling("LEAD_OUT_OF_TURN_DEFENDER", "accept", S)
    f = only(p, "LEAD_OUT_OF_TURN_DEFENDER")
    assert (f.disposition, f.disposition_law) == ("rectified:accept", "53A")
    assert p.awaiting is None and p.next_seat == S and p.penalty_cards(E) == {}


# ---------------------------------------------------------------------------------------- extra cards (45E, 58B)
def test_multiple_cards_played_defender():
    p = new_nt()
    p.card(W, "CA")
    flags = p.card(W, "C2")
    f = flags[0]
    assert codes(flags) == ["MULTIPLE_CARDS_PLAYED"] and (f.law, f.seat) == ("58B", "W")
    assert p.tricks[0] == [(W, "CA")] and p.penalty_cards(W) == {"C2": "minor"}
    assert f.disposition == "penalty_card" and p.next_seat == N


def test_fifth_card_defender_and_declarer():
    p = new_nt()
    play_cards(p, "W:CA N:C5 E:C4")
    flags = p.card(W, "HQ")                                  # W already played; partner E too
    assert codes(flags) == ["FIFTH_CARD_TO_TRICK"] and flags[0].law == "45E"
    assert p.penalty_cards(W) == {"HQ": "major"}             # an honor: major (50B)
    assert len(p.tricks[0]) == 3 and p.next_seat == S
    flags = p.card(N, "C9")                                  # dummy's second card: no penalty (45E2)
    assert codes(flags) == ["FIFTH_CARD_TO_TRICK"] and flags[0].disposition == "no_penalty"
    assert "C9" in p.remaining(N) and p.penalty_cards(N) == {}


# -------------------------------------------------------------------------------------- penalty cards (49-52), B16, B21
def test_b21_minor_penalty_card():
    p = new_nt()
    play_cards(p, LEGAL[0])
    flags = p.expose(W, ["D5"], deliberate=False)
    assert codes(flags) == ["EXPOSED_CARD"] and flags[0].law == "49"
    assert p.penalty_cards(W) == {"D5": "minor"}
    assert p.awaiting is None                                 # minor: no lead restriction on E (50C)
    play_cards(p, "W:CT N:C9 E:C8 S:C7", "W:C6 N:CK E:CQ S:CJ", "N:D4 E:D3 S:DA")
    assert codes(p.card(W, "D9")) == ["FAILURE_TO_PLAY_PENALTY_CARD", "REVOKE"]


def test_b21_minor_penalty_card_honor_allowed_and_second_card_makes_all_major():
    p = new_nt()
    play_cards(p, LEGAL[0])
    p.expose(W, ["D5"], deliberate=False)
    play_cards(p, "W:CT N:C9 E:C8 S:C7", "W:C6 N:CK E:CQ S:CJ", "N:D4 E:D3 S:DA")
    assert p.card(W, "DK") == []                             # an honor may be played instead
    p.expose(W, ["C2"], deliberate=False)
    assert p.penalty_cards(W) == {"D5": "major", "C2": "major"}


def test_expose_by_declarer_or_dummy_is_nothing():
    p = new_nt()
    assert p.expose(S, ["SQ"], deliberate=True) == []
    assert p.expose(N, ["SA"], deliberate=False) == []
    assert p.penalty_cards(S) == {} and p.irregularities == []


def test_b16_card_exposed_in_auction_becomes_major_and_50d2_at_opening_lead():
    p = Play(S, "S", DEAL)
    flags = p.expose(E, ["SK"], deliberate=False)
    assert codes(flags) == ["EXPOSED_CARD", "PENALTY_CARD"]
    assert p.penalty_cards(E) == {"SK": "major"}
    p.ruling("PENALTY_CARD", "forbid:S", S)
    assert p.penalty_cards(E) == {}
    assert codes(p.card(W, "S3")) == ["REVOKE"]             # forbidden while able to lead another suit


def test_failure_to_play_penalty_card_accepted_by_declarers_play():
    p = new_nt()
    play_cards(p, LEGAL[0], LEGAL[1], LEGAL[2])              # N on lead
    p.expose(E, ["S9"], deliberate=True)                     # major
    p.card(N, "SA")
    flags = p.card(E, "S5")
    assert codes(flags) == ["FAILURE_TO_PLAY_PENALTY_CARD", "REVOKE"]
    assert p.card(S, "S4") == []
    f = only(p, "FAILURE_TO_PLAY_PENALTY_CARD")
    assert (f.disposition, f.disposition_law) == ("accepted_by_action", "52B1")
    assert p.penalty_cards(E) == {"S9": "major"}              # still a penalty card (52B1c)


def test_major_penalty_card_discard_when_void():
    p = new_nt()
    play_cards(p, *LEGAL[:3])                                # clubs gone for N, E, S, W has C2
    p.expose(E, ["HA"], deliberate=False)                    # honor: major
    play_cards(p, "N:SA E:S5 S:S4 W:S3", "N:ST E:S9 S:S8 W:S7", "N:S6")
    assert codes(p.card(E, "SK")) == []                      # following suit comes first (44C)


# ---------------------------------------------------------------------------------------- lead penalties (26)
def test_lead_penalty_pending_at_opening_lead():
    lp = LeadPenalty(offender="E", restricted="W", law="26A", suits=frozenset("D"), source_code="INSUFFICIENT_BID")
    p = Play(S, "NT", DEAL, [lp])
    f = only(p, "LEAD_PENALTY_PENDING")
    assert (f.law, f.seat, f.position) == ("26A2", "W", {"trick": 1, "card": 0})
    assert option_map(f) == {"require:D": "declarer", "forbid:D": "declarer", "none": "declarer"}
    assert p.awaiting is f
    p.ruling("LEAD_PENALTY_PENDING", "forbid:D", S)
    assert f.disposition == "rectified:forbid:D"
    flags = p.card(W, "D5")
    assert codes(flags) == ["REVOKE"] and flags[0].law == "61A" and flags[0].seat == "W"


def test_lead_penalty_forbid_lasts_while_he_keeps_the_lead():
    lp = LeadPenalty(offender="E", restricted="W", law="26B")
    p = Play(S, "NT", DEAL, [lp])
    assert set(option_map(only(p, "LEAD_PENALTY_PENDING"))) == {"forbid:S", "forbid:H", "forbid:D", "forbid:C", "none"}
    p.ruling("LEAD_PENALTY_PENDING", "forbid:D")
    assert play_cards(p, LEGAL[0]) == []                    # W wins and keeps the lead
    assert codes(p.card(W, "D9")) == ["REVOKE"]


def test_lead_penalty_require_complied():
    lp = LeadPenalty(offender="E", restricted="W", law="26A", suits=frozenset("H"))
    p = Play(S, "NT", DEAL, [lp])
    p.ruling("LEAD_PENALTY_PENDING", "require:H")
    assert play_cards(p, "W:H4 N:H3 E:HA S:H5") == []
    assert p.awaiting is None


def test_lead_penalty_lead_before_choice_stands():
    lp = LeadPenalty(offender="E", restricted="W", law="26A", suits=frozenset("D"))
    p = Play(S, "NT", DEAL, [lp])
    assert p.card(W, "D5") == []
    f = only(p, "LEAD_PENALTY_PENDING")
    assert f.disposition == "lapsed_no_choice" and "stands as the lead" in f.detail
    assert p.tricks[0] == [(W, "D5")]


def test_lead_penalty_waits_when_someone_else_led():
    lp = LeadPenalty(offender="E", restricted="W", law="26B")
    p = Play(S, "NT", DEAL, [lp])
    first = only(p, "LEAD_PENALTY_PENDING")
    play_cards(p, "E:HA S:H5 W:H4 N:H3")                    # E's opening lead out of turn, accepted (54B1)
    assert only(p, "OPENING_LEAD_OUT_OF_TURN").disposition == "accepted_by_action"
    assert first.disposition == "deferred" and p.awaiting is None
    play_cards(p, "E:H2 S:H9 W:H8 N:H7", "S:D2 W:DK N:D4 E:D3")   # W wins trick 3: his first lead
    pending = [i for i in p.irregularities if i.code == "LEAD_PENALTY_PENDING"]
    assert len(pending) == 2 and pending[1].open and pending[1].position == {"trick": 4, "card": 0}
    assert p.awaiting is pending[1]


def test_lead_penalty_of_declaring_side_does_not_apply():
    lp = LeadPenalty(offender="N", restricted="S", law="26B")
    p = Play(S, "NT", DEAL, [lp])
    assert p.irregularities == [] and p.awaiting is None


def test_lead_penalty_for_later_first_lead():
    lp = LeadPenalty(offender="W", restricted="E", law="26A", suits=frozenset("S"))
    p = Play(S, "NT", DEAL, [lp])
    assert p.irregularities == []
    play_cards(p, *LEGAL[:6])                                # E wins trick 6: his first lead
    f = only(p, "LEAD_PENALTY_PENDING")
    assert f.seat == "E" and f.position == {"trick": 7, "card": 0}


# ---------------------------------------------------------------------------------------- revokes (61-64)
def test_revoke_flagged_and_established_by_partner():
    p = new_nt()
    play_cards(p, "W:C2 N:CK E:C4 S:C3")                    # N wins
    flags = play_cards(p, "N:D4 E:C8")                      # E holds DJ73
    rv = flags[0]
    assert codes(flags) == ["REVOKE"]
    assert (rv.law, rv.seat, rv.position) == ("61A", "E", {"trick": 2, "card": 1})
    assert option_map(rv)["correct"] == "E" and rv.open
    play_cards(p, "S:DA W:D5", "S:H5")                       # NOS lead to trick 3 does not establish
    assert rv.open
    p.card(W, "H8")                                           # 63A1
    assert (rv.disposition, rv.disposition_law) == ("established", "63A1")
    with pytest.raises(PlayRulingError):
        p.ruling("REVOKE", "correct", E)                     # 63C


def test_revoke_corrected_defender_card_becomes_major_penalty_card():
    p = new_nt()
    play_cards(p, "W:C2 N:CK E:C4 S:C3", "N:D4 E:C8")
    p.ruling("REVOKE", "correct", E)
    rv = only(p, "REVOKE")
    assert (rv.disposition, rv.disposition_law) == ("corrected", "62B1")
    assert p.penalty_cards(E) == {"C8": "major"} and p.next_seat == E
    assert p.card(E, "D3") == []
    assert p.tricks[1] == [(N, "D4"), (E, "D3")]
    play_cards(p, "S:DA W:D5")
    assert p.winners == [N, S]


def test_revoke_corrected_after_trick_completed_withdraws_nos_lead():
    p = new_nt()
    play_cards(p, "W:C2 N:CK E:C4 S:C3", "N:D4 E:C8 S:DA W:D5", "S:H5")
    p.ruling("REVOKE", "correct")
    assert p.tricks[1] == [(N, "D4"), (S, "DA"), (W, "D5")] and len(p.tricks) == 2
    assert p.winners == [N] and "H5" in p.remaining(S) and "62C1" in only(p, "REVOKE").detail
    assert p.card(E, "DJ") == [] and p.tricks[1][1] == (E, "DJ")
    assert p.winners == [N, S] and p.next_seat == S


def test_declarer_revoke_corrected_without_penalty():
    p = new_nt()
    play_cards(p, "W:C2 N:C5 E:C4 S:H5")                    # S holds CJ73
    p.ruling("REVOKE", "correct", S)
    assert only(p, "REVOKE").disposition_law == "62B2"
    assert p.penalty_cards(S) == {} and "H5" in p.remaining(S)
    assert p.card(S, "C3") == [] and p.winners == [N]


def test_dummy_revoke_corrected_by_declarer():
    p = new_nt()
    flags = play_cards(p, "W:C2 N:D4")
    assert option_map(flags[0])["correct"] == "S"          # declarer plays dummy's cards
    with pytest.raises(PlayRulingError):
        p.ruling("REVOKE", "correct", E)
    p.ruling("REVOKE", "correct", S)
    assert flags[0].disposition_law == "62B2" and p.penalty_cards(N) == {} and p.next_seat == N
    assert p.card(N, "C5") == [] and p.tricks[0] == [(W, "C2"), (N, "C5")]


def test_claim_establishes_pending_revoke():
    p = new_nt()
    play_cards(p, "W:C2 N:CK E:C4 S:C3", "N:D4 E:C8 S:DA W:D5")
    rv = only(p, "REVOKE")
    p.claim_made(S)                                          # NOS claim, acquiesced in by EW
    assert (rv.disposition, rv.disposition_law) == ("established", "63A3")
    assert codes(p.card(S, "H5")) == ["PLAY_AFTER_CLAIM"]


def test_claim_by_nos_disputed_does_not_establish():
    p = new_nt()
    play_cards(p, "W:C2 N:CK E:C4 S:C3", "N:D4 E:C8 S:DA W:D5")
    p.claim_made(S, acquiesced=False)
    assert only(p, "REVOKE").open


# B22: E discards on a diamond lead holding diamonds; S wins; W's play to the next trick establishes it.
B22_PREFIX = ["W:C2 N:CK E:C4 S:C3", "N:D4 E:C8 S:DA W:D5"]


def _transfer(p: Play):
    t = [i for i in p.irregularities if i.code == "REVOKE_TRICK_TRANSFER"]
    assert len(t) == 1
    return t[0], int(t[0].detail.split(";")[0].split("=")[1])


def test_b22_64a2_one_trick():
    p = new_nt()
    play_cards(p, *B22_PREFIX, "S:H5 W:H8 N:H3 E:HA")       # EW win trick 3 with a heart
    assert only(p, "REVOKE").disposition == "established"
    p.claim_made(S)
    total = p.finish(claimed_total=11)                      # NS 2 played + 9 claimed
    tr, n = _transfer(p)
    assert (tr.law, n, tr.seat) == ("64A2", 1, "E")
    assert total == 12


def test_b22_64a2_1997_clause_two_tricks():
    p = new_nt()
    play_cards(p, *B22_PREFIX, "S:H5 W:H8 N:H3 E:HA", "E:DJ S:D6 W:D9 N:D8")   # E wins with DJ
    assert p.winners == [N, S, E, E]
    p.claim_made(S)
    total = p.finish(claimed_total=9)                       # NS 2 + 7 of the 9 left; EW 2 more
    tr, n = _transfer(p)
    assert (tr.law, n) == ("64A2", 2) and "1997 clause" in tr.detail
    assert total == 11


def test_b22_64a2_1997_clause_capped_by_tricks_won():
    p = new_nt()
    play_cards(p, *B22_PREFIX, "S:HK W:H4 N:H3 E:H2", "S:D6 W:D9 N:D8 E:DJ")   # EW's only trick: DJ
    assert p.winners == [N, S, S, E]
    p.claim_made(S)
    total = p.finish(claimed_total=12)                      # all the rest to NS
    tr, n = _transfer(p)
    assert (tr.law, n) == ("64A2", 1) and "capped" in tr.detail
    assert total == 13


def test_64b1_offending_side_won_nothing_later():
    p = new_nt()
    play_cards(p, *B22_PREFIX, "S:HK W:H4 N:H3 E:H2")
    p.claim_made(S)
    total = p.finish(claimed_total=13)
    tr, n = _transfer(p)
    assert (tr.law, n, tr.disposition) == ("64B1", 0, "exempt")
    assert total == 13


def test_b23_64a1_two_tricks():
    p = Play(S, "H", DEAL)
    play_cards(p, "W:C2 N:CK E:C4 S:C3", "N:D4 E:H2 S:DA W:D5")   # E ruffs holding diamonds, wins
    assert p.winners == [N, E] and only(p, "REVOKE").seat == "E"
    play_cards(p, "E:HA S:H5 W:H4 N:H3")                     # E's lead to trick 3 establishes
    assert only(p, "REVOKE").disposition_law == "63A1"
    p.claim_made(S)
    total = p.finish(claimed_total=9)                       # NS 1 + 8 of 10 left
    tr, n = _transfer(p)
    assert (tr.law, n) == ("64A1", 2)
    assert total == 11


def test_b23_64a1_only_revoke_trick_when_nothing_later():
    p = Play(S, "H", DEAL)
    play_cards(p, "W:C2 N:CK E:C4 S:C3", "N:D4 E:H2 S:DA W:D5", "E:H6 S:HK W:H4 N:H3")
    assert p.winners == [N, E, S]
    p.claim_made(S)
    total = p.finish(claimed_total=12)
    tr, n = _transfer(p)
    assert (tr.law, n) == ("64A1", 1)
    assert total == 13


def test_64a1_trick_won_by_dummy_is_not_won_by_declarer():
    p = new_nt()
    play_cards(p, "W:C2 N:CK E:C4 S:H5")                    # declarer revokes (holds clubs); dummy wins
    assert only(p, "REVOKE").seat == "S" and p.winners == [N]
    play_cards(p, "N:SA E:S5 S:S4 W:S3")                     # NS play to trick 2: established
    p.claim_made(S)
    total = p.finish(claimed_total=10)
    tr, n = _transfer(p)
    assert (tr.law, n) == ("64A2", 1)                        # not 64A1
    assert total == 9


def test_b24_dummy_revoke_no_transfer():
    p = new_nt()
    flags = play_cards(p, "W:C2 N:D4 E:C4 S:C3")            # dummy holds clubs
    assert codes(flags) == ["REVOKE"] and flags[0].seat == "N"
    play_cards(p, "E:HA S:H5 W:H4 N:H3")
    assert flags[0].disposition == "established"
    p.claim_made(E)
    total = p.finish(claimed_total=5)
    tr, n = _transfer(p)
    assert (tr.law, n) == ("64B3", 0) and "dummy" in tr.detail
    assert total == 5


def test_64b2_second_revoke_same_player_same_suit():
    p = new_nt()
    play_cards(p, *B22_PREFIX, "S:H5 W:H8 N:H3 E:HA", "E:HT S:H9 W:H4 N:H7",   # E wins tricks 3 and 4
               "E:H6 S:HK W:HQ N:HJ")                                            # S wins trick 5
    flags = play_cards(p, "S:D6 W:D9 N:D8 E:CQ")            # E revokes in diamonds again (holds DJ73)
    assert codes(flags) == ["REVOKE"]
    play_cards(p, "W:S3")                                    # W won trick 6 with D9: establishes
    revokes = [i for i in p.irregularities if i.code == "REVOKE"]
    assert [r.disposition for r in revokes] == ["established", "established"]
    p.claim_made(W)
    p.finish(claimed_total=9)
    transfers = [i for i in p.irregularities if i.code == "REVOKE_TRICK_TRANSFER"]
    assert [t.law for t in transfers] == ["64A2", "64B2"]
    assert transfers[1].detail.startswith("tricks_transferred=0")


def test_b25_revoke_on_trick_12_no_transfer():
    p = new_nt()
    play_cards(p, *LEGAL[:11])
    flags = play_cards(p, "S:D6 W:C2")                       # W holds DK
    assert codes(flags) == ["REVOKE_TRICK12"] and flags[0].law == "62D"
    play_cards(p, "N:DQ E:DJ", "N:S2 E:H2 S:D2 W:DK")
    assert flags[0].disposition == "established" and p.complete
    total = p.finish()
    tr, n = _transfer(p)
    assert (tr.law, n) == ("64B6", 0)
    assert total == p.declarer_tricks


def test_b25_trick_12_revoke_corrected_after_trick_13():
    p = new_nt()
    play_cards(p, *LEGAL[:11], "S:D6 W:C2 N:DQ E:DJ", "N:S2 E:H2 S:D2 W:DK")
    assert p.complete and p.winners[11:] == [N, N]
    p.ruling("REVOKE_TRICK12", "correct", W)                 # 62D1: even though established
    rv = only(p, "REVOKE_TRICK12")
    assert (rv.disposition, rv.disposition_law) == ("corrected", "62D1")
    assert not p.complete and p.next_seat == W
    assert p.card(W, "DK") == []
    assert p.complete and p.winners == LEGAL_WINNERS        # trick 13 is forced and replayed
    assert p.tricks[12] == [(W, "C2"), (N, "S2"), (E, "H2"), (S, "D2")]
    assert p.finish() == 6


def test_trick_12_revoke_corrected_at_once():
    p = new_nt()
    play_cards(p, *LEGAL[:11], "S:D6 W:C2")
    p.ruling("REVOKE_TRICK12", "correct", W)
    assert p.penalty_cards(W) == {"C2": "major"} and p.next_seat == W
    play_cards(p, "W:DK N:DQ E:DJ", "W:C2 N:S2 E:H2 S:D2")
    assert p.winners == LEGAL_WINNERS and p.penalty_cards(W) == {}
    assert [i.code for i in p.irregularities] == ["REVOKE_TRICK12"]


def test_finish_is_idempotent_and_64b4_exemption():
    p = new_nt()
    play_cards(p, *B22_PREFIX, "S:H5 W:H8 N:H3 E:HA")
    p.claim_made(S)
    assert p.finish(11) == 12 and p.finish(11) == 12
    assert len([i for i in p.irregularities if i.code == "REVOKE_TRICK_TRANSFER"]) == 1
    p.ruling("REVOKE", "64B4")
    assert p.finish(11) == 11
    assert _transfer(p)[0].law == "64B4"


def test_revoke_with_unknown_hands_detected_afterwards():
    p = Play(S, "NT", None)
    play_cards(p, "W:C2 N:CK E:C4 S:C3", "N:D4 E:C8 S:DA W:D5")
    assert p.irregularities == []                            # nothing known yet
    play_cards(p, "S:H5 W:H8 N:H3 E:HA")
    flags = p.card(E, "DJ")                                  # E shows a diamond: he revoked at trick 2
    assert codes(flags) == ["REVOKE"]
    assert flags[0].position == {"trick": 2, "card": 1} and flags[0].disposition == "established"


# ---------------------------------------------------------------------------------------- hand record problems
def test_hand_record_mismatch_accepted_without_false_revokes():
    p = new_nt()
    flags = p.card(W, "SA")                                  # the record gives SA to N
    f = flags[0]
    assert codes(flags) == ["HAND_RECORD_MISMATCH"] and (f.law, f.seat) == ("13A1", "W")
    assert p.tricks[0] == [(W, "SA")] and "SA" not in p.remaining(N)
    assert play_cards(p, "N:ST E:S5 S:S4") == []
    assert p.winners == [W]
    assert p.card(W, "C2") == []                             # W's record is no longer trusted: no revoke inferred


def test_card_already_played():
    p = new_nt()
    play_cards(p, "W:CA N:C5 E:C4 S:C3")
    flags = p.card(W, "CA")                                  # repeated read right after the trick
    assert codes(flags) == ["CARD_ALREADY_PLAYED"] and "ignored" in flags[0].detail
    assert p.tricks[1] == []
    p.card(W, "CT")
    flags = p.card(N, "CT")                                  # a different seat claims the same card
    assert codes(flags) == ["CARD_ALREADY_PLAYED"] and flags[0].law == "1"
    assert p.tricks[1] == [(W, "CT"), (N, "CT")] and p.next_seat == E


def test_a_duplicated_card_in_a_withdrawn_trick_goes_back_to_one_hand_only():
    """No hand record; W leads SK out of turn, E then reports SK too (Law 1: one pack holds it once). The
    lead refused (56), the trick is withdrawn: SK is W's major penalty card and E does not hold it as well."""
    p = Play(N, "C", None)
    for seat in "ESWN":                                       # trick 1: a recording that repeats SA
        p.card(Seat(seat), "SA")
    assert codes(p.card(W, "SK")) == ["LEAD_OUT_OF_TURN_DEFENDER"]
    assert "CARD_ALREADY_PLAYED" in codes(p.card(E, "SK"))
    p.ruling("LEAD_OUT_OF_TURN_DEFENDER", "refuse")
    assert p.tricks[-1] == [] and p.penalty_cards(W) == {"SK": "major"}
    assert "SK" in p.remaining(W) and all("SK" not in p.remaining(s) for s in (N, E, S))


def test_card_after_thirteen_tricks():
    p = new_nt()
    play_cards(p, *LEGAL)
    assert codes(p.card(W, "C2")) == ["CARD_ALREADY_PLAYED"]


def test_card_left_after_thirteen_tricks_is_a_defective_trick():
    p = new_nt()
    play_cards(p, *LEGAL[:12])
    assert codes(p.card(W, "CA")) == ["CARD_ALREADY_PLAYED"]   # counted: a recording error in trick 13
    play_cards(p, "N:S2 E:H2 S:D2")
    assert p.complete and "C2" in p.remaining(W)
    flags = p.card(W, "C2")
    assert codes(flags) == ["DEFECTIVE_TRICK"] and flags[0].law == "67B"


def test_play_after_claim_not_counted_and_resume():
    p = new_nt()
    play_cards(p, LEGAL[0])
    p.claim_made(W)
    flags = p.card(W, "CT")
    assert codes(flags) == ["PLAY_AFTER_CLAIM"] and flags[0].law == "68D"
    assert p.tricks[1] == []
    p.resume_after_claim()
    assert p.card(W, "CT") == [] and p.tricks[1] == [(W, "CT")]


# ---------------------------------------------------------------------------------------- properties
def _deal_from(perm: list[int]) -> Deal:
    cards = [ALL_CARDS[i] for i in perm]
    return Deal({s: cards[i * 13:(i + 1) * 13] for i, s in enumerate(SEATS)})


deals = st.permutations(list(range(52))).map(_deal_from)
# the properties below are rules both law editions share (table/editions.py)
BOTH_EDITIONS = pytest.mark.parametrize("ed", [EDITION_1997, EDITION_2017], ids=["1997", "2017"])
strains = st.sampled_from(["C", "D", "H", "S", "NT"])
seats = st.sampled_from(list(SEATS))


@BOTH_EDITIONS
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal=deals, declarer=seats, strain=strains, data=st.data())
def test_property_random_legal_play_never_flags(deal, declarer, strain, data, ed):
    p = Play(declarer, strain, deal, (), ed)
    trump = None if strain == "NT" else strain
    while not p.complete:
        seat = p.next_seat
        card = data.draw(st.sampled_from(legal_choices(p, seat)))
        assert p.card(seat, card) == []
    assert p.irregularities == [] and len(p.tricks) == 13 and len(p.winners) == 13
    assert p.declarer_tricks + p.defender_tricks == 13
    leader = declarer.lho
    for t, w in zip(p.tricks, p.winners):
        assert t[0][0] == leader and [s for s, _ in t] == [leader, leader.lho, leader.lho.lho, leader.rho]
        assert w == t[trick_winner_index([c for _, c in t], trump)][0]
        leader = w
    assert p.finish() == p.declarer_tricks


@BOTH_EDITIONS
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal=deals, declarer=seats, strain=strains, data=st.data())
def test_property_single_revoke_always_flagged(deal, declarer, strain, data, ed):
    p = Play(declarer, strain, deal, (), ed)
    target = data.draw(st.integers(min_value=0, max_value=51))
    done = False
    k = 0
    while not p.complete:
        seat = p.next_seat
        trick = p.tricks[-1]
        rem = sorted(p.remaining(seat))
        legal = legal_choices(p, seat)
        off = [c for c in rem if c not in legal]
        if not done and k >= target and trick and off:
            n = p.trick_number
            flags = p.card(seat, data.draw(st.sampled_from(off)))
            assert codes(flags) == ["REVOKE_TRICK12" if n == 12 else "REVOKE"]
            assert flags[0].seat == str(seat) and flags[0].position["trick"] == n
            done = True
        else:
            assert p.card(seat, data.draw(st.sampled_from(legal))) == []
        k += 1
    revokes = [i for i in p.irregularities if i.code.startswith("REVOKE")]
    assert len(revokes) == (1 if done else 0)
    if done and revokes[0].position["trick"] < 13:
        assert revokes[0].disposition == "established"       # the offending side played to a later trick
    total = p.finish()
    assert 0 <= total <= 13 and p.declarer_tricks + p.defender_tricks == 13


@BOTH_EDITIONS
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal=deals, declarer=seats, strain=strains, data=st.data())
def test_property_lead_out_of_turn_always_flagged(deal, declarer, strain, data, ed):
    p = Play(declarer, strain, deal, (), ed)
    target = data.draw(st.integers(min_value=1, max_value=12))
    robot(p, until_trick=target)
    leader = p.next_seat
    seat = data.draw(st.sampled_from([s for s in SEATS if s != leader]))
    card = data.draw(st.sampled_from(sorted(p.remaining(seat))))
    flags = p.card(seat, card)
    defender = seat.side != declarer.side
    if defender:
        expected = "OPENING_LEAD_OUT_OF_TURN" if target == 1 else "LEAD_OUT_OF_TURN_DEFENDER"
    else:
        expected = "LEAD_OUT_OF_TURN_DECLARER" if leader.side != declarer.side else "LEAD_FROM_WRONG_HAND"
    assert codes(flags) == [expected] and flags[0].seat == str(seat)
    assert p.awaiting is flags[0] and p.tricks[-1] == [(seat, card)]
    if seat.lho.side != seat.side:                           # the next hand (an opponent) plays: accepted (53A)
        nxt = seat.lho
        p.card(nxt, legal_choices(p, nxt)[0])
        assert flags[0].disposition == "accepted_by_action"
        assert flags[0].disposition_law in ("53A", "54B1")
    robot(p)
    assert p.complete and p.declarer_tricks + p.defender_tricks == 13


@BOTH_EDITIONS
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal=st.one_of(st.none(), deals), declarer=seats, strain=strains, data=st.data())
def test_property_arbitrary_events_never_crash(deal, declarer, strain, data, ed):
    """Recorded files and devices produce impossible streams: every event is absorbed, nothing raises
    except a PlayRulingError for a ruling that does not apply, and the trick structure stays sound."""
    p = Play(declarer, strain, deal, (), ed)
    for _ in range(data.draw(st.integers(min_value=10, max_value=90))):
        action = data.draw(st.integers(min_value=0, max_value=19))
        if action < 15:
            seat = p.next_seat if action < 11 else data.draw(seats)
            rem = sorted(p.remaining(seat))
            card = data.draw(st.sampled_from(rem)) if rem and action < 13 else data.draw(st.sampled_from(ALL_CARDS))
            p.card(seat, card)
        elif action < 18:
            open_ = p.awaiting or next((i for i in reversed(p.irregularities) if i.code.startswith("REVOKE")), None)
            if open_ is not None and open_.options:
                try:
                    p.ruling(open_.code, data.draw(st.sampled_from([o.code for o in open_.options])))
                except PlayRulingError:
                    pass
        else:
            seat = data.draw(seats)
            rem = sorted(p.remaining(seat))
            if rem:
                p.expose(seat, [data.draw(st.sampled_from(rem))], data.draw(st.booleans()))
        for k, t in enumerate(p.tricks):
            assert len({s for s, _ in t}) == len(t) <= 4
            if k < len(p.winners):
                assert len(t) == 4 and p.winners[k] == t[trick_winner_index([c for _, c in t], p.trump)][0]
        held = [c for s in SEATS for c in p.remaining(s)]
        assert len(held) == len(set(held))
    total = p.finish(data.draw(st.one_of(st.none(), st.integers(min_value=0, max_value=13))))
    assert isinstance(total, int)
    for i in p.irregularities:
        assert i.phase == "play" and set(i.position) == {"trick", "card"} and i.to_dict()["code"] == i.code


# ---------------------------------------------------------------------------------------- long replays
class _Card:
    __slots__ = ("seat", "card")

    def __init__(self, seat: Seat, card: str) -> None:
        self.seat, self.card = seat, card


def test_long_replay_card_by_card_and_batched_give_the_same_exact_play():
    """60 random legal boards (their timing is bench/play_engine.py's): laid one ``card`` at a time and as one
    ``run_cards`` batch, both give the play an independent count of the same cards gives."""
    rng = random.Random(7)
    for _ in range(60):
        cards = list(ALL_CARDS)
        rng.shuffle(cards)
        deal = Deal({s: cards[i * 13:(i + 1) * 13] for i, s in enumerate(SEATS)})
        p = Play(S, "H", deal)
        seq = []
        while not p.complete:
            seat = p.next_seat
            c = rng.choice(legal_choices(p, seat))
            p.card(seat, c)
            seq.append((seat, c))
        assert p.complete and not p.irregularities
        # the expected play, counted from the card sequence alone
        tricks = [seq[k:k + 4] for k in range(0, 52, 4)]
        winners = [t[trick_winner_index([c for _, c in t], "H")][0] for t in tricks]
        leaders = [W] + winners[:-1]
        assert [t[0][0] for t in tricks] == leaders
        ns = sum(1 for w in winners if w.side == "NS")
        assert p.tricks == tricks and p.winners == winners and p.finish() == ns
        batched = Play(S, "H", deal)
        assert batched.run_cards([_Card(s, c) for s, c in seq], 0, _Card) == 52
        assert batched.tricks == tricks and batched.winners == winners and batched.finish() == ns
        assert not batched.irregularities and batched.next_seat == p.next_seat


def test_run_cards_stops_at_the_first_card_needing_the_checked_path():
    p = new_nt()
    events = [_Card(W, "CA"), _Card(N, "C5"), _Card(E, "H2"), _Card(S, "C3")]   # E revokes (holds clubs)
    assert p.run_cards(events, 0, _Card) == 2 and p.tricks[0] == [(W, "CA"), (N, "C5")]
    assert p.run_cards(events, 2, _Card) == 2                  # nothing laid: ``card`` must flag it
    assert codes(p.card(E, "H2")) == ["REVOKE"]
    assert p.run_cards(events, 3, _Card) == 3                  # an open revoke: every card is checked
    assert p.run_cards(["not a card event"], 0, _Card) == 0


# ---------------------------------------------------------------------------------------- the ruling table
def _code_member(node: ast.AST) -> str | None:
    """The code an expression names: ``IrregularityCode.X`` (checked to be a member)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "IrregularityCode":
        return IrregularityCode[node.attr].value
    return None


def _flagged_with_options() -> dict[str, list[ast.Call]]:
    """Every irregularity code the play package flags with options, from its source: the code argument of
    each ``flag(out, code, ...)`` call whose options are not an empty list (a code held in a variable is
    read from the ``IrregularityCode`` members assigned to that variable in the same function)."""
    found: dict[str, list[ast.Call]] = {}
    for path in sorted(Path(play_package.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for call in ast.walk(fn):
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                        and call.func.attr == "flag"):
                    continue
                options = call.args[6] if len(call.args) > 6 else next(
                    (k.value for k in call.keywords if k.arg == "options"), None)
                if options is None or (isinstance(options, ast.List) and not options.elts):
                    continue
                code = call.args[1]
                if _code_member(code) is not None:
                    names = {_code_member(code)}
                else:
                    assert isinstance(code, ast.Name), ast.dump(code)
                    names = {m for a in ast.walk(fn) if isinstance(a, ast.Assign)
                             and any(code.id in {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
                                     for t in a.targets)
                             for c in ast.walk(a.value) if (m := _code_member(c)) is not None}
                    assert names, f"{path.name}: no code found for {ast.unparse(call)[:80]}"
                for name in names:
                    found.setdefault(name, []).append(call)
    return found


def test_the_ruling_table_covers_every_code_flagged_with_options():
    flagged = _flagged_with_options()
    # the scan sees the flags (a scan that found nothing would prove nothing)
    assert set(RULINGS) | set(REVOKE_CODES) <= set(flagged), sorted(set(RULINGS) - set(flagged))
    for code, calls in flagged.items():
        if code in RULINGS or code in REVOKE_CODES:
            continue
        assert code in DIRECTOR_ONLY, f"{code} is flagged with options but has no handler in RULINGS"
        for call in calls:                        # director-only: every option offered is the director's
            options = call.args[6]
            assert isinstance(options, ast.List)
            for opt in options.elts:
                assert isinstance(opt, ast.Call) and ast.literal_eval(opt.args[2]) == "director"
    assert not set(RULINGS) & DIRECTOR_ONLY and not set(REVOKE_CODES) & (set(RULINGS) | DIRECTOR_ONLY)


def _card_twice(p: Play) -> None:
    play_cards(p, "W:CA N:C5 E:C4 S:C3", "W:CT N:C5")


def _card_of_another_hand(p: Play) -> None:
    p.card(W, "SA")


def _card_after_claim(p: Play) -> None:
    p.claim_made(S)
    p.card(W, "CA")


@pytest.mark.parametrize("code, scene", [("CARD_ALREADY_PLAYED", _card_twice),
                                         ("HAND_RECORD_MISMATCH", _card_of_another_hand),
                                         ("PLAY_AFTER_CLAIM", _card_after_claim)])
def test_director_only_codes_take_no_engine_ruling(code, scene):
    p = new_nt()
    scene(p)
    irr = only(p, code)
    assert irr.open and irr.options and {o.chooser for o in irr.options} == {"director"}
    with pytest.raises(PlayRulingError, match=f"no open {code} waiting"):
        p.ruling(code, irr.options[0].code)


def test_play_ruling_error_is_a_bridge_error_and_a_value_error():
    assert issubclass(PlayRulingError, BridgeError) and issubclass(PlayRulingError, ValueError)
    with pytest.raises(BridgeError):
        new_nt().ruling("PREMATURE_PLAY", "lowest")
