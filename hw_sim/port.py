"""``DevicePort``: one simulated device's wire, shared by every transport (pty, TCP, USB, ``sim://``).

The port owns the byte pipe between a sans-I/O simulated device and whatever host connection the
transport provides: it applies the wire faults (corrupt bytes, dropped frames, a slow link), runs the
device's timers against a clock, and models unplugging (``unplug(duration)``: the device is gone, its
queued output is lost, and after ``duration`` it is back as if just powered on). It is thread-safe: a
transport thread, a driver thread and a script thread may all touch it.

Not modelled: baud rate and UART timing (bytes move as fast as Python moves them), flow control, partial
USB packets, electrical noise beyond the named faults.
"""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from .clock import REAL_CLOCK, Clock
from .errors import Unplugged
from .faults import FaultSpec, WireFaults


class ByteDevice(Protocol):
    """What a simulated device offers its port (all sans-I/O; ``now`` is the port's clock)."""
    name: str

    def attach(self, now: float) -> None: ...              # powered on / plugged in
    def detach(self) -> None: ...                          # unplugged: lose all link state
    def receive(self, data: bytes, now: float) -> None: ...  # bytes from the host
    def poll(self, now: float) -> bytes: ...               # run timers; bytes for the host
    def next_deadline(self) -> float | None: ...        # when poll has work next (None: only on input)


class DevicePort:
    def __init__(self, device: ByteDevice, faults: FaultSpec | None = None, clock: Clock = REAL_CLOCK,
                 name: str | None = None) -> None:
        self.device = device
        self.name = name or device.name
        self.clock = clock
        self.lock = threading.RLock()
        self._cond = threading.Condition(self.lock)
        self._listeners: list[Callable[[], None]] = []
        self._ready = bytearray()                        # bytes the host can read now
        self._delayed: deque[tuple[float, bytes]] = deque()   # (ready_at, bytes) under the ``slow`` fault
        self.plugged = True
        self.generation = 0                              # +1 at each unplug: stale USB handles die
        self._replug_at: float | None = None
        self._due_at: float | None = None             # when the device's timers next need a poll
        self.unplugs = 0
        self.bytes_to_host = 0
        self.bytes_from_host = 0
        if hasattr(device, "clock"):
            device.clock = clock                       # the device's timestamps follow the wire's clock
        self.set_faults(faults or FaultSpec())
        device.attach(clock.now())
        self._due_at = device.next_deadline()

    # ------------------------------------------------------------------ configuration
    def set_faults(self, faults: FaultSpec) -> None:
        with self.lock:
            self.faults = faults
            self._up = WireFaults(faults, f"{self.name}:up")
            self._down = WireFaults(faults, f"{self.name}:down") if faults.dir == "both" else None
            setter = getattr(self.device, "set_faults", None)
            if setter is not None:
                setter(faults)

    def add_listener(self, fn: Callable[[], None]) -> None:
        """``fn()`` is called (under the port lock; it must not block) when output or plug state changes."""
        self._listeners.append(fn)

    def remove_listener(self, fn: Callable[[], None]) -> None:
        if fn in self._listeners:
            self._listeners.remove(fn)

    def _notify(self) -> None:
        self._cond.notify_all()
        for fn in list(self._listeners):
            fn()

    # ------------------------------------------------------------------ host side
    def host_write(self, data: bytes) -> None:
        with self.lock:
            self._tick()
            if not self.plugged:
                raise Unplugged(self.name)
            self.bytes_from_host += len(data)
            if self._down is not None:
                data = self._down.apply(data)
            if data:
                self.device.receive(data, self.clock.now())
            self._pump()

    def host_read(self, size: int = 65536) -> bytes:
        """Bytes ready for the host now (never waits); raises ``Unplugged``."""
        with self.lock:
            self._tick()
            if not self.plugged:
                raise Unplugged(self.name)
            out = bytes(self._ready[:size])
            del self._ready[:size]
            return out

    def available(self) -> int:
        with self.lock:
            self._tick()
            if not self.plugged:
                raise Unplugged(self.name)
            return len(self._ready)

    @property
    def has_output(self) -> bool:
        """Bytes are waiting for the host (no lock, no timers: a hint for schedulers)."""
        return bool(self._ready)

    def read_wait(self, size: int, timeout: float | None) -> bytes:
        """Up to ``size`` bytes, waiting at most ``timeout`` seconds of the port's clock for the first one.
        A virtual clock is advanced instead of waited on."""
        clock = self.clock
        deadline = None if timeout is None else clock.now() + timeout
        while True:
            data = self.host_read(size)
            if data or timeout == 0:
                return data
            now = clock.now()
            remaining = None if deadline is None else deadline - now
            if remaining is not None and remaining <= 0:
                return b""
            wake = self.next_wakeup()
            step = remaining
            if wake is not None:
                step = max(1e-4, wake - now) if step is None else min(step, max(1e-4, wake - now))
            if clock.virtual:
                clock.advance(step if step is not None else 0.01)
            else:
                with self._cond:
                    if not self._ready:
                        self._cond.wait(step)

    # ------------------------------------------------------------------ device side
    def act(self, fn: Callable[[Any], Any]) -> Any:
        """Run ``fn(device)`` under the port lock (a script action: a card read, a button press)."""
        with self.lock:
            result = fn(self.device)
            self._pump()
            return result

    def tick(self) -> None:
        """Run the device's timers and the replug timer (transports call this when ``next_wakeup`` is due)."""
        with self.lock:
            self._tick()

    def next_wakeup(self) -> float | None:
        with self.lock:
            times = [t for t in (self._replug_at, self._delayed[0][0] if self._delayed else None,
                                 self._due_at if self.plugged else None) if t is not None]
            return min(times) if times else None

    def _tick(self) -> None:
        now = self.clock.now()
        if not self.plugged:
            if self._replug_at is not None and now >= self._replug_at:
                self.replug()
            return
        if (self._due_at is not None and now >= self._due_at) or (self._delayed and self._delayed[0][0] <= now):
            self._pump()

    def _pump(self) -> None:
        """Run the device (timers, script) and queue its output; remember when it wants running next."""
        if not self.plugged:
            return
        now = self.clock.now()
        out = self.device.poll(now)
        self._due_at = self.device.next_deadline()
        changed = False
        if out:
            out = self._up.apply(out)
            if out:
                if self.faults.slow or self._delayed:
                    self._delayed.append((now + self.faults.slow, out))
                else:
                    self._ready += out
                    self.bytes_to_host += len(out)
                    changed = True
        while self._delayed and self._delayed[0][0] <= now:
            chunk = self._delayed.popleft()[1]
            self._ready += chunk
            self.bytes_to_host += len(chunk)
            changed = True
        if changed:
            self._notify()

    # ------------------------------------------------------------------ plugging
    def unplug(self, duration: float | None = None) -> None:
        """Pull the cable; with ``duration`` the device comes back by itself after that long."""
        with self.lock:
            if self.plugged:
                self.plugged = False
                self.generation += 1
                self.unplugs += 1
                self._ready.clear()
                self._delayed.clear()
                self._up.reset()
                if self._down is not None:
                    self._down.reset()
                self.device.detach()
            self._replug_at = None if duration is None else self.clock.now() + duration
            self._notify()

    def replug(self) -> None:
        with self.lock:
            self._replug_at = None
            if not self.plugged:
                self.plugged = True
                self.device.attach(self.clock.now())
                self._pump()
            self._notify()

    def clear_output(self) -> None:
        """Discard output nobody is connected to read (a TCP device with no client)."""
        with self.lock:
            self._ready.clear()

    def __repr__(self) -> str:
        return f"<DevicePort {self.name} {'plugged' if self.plugged else 'unplugged'}>"
