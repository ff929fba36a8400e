"""Clocks for the simulators: the real monotonic clock, or a virtual one a test advances by hand.

With a :class:`VirtualClock` nothing ever sleeps: a read that would wait advances the clock instead, so a
board with retransmits and heartbeats replays in milliseconds and always the same way.
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


REAL_CLOCK = RealClock()


class Clock(Protocol):
    """What the simulators ask of a clock (the two above; the emulated seat units' time, ``hw_sim.avr``)."""

    virtual: bool

    def now(self) -> float: ...

    def advance(self, dt: float) -> None: ...
