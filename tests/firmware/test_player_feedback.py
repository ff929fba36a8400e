"""The player's feedback at the seat unit (firmware 1.3.0), on the emulated ATmega2560 with the unchanged host
drivers: the Director key (DIRECTOR_CALL, once at the host whatever the link resends; with the service running,
a call on the director's list and the box's line 7 saying so), and the acknowledgement LED and buzzer (PH3, PH4)
seen on the emulated pins: one 80 ms blink when the host has the card or the call, three blinks and beeps when it
refuses the call."""
from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from service_harness import ServiceThread

from drivers.bidding_box import BiddingBoxDriver
from drivers.config import SeatMap
from drivers.notices import DeviceNotice
from drivers.seat_reader import SeatReaderDriver
from firmware_host import CardRead
from firmware_host.constants import Capability, ErrorCode, Mode
from hw_sim.avr import EmulatedClock, SeatUnit, ntag_uids
from service.sim.dealing import deal_for
from table.events import CallMade

BLINK_US = 80_000
SLACK_US = 1000         # the pins are stepped by the 1 ms clock interrupt: a blink starts between two of its ticks


@pytest.fixture
def unit(firmware_build: None, tmp_path: Path) -> Iterator[SeatUnit]:
    with SeatUnit("t1-n", "SR-T1-N", "BB-T1-N", link_dir=tmp_path) as u:
        yield u
    _CLOCKS.pop(id(u), None)


class Recorder(queue.Queue):
    """The driver's events, also kept in order of arrival."""

    def __init__(self) -> None:
        super().__init__()
        self.all: list[Any] = []

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        self.all.append(item)
        super().put(item, block, timeout)


_CLOCKS: dict[int, EmulatedClock] = {}


def emulated(unit: SeatUnit) -> EmulatedClock:
    """The unit's emulated time: a deadline here is the chip's seconds, which a loaded machine stretches (the
    emulation falls behind the wall clock), as the harness's are (``hw_sim.avr.EmulatedClock``)."""
    return _CLOCKS.setdefault(id(unit), EmulatedClock([unit], refresh_s=0.5))


def wait_for(unit: SeatUnit, cond: Any, timeout: float = 15.0) -> Any:
    clock = emulated(unit)
    deadline = clock.now() + timeout
    while not (v := cond()):
        assert clock.now() < deadline, "timed out"
        time.sleep(0.01)
    return v


def notices(events: Recorder, code: str) -> list[DeviceNotice]:
    return [e for e in list(events.all) if isinstance(e, DeviceNotice) and e.code == code]


def display_line(unit: SeatUnit, n: int, text: str) -> str:
    """Line ``n`` of the box's display once it reads ``text`` (or what it reads at the time-out)."""
    clock = emulated(unit)
    deadline = clock.now() + 15
    while (line := unit.display()[n]) != text and clock.now() < deadline:
        time.sleep(0.05)
    return line


def box_driver(unit: SeatUnit, events: Recorder) -> BiddingBoxDriver:
    box = BiddingBoxDriver(unit.box_url, events.put, SeatMap({"BB-T1-N": "N"}, table=1), backoff=(0.02, 0.2))
    box.start(0.02)
    return box


def test_the_director_key_reaches_the_host_once_though_the_unit_resends_it(unit):
    events = Recorder()
    box = box_driver(unit, events)
    try:
        wait_for(unit, lambda: box.connected)
        assert Capability.DIRECTOR_KEY in box.session.peer.capabilities
        # the host is connected once it has answered the unit's HELLO; the unit, once that answer has reached it:
        # on a loaded machine the emulation lags, and cutting the host's frames first left the unit without the
        # answer, saying HELLO for ever (30 times in 15 s: the call never sent)
        unit.sync(500)
        unit.command("faults drop=1 dir=down")            # every host frame lost: no ack reaches the unit
        unit.key("Director")
        wait_for(unit, lambda: notices(events, "DIRECTOR_CALL"))
        unit.sync(1000)                                   # 1 s emulated: the unit sends it again and again
        unit.command("faults drop=0 dir=both")
        wait_for(unit, lambda: box.session.health.duplicates >= 2)
        unit.sync(1500)                                   # the link heals: the unit's queue empties
        wait_for(unit, lambda: box.connected)
        calls = notices(events, "DIRECTOR_CALL")
        assert len(calls) == 1 and calls[0].seat == "N" and not calls[0].is_error
        assert "called the director" in calls[0].detail
        assert display_line(unit, 7, "CALLING DIRECTOR") == "CALLING DIRECTOR"
        unit.key("Director")                              # pressed again: a second call
        wait_for(unit, lambda: len(notices(events, "DIRECTOR_CALL")) == 2)
        unit.sync(500)
        assert len(notices(events, "DIRECTOR_CALL")) == 2
    finally:
        box.stop()
        box.close()


def blinks(unit: SeatUnit, n: int) -> dict[str, list[tuple[int, int]]]:
    """The pins' pulses from now until the LED's ``n``-th has ended, and 300 emulated ms more (time for any
    pulse too many to show)."""
    seen: dict[str, list[tuple[int, int]]] = {"led": [], "buzzer": []}
    deadline = time.monotonic() + 15

    def more() -> None:
        for pin, spans in unit.pulses().items():
            seen[pin] += spans
    while len(seen["led"]) < n and time.monotonic() < deadline:
        unit.sync(50)
        more()
    unit.sync(300)
    more()
    return seen


def assert_blinks(spans: list[tuple[int, int]], n: int) -> None:
    """``n`` pulses of 80 ms, 80 ms apart."""
    assert len(spans) == n, spans
    for _at, length in spans:
        assert abs(length - BLINK_US) <= SLACK_US, spans
    for (a, la), (b, _) in zip(spans, spans[1:]):
        assert abs(b - (a + la) - BLINK_US) <= SLACK_US, spans


def test_a_card_or_a_call_taken_blinks_the_led_and_a_refused_call_blinks_and_beeps(unit):
    uids = ntag_uids("deck-0")
    events = Recorder()
    seats = SeatMap({"SR-T1-N": "N", "BB-T1-N": "N"}, table=1)
    reader = SeatReaderDriver(unit.reader_url, events.put, seats, backoff=(0.02, 0.2))
    box = BiddingBoxDriver(unit.box_url, events.put, seats, backoff=(0.02, 0.2))
    for d in (reader, box):
        d.start(0.02)
    reads: list[CardRead] = []
    handle = reader.on_message

    def spy(msg: Any) -> bool:
        if isinstance(msg, CardRead):
            reads.append(msg)
        return handle(msg)
    reader.on_message = spy  # type: ignore[method-assign]
    try:
        wait_for(unit, lambda: reader.connected and box.connected)
        unit.sync(500)
        unit.pulses()
        assert blinks(unit, 0) == {"led": [], "buzzer": []}   # the handshakes' status events blink nothing
        unit.place(uids["SA"])
        wait_for(unit, lambda: reads)
        seen = blinks(unit, 1)
        assert_blinks(seen["led"], 1)                     # the card: one blink, no beep
        assert seen["buzzer"] == []
        unit.press("1C")
        wait_for(unit, lambda: [e for e in events.all if isinstance(e, CallMade)])
        seen = blinks(unit, 1)
        assert_blinks(seen["led"], 1)
        assert seen["buzzer"] == []
        box.set_mode(Mode.PREVENT, 0)
        wait_for(unit, lambda: box.session.pending == 0)
        unit.press("1D")
        wait_for(unit, lambda: len([e for e in events.all if isinstance(e, CallMade)]) == 2)
        assert_blinks(blinks(unit, 1)["led"], 1)          # taken by the host ...
        box.refuse_call("1D", ErrorCode.INSUFFICIENT_BID, "Insufficient bid")
        wait_for(unit, lambda: box.session.pending == 0)
        seen = blinks(unit, 3)                            # ... then refused: three blinks, each beeped
        assert_blinks(seen["led"], 3)
        assert seen["buzzer"] == seen["led"]
    finally:
        for d in (reader, box):
            d.stop()
            d.close()


def test_the_director_key_puts_a_call_on_the_directors_list(unit, tmp_path: Path):
    """The service opens the unit's box link as a configured device: the key's call is journalled for seat N
    with the seat unit named as its reason, and the service's answer shows on the box's line 7."""
    cfg = {"tables": [{"id": "1", "seats": {"N": {"box": unit.box_url, "box_serial": "BB-T1-N"}}}]}
    with ServiceThread(tmp_path / "svc", cfg) as srv, srv.client(srv.token) as d:
        wait_for(unit, lambda: [h for h in d.get("/api/devices").json().get("1", []) if h["connected"]], 30)
        unit.key("Director")
        calls = wait_for(unit, lambda: d.get("/api/director-calls").json(), 30)
        assert len(calls) == 1
        assert (calls[0]["table"], calls[0]["seat"], calls[0]["reason"]) == ("1", "N", "called from the seat unit")
        assert display_line(unit, 7, "DIRECTOR CALLED") == "DIRECTOR CALLED"
        unit.sync(500)
        assert len(d.get("/api/director-calls").json()) == 1


def test_dummys_director_key_follows_law_43a1a(unit, tmp_path: Path):
    """The unit's box at South, dummy: during the play its Director key calls nobody (the box says why) until
    another player has drawn attention, as South's page's button does."""
    deal = deal_for(3, 1)
    cfg = {"tables": [{"id": "1", "seats": {"S": {"box": unit.box_url, "box_serial": "BB-T1-N"}}}]}
    with ServiceThread(tmp_path / "svc", cfg) as srv, srv.client(srv.token) as d:
        wait_for(unit, lambda: [h for h in d.get("/api/devices").json().get("1", []) if h["connected"]], 30)
        d.post("/api/tables/1/events", json={"type": "board", "board": 1, "deal": deal.to_pbn()}).raise_for_status()
        for seat, call in zip("NESW", ["1S", "Pass", "Pass", "Pass"]):    # North declares, South is dummy
            d.post("/api/tables/1/events", json={"type": "call", "seat": seat, "call": call}).raise_for_status()
        lead = sorted(deal.hands["E"])[0]
        d.post("/api/tables/1/events", json={"type": "card", "seat": "E", "card": lead}).raise_for_status()
        unit.key("Director")
        assert display_line(unit, 7, "DUMMY MAY NOT CALL") == "DUMMY MAY NOT CALL"
        assert d.get("/api/director-calls").json() == []
        d.post("/api/tables/1/director", json={}).raise_for_status()        # attention drawn: a call is open
        unit.key("Director")
        assert display_line(unit, 7, "DIRECTOR CALLED") == "DIRECTOR CALLED"
        calls = d.get("/api/director-calls").json()
        assert [(c["seat"], c["reason"]) for c in calls] == [("S", "called from the seat unit"), (None, "call")]


def test_a_call_the_full_queue_cannot_take_is_refused_on_the_display_and_none_taken_is_lost(unit):
    """No host on the box's link: the box keeps every call pressed (docs/protocol.md §5.5: at least 64 events).
    Once its queue is full, the next call is not taken and line 7 says so, instead of showing a call that never
    leaves the box. A host then comes: every call the box took reaches it, and none more."""
    # the box reads its keys once it has started (after the boot loader's check of the image): a key pressed
    # before then is no call, and the count below would be one too many
    assert display_line(unit, 2, "N    E    S    W") == "N    E    S    W"
    taken = 0
    for _ in range(80):
        unit.key("Pass")
        unit.sync(20)
        if unit.display()[7] == "CALL NOT SENT: AGAIN":
            break
        taken += 1
    else:
        pytest.fail("80 calls taken with no host: the box's queue never filled")
    assert 56 <= taken <= 64, taken                       # 64 entries, less what the box queued at its start
    assert unit.display()[6] == "", unit.display()      # the refused call is not shown as keyed (a blank line)
    events = Recorder()
    box = box_driver(unit, events)
    try:
        def calls() -> list[CallMade]:
            return [e for e in list(events.all) if isinstance(e, CallMade)]
        wait_for(unit, lambda: len(calls()) >= taken, 60)
        unit.sync(500)
        assert len(calls()) == taken
    finally:
        box.stop()
        box.close()
