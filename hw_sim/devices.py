"""Simulated devices: a seat card reader, a bidding box and a bidding screen, each a ``DeviceSession`` of
``firmware_host`` in the device role, driven by actions (called directly, or a timed script).

All three satisfy ``hw_sim.port.ByteDevice`` and are put on a wire by a :class:`~hw_sim.port.DevicePort`
(which a pty, a TCP port, the pyusb backend or ``sim://`` then exposes).

* :class:`SeatReader` — RFID antennas at one seat: ``place_card(uid, zone)`` sends CARD_READ for a card
  laid in the seat's own play zone (``Zone.PLAY``) or in dummy's zone (``Zone.DUMMY``);
  ``pick_up_hand(uids)`` sends HAND_READ (a whole hand taken out of the board), in parts of four tags as the
  seat unit does, or whole (``hand_part_tags=None``). Faults it applies:
  ``dup`` (the same read twice, 40 ms apart) and ``misread`` (a read of a damaged, unknown UID first).
* :class:`BiddingBox` — call buttons (``press(call, alert=False)``), an alert button, a stop card
  (``stop_card()``), undo within the device's window (``undo(call)``), a Director key (``call_director()``). It
  keeps what the host shows it (SHOW_AUCTION, SHOW_TURN, REFUSE_CALL, SET_MODE) in ``shown``.
* :class:`BiddingScreen` — a bidding box on a screen with a tray sensor (``pass_tray(direction)``).

Every device keeps its session (and so its unacknowledged reads) across an unplug — as if it had a
battery-backed buffer — and re-HELLOs with the same session id when plugged back, so the host resumes the
session and nothing is lost or repeated.

Not modelled: power loss (a reboot with a new session id and lost reads), RF physics (read range,
collisions, several tags in the field at once), hand-pickup misreads (a HAND_READ is always complete and
exact), the device refusing a call in prevent mode on its own (it only records REFUSE_CALL), displays
(``shown`` is a log, nothing is rendered), button debouncing, firmware updates.
"""
from __future__ import annotations

import heapq
import itertools
import zlib
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from firmware_host import (
    CallPressed,
    Capability,
    CardRead,
    DeviceKind,
    DeviceSession,
    DirectorCall,
    HandScan,
    Message,
    SessionConfig,
    StopCard,
    TrayDirection,
    TrayPassed,
    Undo,
    Zone,
)

from .clock import REAL_CLOCK, Clock
from .errors import UnknownSimulation
from .faults import FaultSpec
from .registry import add_factory
from .tags import misread_uid

DUP_DELAY_MS = 40


def _ms(now: float) -> int:
    return int(now * 1000 + 1e-6)


class SimDevice:
    """What every simulated device shares: its session, its wire output, its script, its faults."""
    KIND: DeviceKind
    CAPABILITIES: Capability = Capability.NONE
    FIRMWARE = "hw_sim-1.0"

    def __init__(self, serial: str, *, config: SessionConfig | None = None, session_id: int | None = None,
                 clock: Clock = REAL_CLOCK, faults: FaultSpec | None = None) -> None:
        self.serial = serial
        self.name = serial
        self.clock = clock
        # a stable session id per serial number: the same device, the same faults, the same bytes
        sid = session_id if session_id is not None else (zlib.crc32(serial.encode()) or 1)
        self.session = DeviceSession(self.KIND, serial, self.FIRMWARE, capabilities=int(self.CAPABILITIES),
                                     config=config, session_id=sid)
        self.received: list[Message] = []          # application messages from the host, in order
        self._out = bytearray()
        self._script: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self.sent: dict[str, int] = {}
        self.set_faults(faults or FaultSpec())

    def set_faults(self, faults: FaultSpec) -> None:
        self.faults = faults
        self._rng = faults.rng(f"{self.serial}:device")

    # ------------------------------------------------------------------ ByteDevice
    def attach(self, now: float) -> None:
        self._out.clear()                          # whatever was "sent" into a dead cable is gone
        self._out += self.session.start(_ms(now))

    def detach(self) -> None:
        self._out.clear()

    def receive(self, data: bytes, now: float) -> None:
        for msg in self.session.receive(data, _ms(now)):
            self.received.append(msg)
            self.on_message(msg)

    def poll(self, now: float) -> bytes:
        while self._script and self._script[0][0] <= now:
            _, _, action = heapq.heappop(self._script)
            action()
        self._out += self.session.poll(_ms(now))
        out = bytes(self._out)
        self._out.clear()
        return out

    def next_deadline(self) -> float | None:
        times = []
        d = self.session.next_deadline()
        if d is not None:
            times.append(d / 1000.0)
        if self._script:
            times.append(self._script[0][0])
        if self._out:
            times.append(0.0)
        return min(times) if times else None

    # ------------------------------------------------------------------ helpers
    def on_message(self, msg: Message) -> None:
        """A message from the host (BIND, SHOW_*, SET_MODE ...); subclasses react."""

    def now_ms(self) -> int:
        return _ms(self.clock.now()) & 0xFFFFFFFF

    def send(self, msg: Message) -> None:
        self.sent[msg.NAME] = self.sent.get(msg.NAME, 0) + 1
        self._out += self.session.send(msg, now_ms=_ms(self.clock.now()))

    @property
    def seat(self) -> str | None:
        """The seat the host bound this device to (from WELCOME or BIND)."""
        return self.session.binding.seat if self.session.binding else None

    def schedule(self, at: float, action: str, *args: Any, **kwargs: Any) -> None:
        """Run ``self.<action>(*args, **kwargs)`` when the clock reaches ``at`` (a script step)."""
        fn = getattr(self, action)
        heapq.heappush(self._script, (at, next(self._order), lambda: fn(*args, **kwargs)))

    def load_script(self, steps: Iterable[dict[str, Any]], start: float | None = None) -> int:
        """Schedule steps ``{"after": seconds, "action": "press", ...arguments}`` relative to ``start``
        (default now); returns how many were scheduled."""
        t0 = self.clock.now() if start is None else start
        n = 0
        for step in steps:
            step = dict(step)
            after = float(step.pop("after", 0.0))
            action = step.pop("action")
            self.schedule(t0 + after, action, **step)
            n += 1
        return n


# Tags a HAND_READ part carries, as the project's seat unit sends a hand (docs/protocol.md, HAND_READ).
SEAT_UNIT_HAND_PART = 4


class SeatReader(SimDevice):
    """``hand_part_tags``: a hand picked up goes out in parts of that many tags, as the seat unit sends it
    (4 by default); ``None`` sends it whole, in one HAND_READ (a reader with room for 13 tags in a message)."""
    KIND = DeviceKind.SEAT_READER
    CAPABILITIES = Capability.DUMMY_ZONE | Capability.HAND_READ

    def __init__(self, serial: str, *, hand_part_tags: int | None = SEAT_UNIT_HAND_PART, **kwargs: Any) -> None:
        super().__init__(serial, **kwargs)
        if hand_part_tags is not None and hand_part_tags < 1:
            raise ValueError(f"hand_part_tags must be at least 1, not {hand_part_tags}")
        self.hand_part_tags = hand_part_tags
        self.placed: deque[tuple[Zone, str]] = deque(maxlen=1000)   # (zone, uid) of recent placements

    def place_card(self, uid: str | bytes, zone: Zone | int = Zone.PLAY) -> None:
        raw = bytes.fromhex(uid) if isinstance(uid, str) else bytes(uid)
        ts = self.now_ms()
        zone = Zone(zone)
        self.placed.append((zone, raw.hex().upper()))
        if self.faults.misread and self._rng.random() < self.faults.misread:
            bad = misread_uid(raw.hex(), self._rng)
            self.send(CardRead(zone, bytes.fromhex(bad), ts))
        self.send(CardRead(zone, raw, ts))
        if self.faults.dup and self._rng.random() < self.faults.dup:
            self.send(CardRead(zone, raw, (ts + DUP_DELAY_MS) & 0xFFFFFFFF))

    def pick_up_hand(self, uids: Iterable[str | bytes]) -> None:
        raws = tuple(bytes.fromhex(u) if isinstance(u, str) else bytes(u) for u in uids)
        ts = self.now_ms()
        size = self.hand_part_tags or max(len(raws), 1)
        chunks = [raws[i:i + size] for i in range(0, len(raws), size)] or [()]
        for part, chunk in enumerate(chunks):
            self.send(HandScan(chunk, ts, part=part, parts=len(chunks)))


class BiddingBox(SimDevice):
    KIND = DeviceKind.BIDDING_BOX
    CAPABILITIES = (Capability.ALERT | Capability.UNDO | Capability.STOP_CARD | Capability.DISPLAY
                    | Capability.DIRECTOR_KEY)

    def __init__(self, serial: str, **kwargs: Any) -> None:
        super().__init__(serial, **kwargs)
        self.shown: list[Message] = []

    def press(self, call: str, alert: bool = False) -> None:
        self.send(CallPressed(call, self.now_ms(), alert))

    def undo(self, call: str) -> None:
        self.send(Undo(call, self.now_ms()))

    def stop_card(self) -> None:
        self.send(StopCard(self.now_ms()))

    def call_director(self) -> None:
        self.send(DirectorCall(self.now_ms()))

    def on_message(self, msg: Message) -> None:
        self.shown.append(msg)


class BiddingScreen(BiddingBox):
    KIND = DeviceKind.BIDDING_SCREEN
    CAPABILITIES = BiddingBox.CAPABILITIES | Capability.TRAY

    def pass_tray(self, direction: TrayDirection | int = TrayDirection.AWAY) -> None:
        self.send(TrayPassed(self.now_ms(), TrayDirection(direction)))


KINDS: dict[str, type[SimDevice]] = {"seat-reader": SeatReader, "bidding-box": BiddingBox,
                                     "bidding-screen": BiddingScreen}


def make_device(kind: str, serial: str, **kwargs: Any) -> SimDevice:
    try:
        return KINDS[kind](serial, **kwargs)
    except KeyError:
        raise UnknownSimulation(f"unknown simulated device kind {kind!r} (known: {', '.join(KINDS)})") from None


def _sim_factory(m: Any, faults: FaultSpec) -> Any:
    """``sim://seat-reader-N`` / ``sim://bidding-box-N`` / ``sim://bidding-screen-N`` on first open."""
    from .port import DevicePort
    kind, name = m.group(1), m.group(0)
    return DevicePort(make_device(kind, name.upper(), faults=faults), faults, name=name)


add_factory(r"(seat-reader|bidding-box|bidding-screen)-[\w.-]+", _sim_factory)
