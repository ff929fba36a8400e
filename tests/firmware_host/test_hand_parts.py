"""HAND_READ in parts put back together (firmware_host.hands): a hand once, whatever the order of its parts,
a part or a whole hand received twice counting once, a restarted device's parts forgotten."""
from __future__ import annotations

from firmware_host import HandScan, Zone
from firmware_host.hands import HandAssembler

UIDS = tuple(bytes([4, k, 1, 2, 3, 4, 5]) for k in range(13))


def parts(ts: int) -> list[HandScan]:
    return [HandScan(UIDS[k * 4:k * 4 + 4], ts, Zone.HAND, k, 4) for k in range(4)]


def test_a_hand_is_given_once_when_its_last_part_is_in_whatever_the_order():
    a = HandAssembler()
    p = parts(1000)
    got = [a.feed(m) for m in (p[2], p[0], p[0], p[3], p[1], p[1], p[2])]
    assert [g is not None for g in got] == [False, False, False, False, True, False, False]
    whole = got[4]
    assert whole is not None and whole.uids == UIDS and whole.ts == 1000 and whole.parts == 1


def test_two_hands_interleaved_and_a_whole_hand_pass_through():
    a = HandAssembler()
    first, second = parts(1), parts(2)
    out = [a.feed(m) for pair in zip(first, second) for m in pair]
    assert [o.ts for o in out if o is not None] == [1, 2]
    whole = HandScan(UIDS, 7)
    assert a.feed(whole) is whole


def test_a_restarted_device_names_its_hands_anew():
    a = HandAssembler()
    p = parts(500)
    assert a.feed(p[0]) is None and a.feed(p[1]) is None
    a.reset()                                  # a new session: the device's clock started again
    q = parts(500)                             # the same time by the new clock: another hand
    assert [a.feed(m) is not None for m in q] == [False, False, False, True]
