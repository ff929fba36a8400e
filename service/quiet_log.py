"""A log of refusals that stays small under a flood: the first refusal of a client for a reason is logged at once,
the next ones are counted and summed up in one line per client and reason per period ("refused 1,034 connections
from 10.0.0.7 in the last 60 s: ..."). A client that opens thousands of connections writes a few lines, not one
line (or traceback) each. A refusal for a reason of the whole server (a total reached) is counted for
``ANY_CLIENT``, so a flood from many addresses writes no more."""
from __future__ import annotations

import asyncio
import logging
import time

ANY_CLIENT = "any client"


class QuietLog:
    def __init__(self, logger: logging.Logger, period_s: float = 60.0) -> None:
        self.logger = logger
        self.period_s = period_s
        self._pending: dict[tuple[str, str], int] = {}     # (client, reason) -> refusals not logged yet
        self._last: dict[tuple[str, str], float] = {}      # (client, reason) -> when a line was last written
        self._flush: asyncio.TimerHandle | None = None

    def refused(self, client: str, reason: str) -> None:
        """One refusal of ``client`` for ``reason``: logged now if this pair has been quiet for a period."""
        key = (client, reason)
        now = time.monotonic()
        if now - self._last.get(key, -self.period_s) >= self.period_s and key not in self._pending:
            self._last[key] = now
            self.logger.warning("refused %s: %s (further refusals are summed up every %g s)",
                                client, reason, self.period_s)
            return
        self._pending[key] = self._pending.get(key, 0) + 1
        if self._flush is None:
            self._flush = asyncio.get_running_loop().call_later(self.period_s, self.flush)

    def flush(self) -> None:
        """Write the counted refusals, one line per client and reason."""
        self._flush = None
        now = time.monotonic()
        for (client, reason), n in sorted(self._pending.items()):
            self._last[(client, reason)] = now
            self.logger.warning("refused %d more from %s in the last %g s: %s", n, client, self.period_s, reason)
        self._pending.clear()
        if len(self._last) > 10_000:             # forget quiet clients, so the memory stays bounded too
            self._last = {k: t for k, t in self._last.items() if now - t < self.period_s}
