"""A simulated table: a game record played through simulated devices, the wire protocol and the drivers.

Equipment (one device per seat and kind): four :class:`~hw_sim.devices.SeatReader` (serial
``SR-<table>-<seat>``) and four :class:`~hw_sim.devices.BiddingBox` (``BB-<table>-<seat>``), each on its
own :class:`~hw_sim.port.DevicePort`, exposed over one transport:

* ``inproc`` — ``sim://`` URLs through ``serial.serial_for_url``, on a virtual clock (nothing sleeps;
  retransmits and reconnect backoffs cost no wall time), single-threaded and reproducible;
* ``pty`` — real pseudo-terminals (termios), ``tcp`` — ``socket://127.0.0.1:PORT``, ``usb`` — the
  simulated pyusb backend through ``usb.core``; these run on the real clock, one driver thread per device
  (the time between two boards is skipped, not slept: ``hw_sim.clock.SkippingClock``).

The drivers (:class:`~drivers.seat_reader.SeatReaderDriver`, :class:`~drivers.bidding_box.BiddingBoxDriver`)
are configured with the seat map (serial number -> seat) and the club's deck registry, exactly as the
service would configure them, and their events feed a live :class:`table.machine.Table`.

How each recorded event travels:

=========================  ==============================================================================
event                      path
=========================  ==============================================================================
``call``                   the seat's bidding box: ``press(call, alert)`` -> CALL_PRESSED -> ``CallMade``
``card``                   the seat's reader: its play zone (dummy's zone for dummy's cards) -> CARD_READ
                           -> ``CardPlayed``
``hand``                   the seat's reader: ``pick_up_hand`` -> HAND_READ -> ``HandRead``
``board``, ``claim``,      the *console* path: a director/scorer console (or the dealing machine, which
``claim_response``,        these tables do not simulate) enters them; they go to the table as they are
``ruling``, ``contract``,
``exposed``
a card not dealt to the    the console path as well: no reader could see a card at a seat that does not
seat, a card read twice    hold it (a recording error in the file), and a card lying on the same
in a row in the same       antenna twice in a row is one read to a debouncing reader
zone, a hand with a card
listed twice
=========================  ==============================================================================

Events are played one at a time, in the record's order: the next action starts when the previous event
has reached the table (players act in turn). Each board uses deck ``deck-<(board-1) mod decks>`` of the
club; the seat readers are told the board's deal and deck (for the wrong-seat / wrong-deck checks).

Faults (``hw_sim.faults``) apply to every device; ``unplug=N`` unplugs N devices per board (seeded choice
of the device action), just before the action, for ``replug`` seconds: the action then waits in the
device until the driver has reconnected and the session resumed.

The verdict of a record is ``table.replay.verdict`` of the events as the drivers delivered them — the
same function ``bridgetable replay`` uses — so a faithful run prints the very same JSON.

Not modelled: the dealing machine (boards and deals come by the console), players' timing, several tables
sharing a device, a device that reboots (loses its session) instead of being unplugged.

An integration harness, not a device simulator: it joins the simulated devices (``hw_sim``) to the real
host side (``drivers``, the law engine), as the service does with real devices.
"""
from __future__ import annotations

import itertools
import logging
import queue
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from drivers.base import DeviceDriver
from drivers.bidding_box import BiddingBoxDriver
from drivers.config import SeatMap
from drivers.decks import STANDARD_ORDER, DeckRegistry
from drivers.link import register_usb_backend
from drivers.notices import DeviceNotice
from drivers.seat_reader import SeatReaderDriver
from firmware_host import SessionConfig, Zone
from hw_sim.clock import Clock, SkippingClock, VirtualClock
from hw_sim.devices import SEAT_UNIT_HAND_PART, BiddingBox, SeatReader, SimDevice
from hw_sim.faults import FaultSpec
from hw_sim.port import DevicePort
from hw_sim.registry import register, unregister
from hw_sim.tags import deck_uids
from table.cards import SEATS, CardError, Deal, Seat
from table.events import BoardStarted, CallMade, CardPlayed, HandRead, TableEvent, to_dict
from table.machine import Table, TableError
from table.record import GameRecord
from table.replay import read_records, verdict

log = logging.getLogger(__name__)

TRANSPORTS = ("inproc", "pty", "tcp", "usb")
DEFAULT_DECKS = 4

# Host timings for simulated tables (the host's choice, sent to each device in WELCOME): a loopback wire
# answers in well under a millisecond, so retransmit after 40 ms; a link with 5 % of its bytes corrupted
# loses most 30-byte frames, so allow 60 retries (2.4 s) and 20 s of silence (heartbeats are lost too) before
# declaring the link lost (each loss costs a re-handshake, itself slow on such a link). Devices keep the
# protocol's defaults.
HOST_CONFIG = SessionConfig(retransmit_ms=40, max_retries=60, link_timeout_ms=20000)
DEVICE_CONFIG = SessionConfig(hello_interval_ms=100)

_tables = itertools.count(1)


class SimError(Exception):
    """The simulated table could not be set up or an action could not be carried out."""


@dataclass
class SimResult:
    verdict: dict[str, Any]
    events: list[TableEvent]                        # as the table received them
    device_notices: list[DeviceNotice] = field(default_factory=list)
    console: int = 0                                # events that went by the console path
    via_devices: int = 0
    mismatches: list[str] = field(default_factory=list)
    hands_read: int = 0                             # hands read at the table beyond the record's (AvrTable)

    @property
    def faithful(self) -> bool:
        return not self.mismatches


def _strip(e: Any) -> dict[str, Any]:
    d = to_dict(e)
    d.pop("source", None)
    d.pop("ts", None)
    if isinstance(e, HandRead):
        d["cards"] = sorted(d["cards"])               # a hand is its cards, in whatever order a reader read them
    if isinstance(e, CallMade):
        d.pop("explanation", None)     # a bidding box sends a call and its alert; an explanation is written on a page
    return d


def _placing(uid: str | bytes) -> Callable[[Any], None]:
    """The action of a reader laying the card with tag ``uid`` in its play zone."""
    return lambda reader: reader.place_card(uid, Zone.PLAY)


def club_decks(n: int = DEFAULT_DECKS, seed: int = 0) -> DeckRegistry:
    """The simulated club's registry, as if its decks had been learned (see ``SimulatedTable.learn_decks``)."""
    reg = DeckRegistry()
    for k in range(n):
        uids = deck_uids(f"deck-{k}", seed)
        reg.learn(f"deck-{k}", [uids[c] for c in STANDARD_ORDER])
    return reg


class SimulatedTable:
    def __init__(self, transport: str = "inproc", faults: FaultSpec | str | None = None, seed: int | None = None,
                 *, name: str | None = None, decks: DeckRegistry | None = None, n_decks: int = DEFAULT_DECKS,
                 action_timeout: float | None = None, link_dir: str | Path | None = None,
                 on_applied: Callable[[TableEvent], None] | None = None,
                 hand_part_tags: int | None = SEAT_UNIT_HAND_PART) -> None:
        if transport not in TRANSPORTS:
            raise SimError(f"unknown transport {transport!r} (one of {', '.join(TRANSPORTS)})")
        self.transport = transport
        spec = faults if isinstance(faults, FaultSpec) else FaultSpec.parse(faults)
        self.faults = replace(spec, seed=seed) if seed is not None else spec
        self.name = name or f"T{next(_tables)}"
        self.virtual = transport == "inproc"
        self.clock: Clock = VirtualClock() if self.virtual else SkippingClock()
        self.action_timeout = action_timeout or (600.0 if self.virtual else 30.0)
        self.n_decks = n_decks
        self.hand_part_tags = hand_part_tags           # how the seat readers send a hand (hw_sim.devices.SeatReader)
        self._learn_over_wire = decks is None
        self.decks = decks if decks is not None else DeckRegistry()
        self._events: queue.Queue[Any] = queue.Queue()
        self.on_applied = on_applied
        self._endpoints: list[Any] = []
        self._link_dir = Path(link_dir) if link_dir else None
        self._own_link_dir = False                     # the pty links' folder was made here: removed on close
        # the last tag laid on each (seat, zone) of the board in play; the next board starts from a copy
        self._board_reads: dict[tuple[Seat, int], str] = {}
        self._usb_backend: Any = None
        self._live_error: str | None = None           # the first error the live table raised in this record
        self.readers: dict[Seat, tuple[DevicePort, SeatReaderDriver]] = {}
        self.boxes: dict[Seat, tuple[DevicePort, BiddingBoxDriver]] = {}
        self.seat_map = SeatMap({}, table=1)
        self.table = Table(self.name)                # the live table the drivers feed
        self._verdict_table = Table(self.name + "-verdict")
        self._closed = False
        try:
            self._build()
            if self._learn_over_wire:
                self.learn_decks(n_decks)
        except Exception:
            self.close()
            raise

    # ------------------------------------------------------------------ construction
    def _device_faults(self) -> FaultSpec:
        return self.faults

    def _expose(self, port: DevicePort, kind: str) -> str:
        t = self.transport
        if t == "inproc":
            return register(port, f"{self.name.lower()}-{port.name.lower()}")
        if t == "pty":
            from hw_sim.pty import PtyEndpoint
            if self._link_dir is None:
                self._link_dir = Path(tempfile.mkdtemp(prefix=f"hw_sim-{self.name}-"))
                self._own_link_dir = True
            pty_ep = PtyEndpoint(port, self._link_dir, port.name)
            self._endpoints.append(pty_ep)
            return pty_ep.url
        if t == "tcp":
            from hw_sim.tcp import TcpEndpoint
            tcp_ep = TcpEndpoint(port)
            self._endpoints.append(tcp_ep)
            return tcp_ep.url
        from hw_sim.usb_backend import BIDDING_BOX_PID, SEAT_READER_PID, SimUsbBackend
        if self._usb_backend is None:
            backend = self._usb_backend = SimUsbBackend()
            register_usb_backend(f"hw_sim-{self.name}", lambda: backend)
        dev = self._usb_backend.add(port, pid=SEAT_READER_PID if kind == "reader" else BIDDING_BOX_PID,
                                    serial_number=port.name)
        url: str = self._usb_backend.url_of(dev, f"hw_sim-{self.name}")
        return url

    def _driver_kwargs(self) -> dict[str, Any]:
        if self.virtual:
            clock = self.clock
            return {"clock": clock.now, "sleep": clock.advance, "config": HOST_CONFIG, "backoff": (0.05, 1.0)}
        # the drivers read the table's clock too, so they see the time between boards pass (_between_boards)
        return {"clock": self.clock.now, "config": HOST_CONFIG, "backoff": (0.02, 0.5)}

    def _build(self) -> None:
        kw = self._driver_kwargs()
        for s in SEATS:
            for kind in ("reader", "box"):
                serial = f"{'SR' if kind == 'reader' else 'BB'}-{self.name}-{s}"
                device: SimDevice = (SeatReader(serial, config=DEVICE_CONFIG, clock=self.clock,
                                                hand_part_tags=self.hand_part_tags) if kind == "reader"
                                     else BiddingBox(serial, config=DEVICE_CONFIG, clock=self.clock))
                port = DevicePort(device, self._device_faults(), clock=self.clock, name=serial)
                url = self._expose(port, kind)
                self.seat_map.bind(serial, str(s))
                if kind == "reader":
                    self.readers[s] = (port, SeatReaderDriver(url, self._events.put, self.seat_map, self.decks, **kw))
                else:
                    self.boxes[s] = (port, BiddingBoxDriver(url, self._events.put, self.seat_map, **kw))
        if not self.virtual:
            for d in self.drivers:
                d.start(0.05)

    @property
    def _pairs(self) -> list[tuple[DevicePort, DeviceDriver]]:
        return [*self.readers.values(), *self.boxes.values()]

    @property
    def drivers(self) -> list[DeviceDriver]:
        return [d for _, d in self.readers.values()] + [d for _, d in self.boxes.values()]

    @property
    def ports(self) -> list[DevicePort]:
        return [p for p, _ in self.readers.values()] + [p for p, _ in self.boxes.values()]

    # ------------------------------------------------------------------ the pump
    def _step(self, active: DeviceDriver | None) -> None:
        """Inproc: give every driver a turn, then let the active one wait (advancing the virtual clock)."""
        if not self.virtual:
            return
        now = self.clock.now()
        for port, d in self._pairs:
            if d is not active and self._due(port, d, now):
                d.pump(0)
        if active is not None:
            active.pump(0.25)
        else:
            self.clock.advance(0.01)

    @staticmethod
    def _due(port: DevicePort, d: DeviceDriver, now: float) -> bool:
        """Would pumping this driver do anything now? (the port has bytes, a timer is due, a reconnect)"""
        if d.link is None:
            return True
        wake = port.next_wakeup()
        if port.has_output or (wake is not None and wake <= now):
            return True
        deadline = d.session.next_deadline()
        return deadline is not None and deadline <= d._ms(now)

    def _next(self, active: DeviceDriver | None, deadline: float) -> Any:
        """The next event from any driver, or None at the deadline."""
        while True:
            try:
                if self.virtual:
                    return self._events.get_nowait()
                return self._events.get(timeout=min(0.05, max(0.0, deadline - self.clock.now())))
            except queue.Empty:
                pass
            if self.clock.now() >= deadline:
                return None
            self._step(active)

    def wait_connected(self, timeout: float | None = None) -> None:
        deadline = self.clock.now() + (timeout or self.action_timeout)
        while not all(d.connected for d in self.drivers):
            if self.clock.now() >= deadline:
                missing = [d.url for d in self.drivers if not d.connected]
                raise SimError(f"devices did not connect: {', '.join(missing)}")
            ev = self._next(None, min(deadline, self.clock.now() + 0.05))
            if ev is not None:
                self._other(ev, [], [])

    def _settle(self, received: list[TableEvent], device_notices: list[DeviceNotice], mismatches: list[str]) -> None:
        """Wait until every device has had every read acknowledged, and take any late event."""
        deadline = self.clock.now() + self.action_timeout
        while self.clock.now() < deadline:
            busy = [p for p in self.ports if p.device.session.pending or not p.plugged]  # type: ignore[attr-defined]
            if not busy and self._events.empty():
                break
            # an acknowledgement clears a device's pending frame without an event: look again soon
            ev = self._next(None, min(deadline, self.clock.now() + 0.002))
            if ev is not None:
                self._other(ev, received, device_notices, mismatches)

    def _other(self, ev: Any, received: list[TableEvent], device_notices: list[DeviceNotice],
               mismatches: list[str] | None = None) -> None:
        """An event that arrived outside an action's wait."""
        if isinstance(ev, DeviceNotice):
            device_notices.append(ev)
        else:
            if mismatches is not None:
                mismatches.append(f"unexpected {_strip(ev)}")
            self._apply(ev, received)

    # ------------------------------------------------------------------ decks
    def learn_decks(self, n: int) -> None:
        """Teach the club's decks through seat reader N, tag by tag in the standard order. The reader's own
        faults (misread, dup) are off while learning — a club learns a deck carefully, and a misread would
        teach a wrong tag; the wire faults stay on."""
        port, drv = self.readers[Seat.N]
        saved = port.faults
        port.set_faults(replace(saved, misread=0.0, dup=0.0))
        try:
            self.wait_connected()
            for k in range(n):
                name = f"deck-{k}"
                uids = deck_uids(name, 0)
                learner = drv.learn(name)
                for card in STANDARD_ORDER:
                    port.act(_placing(uids[card]))
                    deadline = self.clock.now() + self.action_timeout
                    while learner.next_card == card:
                        ev = self._next(drv, deadline)
                        if ev is None:
                            raise SimError(f"learning {name}: {card} was never read")
                drv.finish_learning()
        finally:
            port.set_faults(saved)

    # ------------------------------------------------------------------ playing a record
    def _apply(self, event: TableEvent, received: list[TableEvent]) -> None:
        received.append(event)
        if self._live_error is None:
            try:
                self.table.apply(event)
            except TableError as err:
                self._live_error = str(err)
            except Exception as err:                   # an engine bug: verdict() reports it the same way
                self._live_error = f"engine error: {err!r}"
        if self.on_applied is not None:
            self.on_applied(event)

    def _dummy(self) -> Seat | None:
        play = self.table.play
        return play.dummy if play is not None else None

    def _route(self, ev: TableEvent, deal: Deal | None, last_read: dict[tuple[Seat, int], str],
               deck: dict[str, str]) -> tuple[DevicePort, DeviceDriver, Callable[[Any], None]] | None:
        """The device action for an event, or None for the console path."""
        if isinstance(ev, CallMade):
            port, drv = self.boxes[ev.seat]
            return port, drv, lambda d: d.press(ev.call, ev.alert)
        if isinstance(ev, CardPlayed):
            if deal is not None and deal.owner.get(ev.card) != ev.seat:
                return None
            zone = Zone.DUMMY if self._dummy() == ev.seat else Zone.PLAY
            uid = deck[ev.card]
            if last_read.get((ev.seat, zone)) == uid:
                return None
            last_read[(ev.seat, zone)] = uid
            port, rdrv = self.readers[ev.seat]
            return port, rdrv, lambda d: d.place_card(uid, zone)
        if isinstance(ev, HandRead):
            if not ev.cards or len(set(ev.cards)) != len(ev.cards) or len(ev.cards) > 32:
                return None
            uids = [deck[c] for c in ev.cards]
            port, rdrv = self.readers[ev.seat]
            return port, rdrv, lambda d: d.pick_up_hand(uids)
        return None

    def play(self, record: GameRecord) -> SimResult:
        """Play one record through the devices; the verdict is ``table.replay.verdict`` of what arrived."""
        received: list[TableEvent] = []
        device_notices: list[DeviceNotice] = []
        mismatches: list[str] = []
        self._live_error = None
        console = via = hands = 0
        events = record.events
        if events and events[0].type == "board":
            self.wait_connected()
            self._settle(received, device_notices, mismatches)
            plan = self._unplug_plan(record)
            deal: Deal | None = None
            deck: dict[str, str] = {}
            last_read = self._board_reads
            previous: dict[tuple[Seat, int], str] = {}
            action_no = 0
            for ev in events:
                if isinstance(ev, BoardStarted):
                    deal, deck = self._start_board(ev)
                    previous = dict(last_read)
                    last_read.clear()
                elif previous and isinstance(ev, CardPlayed) and self._laid_last_board(ev, deck, previous):
                    self._between_boards()
                    previous = {}
                routed = self._route(ev, deal, last_read, deck)
                if routed is None:
                    console += 1
                    self._apply(ev, received)
                    if isinstance(ev, BoardStarted):
                        hands += self._pick_up_hands(deal, deck, received, device_notices, mismatches)
                    continue
                port, drv, action = routed
                if action_no in plan:
                    port.unplug(self.faults.replug)
                self._before_action(port, action_no, record)
                action_no += 1
                via += 1
                port.act(action)
                self._await(ev, drv, received, device_notices, mismatches)
            self._settle(received, device_notices, mismatches)
        else:
            for ev in events:
                console += 1
                received.append(ev)
        out = GameRecord(record.source, record.index, received, record.recorded, record.tags, record.notes,
                         record.error)
        v = verdict(out, self._verdict_table)
        return SimResult(v, received, device_notices, console, via, mismatches, hands)

    def _pick_up_hands(self, deal: Deal | None, deck: dict[str, str], received: list[TableEvent],
                       device_notices: list[DeviceNotice], mismatches: list[str]) -> int:
        """After a board started: the hands its players read at the table beyond the record's own hand events
        (none here); how many arrived."""
        return 0

    def _before_action(self, port: DevicePort, action_no: int, record: GameRecord) -> None:
        """A fault of the equipment itself, just before device action ``action_no`` (none here)."""

    def _start_board(self, ev: BoardStarted) -> tuple[Deal | None, dict[str, str]]:
        name = f"deck-{((ev.board or 1) - 1) % self.n_decks}"
        uids = {card: self.decks.decks[name].uid_of(card) for card in STANDARD_ORDER}
        deal = None
        if ev.deal:
            try:
                deal = Deal.from_pbn(ev.deal)
            except CardError:
                deal = None
        for _, drv in self.readers.values():
            drv.set_board(deal, name)
        return deal, uids

    @staticmethod
    def _laid_last_board(ev: CardPlayed, deck: dict[str, str], previous: dict[tuple[Seat, int], str]) -> bool:
        uid = deck.get(ev.card)
        return uid is not None and any(seat == ev.seat and tag == uid for (seat, _), tag in previous.items())

    def _between_boards(self) -> None:
        """The same tag is to be laid where it lay last board (a record replayed twice, or one deck for two
        boards): the time a real table takes between boards passes first, longer than the readers' debounce
        window, which a new board does not reset. The table's clock jumps (virtual, or the real one skipping):
        the devices and drivers see the time pass, and nobody sleeps through it."""
        window = max((drv.debouncer.window for _, drv in self.readers.values()), default=0.0)
        self.clock.advance(window + 0.1)

    def _unplug_plan(self, record: GameRecord) -> set[int]:
        n_actions = sum(1 for e in record.events if isinstance(e, (CallMade, CardPlayed, HandRead)))
        if not self.faults.unplug or not n_actions:
            return set()
        rng = self.faults.rng(f"unplug:{self.name}:{record.source}:{record.index}")
        return set(rng.sample(range(n_actions), min(self.faults.unplug, n_actions)))

    def _await(self, expected: TableEvent, drv: DeviceDriver, received: list[TableEvent],
               device_notices: list[DeviceNotice], mismatches: list[str]) -> None:
        deadline = self.clock.now() + self.action_timeout
        want = _strip(expected)
        while True:
            ev = self._next(drv, deadline)
            if ev is None:
                mismatches.append(f"timed out waiting for {want}")
                return
            if isinstance(ev, DeviceNotice):
                device_notices.append(ev)
                continue
            self._apply(ev, received)
            got = _strip(ev)
            if got == want:
                return
            mismatches.append(f"expected {want}, got {got}")

    def set_faults(self, faults: FaultSpec | str | None, seed: int | None = None) -> None:
        """New faults (or a new seed) for every device from now on: many seeded runs on one table."""
        spec = faults if isinstance(faults, FaultSpec) else FaultSpec.parse(faults)
        self.faults = replace(spec, seed=seed) if seed is not None else spec
        for p in self.ports:
            p.set_faults(self.faults)

    # ------------------------------------------------------------------ lifecycle
    def health(self) -> list[dict[str, Any]]:
        return [d.health() for d in self.drivers]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for d in self.drivers:
            d.stop()
        # pyserial's socket:// close sleeps 0.3 s: close the links side by side
        closers = [threading.Thread(target=d.close) for d in self.drivers]
        for t in closers:
            t.start()
        for t in closers:
            t.join()
        for ep in self._endpoints:
            ep.close()
        if self.transport == "inproc":
            for p in self.ports:
                unregister(f"{self.name.lower()}-{p.name.lower()}")
        self.table.close()
        self._verdict_table.close()
        if self._own_link_dir and self._link_dir is not None:
            shutil.rmtree(self._link_dir, ignore_errors=True)

    def __enter__(self) -> SimulatedTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def sim_replay_paths(paths: Iterable[str | Path], sim: SimulatedTable,
                     results: list[SimResult] | None = None) -> Iterator[dict[str, Any]]:
    """Like ``table.replay.replay_paths``, with every record played through ``sim``."""
    for path in paths:
        try:
            for record in read_records(path):
                r = sim.play(record)
                if results is not None:
                    results.append(r)
                yield r.verdict
        except SimError:
            raise
        except Exception as err:          # a reader bug must not stop the run; report it as a record
            log.exception("reading %s failed", path)
            yield verdict(GameRecord(str(path), -1, error=f"reader failed: {err!r}"), sim._verdict_table)
