"""Many drivers on a running asyncio event loop: the loop's own selector and timers pump them.

A service applies device events on its event loop. With :class:`~drivers.pool.DriverPool` the drivers
run on a thread of their own and every event crosses to the loop (a wake-up of the loop thread and a
GIL hand-over per event: bench/device_latency.py measured about a third of the host's CPU per event
there). :class:`LoopPool` instead registers each driver's link descriptor with the loop
(``add_reader``) and its session timers with ``call_at``, so a frame is read, decoded, turned into an
event and handed to the table in one turn of the loop, on one thread.

What could block the loop stays off it:

- opening a link (a TCP connect to a device that is down can take seconds) runs on one worker thread,
  the first pump after it too; the loop takes the driver back when it has a descriptor;
- links without a descriptor (USB, ``sim://``) must be polled, and a pyusb read waits at least a
  millisecond: those drivers go to a :class:`~drivers.pool.DriverPool` thread.

So ``emit`` may be called on the loop's thread (the usual case), on the worker thread (events of the
first pump after a connect) or on the fallback pool's thread: an ``emit`` given to these drivers must
accept all three (:func:`loop_emitter` makes one). Every method of the pool is called on the loop's
thread. The loop's clock must be ``time.monotonic``, the drivers' (asyncio's default).
"""
from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .base import DeviceDriver
from .pool import DriverPool

log = logging.getLogger(__name__)


def loop_emitter(loop: asyncio.AbstractEventLoop, fn: Callable[[Any], None]) -> Callable[[Any], None]:
    """An ``emit`` that calls ``fn(event)`` directly on the loop's thread and through
    ``call_soon_threadsafe`` from any other (order kept per thread). Create it on the loop's thread."""
    loop_thread = threading.get_ident()

    def emit(event: Any) -> None:
        if threading.get_ident() == loop_thread:
            fn(event)
        else:
            loop.call_soon_threadsafe(fn, event)
    return emit


class LoopPool:
    def __init__(self, loop: asyncio.AbstractEventLoop | None = None, *, tick: float = 0.05) -> None:
        """Create it on the loop's thread."""
        self.loop = loop or asyncio.get_running_loop()
        self.tick = tick
        self._drivers: list[DeviceDriver] = []
        self._fds: dict[DeviceDriver, int] = {}
        self._loop_thread = threading.get_ident()      # the pool is made on the loop's thread
        self._timers: dict[DeviceDriver, asyncio.TimerHandle] = {}
        self._connecting: set[DeviceDriver] = set()
        self._flushing: set[DeviceDriver] = set()
        self._opener: ThreadPoolExecutor | None = None
        self._fallback: DriverPool | None = None
        self._closed = False
        self.pumps = 0

    @property
    def drivers(self) -> list[DeviceDriver]:
        return list(self._drivers)

    def add(self, driver: DeviceDriver) -> None:
        """Take a driver: its link is opened off the loop, then it is pumped by the loop."""
        self._drivers.append(driver)
        driver.on_link_closing = self._link_closing
        self._connect(driver)

    def _link_closing(self, d: DeviceDriver) -> None:
        """A link is about to close, wherever that happens (a pump, a send, ``close``): on the loop's thread,
        stop watching its descriptor while it is still open. Off the loop's thread the driver is not being
        watched (it is connecting, or on the fallback pool): a driver the loop pumps must be sent to from the
        loop's thread only, as the service does."""
        if threading.get_ident() == self._loop_thread:
            self._unwatch(d)

    # ------------------------------------------------------------------ opening links, off the loop
    def _connect(self, d: DeviceDriver) -> None:
        if self._closed or d in self._connecting:
            return
        if self._opener is None:
            self._opener = ThreadPoolExecutor(1, thread_name_prefix="device-open")
        self._connecting.add(d)
        fut = self.loop.run_in_executor(self._opener, d.pump, 0)
        fut.add_done_callback(functools.partial(self._connected, d))

    def _connected(self, d: DeviceDriver, fut: asyncio.Future[int]) -> None:
        self._connecting.discard(d)
        if self._closed:
            return
        if not fut.cancelled() and fut.exception() is not None:
            log.error("%s: opening the link failed", d.name, exc_info=fut.exception())
        if d.link is None:                        # not there yet: try again when its backoff has passed
            self._at(d, d.next_due() or time.monotonic() + self.tick)
            return
        if d.fileno() is None:                    # nothing to select on: poll it on a thread of its own
            if self._fallback is None:
                self._fallback = DriverPool(tick=self.tick)
                self._fallback.start()
            self._cancel(d)
            self._fallback.add(d)
            return
        self._after_pump(d)

    # ------------------------------------------------------------------ pumping, on the loop
    def _on_readable(self, d: DeviceDriver) -> None:
        # Read and hand the events on now; write the ACKs on the loop's next turn, after the tasks those
        # events woke (a table's consumer) have run: the write is then off the path from frame to table.
        self.pumps += 1
        self._step(d, d.pump, 0, read=True, flush=False)
        if d.link is None:
            self._after_pump(d)
        elif d not in self._flushing:
            self._flushing.add(d)
            self.loop.call_soon(self._flush, d)

    def _flush(self, d: DeviceDriver) -> None:
        self._flushing.discard(d)
        if self._closed:
            return
        self._step(d, d.flush)
        self._after_pump(d)

    def _on_timer(self, d: DeviceDriver) -> None:
        self._timers.pop(d, None)
        if d.link is None:
            self._unwatch(d)
            self._connect(d)
            return
        self._pump(d, False)

    def _pump(self, d: DeviceDriver, readable: bool) -> None:
        self.pumps += 1
        self._step(d, d.pump, 0, read=readable)
        self._after_pump(d)

    @staticmethod
    def _step(d: DeviceDriver, step: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """One driver step; a driver bug is logged, never raised into the loop."""
        try:
            step(*args, **kwargs)
        except Exception:
            log.exception("%s: driver step failed", d.name)

    def _after_pump(self, d: DeviceDriver) -> None:
        if d.link is None:                        # lost: stop watching the dead descriptor, reconnect later
            self._unwatch(d)
            self._at(d, d.next_due() or time.monotonic() + self.tick)
            return
        fd = d.fileno()
        if fd != self._fds.get(d):
            self._unwatch(d)
            if fd is not None:
                self.loop.add_reader(fd, self._on_readable, d)
                self._fds[d] = fd
        due = d.next_due()
        if due is not None:
            self._at(d, due)

    def _at(self, d: DeviceDriver, when: float) -> None:
        """Pump ``d`` at ``when`` (one timer per driver, moved when the session's deadline moves)."""
        old = self._timers.get(d)
        if old is not None:
            if old.when() == when:
                return
            old.cancel()
        self._timers[d] = self.loop.call_at(when, self._on_timer, d)

    def _cancel(self, d: DeviceDriver) -> None:
        old = self._timers.pop(d, None)
        if old is not None:
            old.cancel()
        self._unwatch(d)

    def _unwatch(self, d: DeviceDriver) -> None:
        fd = self._fds.pop(d, None)
        if fd is not None:
            self.loop.remove_reader(fd)

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Stop pumping and close every driver's link (on the loop's thread)."""
        self._closed = True
        for d in list(self._drivers):
            self._cancel(d)
        if self._fallback is not None:
            self._fallback.stop()
        if self._opener is not None:
            self._opener.shutdown(wait=True, cancel_futures=True)
        for d in self._drivers:
            d.close()
