"""Hands read at the table and the dummy zone on the seat unit (docs/hardware.md "Reading the hands", "The
dummy zone"): the firmware on simavr with two MFRC522 models on its SPI bus, the unchanged host driver on the
reader's pty. The checks of new behaviour run on this firmware and on the firmware of OLD_COMMIT (built from git
history), which fails them: it reads four tags a round, sends no HAND_READ and has no second reader."""
from __future__ import annotations

import queue
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.config import SeatMap
from drivers.decks import STANDARD_ORDER, DeckRegistry
from drivers.notices import DeviceNotice
from drivers.seat_reader import SeatReaderDriver
from firmware_host import CardRead, HandScan, UnitStatus, Zone
from firmware_host.constants import ResetCause
from hw_sim.avr import SeatUnit, ntag_uids
from table.cards import Deal
from table.events import CardPlayed, HandRead, board_started
from table.machine import Table

ROOT = Path(__file__).resolve().parents[2]
OLD_COMMIT = "160d272"        # the firmware before hands read at the table and the dummy zone
DEAL = Deal.from_pbn("N:QJ3.KQ982.KT63.Q K985.J653.74.K84 AT7.4.AQ85.J7632 642.AT7.J92.AT95")
# How long, in the unit's emulated time, a test waits for a read that older firmware never sends: the new
# firmware reads a hand laid on the antenna (13 tags, sent in parts of four) in ~0.75 s, a card on the dummy
# zone in ~0.04 s (measured here, 2026-12-05); four times and more, for a margin.
HAND_READ_MS = 3000
CARD_READ_MS = 1500


@pytest.fixture(scope="module")
def old_elf(firmware_build: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("fw-old")
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", OLD_COMMIT, "firmware"], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    subprocess.run(["make", "-s", "-C", str(where / "firmware"), "build/avr/seatunit.elf"], capture_output=True,
                   check=True)
    return where / "firmware" / "build" / "avr" / "seatunit.elf"


@pytest.fixture(params=["new", "old"])
def unit(request: pytest.FixtureRequest, firmware_build: None, tmp_path: Path) -> Iterator[tuple[str, SeatUnit]]:
    elf = request.getfixturevalue("old_elf") if request.param == "old" else None
    with SeatUnit(f"hd-{request.param}", "SR-HD", "BB-HD", link_dir=tmp_path, elf=elf) as u:
        yield request.param, u


class Reader:
    """The seat reader driver on the unit's reader link, with what it received and what it emitted."""

    def __init__(self, u: SeatUnit) -> None:
        self.uids = ntag_uids("deck-0")
        decks = DeckRegistry()
        decks.learn("deck-0", [self.uids[c] for c in STANDARD_ORDER])
        self.events: queue.Queue[Any] = queue.Queue()
        self.messages: list[Any] = []
        self.driver = SeatReaderDriver(u.reader_url, self.events.put, SeatMap({"SR-HD": "N"}, table=1), decks,
                                       backoff=(0.02, 0.2))
        handle = self.driver.on_message

        def spy(msg: Any) -> bool:
            self.messages.append(msg)
            return handle(msg)
        self.driver.on_message = spy  # type: ignore[method-assign]
        self.driver.set_board(DEAL, "deck-0")
        self.driver.start(0.02)
        self.emitted: list[Any] = []

    def table_events(self) -> list[Any]:
        while True:
            try:
                self.emitted.append(self.events.get_nowait())
            except queue.Empty:
                return [e for e in self.emitted if not isinstance(e, DeviceNotice)]

    def seen(self) -> str:
        """What the driver received and emitted so far, for a failing assertion's message."""
        names = {uid: card for card, uid in self.uids.items()}
        received = [f"{type(m).__name__}({m.zone.name} {names.get(m.uid.hex().upper(), m.uid.hex())} @{m.ts})"
                    if isinstance(m, CardRead) else type(m).__name__ for m in self.messages]
        self.table_events()                           # takes in what the driver emitted since
        emitted = [f"{e.code}" if isinstance(e, DeviceNotice) else f"{e.type} {getattr(e, 'card', '')}"
                   for e in self.emitted]
        return f"received {received}; emitted {emitted}"

    def close(self) -> None:
        self.driver.stop()
        self.driver.close()


def wait_for(cond: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


class SlowPipe:
    """The harness's stdin as a thread a loaded machine runs late writes it: 80 ms pass after every write."""

    def __init__(self, pipe: Any) -> None:
        self.pipe = pipe
        self.writes = 0

    def write(self, text: str) -> int:
        n = int(self.pipe.write(text))
        self.pipe.flush()
        self.writes += 1
        time.sleep(0.08)
        return n

    def flush(self) -> None:
        self.pipe.flush()

    def close(self) -> None:
        self.pipe.close()


def test_a_hand_laid_by_a_late_thread_is_still_one_hand(firmware_build, tmp_path):
    """The hand's 13 tags enter the field together however late the laying thread runs (80 ms after each write
    here, more than the 30 ms the hand is laid after the command): one write, one HandRead, no card played. Line
    by line, the first tag lay alone for a poll round and the firmware read it as a card played."""
    with SeatUnit("hd-late", "SR-HD", "BB-HD", link_dir=tmp_path) as u:
        r = Reader(u)
        try:
            assert wait_for(lambda: r.driver.connected, 15)
            slow = u._proc.stdin = SlowPipe(u._proc.stdin)         # type: ignore[assignment]
            hand = sorted(DEAL.hands["N"])
            u.lay_hand([r.uids[c] for c in hand], after_ms=30)
            assert slow.writes == 1
            assert wait_for(lambda: any(isinstance(e, HandRead) for e in r.table_events()), 15), r.messages
            u.sync(200)
            events = r.table_events()
            assert [type(e) for e in events] == [HandRead], events
            assert sorted(events[0].cards) == hand
            assert not any(isinstance(m, CardRead) for m in r.messages), r.messages
        finally:
            r.close()


def test_a_hand_laid_on_the_antenna_is_read_whole_and_checked(unit):
    """North lays the 13 cards taken out of the board on the antenna: one HandRead of those 13 cards reaches
    the table (sent in parts of four tags), and no card is taken for played. Lifted and laid again: read again
    by the unit, a second read to the table (as when the cards go back into the board, Law 7C)."""
    which, u = unit
    r = Reader(u)
    try:
        assert wait_for(lambda: r.driver.connected, 15)
        hand = sorted(DEAL.hands["N"])
        u.lay_hand([r.uids[c] for c in hand], after_ms=30)
        got = u.holds_within(lambda: any(isinstance(e, HandRead) for e in r.table_events()), HAND_READ_MS)
        assert got == (which == "new")
        if which == "old":
            return
        u.sync(300)
        assert r.table_events() == [HandRead("N", tuple(r.table_events()[0].cards), source=r.driver.source)]
        assert sorted(r.table_events()[0].cards) == hand
        parts = [m for m in r.messages if isinstance(m, HandScan)]
        assert [(m.part, m.parts, len(m.uids)) for m in parts] == [(0, 4, 4), (1, 4, 4), (2, 4, 4), (3, 4, 1)]
        assert len({m.ts for m in parts}) == 1
        u.remove()
        u.lay_hand([r.uids[c] for c in hand], after_ms=200)  # lifted and laid again: the unit reads it again
        assert wait_for(lambda: sum(isinstance(m, HandScan) for m in r.messages) == 8, 15)
        assert wait_for(lambda: len(r.table_events()) == 2, 10)
        assert r.table_events()[1] == r.table_events()[0]     # the same hand, read a second time
        u.remove()
        u.place(r.uids[hand[0]], after_ms=200)             # then the opening lead: a card played
        assert wait_for(lambda: len(r.table_events()) == 3, 10)
        assert r.table_events()[2] == CardPlayed("N", hand[0], source=r.driver.source)
    finally:
        r.close()


def test_a_hand_that_is_not_the_hand_records_is_told_before_the_first_call(unit):
    """North's hand with one of East's cards in place of one of North's, then a hand of 12: the table gets each
    hand as read and its check against the hand record (table.verify, Laws 13A1 and 13) flags it, as the
    seed's check at the table does. Today's firmware sends no hand at all."""
    which, u = unit
    r = Reader(u)
    table = Table("hd")
    try:
        table.apply(board_started(1, deal=DEAL.to_pbn()))
        assert wait_for(lambda: r.driver.connected, 15)
        north = sorted(DEAL.hands["N"])
        cards = north[1:] + [sorted(DEAL.hands["E"])[0]]
        u.lay_hand([r.uids[c] for c in cards], after_ms=30)
        got = u.holds_within(lambda: any(isinstance(e, HandRead) for e in r.table_events()), HAND_READ_MS)
        assert got == (which == "new")
        if which == "old":
            return
        (ev,) = r.table_events()
        assert sorted(ev.cards) == sorted(cards)
        assert [(i.code, i.law) for i in table.apply(ev)] == [("HAND_RECORD_MISMATCH", "13A1")]
        u.remove()
        u.lay_hand([r.uids[c] for c in north[:12]], after_ms=200)    # one card left in the pocket
        assert wait_for(lambda: len(r.table_events()) == 2, 15)
        assert [(i.code, i.law) for i in table.apply(r.table_events()[1])] == [("INCORRECT_HAND_COUNT", "13")]
    finally:
        table.close()
        r.close()


def test_dummys_cards_are_read_from_the_dummy_zone(unit):
    """Declarer plays dummy's card on the dummy zone's antenna (the unit's second MFRC522): a CARD_READ of
    zone DUMMY, the card played for dummy's seat; the play zone's card still counts. Only one chip drives MISO
    at a time. Today's firmware has no second reader: the card is never read."""
    which, u = unit
    r = Reader(u)
    try:
        assert wait_for(lambda: r.driver.connected, 15)
        u.place(r.uids["SQ"], dummy=True)
        got = u.holds_within(lambda: any(isinstance(m, CardRead) for m in r.messages), CARD_READ_MS)
        assert got == (which == "new")
        if which == "new":
            u.place(r.uids["HK"])
            assert wait_for(lambda: len(r.table_events()) == 2, 10)
            reads = [(m.zone, m.uid.hex().upper()) for m in r.messages if isinstance(m, CardRead)]
            assert reads == [(Zone.DUMMY, r.uids["SQ"]), (Zone.PLAY, r.uids["HK"])]
            assert r.table_events() == [CardPlayed("N", "SQ", source=r.driver.source),
                                        CardPlayed("N", "HK", source=r.driver.source)]
            stats = u.stats()
            assert stats["dummy_transceives"] > 0 and stats["spi_contention"] == 0
    finally:
        r.close()


def test_a_watchdog_reset_mid_board_loses_and_doubles_nothing(firmware_build, tmp_path):
    """A card on each antenna, then the watchdog resets the unit: it restarts (UNIT_STATUS says WATCHDOG), reads
    both cards again with its clock started again, and the driver takes them for what they are (the cards
    lying there); the next card counts once."""
    with SeatUnit("hd-wd", "SR-HD", "BB-HD", link_dir=tmp_path) as u:
        r = Reader(u)
        try:
            assert wait_for(lambda: r.driver.connected, 15)
            u.sync(1500)          # the cards are read well after boot: their reads after the restart come earlier
            u.place(r.uids["HK"])  # by the unit's clock, and only the driver's knowing of the restart keeps them
            # from counting again. One card at a time: the unit polls its two antennas in turn, so two cards laid
            # together are read in whichever order the poll reaches them.
            assert wait_for(lambda: len(r.table_events()) == 1, 10), r.seen()
            u.place(r.uids["SQ"], dummy=True)
            assert wait_for(lambda: len(r.table_events()) == 2, 10), r.seen()
            boot = r.driver.session.peer.session_id
            u.watchdog_reset()
            assert wait_for(lambda: r.driver.connected and r.driver.session.peer.session_id != boot, 15), r.seen()
            assert wait_for(lambda: sum(isinstance(m, CardRead) for m in r.messages) >= 4, 10), r.seen()
            u.sync(300)
            assert sum(isinstance(m, CardRead) for m in r.messages) == 4, r.seen()   # each card read once again
            status = [m for m in r.messages if isinstance(m, UnitStatus)]
            assert ResetCause(status[-1].reset_cause) & ResetCause.WATCHDOG
            u.place(r.uids["H9"])
            assert wait_for(lambda: len(r.table_events()) >= 3, 10), r.seen()
            u.sync(300)
            assert r.table_events() == [CardPlayed("N", c, source=r.driver.source) for c in ("HK", "SQ", "H9")], \
                r.seen()
            assert u.stats()["wd_resets"] == 1
        finally:
            r.close()
