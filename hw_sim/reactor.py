"""One background thread that serves every pty and TCP endpoint of the process (``selectors``-based).

An endpoint registers its file descriptors with callbacks and exposes ``service()`` (move the device's
output to its fd) and ``next_wakeup()`` (when its device's timers are due). A port's output wakes the
reactor through a self-pipe, so a card read reaches the fd at once rather than at the next poll.
Hundreds of simulated devices cost one thread.
"""
from __future__ import annotations

import heapq
import itertools
import logging
import os
import selectors
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from .errors import ReactorTimeout

log = logging.getLogger(__name__)

MAX_SLEEP = 0.05


class Endpoint(Protocol):
    def service(self) -> None: ...
    def next_wakeup(self) -> float | None: ...


class Reactor:
    def __init__(self, name: str = "hw_sim-reactor") -> None:
        self._sel = selectors.DefaultSelector()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._sel.register(self._wake_r, selectors.EVENT_READ, self._drain_wake)
        self._endpoints: set[Any] = set()
        self._dirty: set[Any] = set()
        self._timers: list[tuple[float, int, Any]] = []       # (when, tie, endpoint): device timers
        self._scheduled: dict[Any, float] = {}
        self._tie = itertools.count()
        self._lock = threading.Lock()
        self._calls: list[Callable[[], None]] = []
        self._running = True
        self._woken = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ called from any thread
    def call(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the reactor thread (selector changes must happen there)."""
        with self._lock:
            self._calls.append(fn)
        self.wake()

    def call_wait(self, fn: Callable[[], Any], timeout: float = 5.0) -> Any:
        if threading.current_thread() is self._thread:
            return fn()
        done = threading.Event()
        box: list[Any] = []

        def run() -> None:
            try:
                box.append((True, fn()))
            except BaseException as err:      # re-raised in the caller
                box.append((False, err))
            finally:
                done.set()
        self.call(run)
        if not done.wait(timeout):
            raise ReactorTimeout("reactor did not answer")
        ok, value = box[0]
        if not ok:
            raise value
        return value

    def mark(self, endpoint: Any) -> None:
        """The endpoint has work (its port has output): service it soon."""
        with self._lock:
            self._dirty.add(endpoint)
            if self._woken:
                return
            self._woken = True
        self.wake()

    def wake(self) -> None:
        try:
            os.write(self._wake_w, b"\0")
        except (BlockingIOError, OSError):
            pass

    def add(self, endpoint: Any) -> None:
        with self._lock:
            self._endpoints.add(endpoint)
            self._dirty.add(endpoint)
        self.wake()

    def remove(self, endpoint: Any) -> None:
        with self._lock:
            self._endpoints.discard(endpoint)
            self._dirty.discard(endpoint)

    # ------------------------------------------------------------------ reactor thread only
    def register(self, fd: int, events: int, callback: Callable[[int], None]) -> None:
        try:
            self._sel.modify(fd, events, callback)
        except KeyError:
            self._sel.register(fd, events, callback)

    def unregister(self, fd: int) -> None:
        try:
            self._sel.unregister(fd)
        except (KeyError, ValueError):
            pass

    def _drain_wake(self, _mask: int) -> None:
        try:
            while os.read(self._wake_r, 4096):
                pass
        except BlockingIOError:
            pass

    def _schedule(self, ep: Any) -> None:
        """Remember when ``ep`` next needs servicing (its device's timers); stale entries are skipped."""
        t = ep.next_wakeup()
        if t is None:
            self._scheduled.pop(ep, None)
            return
        if self._scheduled.get(ep) != t:
            self._scheduled[ep] = t
            heapq.heappush(self._timers, (t, next(self._tie), ep))

    def _run(self) -> None:
        while self._running:
            now = time.monotonic()
            due: list[Any] = []
            timers = self._timers
            while timers and timers[0][0] <= now:
                t, _, ep = heapq.heappop(timers)
                if self._scheduled.get(ep) == t:
                    del self._scheduled[ep]
                    due.append(ep)
            timeout = MAX_SLEEP if not timers else max(0.0, min(MAX_SLEEP, timers[0][0] - now))
            with self._lock:
                pending = bool(self._dirty or self._calls or due)
            for key, mask in self._sel.select(0 if pending else timeout):
                try:
                    key.data(mask)
                except Exception:
                    log.exception("hw_sim reactor callback failed")
            with self._lock:
                calls, self._calls = self._calls, []
                dirty, self._dirty = self._dirty, set()
                self._woken = False
                live = self._endpoints
            for fn in calls:
                try:
                    fn()
                except Exception:
                    log.exception("hw_sim reactor call failed")
            dirty.update(due)
            for ep in dirty:
                if ep not in live:
                    self._scheduled.pop(ep, None)
                    continue
                try:
                    ep.service()
                    self._schedule(ep)          # servicing may have armed a timer (a retransmit)
                except Exception:
                    log.exception("hw_sim endpoint %r failed", ep)

    def mark_local(self, endpoint: Any) -> None:
        with self._lock:
            self._dirty.add(endpoint)

    def stop(self) -> None:
        self._running = False
        self.wake()
        self._thread.join(timeout=2)
        self._sel.close()
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass


_default: Reactor | None = None
_default_lock = threading.Lock()


def default_reactor() -> Reactor:
    global _default
    with _default_lock:
        if _default is None:
            _default = Reactor()
        return _default
