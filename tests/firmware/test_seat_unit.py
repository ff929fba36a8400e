"""The seat-unit firmware on an emulated ATmega2560, its links opened by the unchanged host drivers as serial
ports (pyserial on a pty, as /dev/ttyUSB0 would be), and by a bare HostSession for protocol details."""
from __future__ import annotations

import os
import queue
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import serial

from drivers.bidding_box import BiddingBoxDriver
from drivers.config import SeatMap
from drivers.decks import STANDARD_ORDER, DeckRegistry
from drivers.notices import DeviceNotice
from drivers.seat_reader import SeatReaderDriver
from firmware_host import Binding, CallPressed, CardRead, Frame, HostSession, LinkState, Nack, encode_frame
from firmware_host.constants import Capability, ErrorCode, Mode, Phase
from firmware_host.messages import ShowContract, ShowError
from hw_sim.avr import EmulatedClock, SeatUnit, ntag_uids
from table.cards import Deal
from table.events import CallMade, CardPlayed

DEAL = Deal.from_pbn("N:QJ3.KQ982.KT63.Q K985.J653.74.K84 AT7.4.AQ85.J7632 642.AT7.J92.AT95")
CALLS = [("1H", False), ("Pass", False), ("2NT", True), ("X", False), ("XX", False), ("7NT", False)]


@pytest.fixture
def unit(firmware_build: None, tmp_path) -> Iterator[SeatUnit]:
    with SeatUnit("t1-n", "SR-T1-N", "BB-T1-N", link_dir=tmp_path) as u:
        yield u


@pytest.fixture
def deck() -> tuple[DeckRegistry, dict[str, str]]:
    uids = ntag_uids("deck-0")
    reg = DeckRegistry()
    reg.learn("deck-0", [uids[c] for c in STANDARD_ORDER])
    return reg, uids


def drivers_for(unit: SeatUnit, decks: DeckRegistry, events: queue.Queue[Any]) -> tuple[Any, Any]:
    seats = SeatMap({"SR-T1-N": "N", "BB-T1-N": "N"}, table=1)
    reader = SeatReaderDriver(unit.reader_url, events.put, seats, decks, backoff=(0.02, 0.2))
    box = BiddingBoxDriver(unit.box_url, events.put, seats, backoff=(0.02, 0.2))
    for d in (reader, box):
        d.start(0.02)
    return reader, box


def next_table_event(events: queue.Queue[Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            ev = events.get(timeout=0.1)
        except queue.Empty:
            continue
        if not isinstance(ev, DeviceNotice):
            return ev
    raise AssertionError("no table event arrived")


def spy_on_card_reads(reader: SeatReaderDriver) -> list[CardRead]:
    """Every CARD_READ the driver receives from now on, before its debouncing."""
    reads: list[CardRead] = []
    handle = reader.on_message

    def spy(msg: Any) -> bool:
        if isinstance(msg, CardRead):
            reads.append(msg)
        return handle(msg)
    reader.on_message = spy  # type: ignore[method-assign]
    return reads


def wait_for(cond: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_drivers_open_the_ptys_and_receive_a_hand_and_an_auction(unit, deck):
    decks, uids = deck
    events: queue.Queue[Any] = queue.Queue()
    reader, box = drivers_for(unit, decks, events)
    try:
        wait_for(lambda: reader.connected and box.connected)
        assert (reader.serial, box.serial) == ("SR-T1-N", "BB-T1-N")
        assert reader.session.peer.firmware.startswith("seatunit-")
        reader.set_board(DEAL, "deck-0")
        for call, alert in CALLS:
            unit.press(call, alert)
            assert next_table_event(events) == CallMade("N", call, alert, source=box.source)
        for card in sorted(DEAL.hands["N"]):
            unit.place(uids[card])
            assert next_table_event(events) == CardPlayed("N", card, source=reader.source)
        unit.place(uids[sorted(DEAL.hands["E"])[0]])        # East's card on North's antenna: refused
        wrong = events.get(timeout=10)
        while not (isinstance(wrong, DeviceNotice) and wrong.is_error):
            wrong = events.get(timeout=10)
        assert wrong.code == "WRONG_SEAT"
        for d in (reader, box):      # at most the half frame pyserial's open leaves (it flushes mid-frame)
            assert d.session.health.frame_errors <= d.opens == 1
    finally:
        for d in (reader, box):
            d.stop()
            d.close()


def test_a_card_lying_on_the_antenna_is_reported_once(unit, deck):
    decks, uids = deck
    events: queue.Queue[Any] = queue.Queue()
    reader, box = drivers_for(unit, decks, events)
    try:
        reads = spy_on_card_reads(reader)
        wait_for(lambda: reader.connected)
        unit.place(uids["SA"])
        assert next_table_event(events).card == "SA"
        time.sleep(0.4)                                     # twenty polls of the same tag
        assert len(reads) == 1
        unit.remove()
        unit.place(uids["SA"], after_ms=100)                 # lifted and laid again: a new read (the host decides)
        wait_for(lambda: len(reads) == 2)
        assert reads[1].uid == reads[0].uid and 100 <= reads[1].ts - reads[0].ts < 1000
    finally:
        for d in (reader, box):
            d.stop()
            d.close()


def test_a_card_read_again_behind_a_pulled_cable_is_not_the_next_boards_first_card(unit, deck):
    """The last card is lifted and laid back while the reader's cable is out; its second read reaches the host
    only after the next board started (same deck, as when a board is replayed). By device time it repeats the
    card still lying there: no new card. (A wide window: what is tested is that a new board keeps it.)"""
    decks, uids = deck
    events: queue.Queue[Any] = queue.Queue()
    seats = SeatMap({"SR-T1-N": "N"}, table=1)
    reader = SeatReaderDriver(unit.reader_url, events.put, seats, decks, backoff=(0.02, 0.2), debounce_window=5.0)
    reader.start(0.02)
    try:
        reads = spy_on_card_reads(reader)
        wait_for(lambda: reader.connected)
        reader.set_board(DEAL, "deck-0")
        last = sorted(DEAL.hands["N"])[0]
        unit.place(uids[last])
        assert next_table_event(events) == CardPlayed("N", last, source=reader.source)
        unit.unplug("reader", 1.0)
        unit.remove()
        unit.place(uids[last], after_ms=100)
        unit.sync(150)                                       # read again and queued behind the pulled cable
        assert len(reads) == 1
        reader.set_board(DEAL, "deck-0")                     # the next board
        wait_for(lambda: len(reads) == 2, timeout=20)
        assert reads[1].uid == reads[0].uid and reads[1].ts > reads[0].ts
        time.sleep(0.3)
        assert not [e for e in list(events.queue) if not isinstance(e, DeviceNotice)]
        assert reader.debouncer.repeats == 1
    finally:
        reader.stop()
        reader.close()


def test_unplugged_links_resume_the_session_and_lose_nothing(unit, deck):
    decks, uids = deck
    events: queue.Queue[Any] = queue.Queue()
    reader, box = drivers_for(unit, decks, events)
    try:
        wait_for(lambda: reader.connected and box.connected)
        got = []
        for k, card in enumerate(STANDARD_ORDER[:6]):
            # short pulls: the unit retransmits once the cable is back; a long one (2.5 s) outlasts its
            # retries (6 x 250 ms), so the link is LOST and the unit re-HELLOs: the host resumes the session
            unit.unplug("all", 2.5 if k == 5 else 0.3)
            unit.place(uids[card])
            unit.press("Pass" if k % 2 else "1C")
            got += [next_table_event(events, 20), next_table_event(events, 20)]
        assert [e.card for e in got if isinstance(e, CardPlayed)] == list(STANDARD_ORDER[:6])
        assert [e.call for e in got if isinstance(e, CallMade)] == ["1C", "Pass"] * 3
        assert reader.disconnects >= 6 and box.disconnects >= 6
        assert reader.session.health.resumes >= 1 and box.session.health.resumes >= 1
        assert reader.session.health.handshakes == 1 + reader.session.health.resumes
        time.sleep(0.5)
        assert not [e for e in list(events.queue) if not isinstance(e, DeviceNotice)]   # nothing twice
    finally:
        for d in (reader, box):
            d.stop()
            d.close()


class RawHost:
    """A bare HostSession on the bidding box's pty, plus a way to inject hand-made frames."""

    def __init__(self, url: str) -> None:
        self.port = serial.serial_for_url(url, timeout=0.01)
        self.session = HostSession(admit=lambda hello: Binding("S", 7))
        self.t0 = time.monotonic()
        self.port.write(self.session.start(self.now()))
        self.messages: list[Any] = []

    def now(self) -> int:
        return int((time.monotonic() - self.t0) * 1000)

    def pump(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.messages += self.session.receive(self.port.read(4096), self.now())
            self.port.write(self.session.poll(self.now()))

    def close(self) -> None:
        self.port.close()


def test_firmware_nacks_unknown_and_malformed_frames_and_drops_echoes(unit):
    host = RawHost(unit.box_url)
    try:
        deadline = time.monotonic() + 10
        while host.session.state is not LinkState.READY:
            assert time.monotonic() < deadline
            host.pump(0.05)
        reliable = 0x01 | 0x04
        host.port.write(encode_frame(Frame(0x09, 0, 0, reliable, b"")))                    # unknown type
        host.port.write(encode_frame(Frame(0x08, 1, 0, reliable, bytes.fromhex("01000000"))))   # BIND + 1 byte
        host.port.write(encode_frame(Frame(0x20, 2, 0, reliable, bytes(6))))              # a device message
        host.port.write(encode_frame(Frame(0x08, 3, 0, 0x01, bytes.fromhex("020000"))))    # an echo: no FROM_HOST
        host.pump(0.5)
        nacks = [(m.seq, m.code) for m in host.messages if isinstance(m, Nack)]
        assert nacks == [(0, ErrorCode.UNKNOWN_MESSAGE), (1, ErrorCode.MALFORMED_PAYLOAD),
                         (2, ErrorCode.UNEXPECTED_MESSAGE)]
        assert host.session.state is LinkState.READY          # refusals are not link failures
        unit.press("3C")
        host.pump(0.4)
        assert [m.call for m in host.messages if isinstance(m, CallPressed)] == ["3C"]
    finally:
        host.close()


def test_bad_harness_commands_are_reported_not_fatal(unit):
    unit.place("0102")                                       # not a 4- or 7-byte UID
    unit.press("8NT")
    unit.sync()
    assert len(unit.errors) == 2 and "4- or 7-byte" in unit.errors[0] and "8NT" in unit.errors[1]
    assert unit.stats()["emulated_ms"] > 0


# ---------------------------------------------------------------------------------------------- display
def display_shows(unit: SeatUnit, want: dict[int, str], timeout: float = 10.0) -> list[str]:
    """The display's lines once every line in ``want`` (line number -> text) shows it (a host message takes
    its way over the wire, then the firmware redraws one line per millisecond tick)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = unit.display()
        if all(lines[n] == text for n, text in want.items()) or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


def test_the_display_shows_the_call_being_keyed(unit):
    unit.sync(50)
    assert unit.display() == ["", "", "N    E    S    W", "", "", "", "", ""]     # blank but for the seats
    unit.key("Alert")
    unit.key("3")
    unit.sync(50)                                   # emulated ms after the last key: the line is redrawn
    assert unit.display()[6] == "CALL 3*"
    unit.key("4")                                   # a second level key replaces the first
    unit.sync(50)
    assert unit.display()[6] == "CALL 4*"
    unit.key("NT")
    unit.sync(50)
    assert unit.display()[6] == "CALL 4NT*"         # made (and sent): it stays until the next key
    unit.press("Pass")
    unit.sync(50)
    assert unit.display()[6] == "CALL PASS"
    with pytest.raises(ValueError, match="no key"):
        unit.key("8")


def test_the_display_shows_what_the_host_sends(unit, deck):
    decks, _ = deck
    events: queue.Queue[Any] = queue.Queue()
    reader, box = drivers_for(unit, decks, events)
    try:
        wait_for(lambda: box.connected)
        assert Capability.DISPLAY in box.session.peer.capabilities
        auction = ["1C", "Pass", "1NT", "Pass", "3NT", "X", "Pass", "Pass", "XX", "Pass", "Pass", "Pass"]
        box.show_turn("E", Phase.AUCTION)
        box.show_auction("W", auction[:3], [True, False, False])
        want = {0: "E TO CALL", 3: "               1C*", 4: "PASS 1NT", 5: ""}
        lines = display_shows(unit, want)
        assert [lines[n] for n in want] == list(want.values())
        box.show_auction("W", auction, [True] + [False] * 11)       # 3 of 4 rounds fit: the last three
        box.send(ShowContract("3NTXX", "E"))
        box.show_turn("S", Phase.PLAY)
        box.send(ShowError(ErrorCode.UNSUPPORTED, "Call the director: lead out of turn"))
        want = {0: "S TO PLAY", 1: "3NTXX BY E", 3: "PASS 1NT  PASS 3NT", 4: "X    PASS PASS XX",
                5: "PASS PASS PASS", 7: "CALL THE DIRECTOR: LE"}
        lines = display_shows(unit, want)
        assert [lines[n] for n in want] == list(want.values())
        box.send(ShowContract("PASS"))
        box.send(ShowError(0, ""))                                   # code 0, no text: cleared
        box.show_turn(None, Phase.IDLE)
        lines = display_shows(unit, {0: "", 1: "PASSED OUT", 7: ""})
        assert (lines[0], lines[1], lines[7]) == ("", "PASSED OUT", "")
        assert "~" not in "".join(lines)                             # every cell holds a glyph of the font
    finally:
        for d in (reader, box):
            d.stop()
            d.close()


def test_the_auction_scrolls_back_to_its_first_rounds(unit, deck):
    """The display shows the auction's last three rounds; Earlier and Later scroll them a round back and forward
    (line 2 says how far back), no further than the first round the box keeps (its last 48 calls)."""
    decks, _ = deck
    events: queue.Queue[Any] = queue.Queue()
    reader, box = drivers_for(unit, decks, events)
    bids = ["1C", "1D", "1H", "1S", "1NT", "2C", "2D", "2H", "2S", "2NT", "3C", "3D", "3H", "3S", "3NT"]

    def keys(*names: str) -> None:
        for name in names:
            unit.key(name)
        unit.sync(50)
    try:
        wait_for(lambda: box.connected)
        six_rounds = [c for bid in bids[:12] for c in (bid, "Pass")]          # 24 calls, North dealt
        box.show_auction("N", six_rounds)
        latest = {2: "N    E    S    W", 3: "2D   PASS 2H   PASS", 4: "2S   PASS 2NT  PASS", 5: "3C   PASS 3D   PASS"}
        lines = display_shows(unit, latest)
        assert [lines[n] for n in latest] == list(latest.values())
        keys("Earlier", "Earlier", "Earlier")
        first = {2: "N    E    S    W   -3", 3: "1C   PASS 1D   PASS", 4: "1H   PASS 1S   PASS",
                 5: "1NT  PASS 2C   PASS"}
        lines = display_shows(unit, first)
        assert [lines[n] for n in first] == list(first.values())
        keys("Earlier")                                                       # the first round is at the top
        assert [unit.display()[n] for n in first] == list(first.values())
        keys("Later")
        lines = display_shows(unit, {2: "N    E    S    W   -2", 3: "1H   PASS 1S   PASS"})
        assert (lines[2], lines[3], lines[5]) == ("N    E    S    W   -2", "1H   PASS 1S   PASS", "2D   PASS 2H   PASS")
        box.show_auction("N", six_rounds + ["3NT"])                           # a new call: the latest rounds
        lines = display_shows(unit, {2: "N    E    S    W", 3: "2S   PASS 2NT  PASS", 5: "3NT"})
        assert (lines[2], lines[3], lines[5]) == ("N    E    S    W", "2S   PASS 2NT  PASS", "3NT")
        long = [c for bid in bids for c in (bid, "Pass", "Pass", "Pass")]     # 60 calls: the first 12 not kept
        box.show_auction("N", long)
        display_shows(unit, {5: "3NT  PASS PASS PASS"})
        keys(*["Earlier"] * 12)
        lines = display_shows(unit, {2: "N    E    S    W   -9"})
        assert (lines[2], lines[3]) == ("N    E    S    W   -9", "1S   PASS PASS PASS")   # call 13 on: kept
    finally:
        for d in (reader, box):
            d.stop()
            d.close()


class RecordingQueue(queue.Queue):
    """A queue that also keeps everything ever put in it."""

    def __init__(self) -> None:
        super().__init__()
        self.all: list[Any] = []

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        self.all.append(item)
        super().put(item, block, timeout)


def next_notice(events: queue.Queue[Any], code: str, timeout: float = 10.0) -> DeviceNotice:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            ev = events.get(timeout=0.1)
        except queue.Empty:
            continue
        assert not isinstance(ev, (CallMade, CardPlayed)), ev                 # nothing else was asked
        if isinstance(ev, DeviceNotice) and ev.code == code:
            return ev
    raise AssertionError(f"no {code} notice arrived")


def test_prevent_mode_undo_and_the_stop_card_through_the_host_driver(unit, deck):
    """SET_MODE (prevent, an undo window), REFUSE_CALL (the call leaves the display, the host's reason shows),
    the Undo key (UNDO of the last call, inside the window only) and the Stop key (STOP_CARD)."""
    decks, _ = deck
    events = RecordingQueue()
    reader, box = drivers_for(unit, decks, events)
    try:
        wait_for(lambda: box.connected)
        for cap in (Capability.PREVENT_MODE, Capability.UNDO, Capability.STOP_CARD):
            assert cap in box.session.peer.capabilities
        unit.key("Stop")
        assert next_notice(events, "STOP_CARD").seat == "N"
        unit.press("1C")
        assert next_table_event(events) == CallMade("N", "1C", False, source=box.source)
        unit.key("Undo")                                  # no undo window yet (FLAG mode, window 0): nothing
        unit.sync(100)
        box.set_mode(Mode.PREVENT, 60000)
        wait_for(lambda: box.session.pending == 0)        # the unit acknowledged SET_MODE
        unit.press("2H")
        assert next_table_event(events) == CallMade("N", "2H", False, source=box.source)
        unit.key("Undo")
        undo = next_notice(events, "UNDO")
        assert "withdrew 2H" in undo.detail and undo.seat == "N"
        unit.key("Undo")                                  # the same call is not withdrawn twice
        unit.press("1NT")
        assert next_table_event(events) == CallMade("N", "1NT", False, source=box.source)
        assert display_shows(unit, {6: "CALL 1NT"})[6] == "CALL 1NT"
        box.refuse_call("1NT", ErrorCode.UNSUPPORTED, "Insufficient bid")
        lines = display_shows(unit, {6: "", 7: "INSUFFICIENT BID"})
        assert (lines[6], lines[7]) == ("", "INSUFFICIENT BID")
        unit.key("Undo")                                  # a refused call is not the player's to undo
        unit.key("Stop")                                  # behind anything the Undo key sent, on the same link
        next_notice(events, "STOP_CARD")
        codes = [e.code for e in events.all if isinstance(e, DeviceNotice) and e.code in ("UNDO", "STOP_CARD")]
        assert codes == ["STOP_CARD", "UNDO", "STOP_CARD"]
        assert [e.call for e in events.all if isinstance(e, CallMade)] == ["1C", "2H", "1NT"]
    finally:
        for d in (reader, box):
            d.stop()
            d.close()


def test_the_emulated_clock_counts_the_chips_time_not_the_wall_time_a_loaded_machine_takes(unit):
    """A unit the machine does not run for a second (stopped: the CPU's time went elsewhere) has not lived that
    second: a harness deadline in EmulatedClock time has not come closer; closed, the wall clock counts on."""
    clock = EmulatedClock([unit], refresh_s=0.0)
    first = clock.now()
    time.sleep(0.3)
    assert clock.now() > first                               # a running unit's time passes
    before, wall = clock.now(), time.monotonic()
    os.kill(unit._proc.pid, signal.SIGSTOP)
    try:
        time.sleep(1.5)
        asked: list[float] = []
        waiting = threading.Thread(target=lambda: asked.append(clock.now()))
        waiting.start()                  # the question waits in the pipe: the unit answers it before running on
        time.sleep(0.2)
    finally:
        os.kill(unit._proc.pid, signal.SIGCONT)
    waiting.join(10)
    assert time.monotonic() - wall >= 1.7 and asked[0] - before < 0.5, (before, asked)
    unit.close()
    stopped = clock.now()
    time.sleep(0.3)
    assert clock.now() - stopped >= 0.3                      # a stopped unit: the wall clock counts
