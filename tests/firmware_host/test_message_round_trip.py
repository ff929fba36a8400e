"""Every message type round-trips encode → decode with random field values, drawn from its wire fields."""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_host.codes import CALL_CODES, CARDS, SEATS
from firmware_host.constants import MAX_AUCTION, MAX_HAND_TAGS, MAX_IDENT, MAX_TEXT, MAX_VERSIONS, UID_MAX, UID_MIN
from firmware_host.fields import (
    Auction,
    Bits,
    Call,
    Card,
    Contract,
    EnumField,
    ErrorCodeField,
    Field,
    Ident,
    PartOf,
    Pockets,
    Rssi,
    Seat,
    Text,
    Uid,
    UidList,
    UInt,
    Versions,
)
from firmware_host.frame import Frame, FrameDecoder, encode_frame
from firmware_host.messages import MESSAGE_TYPES, Message, decode_message

CALLS = st.sampled_from(list(CALL_CODES.values()))
SEAT = st.sampled_from(SEATS)
UIDS = st.binary(min_size=UID_MIN, max_size=UID_MAX)
BIDS = [c for c in CALL_CODES.values() if c[0].isdigit()]


def _text() -> st.SearchStrategy[str]:
    return st.text(max_size=MAX_TEXT // 4)          # 4 bytes of UTF-8 at most per character


def _auction() -> st.SearchStrategy[tuple[Any, ...]]:
    calls = st.lists(CALLS, max_size=MAX_AUCTION).map(tuple)
    return calls.flatmap(lambda cs: st.tuples(st.just(cs), st.lists(st.booleans(), min_size=len(cs),
                                                                    max_size=len(cs)).map(tuple)))


def _contract() -> st.SearchStrategy[tuple[Any, ...]]:
    played = st.tuples(st.tuples(st.sampled_from(BIDS), st.sampled_from(["", "X", "XX"])).map("".join), SEAT)
    return st.one_of(st.just(("PASS", None)), played)


def values_of(f: Field) -> st.SearchStrategy[tuple[Any, ...]]:
    """Every value ``f`` can carry, as a tuple over ``f.names``."""
    one: st.SearchStrategy[Any]
    if isinstance(f, EnumField):
        one = (st.integers(0, f.hi).map(f.enum) if f.enum.__name__ == "Capability"
               else st.sampled_from(list(f.enum)))
    elif isinstance(f, ErrorCodeField):
        one = st.integers(0, 0xFFFF)
    elif isinstance(f, UInt):
        one = st.integers(f.lo, f.hi)
    elif isinstance(f, Bits):
        return st.tuples(*(st.booleans() for _ in f.names))
    elif isinstance(f, Seat):
        one = st.one_of(SEAT, st.none()) if f.optional else SEAT
    elif isinstance(f, Card):
        one = st.one_of(st.sampled_from(CARDS), st.none())
    elif isinstance(f, Call):
        one = CALLS
    elif isinstance(f, Text):
        one = _text()
    elif isinstance(f, Ident):
        one = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=MAX_IDENT)
    elif isinstance(f, Uid):
        one = UIDS
    elif isinstance(f, Rssi):
        one = st.one_of(st.none(), st.integers(-127, 127))
    elif isinstance(f, Versions):
        one = st.lists(st.integers(1, 255), min_size=1, max_size=MAX_VERSIONS).map(tuple)
    elif isinstance(f, UidList):
        one = st.lists(UIDS, max_size=MAX_HAND_TAGS).map(tuple)
    elif isinstance(f, Pockets):
        one = st.lists(SEAT, min_size=52, max_size=52).map(tuple)
    elif isinstance(f, PartOf):
        return st.integers(1, f.limit).flatmap(lambda n: st.tuples(st.integers(0, n - 1), st.just(n)))
    elif isinstance(f, Auction):
        return _auction()
    elif isinstance(f, Contract):
        return _contract()
    else:
        raise AssertionError(f"no strategy for {type(f).__name__}: add one")
    return one.map(lambda v: (v,))


def messages(cls: type[Message]) -> st.SearchStrategy[Message]:
    def build(parts: list[tuple[Any, ...]]) -> Message:
        kwargs = {n: v for f, vs in zip(cls.WIRE, parts) for n, v in zip(f.names, vs)}
        return cls(**kwargs)
    return st.tuples(*(values_of(f) for f in cls.WIRE)).map(lambda parts: build(list(parts)))


@pytest.mark.parametrize("cls", list(MESSAGE_TYPES.values()), ids=lambda c: c.__name__)
@given(data=st.data())
def test_every_message_round_trips(cls: type[Message], data: st.DataObject) -> None:
    msg = data.draw(messages(cls))
    payload = msg.encode()
    assert decode_message(cls.TYPE, payload) == msg
    assert type(msg).decode(payload).encode() == payload
    (frame,) = FrameDecoder().feed(encode_frame(Frame(cls.TYPE, 1, 2, 0, payload)))
    assert decode_message(frame.type, frame.payload) == msg


def test_the_wire_fields_cover_every_attribute() -> None:
    import dataclasses
    for cls in MESSAGE_TYPES.values():
        attrs = sorted(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
        assert sorted(n for f in cls.WIRE for n in f.names) == attrs, cls.__name__
