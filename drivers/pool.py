"""Many drivers on one thread: a selector over their links' file descriptors, a heap of their timers.

``DeviceDriver.start()`` gives each driver a thread of its own — simple, and right for a handful of
devices. A club with a hundred tables has eight hundred devices; eight hundred Python threads waking for
heartbeats cost more than the work. :class:`DriverPool` pumps them all from one thread instead: a driver is
pumped when its link's descriptor is readable, when its session has a timer due (retransmit, ack,
heartbeat, link timeout) or when its reconnect backoff has passed. Links without a descriptor (USB,
``sim://``) are pumped every ``tick`` seconds.

Drivers keep their own clock; the pool assumes the real monotonic clock (``time.monotonic``), the
drivers' default. Events are emitted on the pool's thread.
"""
from __future__ import annotations

import heapq
import itertools
import logging
import selectors
import threading
import time
from collections.abc import Iterable

from firmware_host import SessionConfig

from .base import DeviceDriver

log = logging.getLogger(__name__)

# Session timings for drivers that share a pool (sent to each device in WELCOME). With the protocol's
# default 1 s heartbeats both ways, 800 idle devices make 1,600 frames a second, three times the frames of
# a club's play; 2.5 s heartbeats halve the idle CPU on both sides and shorten the queue an event can wait
# in behind them (bench/device_latency.py: p99 and CPU per event, docs/PERFORMANCE.md). An unplugged serial,
# USB or TCP device is still seen at once (the read fails); only a silently hung device now takes 8 s.
# ACKs go out at once (the protocol's default): a driver hands an event on before it writes the ACK, so the
# write is off the event's path, and one pump per frame does both. Delaying ACKs by 40 ms cost a second
# pump per frame; against it, in 4 interleaved pairs: CPU per event 340-390 µs against 420-680 µs, p99
# 0.70-0.90 ms against 1.09-10.1 ms (bench/device_latency.py --ack-delay-ms 0,40, docs/PERFORMANCE.md).
POOL_SESSION = SessionConfig(heartbeat_ms=2500, link_timeout_ms=8000)


class DriverPool:
    def __init__(self, drivers: Iterable[DeviceDriver] = (), *, tick: float = 0.05) -> None:
        self.tick = tick
        self._drivers: list[DeviceDriver] = []
        self._sel = selectors.DefaultSelector()
        self._fds: dict[DeviceDriver, int] = {}
        self._timers: list[tuple[float, int, DeviceDriver]] = []
        self._scheduled: dict[DeviceDriver, float] = {}
        self._tie = itertools.count()
        self._lock = threading.Lock()
        self._added: list[DeviceDriver] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.pumps = 0
        for d in drivers:
            self.add(d)

    @property
    def drivers(self) -> list[DeviceDriver]:
        return list(self._drivers)

    def add(self, driver: DeviceDriver) -> None:
        """Add a driver (any thread); it is first pumped on the pool's next turn."""
        with self._lock:
            self._added.append(driver)

    # ------------------------------------------------------------------ the pool's thread
    def _schedule(self, d: DeviceDriver, now: float) -> None:
        t = d.next_due()
        if d not in self._fds:                  # no descriptor to wake us: look again at the next tick
            t = now + self.tick if t is None else min(t, now + self.tick)
        if t is None:
            self._scheduled.pop(d, None)
            return
        if self._scheduled.get(d) != t:
            self._scheduled[d] = t
            heapq.heappush(self._timers, (t, next(self._tie), d))

    def _watch(self, d: DeviceDriver) -> None:
        """Keep the selector in step with the driver's link (it changes when the driver reconnects)."""
        fd = d.fileno()
        old = self._fds.get(d)
        if fd == old:
            return
        if old is not None:
            try:
                self._sel.unregister(old)
            except (KeyError, ValueError):
                pass
            del self._fds[d]
        if fd is not None:
            try:
                self._sel.register(fd, selectors.EVENT_READ, d)
                self._fds[d] = fd
            except (KeyError, ValueError, OSError):
                log.debug("cannot watch fd %s of %s", fd, d.url)

    def _pump(self, d: DeviceDriver, readable: bool = True) -> None:
        self.pumps += 1
        try:
            d.pump(0, read=readable or d not in self._fds)
        except Exception:
            log.exception("%s: driver step failed", d.name)
        self._watch(d)
        self._schedule(d, time.monotonic())

    def run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                added, self._added = self._added, []
            for d in added:
                self._drivers.append(d)
                self._pump(d)
            now = time.monotonic()
            due: list[DeviceDriver] = []
            timers = self._timers
            while timers and timers[0][0] <= now:
                t, _, d = heapq.heappop(timers)
                if self._scheduled.get(d) == t:
                    del self._scheduled[d]
                    due.append(d)
            timeout = self.tick if not timers else max(0.0, min(self.tick, timers[0][0] - now))
            ready = [key.data for key, _ in self._sel.select(0 if due else timeout)]
            for d in ready:
                self._pump(d)
            if due:
                pumped = set(ready)
                for d in due:                         # each driver once per turn; a timer alone reads nothing
                    if d not in pumped:
                        self._pump(d, readable=False)

    def start(self) -> threading.Thread:
        self._stop.clear()
        self._thread = threading.Thread(target=self.run, name="driver-pool", daemon=True)
        self._thread.start()
        return self._thread

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def close(self) -> None:
        """Stop the pool and close every driver's link."""
        self.stop()
        for d in self._drivers:
            d.close()
        self._sel.close()
