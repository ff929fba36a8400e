"""What one client may hold or do inside the application (``docs/security.md``, "Limits"; the connection caps
under it are ``service/web/connection_guard.py``):

* ``SpectatorStreams``: anonymous WebSocket streams per client address and in total; one more is accepted and
  closed at once with code 1013 ("try again later");
* ``DirectorCallLimit``: calls for the director per seat and per table within a window (429 beyond them), so
  one seat cannot bury the console's list;
* ``CardRedemptions``: sign-ins with one table card within a window; beyond them 429, and the director's stream
  is alerted once (``{"type": "alert", "kind": "card_redemptions", ...}``).

Refusals are logged through the quiet log (``service/quiet_log.py``)."""
from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager
from typing import Any

from starlette.websockets import WebSocket

from service.config.settings import LimitsConfig
from service.errors import TooMany
from service.live.visibility import Viewer
from service.quiet_log import ANY_CLIENT, QuietLog
from table.texts import Text

log = logging.getLogger(__name__)
TRY_AGAIN_LATER = 1013       # the WebSocket close code for a server that is busy


class Window:
    """At most ``n`` events per key within ``window_s`` seconds (a sliding window of their times)."""

    def __init__(self, n: int, window_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.n, self.window_s, self.clock = n, window_s, clock
        self._times: dict[Hashable, deque[float]] = {}

    def _recent(self, key: Hashable) -> deque[float]:
        times = self._times.setdefault(key, deque())
        horizon = self.clock() - self.window_s
        while times and times[0] <= horizon:
            times.popleft()
        return times

    def full(self, key: Hashable) -> bool:
        return len(self._recent(key)) >= self.n

    def retry_after(self, key: Hashable) -> float:
        """Seconds until ``key`` may act again."""
        times = self._recent(key)
        return max(0.0, times[0] + self.window_s - self.clock()) if len(times) >= self.n else 0.0

    def add(self, key: Hashable) -> None:
        self._recent(key).append(self.clock())


class DirectorCallLimit:
    def __init__(self, limits: LimitsConfig) -> None:
        self.seats = Window(limits.director_calls_per_seat, limits.call_window_s)
        self.tables = Window(limits.director_calls_per_table, limits.call_window_s)

    def take(self, table: str, seat: str | None) -> None:
        """Count a seat's call for the director, or raise ``TooMany`` (nothing counted) beyond either limit."""
        for window, key in ((self.seats, (table, seat)), (self.tables, table)):
            if window.full(key):
                wait = window.retry_after(key)
                times: dict[str, Any] = {"table": table, "count": window.n, "window": f"{window.window_s:g}",
                                         "wait": f"{wait:.0f}"}
                raise TooMany(Text("refusal.seat_calls", "seat {seat} of table {table} has called the director {count} "
                                   "times in {window} s; the calls are on the director's list (try again in {wait} s)",
                                   seat=seat, **times) if window is self.seats else
                              Text("refusal.table_calls", "table {table} has called the director {count} times in "
                                   "{window} s; the calls are on the director's list (try again in {wait} s)", **times),
                              retry_after=wait)
        self.seats.add((table, seat))
        self.tables.add(table)


class CardRedemptions:
    def __init__(self, limits: LimitsConfig, alert: Callable[[str, dict[str, Any]], None]) -> None:
        self.window = Window(limits.card_redemptions, limits.card_window_s)
        self.alert = alert                    # (table, message) -> pushed to the director's stream
        self._alerted: set[str] = set()

    def take(self, card: str, table: str, seat: str) -> None:
        """Count a sign-in with ``card``, or raise ``TooMany``; the first refusal of a run alerts the director."""
        if self.window.full(card):
            if card not in self._alerted:
                self._alerted.add(card)
                log.warning("table %s seat %s: its card signed in %d times within %g s; refusing more",
                            table, seat, self.window.n, self.window.window_s)
                self.alert(table, {"type": "alert", "kind": "card_redemptions", "table": table, "seat": seat,
                                   "count": self.window.n, "window_s": self.window.window_s})
            wait = self.window.retry_after(card)
            raise TooMany(Text("refusal.card_signins", "this table card has signed in {count} times in {window} s; the "
                               "director has been told (try again in {wait} s)", count=self.window.n,
                               window=f"{self.window.window_s:g}", wait=f"{wait:.0f}"), retry_after=wait)
        self._alerted.discard(card)
        self.window.add(card)


class SpectatorStreams:
    def __init__(self, limits: LimitsConfig) -> None:
        self.per_address = limits.spectator_streams_per_address
        self.total = limits.spectator_streams
        self._held: dict[str, int] = {}
        self.count = 0
        self.quiet = QuietLog(log, limits.refusal_log_s)

    def take(self, host: str) -> bool:
        if self.count >= self.total:
            self.quiet.refused(ANY_CLIENT, f"{self.total} anonymous streams are open in total (the cap)")
            return False
        if self._held.get(host, 0) >= self.per_address:
            self.quiet.refused(host, f"{self.per_address} anonymous streams from this address are open (the cap)")
            return False
        self._held[host] = self._held.get(host, 0) + 1
        self.count += 1
        return True

    def release(self, host: str) -> None:
        self.count -= 1
        left = self._held[host] - 1
        if left:
            self._held[host] = left
        else:
            del self._held[host]

    @asynccontextmanager
    async def slot(self, ws: WebSocket, viewer: Viewer) -> AsyncIterator[bool]:
        """Hold a slot while an anonymous stream is open (a token's stream needs none); ``False``: refused, the
        stream has been closed with 1013."""
        if viewer.role != "spectator":
            yield True
            return
        host = ws.client.host if ws.client is not None else "local"
        if not self.take(host):
            await ws.accept()
            await ws.close(code=TRY_AGAIN_LATER, reason="too many spectator streams; try again later")
            yield False
            return
        try:
            yield True
        finally:
            self.release(host)


class Limits:
    """The service's application-level limits, built once from the settings."""

    def __init__(self, limits: LimitsConfig, alert: Callable[[str, dict[str, Any]], None]) -> None:
        self.spectators = SpectatorStreams(limits)
        self.calls = DirectorCallLimit(limits)
        self.cards = CardRedemptions(limits, alert)
