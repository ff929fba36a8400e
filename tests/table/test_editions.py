"""One engine, two law books: the scenarios that tell the 1997 and the 2017 Laws apart (D1-D15) and the
regression cases R1-R6, each run under both editions and asserting that edition's result; the edition
profile itself (names, switches, the rectification matrix of docs/laws.md).

Board 1 (dealer N, nobody vulnerable) unless stated. Notation for auctions: ``"N:1H E:P S:X"``; for the
play, one string per trick, ``"W:C2 N:CA E:C3 S:C4"`` in the order the cards were played.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from results.errors import ResultsError
from results.scoring import artificial_session_percent, weighted_assigned_matchpoints
from table.auction import NEXT_TURN, REST_OF_AUCTION, Auction, AuctionRulingError
from table.calls import parse_call
from table.cards import SEATS, Deal, Seat
from table.editions import (
    EDITION_1997,
    EDITION_2017,
    SITUATIONS,
    Edition,
    EditionError,
    edition,
    matrix_markdown,
)
from table.events import (
    CallMade,
    CardPlayed,
    ClaimMade,
    ClaimResponded,
    ContractRecorded,
    RulingGiven,
    board_started,
    event_from_dict,
)
from table.machine import Table, TableError
from table.play import Play, PlayRulingError

N, E, S, W = Seat.N, Seat.E, Seat.S, Seat.W
EDITIONS = pytest.mark.parametrize("ed", [EDITION_1997, EDITION_2017], ids=["1997", "2017"])
DOCS = Path(__file__).resolve().parents[2] / "docs" / "laws.md"


# ---------------------------------------------------------------------------------------------- helpers
def auction(ed: Edition, script: str, dealer: Seat = N) -> tuple[Auction, list]:
    a = Auction(dealer, ed)
    flags: list = []
    for tok in script.split():
        seat, call = tok.split(":")
        flags = a.call(Seat(seat), parse_call(call))
    return a, flags


def more(a: Auction, script: str) -> list:
    flags: list = []
    for tok in script.split():
        seat, call = tok.split(":")
        flags = a.call(Seat(seat), parse_call(call))
    return flags


def codes(flags) -> list[str]:
    return [f.code for f in flags]


def deal_from_tricks(tricks: list[str], extra: dict[Seat, str] | None = None) -> str:
    """The PBN deal whose hands are exactly the cards each seat plays in ``tricks`` (plus ``extra``)."""
    hands: dict[Seat, list[str]] = {s: [] for s in SEATS}
    for t in tricks:
        for tok in t.split():
            seat, card = tok.split(":")
            hands[Seat(seat)].append(card)
    for seat, cards in (extra or {}).items():
        hands[seat] += cards.split()
    assert all(len(h) == 13 for h in hands.values()), {s: len(h) for s, h in hands.items()}
    order = "AKQJT98765432"
    parts = []
    for s in SEATS:
        parts.append(".".join("".join(sorted((c[1] for c in hands[s] if c[0] == suit), key=order.index))
                              for suit in "SHDC"))
    return "N:" + " ".join(parts)


def fill(tricks: list[str]) -> dict[Seat, str]:
    """Cards not played in ``tricks``, dealt to the seats that need them to hold 13 (a board stopped early)."""
    used = {tok.split(":")[1] for t in tricks for tok in t.split()}
    rest = [s + r for s in "SHDC" for r in "AKQJT98765432" if s + r not in used]
    count = {s: sum(tok.startswith(str(s) + ":") for t in tricks for tok in t.split()) for s in SEATS}
    out: dict[Seat, str] = {}
    for s in SEATS:
        need = 13 - count[s]
        out[s], rest = " ".join(rest[:need]), rest[need:]
    return out


def table_for(ed: Edition, deal: str, contract: str, declarer: Seat) -> Table:
    t = Table(laws=ed)
    t.apply(board_started(1, deal=deal))
    t.apply(ContractRecorded(contract, declarer))
    return t


def play(t: Table, *tricks: str) -> list:
    out: list = []
    for trick in tricks:
        for tok in trick.split():
            seat, card = tok.split(":")
            out += t.apply(CardPlayed(Seat(seat), card))
    return out


def transfers(t: Table) -> list[tuple[str, str]]:
    return [(i.law, i.detail.split(";")[0]) for i in t.irregularities if i.code == "REVOKE_TRICK_TRANSFER"]


# ---------------------------------------------------------------------------------------------- the profile
def test_editions_by_name_and_default():
    assert edition(None) is EDITION_1997
    assert edition("1997") is edition("wbf1997-cba1999") is EDITION_1997
    assert edition("2017") is edition("wbf2017") is EDITION_2017
    with pytest.raises(EditionError, match="unknown law edition"):
        edition("1963")


def test_switches_named_with_the_recommended_defaults():
    assert EDITION_2017.law67B1a_deemed_revoke is True
    assert EDITION_2017.law26_require_option is False
    assert EDITION_2017.auto_27B1a_natural is True
    assert EDITION_1997.dummy_win_counts_for_declarer is False
    printed = EDITION_2017.with_switches(law26_require_option=True)
    assert printed.law26_require_option and not EDITION_2017.law26_require_option
    assert [c for c, _ in printed.lead_options(frozenset(), frozenset("C"))][:3] == ["require:S", "require:H",
                                                                                       "require:D"]
    with pytest.raises(EditionError, match="unknown switch"):
        EDITION_2017.with_switches(no_such_switch=True)
    with pytest.raises(AttributeError):
        EDITION_2017.law26_require_option = True  # type: ignore[misc]


def test_every_situation_has_a_row_in_both_editions():
    for ed in (EDITION_1997, EDITION_2017):
        assert set(ed.rectifications) == set(SITUATIONS)


def test_docs_matrix_is_the_generated_one():
    text = DOCS.read_text(encoding="utf-8")
    m = re.search(r"<!-- BEGIN EDITION MATRIX -->\n(.*?)<!-- END EDITION MATRIX -->", text, re.S)
    assert m is not None, "docs/laws.md lacks the edition matrix markers"
    assert m.group(1) == matrix_markdown(), "regenerate with: python -m table.editions > the marked section"


def test_board_event_names_its_edition():
    e = event_from_dict({"type": "board", "board": 3, "laws": "2017"})
    assert e.laws == "2017"
    t = Table()                                   # the table's default is 1997; the board says 2017
    t.apply(e)
    assert t.edition is EDITION_2017
    t.apply(event_from_dict({"type": "board", "board": 4}))
    assert t.edition is EDITION_1997
    with pytest.raises(ValueError, match="laws must be one of"):
        event_from_dict({"type": "board", "board": 3, "laws": "1975"})


# ---------------------------------------------------------------------------------------------- D1-D9: auction
@EDITIONS
def test_d1_bid_out_of_rotation_rho_acts_not_comparable(ed):
    a, _ = auction(ed, "E:1S")
    a.ruling("BID_OUT_OF_ROTATION", "cancel")              # S declines
    more(a, "N:1H E:2C")
    if ed is EDITION_2017:
        check = next(i for i in a.irregularities if i.code == "COMPARABLE_CALL_RULING")
        assert check.open and "Law 23A" in check.detail and {o.code for o in check.options} == {
            "comparable", "not_comparable"}
        a.ruling("COMPARABLE_CALL_RULING", "not_comparable")
    assert a.obligations == {W: NEXT_TURN if ed is EDITION_2017 else REST_OF_AUCTION}
    more(a, "S:P W:P N:2H E:P S:P")
    flags = more(a, "W:2S")
    if ed is EDITION_1997:
        assert codes(flags) == ["CALL_IN_VIOLATION_OF_PASS_OBLIGATION"] and flags[0].law == "37"
        assert [(lp.law, "".join(sorted(lp.suits))) for lp in a.lead_penalties] == [("26A", "S")]
    else:
        assert flags == [] and a.obligations == {}
        assert [(lp.offender, lp.restricted, lp.law) for lp in a.lead_penalties] == [("E", "W", "26B")]
        assert ed.lead_options(frozenset(), a.specified_suits(E)) == [("forbid:S", "26B"), ("forbid:H", "26B"),
                                                                      ("forbid:D", "26B")]


@EDITIONS
def test_d2_bid_out_of_rotation_at_partners_turn(ed):
    a, _ = auction(ed, "S:1C")
    a.ruling("BID_OUT_OF_ROTATION", "cancel")              # W declines
    flags = more(a, "N:1NT")
    if ed is EDITION_1997:
        assert codes(flags) == ["CALL_IN_VIOLATION_OF_PASS_OBLIGATION"]
    else:
        assert flags == [] and a.obligations == {}
        more(a, "E:P S:2C")                                 # S's next call opens the Law 23 question
        check = a.irregularities[-1]
        assert check.code == "COMPARABLE_CALL_RULING" and check.open and check.seat == "S"


@EDITIONS
def test_d3_pass_out_of_rotation_at_partners_turn_then_partner_doubles(ed):
    a, _ = auction(ed, "N:1C E:1S N:P")
    a.ruling("PASS_OUT_OF_ROTATION", "cancel")             # E declines
    flags = more(a, "S:X")
    if ed is EDITION_1997:
        assert a.obligations == {N: REST_OF_AUCTION}
        assert codes(flags) == ["FORBIDDEN_DOUBLE_AFTER_30B2"]
    else:
        assert flags == [] and a.obligations == {}
        more(a, "W:P N:2C")
        assert a.irregularities[-1].code == "COMPARABLE_CALL_RULING"
        a.ruling("COMPARABLE_CALL_RULING", "not_comparable")
        assert a.obligations == {S: NEXT_TURN}


@EDITIONS
def test_d4_pass_out_of_rotation_before_any_bid_at_partners_turn(ed):
    a, _ = auction(ed, "S:P")
    a.ruling("PASS_OUT_OF_ROTATION", "cancel")             # W declines
    flags = more(a, "N:1H E:P S:1S")
    if ed is EDITION_1997:
        assert codes(flags) == ["CALL_IN_VIOLATION_OF_PASS_OBLIGATION"]
        a.ruling("CALL_IN_VIOLATION_OF_PASS_OBLIGATION", "cancel")
        assert a.obligations == {S: REST_OF_AUCTION, N: REST_OF_AUCTION} and len(a.lead_penalties) == 1
    else:
        assert codes(flags) == ["COMPARABLE_CALL_RULING"]            # S's replacement: the director rules
        a.ruling("COMPARABLE_CALL_RULING", "not_comparable")
        assert a.obligations == {N: NEXT_TURN}
        assert [(lp.restricted, lp.law) for lp in a.lead_penalties] == [("N", "26B")]


D5 = "N:1S E:1H"


@EDITIONS
def test_d5_first_lead_options_offered_at_the_table(ed):
    a, _ = auction(ed, D5)
    a.ruling("INSUFFICIENT_BID", "refuse")
    more(a, "E:P")
    if ed is EDITION_2017:
        a.ruling("COMPARABLE_CALL_RULING", "not_comparable")
    more(a, "S:2S W:P N:4S E:P S:P W:P")
    p = Play(N, "S", None, a.lead_penalties, ed)
    # E leads and wins trick 1 with a ruff in... keep it simple: E leads, W wins the trick, W to lead next
    for seat, card in ((E, "C2"), (S, "C3"), (W, "CA"), (N, "C4")):
        p.card(seat, card)
    irr = p.awaiting
    assert irr is not None and irr.code == "LEAD_PENALTY_PENDING" and irr.seat == "W"
    offered = sorted(o.code for o in irr.options if o.code != "none")
    if ed is EDITION_1997:
        assert offered == ["forbid:H", "require:H"] and irr.law == "26A2"
    else:
        assert offered == ["forbid:C", "forbid:D", "forbid:H", "forbid:S"] and irr.law == "26B"


@EDITIONS
def test_d6_call_after_the_final_pass(ed):
    a, _ = auction(ed, "N:1NT E:P S:P W:P")
    flags = more(a, "W:2S")
    assert codes(flags) == ["CALL_AFTER_FINAL_PASS"]
    assert flags[0].law == ("39B" if ed is EDITION_1997 else "39C")
    assert a.contract() == ("1NT", "", N)
    p = Play(N, "NT", None, a.lead_penalties, ed)
    irr = p.awaiting
    assert irr is not None and irr.seat == "E"
    offered = sorted(o.code for o in irr.options if o.code != "none")
    assert offered == (["forbid:S", "require:S"] if ed is EDITION_1997 else
                       ["forbid:C", "forbid:D", "forbid:H", "forbid:S"])


@EDITIONS
def test_d7_bid_above_seven_lho_called(ed):
    a, _ = auction(ed, "N:7NT E:8C S:P")
    irr = a.irregularities[0]
    assert irr.code == "BID_ABOVE_SEVEN"
    assert irr.disposition_law == ("35C" if ed is EDITION_1997 else "38")
    flags = more(a, "S:P W:X")
    if ed is EDITION_1997:
        assert flags == []
        more(a, "N:P E:P S:P")
        assert a.contract() == ("7NT", "X", N)
    else:
        assert codes(flags) == ["CALL_IN_VIOLATION_OF_PASS_OBLIGATION"]
        a.ruling("CALL_IN_VIOLATION_OF_PASS_OBLIGATION", "cancel")
        more(a, "W:P")
        assert a.closed and a.contract() == ("7NT", "", N)
        assert all(lp.source_code != "BID_ABOVE_SEVEN" for lp in a.lead_penalties)     # no 26B for the 8C
        assert [lp.restricted for lp in a.lead_penalties] == ["E"]                     # 26B for W's X


D8 = [("N", "1H"), ("E", "X"), ("S", "P"), ("W", "XX")]
D8_PLAY = ["E:CA N:C2 S:C3 W:C4", "E:CK N:C5 S:C6 W:C7", "E:CQ N:C8 S:C9 W:CT", "E:SA N:S2 S:S3 W:S4",
           "E:SK N:S5 S:S6 W:S7", "E:D5 N:DA S:D6 W:D7", "N:DK E:D8 S:D9 W:DT", "N:DQ E:DJ S:D2 W:D3",
           "N:HA E:H2 S:H3 W:H4", "N:HK E:H5 S:H6 W:H7", "N:HQ E:H8 S:H9 W:HT", "N:HJ E:CJ S:D4 W:SQ",
           "N:SJ E:S9 S:S8 W:ST"]


@EDITIONS
def test_d8_inadmissible_redouble_noticed_after_the_lead(ed):
    t = Table(laws=ed)
    t.apply(board_started(1, deal=deal_from_tricks(D8_PLAY)))
    for seat, call in D8:
        t.apply(CallMade(Seat(seat), parse_call(call)))
    t.apply(RulingGiven("INADMISSIBLE_REDOUBLE", "unnoticed"))       # the table went on without noticing
    for seat, call in (("N", "P"), ("E", "P"), ("S", "P")):
        t.apply(CallMade(Seat(seat), parse_call(call)))
    flags = play(t, *D8_PLAY)
    assert t.tricks == 8
    if ed is EDITION_1997:
        assert "DIRECTOR_REQUIRED" in codes(flags)
        assert str(t.contract) == "1HXX" and t.score_ns is None              # no automatic score
    else:
        assert "INADMISSIBLE_CALL_36C" in codes(flags)
        assert str(t.contract) == "1HX" and t.score_ns == 260               # not +720


@EDITIONS
def test_d9_intended_change_of_call(ed):
    a, flags = auction(ed, "N:1C E:P S:1H S:1S")
    assert codes(flags) == ["CHANGE_OF_CALL"]
    offered = {o.code for o in flags[0].options}
    if ed is EDITION_1997:
        assert offered == {"inadvertent", "accept", "first_stands", "other_call"}
        a.ruling("CHANGE_OF_CALL", "first_stands")
        assert a.obligations == {N: NEXT_TURN} and len(a.lead_penalties) == 1
        with pytest.raises(AuctionRulingError):
            a.ruling("CHANGE_OF_CALL", "original_stands")
    else:
        assert offered == {"unintended", "accept", "original_stands", "original_stands_26B"}
        a.ruling("CHANGE_OF_CALL", "original_stands")
        assert a.obligations == {} and a.lead_penalties == []
        assert [e.effective for e in a.stood] == ["1C", "Pass", "1H"]


# ---------------------------------------------------------------------------------------------- D10-D14: play
D10 = ["W:S2 N:SA E:S3 S:S4", "N:SK E:S5 S:S6 W:S7", "N:SQ E:S8 S:S9 W:ST", "N:H2 E:H3 S:HA W:H4",
       "S:DA W:D3 N:D2 E:C2", "S:HK W:H5 N:H6 E:H7", "S:HQ W:H8 N:H9 E:HT", "S:CA W:C3 N:C4 E:C5",
       "S:D5 W:D6 N:D7 E:DQ", "E:C6 S:CK W:C7 N:C8", "S:D8 W:DK N:D9 E:D4", "W:SJ N:CQ E:CT S:DJ",
       "W:HJ N:CJ E:C9 S:DT"]


@EDITIONS
def test_d10_revoke_extra_trick_clause(ed):
    t = table_for(ed, deal_from_tricks(D10), "3NT", S)
    flags = play(t, *D10)
    assert codes(flags).count("REVOKE") == 1
    assert t.play is not None and t.play.declarer_tricks == 9
    if ed is EDITION_1997:
        assert t.tricks == 11 and t.score_ns == 460
    else:
        assert t.tricks == 10 and t.score_ns == 430


D11 = ["W:C2 N:CA E:C3 S:C4", "N:CK E:C5 S:C6 W:C7", "N:CQ E:C8 S:C9 W:CT", "N:S2 E:S3 S:SA W:S4",
       "S:SK W:S5 N:S6 E:S7", "S:H2 W:HK N:H3 E:H4", "W:HA N:H5 E:H6 S:H7", "W:D2 N:DA E:D3 S:D4",
       "N:DK E:D5 S:D6 W:D7", "N:DQ E:D8 S:D9 W:DT", "N:SJ E:S8 S:SQ W:S9", "S:ST W:DJ N:CJ E:HT",
       "S:H8 W:HQ N:H9 E:HJ"]


@EDITIONS
def test_d11_defective_trick_omitted_play_holding_the_suit(ed):
    t = table_for(ed, deal_from_tricks(D11), "4S", S)
    play(t, *D11)                          # E's H6 is the card he placed in trick 7 when the omission was found
    assert t.tricks == 10 and t.score_ns == 420
    flags = t.apply(RulingGiven("DEFECTIVE_TRICK", "omitted_holding_suit", seat=E, tricks=7))
    assert codes(flags) == ["DEFECTIVE_TRICK"]
    if ed is EDITION_1997:
        assert flags[0].disposition == "no_penalty" and t.tricks == 10 and t.score_ns == 420
    else:
        assert flags[0].law == "67B1(a)" and t.tricks == 11 and t.score_ns == 450
    off = EDITION_2017.with_switches(law67B1a_deemed_revoke=False)
    t2 = table_for(off, deal_from_tricks(D11), "4S", S)
    play(t2, *D11)
    t2.apply(RulingGiven("DEFECTIVE_TRICK", "omitted_holding_suit", seat=E, tricks=7))
    assert t2.tricks == 10                 # the switch off: the 1997 reading


PBN = "N:2.5432.5432.AKQJ AKQJT9.QT98..T98 876.AKJ76.AQJ.76 543..KT9876.5432"     # E void in D, W in H


@EDITIONS
def test_d12_premature_play_require_another_suit(ed):
    p = Play(S, "H", Deal.from_pbn(PBN), (), ed)
    for seat, card in ((W, "C2"), (N, "CA"), (E, "C8"), (S, "C6"), (N, "D2")):
        p.card(seat, card)
    flags = p.card(W, "DK")                                 # before his partner E
    assert codes(flags) == ["PREMATURE_PLAY"]
    if ed is EDITION_1997:
        assert "require:C" not in {o.code for o in flags[0].options}
        with pytest.raises(PlayRulingError, match="not an option"):
            p.ruling("PREMATURE_PLAY", "require:C", S)
    else:
        p.ruling("PREMATURE_PLAY", "require:C", S)
        assert p.penalty_cards(W) == {"DK": "major"}
        bad = p.card(E, "SA")                               # able to comply: not complying is a revoke (61A)
        assert "REVOKE" in codes(bad)


D13 = ["W:C2 N:CA E:C3 S:C4", "N:CK E:C5 S:C6 W:C7", "N:CQ E:C8 S:C9 W:CT", "N:DA E:D2 S:D3 W:D4",
       "N:DK E:D5 S:D6 W:D7", "N:DQ E:D8 S:D9 W:DT", "N:HA E:H2 S:H3 W:H4", "N:HK E:H5 S:H6 W:H7",
       "N:HQ E:H8 S:H9 W:HT", "N:S2 E:S3 S:SA W:S4", "S:SK W:S5 N:S6 E:S7", "S:S8 W:SQ N:S9 E:ST",
       "W:SJ N:CJ E:DJ S:HJ"]


@EDITIONS
def test_d13_claim_then_play_on_by_agreement(ed):
    t = table_for(ed, deal_from_tricks(D13), "4S", S)
    play(t, *D13[:9])
    t.apply(ClaimMade(S, 13))
    t.apply(ClaimResponded(W, False))
    flags = []
    for seat in (W, N, E, S):
        flags += t.apply(RulingGiven("CLAIM", "play_on", seat=seat))
    later = play(t, *D13[9:])
    if ed is EDITION_1997:
        assert codes(flags) == ["PLAY_ON_AFTER_CLAIM"]
        assert set(codes(later)) == {"PLAY_AFTER_CLAIM"}          # later plays void
        assert t.tricks is None and t.score_ns is None           # the director adjudicates the claim (70)
        assert any(i.code == "CLAIM_DISPUTED" and i.open for i in t.irregularities)
    else:
        assert codes(flags) == ["CLAIM_VOID_PLAY_CONTINUED"] and later == []
        assert t.state == "board_complete" and t.tricks == 11 and t.score_ns == 450 and not t.claimed


def test_d13_play_on_needs_all_four_players():
    t = table_for(EDITION_2017, deal_from_tricks(D13), "4S", S)
    play(t, *D13[:9])
    t.apply(ClaimMade(S, 13))
    t.apply(ClaimResponded(W, False))
    for seat in (W, N, E):
        assert t.apply(RulingGiven("CLAIM", "play_on", seat=seat)) == []
    assert t.claim is not None and t.state == "awaiting_ruling"
    with pytest.raises(TableError, match="names his seat"):
        t.apply(RulingGiven("CLAIM", "play_on"))


D14 = ["W:C2 N:CA E:C3 S:C5", "N:CK E:C6 S:C7 W:C8", "N:CQ E:C9 S:CT W:CJ", "N:DA E:D2 S:D3 W:D4",
       "N:DK E:D5 S:D6 W:D7", "N:DQ E:D8 S:D9 W:DT", "N:HK E:H2 S:H4 W:H5", "N:HQ E:H6 S:H7 W:H8",
       "N:S3 E:SA S:S4 W:S5", "E:SK S:S6 W:S7 N:S8", "E:SQ S:S9 W:ST N:SJ", "E:DJ S:HT W:H9 N:HJ"]
D14_LAST = "W:H3 N:HA E:S2 S:C4"          # W leads out of turn: E won trick 12


@EDITIONS
def test_d14_lead_out_of_turn_at_trick_13(ed):
    t = table_for(ed, deal_from_tricks(D14 + [D14_LAST]), "3NT", S)
    assert play(t, *D14) == []
    flags = play(t, D14_LAST)
    assert codes(flags)[0] == "LEAD_OUT_OF_TURN_DEFENDER"
    if ed is EDITION_1997:
        assert flags[0].disposition_law == "53A" and flags[0].disposition == "accepted_by_action"
        assert t.play is not None and t.play.winners[-1] == N and t.tricks == 9 and t.score_ns == 400
    else:
        assert flags[0].disposition == "not_acceptable_at_trick13"
        assert t.play is not None and t.play.winners[-1] == E and t.tricks == 8 and t.score_ns == -50


# ---------------------------------------------------------------------------------------------- D15: 12C2
@EDITIONS
def test_d15_artificial_score_session_percentage(ed):
    assert ed.artificial_percent(at_fault=False, session_percent=65.0) == 65.0
    assert ed.artificial_percent(at_fault=True, session_percent=35.0) == (40.0 if ed is EDITION_1997 else 35.0)
    assert ed.artificial_percent(at_fault=True, session_percent=55.0) == 40.0
    assert ed.artificial_percent(at_fault=False, session_percent=None) == 60.0


def test_d15_in_results_scoring_and_weighted_assigned_score():
    assert artificial_session_percent(True, 35.0) == 40.0
    assert artificial_session_percent(True, 35.0, "2017") == 35.0
    assert artificial_session_percent(False, 65.0, "2017") == artificial_session_percent(False, 65.0) == 65.0
    # 12C1(c): 4S making (+420) 60 %, one down (-50) 40 %, against +420, +450, -50
    assert weighted_assigned_matchpoints([(420, 0.6), (-50, 0.4)], [420, 450, -50]) == pytest.approx(
        0.6 * 3 + 0.4 * 1)
    with pytest.raises(ResultsError, match="add up to 1"):
        weighted_assigned_matchpoints([(420, 0.6), (-50, 0.3)], [420])


# ---------------------------------------------------------------------------------------------- R1-R6
R1 = ["W:CK N:CA E:C2 S:D2", "N:S2 E:S3 S:SA W:S4", "S:SK W:S5 N:S6 E:S7", "S:SQ W:S8 N:S9 E:ST",
      "S:HA W:H2 N:H3 E:H4", "S:HK W:H5 N:H6 E:H7", "S:HQ W:H8 N:H9 E:HT", "S:DA W:D3 N:D4 E:D5",
      "S:DK W:D6 N:D7 E:D8", "S:DQ W:D9 N:DT E:DJ", "S:C3 W:C4 N:C5 E:CQ", "E:CJ S:HJ W:C6 N:C7",
      "E:CT S:SJ W:C9 N:C8"]


@EDITIONS
def test_r1_dummy_wins_the_revoke_trick(ed):
    t = table_for(ed, deal_from_tricks(R1), "4S", S)
    play(t, *R1)
    assert t.tricks == 10 and t.score_ns == 420                  # one trick (64A2) in both by default
    assert transfers(t) == [("64A2", "tricks_transferred=1")]
    if ed is EDITION_1997:
        counted = table_for(ed.with_switches(dummy_win_counts_for_declarer=True), deal_from_tricks(R1), "4S", S)
        play(counted, *R1)
        assert counted.tricks == 9 and counted.score_ns == -50     # the digest's switch: dummy counts (64A1)


@EDITIONS
def test_r2_defender_plays_at_rhos_turn(ed):
    p = Play(S, "NT", Deal.from_pbn(PBN), (), ed)
    for seat, card in ((W, "C2"), (N, "CA"), (E, "C8"), (S, "C6"), (N, "D2"), (E, "H8"), (S, "DA"), (W, "D6")):
        p.card(seat, card)                                   # S wins trick 2 and leads trick 3
    p.card(S, "H6")
    p.card(W, "D7")
    flags = p.card(E, "HQ")                                  # at his RHO N's (dummy's) turn; W has played
    if ed is EDITION_1997:
        assert codes(flags) == ["PLAY_OUT_OF_TURN"] and {o.code for o in flags[0].options} == {"stands",
                                                                                              "penalty_card"}
    else:
        assert codes(flags) == ["PREMATURE_PLAY_AT_RHO_TURN"] and flags[0].disposition == "held_for_proper_turn"
    p.card(N, "H2")
    assert p.penalty_cards(E) == {} if ed is EDITION_2017 else True
    assert p.winners[-1] == E and (E, "HQ") in p.tricks[2]


R3 = ["W:C2 N:CA E:C3 S:C4", "N:CK E:C5 S:C6 W:C7", "N:CQ E:C8 S:C9 W:CT", "N:SA E:S2 S:S3 W:S4",
      "N:SK E:S5 S:S6 W:S7", "N:D2 E:H2 S:H5 W:D3", "S:DA W:D4 N:D5 E:D6"]


@EDITIONS
def test_r3_both_sides_revoked_goes_to_the_director(ed):
    t = table_for(ed, deal_from_tricks(R3, fill(R3)), "4H", S)
    flags = play(t, *R3)
    assert codes(flags).count("REVOKE") == 2
    t.apply(ClaimMade(S, 12))
    t.apply(ClaimResponded(W, True))
    t.apply(ClaimResponded(E, True))
    assert t.tricks == 12                                          # no automatic transfer either way
    both = [i for i in t.irregularities if i.code == "BOTH_SIDES_REVOKED"]
    assert len(both) == 1 and both[0].open and both[0].law == ("64C" if ed is EDITION_1997 else "64B7")
    assert [n for _, n in transfers(t)] == ["tricks_transferred=0", "tricks_transferred=0"]


@EDITIONS
def test_r4_insufficient_bid_corrected_in_the_same_natural_denomination(ed):
    a, _ = auction(ed, "N:1S E:1H")
    a.ruling("INSUFFICIENT_BID", "refuse")
    assert more(a, "E:2H") == []
    assert a.obligations == {} and a.lead_penalties == []
    assert a.irregularities[0].disposition_law == ("27B1" if ed is EDITION_1997 else "27B1a")
    assert not any(i.code == "COMPARABLE_CALL_RULING" for i in a.irregularities)


@EDITIONS
def test_r5_pass_out_of_rotation_at_rhos_turn(ed):
    a, flags = auction(ed, "E:P")
    assert flags[0].law == "30A"
    a.ruling("PASS_OUT_OF_ROTATION", "cancel")
    more(a, "N:1H")
    assert a.obligations == {E: NEXT_TURN} and a.lead_penalties == []


@EDITIONS
def test_r6_failure_to_play_a_major_penalty_card_no_transfer(ed):
    p = Play(S, "H", Deal.from_pbn(PBN), (), ed)
    p.card(W, "C2")
    p.expose(W, ["DK"], deliberate=False)                   # an honour: a major penalty card
    for seat, card in ((N, "CA"), (E, "C8"), (S, "C6"), (N, "D2"), (E, "ST"), (S, "DA")):
        p.card(seat, card)
    flags = p.card(W, "D6")                                 # DK was due (50D1): a revoke too (61A)
    assert "FAILURE_TO_PLAY_PENALTY_CARD" in codes(flags) and "REVOKE" in codes(flags)
    for seat, card in ((S, "DQ"), (W, "DK"), (N, "D3"), (E, "S9")):
        p.card(seat, card)                                  # W's side plays on: established
    p.claim_made(S)
    p.finish(12)
    tr = [i for i in p.irregularities if i.code == "REVOKE_TRICK_TRANSFER"]
    assert len(tr) == 1 and tr[0].law == "64B3" and "tricks_transferred=0" in tr[0].detail


# ---------------------------------------------------------------------------------------------- Law 23 flow
def test_law23_comparable_answer_installs_nothing_and_flags_until_answered():
    t = Table(laws="2017")
    t.apply(board_started(1))
    t.apply(CallMade(E, "1S"))                                     # at N's turn
    t.apply(RulingGiven("BID_OUT_OF_ROTATION", "cancel"))
    for seat, call in ((N, "1H"), (E, "1S")):
        t.apply(CallMade(seat, call))
    check = t.irregularities[-1]
    assert check.code == "COMPARABLE_CALL_RULING" and check.open
    assert "suggested: comparable" in check.detail                 # the same call, neither alerted
    assert t.state == "awaiting_ruling"                            # pending, shown in the verdict ...
    t.apply(CallMade(S, "2H"))                                     # ... but the auction goes on (flag, don't block)
    t.apply(RulingGiven("COMPARABLE_CALL_RULING", "comparable"))
    assert not check.open and check.disposition_law == "23B"
    assert t.auction is not None and t.auction.obligations == {} and t.auction.lead_penalties == []
    assert t.state == "auction"
    with pytest.raises(TableError, match="no open COMPARABLE_CALL_RULING"):
        t.apply(RulingGiven("COMPARABLE_CALL_RULING", "comparable"))


def test_law23_late_answer_after_the_auction_reaches_the_play():
    t = Table(laws="2017")
    t.apply(board_started(1))
    t.apply(CallMade(E, "1S"))
    t.apply(RulingGiven("BID_OUT_OF_ROTATION", "cancel"))
    for seat, call in ((N, "1H"), (E, "2C"), (S, "2H"), (W, "P"), (N, "4H"), (E, "P"), (S, "P"), (W, "P")):
        t.apply(CallMade(seat, parse_call(call)))
    t.apply(RulingGiven("COMPARABLE_CALL_RULING", "not_comparable"))
    assert t.auction is not None and t.auction.lead_penalties[0].specified == frozenset("C")
    t.apply(CardPlayed(E, "C2"))                                   # E leads; W's first lead comes later
    assert t.play is not None and any(lp.restricted == "W" for lp in t.play._lps)


def test_law23_ruling_refused_under_1997():
    t = Table()
    t.apply(board_started(1))
    with pytest.raises(TableError):
        t.apply(RulingGiven("COMPARABLE_CALL_RULING", "comparable"))


def test_55a_defender_next_in_turn_prevails_2017():
    p = Play(S, "NT", Deal.from_pbn(PBN), (), EDITION_2017)
    for seat, card in ((W, "C2"), (N, "CA"), (E, "C8"), (S, "C6")):
        p.card(seat, card)                                         # N (dummy) won: N to lead
    flags = p.card(S, "C7")                                        # declarer leads from his hand
    assert codes(flags) == ["LEAD_FROM_WRONG_HAND"]
    p.ruling("LEAD_FROM_WRONG_HAND", "lead_from_correct_hand", E)  # E chooses one way ...
    assert flags[0].open
    p.ruling("LEAD_FROM_WRONG_HAND", "accept", W)                  # ... W, next in turn after S, prevails
    assert flags[0].disposition == "rectified:accept"


def _wrong_hand_lead(ed):
    """S declarer in NT; dummy N wins trick 1, then S leads C7 from his hand (55B2): W is next in turn."""
    p = Play(S, "NT", Deal.from_pbn(PBN), (), ed)
    for seat, card in ((W, "C2"), (N, "CA"), (E, "C8"), (S, "C6")):
        p.card(seat, card)
    flags = p.card(S, "C7")
    assert codes(flags) == ["LEAD_FROM_WRONG_HAND"]
    return p, flags[0]


def test_55a_waiting_choice_applied_when_the_table_moves_on_2017():
    p, f = _wrong_hand_lead(EDITION_2017)
    p.ruling("LEAD_FROM_WRONG_HAND", "lead_from_correct_hand", E)   # E's choice waits for W ...
    assert f.open and p.tricks[1] == [(S, "C7")]
    card = next(c for c in p.remaining(N) if c[0] == "D")
    assert p.card(N, card) == []                                     # ... dummy leads from the correct hand:
    assert (f.disposition, f.disposition_law) == ("rectified:lead_from_correct_hand", "55B2")   # E's applies
    assert "C7" in p.remaining(S) and p.tricks[1] == [(N, card)] and p.next_seat == E
    assert "55A" in f.detail


def test_55a_prevailing_defender_accepts_by_playing_2017():
    p, f = _wrong_hand_lead(EDITION_2017)
    p.ruling("LEAD_FROM_WRONG_HAND", "lead_from_correct_hand", E)
    p.card(W, "C5")                                                  # W, next in turn, plays to the lead: 53A
    assert f.disposition == "accepted_by_action" and p.tricks[1] == [(S, "C7"), (W, "C5")]


def test_55a_prevailing_defender_overrules_an_acceptance_2017():
    p, f = _wrong_hand_lead(EDITION_2017)
    p.ruling("LEAD_FROM_WRONG_HAND", "accept", E)
    assert f.open
    p.ruling("LEAD_FROM_WRONG_HAND", "lead_from_correct_hand", W)
    assert f.disposition == "rectified:lead_from_correct_hand" and "C7" in p.remaining(S) and p.next_seat == N


def test_55a_first_choice_applies_1997():
    p, f = _wrong_hand_lead(EDITION_1997)
    p.ruling("LEAD_FROM_WRONG_HAND", "lead_from_correct_hand", E)   # no tie-break in the seed: applied at once
    assert f.disposition == "rectified:lead_from_correct_hand" and p.next_seat == N
    with pytest.raises(PlayRulingError):
        p.ruling("LEAD_FROM_WRONG_HAND", "accept", W)


def test_replay_cli_laws_option(tmp_path):
    from click.testing import CliRunner

    from bridgetable.cli import main
    from table.events import to_dict
    log = tmp_path / "d6.jsonl"
    events = [board_started(1)] + [CallMade(Seat(s), parse_call(c)) for s, c in
                                   (("N", "1NT"), ("E", "P"), ("S", "P"), ("W", "P"), ("W", "2S"))]
    log.write_text("".join(json.dumps(to_dict(e)) + "\n" for e in events), encoding="utf-8")
    runner = CliRunner()
    out = {}
    for laws in ("1997", "2017"):
        res = runner.invoke(main, ["replay", "--jsonl", "--laws", laws, str(log)])
        assert res.exit_code == 0, res.output
        out[laws] = json.loads(res.output.splitlines()[0])
    assert "laws" not in out["1997"] and out["2017"]["laws"] == "2017"
    assert [i["law"] for i in out["1997"]["irregularities"]] == ["39B"]
    assert [i["law"] for i in out["2017"]["irregularities"]] == ["39C"]
    bad = runner.invoke(main, ["replay", "--laws", "1975", str(log)])
    assert bad.exit_code != 0 and "1975" in bad.output


def test_board_event_laws_round_trips():
    from table.events import to_dict
    e = board_started(2, laws="2017")
    assert to_dict(e)["laws"] == "2017" and event_from_dict(to_dict(e)).laws == "2017"
    assert "laws" not in to_dict(board_started(2))


@EDITIONS
def test_62c3_both_revokes_on_one_trick_corrected_when_only_one_side_played_on(ed):
    t = table_for(ed, deal_from_tricks(R3, fill(R3)), "4H", S)
    play(t, *R3[:5], "N:D2 E:H2 S:H5 W:D3", "S:DA")             # only NS have played to trick 7
    if ed is EDITION_1997:
        with pytest.raises(TableError, match="63C"):
            t.apply(RulingGiven("REVOKE", "correct", seat=S))
        return
    t.apply(RulingGiven("REVOKE", "correct", seat=S))           # S's revoke, established, is corrected (62C3)
    play(t, "S:D7")                                            # S follows suit now
    t.apply(RulingGiven("REVOKE", "correct", seat=E))
    play(t, "E:D6")
    assert t.play is not None and t.play.penalty_cards(E) == {"H2": "major"}      # the defender's card: 62C3
    revokes = [i for i in t.irregularities if i.code == "REVOKE"]
    assert [(i.seat, i.disposition, i.disposition_law) for i in revokes] == [
        ("E", "corrected", "62B1"), ("S", "corrected", "62C3")]
    assert t.play.tricks[5] == [(N, "D2"), (E, "D6"), (S, "D7"), (W, "D3")]


@EDITIONS
def test_call_out_of_rotation_cites_its_editions_law_and_rectification(ed):
    """The law and the cancel option's wording come from the edition (``Edition.out_of_rotation``)."""
    cases = {  # script -> (code, 1997 law, 2017 law, words of the 1997 / 2017 cancel option)
        "N:1C E:1S N:P": ("PASS_OUT_OF_ROTATION", "30B2", "30B1", "rest of the auction", "comparable"),
        "S:1C": ("BID_OUT_OF_ROTATION", "31B", "31B", "Law 26 lead penalty", "comparable"),
        "N:1C W:X": ("DOUBLE_OUT_OF_ROTATION", "32A", "32B", "rest of the auction", "comparable"),   # partner's turn
        "N:1C E:P W:X": ("DOUBLE_OUT_OF_ROTATION", "32B", "32A", "(32B1)", "(32A1)"),               # RHO's turn
        "N:1C E:X W:XX": ("REDOUBLE_OUT_OF_ROTATION", "32B", "36B4", "(32B1)", "reverts"),          # inadmissible
    }
    for script, (code, law97, law17, words97, words17) in cases.items():
        a, flags = auction(ed, script)
        irr = flags[-1]
        cancel = next(o for o in irr.options if o.code == "cancel")
        assert irr.code == code, script
        assert irr.law == (law97 if ed is EDITION_1997 else law17), script
        assert (words97 if ed is EDITION_1997 else words17) in cancel.text, (script, cancel.text)
