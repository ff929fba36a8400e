"""The table-event vocabulary: JSON form, JSONL logs, clear errors for malformed events."""
from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table.cards import Seat
from table.events import (
    ContractRecorded,
    EventError,
    board_started,
    event_from_dict,
    read_jsonl,
    to_dict,
    write_jsonl,
)
from table.machine import Table

SAMPLE = [
    {"type": "board", "board": 7, "deal": "N:QJ3.KQ982.KT63.Q K985.J653.74.K84 AT7.4.AQ85.J7632 642.AT7.J92.AT95",
     "dealer": "S", "vulnerable": "All"},
    {"type": "hand", "seat": "N", "cards": ["SQ", "SJ", "S3"]},
    {"type": "call", "seat": "E", "call": "1NT", "alert": True},
    {"type": "call", "seat": "S", "call": "Pass"},
    {"type": "contract", "contract": "4SX", "declarer": "E"},
    {"type": "card", "seat": "W", "card": "HT"},
    {"type": "exposed", "seat": "E", "cards": ["SQ"], "deliberate": True},
    {"type": "claim", "seat": "S", "tricks": 10},
    {"type": "claim_response", "seat": "W", "accept": True},
    {"type": "ruling", "code": "INSUFFICIENT_BID", "option": "refuse", "seat": "S"},
]


@pytest.mark.parametrize("obj", SAMPLE, ids=[o["type"] for o in SAMPLE])
def test_json_round_trip(obj):
    assert to_dict(event_from_dict(obj)) == obj


def test_board_defaults_from_number():
    e = event_from_dict({"type": "board", "board": 16})
    assert e.dealer == "W" and e.vulnerable == "EW"          # Law 2 (digest B1)


def test_jsonl_log_round_trip():
    events = [event_from_dict(o) for o in SAMPLE]
    buf = io.StringIO()
    write_jsonl(events, buf)
    assert list(read_jsonl(io.StringIO(buf.getvalue()))) == events


@pytest.mark.parametrize("obj, message", [
    ({"type": "call", "seat": "E"}, "lacks 'call'"),
    ({"type": "call", "seat": "E", "call": "1Z"}, "not a call"),
    ({"type": "card", "seat": "Q", "card": "SA"}, "not a seat"),
    ({"type": "card", "seat": "N", "card": "S1"}, "not a card"),
    ({"type": "claim", "seat": "N", "tricks": 14}, "0..13"),
    ({"type": "claim_response", "seat": "N", "accept": "yes"}, "true or false"),
    ({"type": "board", "board": 0}, "1 or more"),
    ({"type": "teleport"}, "unknown event type"),
    ({"type": "contract", "contract": "4S"}, "declarer"),
    ([1, 2], "JSON object"),
])
def test_malformed_events_get_clear_errors(obj, message):
    with pytest.raises(EventError, match=message):
        event_from_dict(obj)


def test_bad_line_in_log_names_the_line():
    text = json.dumps(SAMPLE[0]) + "\n{not json\n"
    with pytest.raises(EventError, match="line 2"):
        list(read_jsonl(io.StringIO(text)))


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                           lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=6), c, max_size=4),
                           max_leaves=12)


@settings(max_examples=400)
@given(st.dictionaries(st.sampled_from(["type", "seat", "call", "card", "cards", "board", "tricks", "accept",
                                        "code", "option", "deal", "dealer", "vulnerable", "contract", "declarer"]),
                       json_values | st.sampled_from(["N", "call", "card", "board", "1NT", "SA", "claim", "hand"]),
                       max_size=6))
def test_fuzzed_event_objects_either_parse_or_raise_event_error(obj):
    try:
        e = event_from_dict(obj)
    except EventError:
        return
    assert event_from_dict(to_dict(e)) == e


@pytest.mark.parametrize("kind", ["hand", "exposed"])
def test_a_card_list_holding_no_text_is_an_event_error(kind):
    # found by the fuzzer: parse_card(None) raised AttributeError, which a service would answer with a 500
    for bad in (None, 3, ["S"]):
        with pytest.raises(EventError, match="not a card"):
            event_from_dict({"type": kind, "seat": "N", "cards": [bad]})


def test_recorded_contract_without_auction_is_scored():
    t = Table()
    try:
        t.apply(board_started(3))                               # dealer S, EW vulnerable
        t.apply(ContractRecorded("4S", Seat.E))
        assert t.state == "opening_lead"
        from table.events import ClaimMade, ClaimResponded
        t.apply(ClaimMade(Seat.E, 10))
        t.apply(ClaimResponded(Seat.N, True))
        t.apply(ClaimResponded(Seat.S, True))
        assert t.state == "board_complete" and t.tricks == 10 and t.score_ns == -620
    finally:
        t.close()
