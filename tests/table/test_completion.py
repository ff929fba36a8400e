"""Double-dummy completion of an unfinished play (table/completion.py): an inference kept apart from the
verdict, checked against positions whose outcome is forced and against endplay's own double-dummy table."""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_machine import random_board

from table.cards import Deal, Seat
from table.completion import completion, double_dummy_tricks
from table.events import CardPlayed, ClaimMade
from table.machine import Table
from table.replay import read_records, verdict


def _replay(events) -> Table:
    t = Table()
    for e in events:
        t.apply(e)
    return t


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 32), st.integers(48, 51))
def test_a_play_stopped_in_the_last_trick_completes_to_the_played_result(seed, board_no, cards_kept):
    """With one card or none left in each hand the rest is forced: the completion must equal the play."""
    events, _, _ = random_board(random.Random(seed), board_no)
    full = _replay(events)
    first_card = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed))
    cut = _replay(events[:first_card + cards_kept])
    try:
        assert cut.tricks is None and cut.status == "incomplete"
        assert double_dummy_tricks(cut) == full.tricks
        c = completion(cut)
        assert c is not None and c["score_ns"] == full.score_ns and "double dummy" in c["method"]
    finally:
        full.close()
        cut.close()


@settings(max_examples=6, deadline=None)        # a whole double-dummy table takes ~1.5 s here
@given(st.integers(0, 2**32 - 1), st.integers(1, 32))
def test_before_the_opening_lead_the_completion_is_the_double_dummy_table(seed, board_no):
    """No card played: the completion is the deal's double-dummy value for declarer in the contract's
    strain, which endplay's calc_dd_table computes by another route."""
    from endplay.dds import calc_dd_table
    from endplay.types import Deal as EpDeal
    from endplay.types import Denom, Player
    events, declarer, contract = random_board(random.Random(seed), board_no)
    first_card = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed))
    t = _replay(events[:first_card])
    try:
        assert t.state == "opening_lead"
        deal = Deal.from_pbn(events[0].deal)
        table = calc_dd_table(EpDeal(deal.to_pbn()))
        strain = t.play.strain if t.play else None
        if strain is None:             # the Play object is made at the first card; build it as the engine would
            t._ensure_play()
            strain = t.play.strain
        denom = {"S": Denom.spades, "H": Denom.hearts, "D": Denom.diamonds, "C": Denom.clubs, "NT": Denom.nt}[strain]
        player = {Seat.N: Player.north, Seat.E: Player.east, Seat.S: Player.south, Seat.W: Player.west}[declarer]
        assert double_dummy_tricks(t) == table[denom, player]
    finally:
        t.close()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 32), st.integers(1, 47))
def test_the_completion_keeps_the_tricks_already_won(seed, board_no, cards_kept):
    events, _, _ = random_board(random.Random(seed), board_no)
    first_card = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed))
    t = _replay(events[:first_card + cards_kept])
    try:
        won, lost = t.play.declarer_tricks, t.play.defender_tricks
        dd = double_dummy_tricks(t)
        assert dd is not None and won <= dd <= 13 - lost
    finally:
        t.close()


def test_finished_claimed_or_irregular_plays_are_not_completed():
    events, declarer, _ = random_board(random.Random(7), 5)
    full = _replay(events)
    assert double_dummy_tricks(full) is None                     # finished: the table's own result stands
    first_card = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed))
    claimed = _replay(events[:first_card + 20] + [ClaimMade(declarer, 9)])
    assert double_dummy_tricks(claimed) is None                  # a claim: its figure or a ruling decides
    # a revoke: the opening leader's partner fails to follow with a card of the suit led still in hand
    t = _replay(events[:first_card + 1])
    lead = events[first_card].card
    partner = t.play.next_seat
    deal = Deal.from_pbn(events[0].deal)
    off_suit = [c for c in deal.hands[partner] if c[0] != lead[0]]
    has_suit = any(c[0] == lead[0] for c in deal.hands[partner])
    if off_suit and has_suit:
        t.apply(CardPlayed(partner, off_suit[0]))
        assert any(i.code == "REVOKE" for i in t.irregularities)
        assert double_dummy_tricks(t) is None
    for x in (full, claimed, t):
        x.close()


CORPUS = os.environ.get("BRIDGETABLE_CORPUS")


@pytest.mark.skipif(not CORPUS, reason="BRIDGETABLE_CORPUS not set")
def test_a_corpus_record_that_stops_at_the_claim_is_completed_only_on_request():
    path = Path(CORPUS) / "pbn-corpus" / "1998-6th_Forbo-Krommenie_International_Bridge_Tournament" / "FOR98F1A.PBN"
    record = next(read_records(path))
    plain = verdict(record)
    assert plain["tricks"] is None and plain["score_ns"] is None and "completion" not in plain
    v = verdict(record, complete=True)
    assert v["tricks"] is None and v["score_ns"] is None           # the verdict itself is unchanged
    assert v["completion"]["tricks"] == 12 and v["completion"]["score_ns"] == 980
    assert v["recorded"]["score"] == "NS +980"
