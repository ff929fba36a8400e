"""Clocks for the simulators: the real monotonic clock, a virtual one a test advances by hand, or the real one
with jumps.

With a :class:`VirtualClock` nothing ever sleeps: a read that would wait advances the clock instead, so a
board with retransmits and heartbeats replays in milliseconds and always the same way. A :class:`SkippingClock`
runs with the real clock (the devices' bytes cross real ptys, sockets and driver threads) except that the
simulation may move it ahead at a quiet moment, the minutes a real table takes between two boards, instead of
sleeping through them.
"""
from __future__ import annotations

import threading
import time
from typing import Protocol


class RealClock:
    virtual = False

    @staticmethod
    def now() -> float:
        return time.monotonic()

    def advance(self, dt: float) -> None:          # real time passes by itself
        time.sleep(max(0.0, dt))


class VirtualClock:
    virtual = True

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> float:
        return self._now

    def advance(self, dt: float) -> None:
        with self._lock:
            self._now += max(0.0, dt)


class SkippingClock:
    """The monotonic clock plus the time skipped so far: ``advance`` jumps ahead at once. Every device and driver
    that reads it sees the time pass (a reader's debounce window runs out); nothing waits for it. Code that
    times on ``time.monotonic()`` itself (the reactor) converts with :func:`on_monotonic`."""

    virtual = False

    def __init__(self) -> None:
        self._skipped = 0.0
        self._lock = threading.Lock()

    def now(self) -> float:
        return time.monotonic() + self._skipped

    def advance(self, dt: float) -> None:
        with self._lock:
            self._skipped += max(0.0, dt)


REAL_CLOCK = RealClock()


def on_monotonic(clock: Clock, t: float | None) -> float | None:
    """A moment of ``clock`` as a moment of ``time.monotonic()`` (the same for the real clock; earlier by the
    time skipped for a :class:`SkippingClock`)."""
    return None if t is None else t - clock.now() + time.monotonic()


class Clock(Protocol):
    """What the simulators ask of a clock (the two above; the emulated seat units' time, ``hw_sim.avr``)."""

    virtual: bool

    def now(self) -> float: ...

    def advance(self, dt: float) -> None: ...
