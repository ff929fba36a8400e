"""A simulated table whose devices are the real seat-unit firmware on emulated microcontrollers.

:class:`AvrTable` is a :class:`~bridgetable.simulated_tables.SimulatedTable` whose equipment is four emulated seat units
(:class:`hw_sim.avr.SeatUnit`, one per seat), each giving a seat reader (serial ``SR-<table>-<seat>``) and a
bidding box (``BB-<table>-<seat>``) on two ptys. The unchanged drivers open those ptys as serial ports; the
table plays a record as ``SimulatedTable`` does (same routing, same waiting, same verdict), except that:

* a card is laid on the seat's play antenna, dummy's cards on the dummy zone's antenna of dummy's unit (its
  second MFRC522), and stays there until the next card replaces it; a card laid again while it still lies
  there is lifted and laid again, as a player would;
* a hand in the record (HAND_READ) is laid squared on the seat's play antenna and read there; with
  ``read_hands`` every board's four hands are read at the table as well, right after the board starts (each
  player lays the hand taken out of the board on the antenna, then lifts it), and checked by the table against
  the deal (the hand record): ``SimResult.hands_read`` counts them;
* ``watchdog_resets=N`` resets N units per board the way their watchdog would (seeded choice of the device
  action, just before it): the unit restarts, its links handshake again, the cards on its antennas are read
  again;
* faults: ``corrupt``, ``drop`` and ``dir`` act on the emulated wire (both links of every unit), ``unplug``
  pulls a link's cable, ``misread`` lays a damaged tag before the right one, ``dup`` lifts the card and lays
  it back (the firmware reports it again; the driver's debouncing drops the repeat); ``slow`` is not
  modelled. :class:`AvrTable` also takes byte-level faults the spec has no name for (``bytedrop``,
  ``bytedup``).

The club's decks are NTAG-style 7-byte UIDs (:func:`hw_sim.avr.ntag_uids`), registered directly instead of
learned over the wire (learning 208 tags in real time would take minutes). The units' pty links go in
``link_dir``, by default a fresh ``seatunits-*`` folder of the temp dir that closing the table removes.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from drivers.bidding_box import BiddingBoxDriver
from drivers.decks import STANDARD_ORDER, DeckRegistry
from drivers.notices import DeviceNotice
from drivers.seat_reader import SeatReaderDriver
from firmware_host.constants import Zone
from firmware_host.session import SessionConfig
from hw_sim.avr import EmulatedClock, SeatUnit, ntag_uids, sync_units
from hw_sim.faults import FaultSpec
from hw_sim.tags import misread_uid
from table.cards import SEATS, Deal
from table.events import BoardStarted, CallMade, CardPlayed, HandRead, TableEvent
from table.record import GameRecord

from .simulated_tables import DEFAULT_DECKS, SimError, SimulatedTable, _strip

SEEN_MS = 80            # a tag lies on the antenna this long before it is lifted again (a poll reads it)
AWAY_MS = 90            # and stays away this long: longer than the firmware's 3 empty polls (60 ms)
SETTLE_MS = 150         # emulated ms after the last tag action: the firmware has read the tag and sent it
HAND_LAY_MS = 30        # a hand is laid this long after the command (every tag of it enters the field at once)
# Wall seconds for the drivers to take in what the units sent before the next board: longer than two of the
# link's retransmission intervals (150 ms), so a frame lost on the wire at a board's last card is in before the
# next board's cards. (A repeat read that comes later still is dropped: a new board keeps the debouncing. A
# real table has many seconds between boards.)
FLUSH_S = 0.4
# The host's timings for emulated units (sent in WELCOME): a window of 8 CARD_READs takes ~5 ms on the 500000 Bd
# wire (~20 ms at the 115200 Bd of older firmware) and a tag read takes a reader round or more, so resend
# after 150 ms (the loopback simulators' 40 ms
# would resend whole windows before their acks could arrive); 40 retries (6 s) and 20 s of silence before a
# link is declared lost (a noisy wire must not cost a re-handshake, itself slow with HELLO every 500 ms).
AVR_HOST_CONFIG = SessionConfig(retransmit_ms=150, max_retries=40, link_timeout_ms=20000)


def ntag_club_decks(n: int = DEFAULT_DECKS, seed: int = 0) -> DeckRegistry:
    """The club's registry of emulated 7-byte-UID decks ``deck-0`` .. ``deck-<n-1>``."""
    reg = DeckRegistry()
    for k in range(n):
        uids = ntag_uids(f"deck-{k}", seed)
        reg.learn(f"deck-{k}", [uids[c] for c in STANDARD_ORDER])
    return reg


class _Session:
    """What ``SimulatedTable._settle`` asks of a device session: the firmware's queue is not visible from
    outside the chip, and every action is awaited until its event reached the table."""
    pending = 0


class _Device:
    """The physical side of one link of a seat unit, with the methods the table's actions call."""
    session = _Session()

    def __init__(self, port: AvrPort) -> None:
        self.port = port

    def place_card(self, uid: str, zone: Zone | int = Zone.PLAY) -> None:
        port, unit = self.port, self.port.unit
        faults = port.faults
        dummy = zone == Zone.DUMMY                     # dummy's cards go on the dummy zone's antenna
        if faults.misread and port.rng.random() < faults.misread:
            bad = misread_uid(uid, port.rng)[:len(uid)]
            unit.place(bad, dummy=dummy)
            unit.place(uid, after_ms=SEEN_MS, dummy=dummy)
        elif port.on_antenna.get(dummy) == uid:       # lying there already: lift it and lay it again
            unit.remove(dummy=dummy)
            unit.place(uid, after_ms=AWAY_MS, dummy=dummy)
        else:
            ident = f"{port.name}-{port.next_id()}"
            port.placements.append((ident, uid))
            unit.place(uid, ident=ident, dummy=dummy)
        if faults.dup and port.rng.random() < faults.dup:
            # lifted and laid again: the unit reports the card twice; the driver's debouncing drops the second
            # read, also when it arrives after the next board started (the debouncing is kept across boards)
            unit.remove(after_ms=SEEN_MS, dummy=dummy)
            unit.place(uid, after_ms=AWAY_MS, dummy=dummy)
        port.on_antenna[dummy] = uid

    def pick_up_hand(self, uids: list[str]) -> None:
        """The hand laid on the play antenna; it lies there until the next card laid replaces it, or until
        the player lifts it (:meth:`AvrTable._pick_up_hands`, once the unit has read it)."""
        self.port.unit.lay_hand(uids, after_ms=HAND_LAY_MS)
        self.port.on_antenna.clear()

    def press(self, call: str, alert: bool = False) -> None:
        self.port.unit.press(call, alert)


class AvrPort:
    """One link of a seat unit, in the shape ``SimulatedTable`` drives a device port."""

    def __init__(self, unit: SeatUnit, link: str, name: str, faults: FaultSpec) -> None:
        self.unit, self.link, self.name = unit, link, name
        self.device = _Device(self)
        self.on_antenna: dict[bool, str] = {}          # the tag lying on the play (False) / dummy (True) antenna
        self.placements: list[tuple[str, str]] = []   # (id, uid) of plain placements (for latencies)
        self._ids = 0
        self._unplugged_until = 0.0
        self.set_faults(faults)

    def next_id(self) -> int:
        self._ids += 1
        return self._ids

    def set_faults(self, faults: FaultSpec) -> None:
        self.faults = faults
        self.rng = faults.rng(f"{self.name}:device")

    @property
    def plugged(self) -> bool:
        return time.monotonic() >= self._unplugged_until

    def act(self, fn: Any) -> Any:
        return fn(self.device)

    def unplug(self, duration: float | None = None) -> None:
        seconds = duration if duration is not None else self.faults.replug
        self._unplugged_until = time.monotonic() + seconds
        self.unit.unplug(self.link, seconds)


class AvrTable(SimulatedTable):
    def __init__(self, faults: FaultSpec | str | None = None, seed: int | None = None, *,
                 n_decks: int = DEFAULT_DECKS, bytedrop: float = 0.0, bytedup: float = 0.0,
                 link_dir: str | Path | None = None, read_hands: bool = False, watchdog_resets: int = 0,
                 **kwargs: Any) -> None:
        self.read_hands = read_hands
        self.watchdog_resets = watchdog_resets
        spec = faults if isinstance(faults, FaultSpec) else FaultSpec.parse(faults)
        if spec.slow:
            raise SimError("the avr transport has no 'slow' fault (the emulated wire runs at the firmware's 500000 Bd)")
        self._byte_faults = (bytedrop, bytedup)
        self.units: dict[str, SeatUnit] = {}
        self._card_emits: dict[tuple[str, str], list[int]] = {}
        self.reader_ports: dict[str, AvrPort] = {}
        self._own_unit_dir = not link_dir            # the units' links folder was made here: removed on close
        self._unit_dir = Path(link_dir) if link_dir else Path(tempfile.mkdtemp(prefix="seatunits-"))
        try:
            super().__init__("pty", spec, seed, decks=ntag_club_decks(n_decks), n_decks=n_decks,
                             link_dir=self._unit_dir, **kwargs)
        except BaseException:
            self._remove_unit_dir()
            raise
        self.transport = "avr"

    @property
    def sync_timeout(self) -> float:
        """Wall seconds to wait for the units' answer to a sync (a few emulated ms of settling): generous, as a
        loaded machine emulates them slower than the wall clock; only a unit that stopped answering runs out."""
        return 4 * self.action_timeout

    def close(self) -> None:
        super().close()                               # the units quit and unlink their links first
        self._remove_unit_dir()

    def _remove_unit_dir(self) -> None:
        if self._own_unit_dir:
            shutil.rmtree(self._unit_dir, ignore_errors=True)

    def _driver_kwargs(self) -> dict[str, Any]:
        # the drivers keep the wall clock: the time between boards passes in the units' emulation
        # (_between_boards), which nothing can skip
        return {"config": AVR_HOST_CONFIG, "backoff": (0.02, 0.5)}

    def _build(self) -> None:
        kw = self._driver_kwargs()
        for s in SEATS:
            reader_serial, box_serial = f"SR-{self.name}-{s}", f"BB-{self.name}-{s}"
            unit = SeatUnit(f"{self.name}-{s}", reader_serial, box_serial, link_dir=self._unit_dir)
            self.units[str(s)] = unit
            self._endpoints.append(unit)               # closed with the table
            unit.set_faults(self.faults, *self._byte_faults)
            self.seat_map.bind(reader_serial, str(s))
            self.seat_map.bind(box_serial, str(s))
            reader = SeatReaderDriver(unit.reader_url, self._emit, self.seat_map, self.decks, **kw)
            box = BiddingBoxDriver(unit.box_url, self._emit, self.seat_map, **kw)
            self.reader_ports[str(s)] = AvrPort(unit, "reader", reader_serial, self.faults)
            self.readers[s] = (self.reader_ports[str(s)], reader)  # type: ignore[assignment]
            self.boxes[s] = (AvrPort(unit, "box", box_serial, self.faults), box)  # type: ignore[assignment]
        # the harness's waits count the units' emulated time (the drivers, the host's side, keep the wall clock)
        self.clock = EmulatedClock(self.units.values())
        for d in self.drivers:
            d.start(0.02)

    def _pick_up_hands(self, deal: Deal | None, deck: dict[str, str], received: list[TableEvent],
                       device_notices: list[DeviceNotice], mismatches: list[str]) -> int:
        """Each player lays the hand taken out of the board on the play antenna and lifts it again; the table
        gets the four hands as the readers read them (it checks them against the hand record)."""
        if not self.read_hands or deal is None:
            return 0
        for s in SEATS:
            self.reader_ports[str(s)].device.pick_up_hand([deck[c] for c in deal.hands[s]])
        got: dict[str, tuple[str, ...]] = {}
        deadline = self.clock.now() + self.action_timeout
        while len(got) < 4:
            ev = self._next(None, deadline)
            if ev is None:
                mismatches.append(f"timed out waiting for the hands picked up (read: {sorted(got)})")
                break
            if isinstance(ev, DeviceNotice):
                device_notices.append(ev)
                continue
            self._apply(ev, received)
            if not isinstance(ev, HandRead) or str(ev.seat) in got:
                mismatches.append(f"unexpected {_strip(ev)} while the hands were picked up")
                continue
            got[str(ev.seat)] = ev.cards
            if sorted(ev.cards) != sorted(deal.hands[ev.seat]):
                mismatches.append(f"{ev.seat}'s hand read as {sorted(ev.cards)}")
        for unit in self.units.values():               # read: the players lift their hands
            unit.remove()
        sync_units(self.units.values(), SETTLE_MS, self.sync_timeout)   # and the next card laid is a card played
        return len(got)

    def _before_action(self, port: Any, action_no: int, record: GameRecord) -> None:
        if action_no in self._watchdog_plan(record):
            port.unit.watchdog_reset()                 # the action waits in the unit until its link is back
            port.unit.sync(SETTLE_MS, timeout=self.sync_timeout)

    def _watchdog_plan(self, record: GameRecord) -> set[int]:
        """The device actions before which a unit's watchdog resets it, seeded per record (as the unplugs)."""
        n_actions = sum(1 for e in record.events if isinstance(e, (CallMade, CardPlayed, HandRead)))
        if not self.watchdog_resets or not n_actions:
            return set()
        rng = self.faults.rng(f"watchdog:{self.name}:{record.source}:{record.index}")
        return set(rng.sample(range(n_actions), min(self.watchdog_resets, n_actions)))

    def _start_board(self, ev: BoardStarted) -> tuple[Deal | None, dict[str, str]]:
        """Before the readers are told of a new board, every unit has done and sent what the last board's
        actions caused (a card laid twice is still reported twice)."""
        sync_units(self.units.values(), SETTLE_MS, self.sync_timeout)
        time.sleep(FLUSH_S)
        return super()._start_board(ev)

    def _between_boards(self) -> None:
        """The players gather their cards: every antenna is emptied, then more emulated time than the
        readers' debounce window passes (wall time would not do: a loaded machine slows the emulation)."""
        window_ms = max(int(drv.debouncer.window * 1000) for _, drv in self.readers.values())
        for unit in self.units.values():
            unit.remove()
            unit.remove(dummy=True)
        sync_units(self.units.values(), window_ms + SETTLE_MS, self.sync_timeout)
        for port in self.reader_ports.values():
            port.on_antenna.clear()

    def set_faults(self, faults: FaultSpec | str | None, seed: int | None = None) -> None:
        super().set_faults(faults, seed)
        for unit in self.units.values():
            unit.set_faults(self.faults, *self._byte_faults)

    def set_byte_faults(self, bytedrop: float = 0.0, bytedup: float = 0.0) -> None:
        """Drop / duplicate single bytes on every emulated wire (faults the spec string has no name for)."""
        self._byte_faults = (bytedrop, bytedup)
        for unit in self.units.values():
            unit.set_faults(self.faults, bytedrop, bytedup)

    def _emit(self, ev: Any) -> None:
        if isinstance(ev, CardPlayed):
            self._card_emits.setdefault((str(ev.seat), ev.card), []).append(time.monotonic_ns())
        self._events.put(ev)

    def card_latencies_ms(self) -> list[float]:
        """Per plain card placement (no misread, double read or re-lay): from the tag entering the emulated
        antenna's field to the driver emitting its ``CardPlayed``, in milliseconds."""
        out: list[float] = []
        for seat, port in self.reader_ports.items():
            for ident, uid in port.placements:
                placed = port.unit.placed_ns.get(ident)
                found = self.decks.lookup(uid)
                if placed is None or found is None:
                    continue
                after = [t for t in self._card_emits.get((seat, found.card), []) if t >= placed]
                if after:
                    out.append((min(after) - placed) / 1e6)
        return out
