"""The spectators' copy of a table, fed the journal's rows ``delay_s`` seconds late (the regulation's delay).

The copy is a ``TableRuntime`` of its own, so ``visible_state`` sees exactly the table as it was ``delay_s``
seconds ago. Rows wait in order; one timer per table applies every row that has come due and announces the
new state once.
"""
from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

from service.config.settings import Regulation
from service.live.runtime import TableRuntime
from service.store.journal import Row


class SpectatorFeed:
    def __init__(self, table_id: str, regulation: Regulation, on_update: Callable[[TableRuntime], None]) -> None:
        self.delay = regulation.spectators.delay_s
        self.replica = TableRuntime(table_id, regulation)
        self._on_update = on_update
        self._pending: deque[tuple[float, Row]] = deque()
        self._timer: asyncio.TimerHandle | None = None

    def push(self, row: Row, notify: bool = True) -> None:
        due = row.time + self.delay
        if not self._pending and due <= time.time():
            self.replica.apply_row(row)
            if notify:
                self._on_update(self.replica)
            return
        self._pending.append((due, row))
        self._schedule()

    def _schedule(self) -> None:
        if self._timer is not None or not self._pending:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return                                    # at start-up, before the loop: drained by ``start``
        self._timer = loop.call_later(max(0.0, self._pending[0][0] - time.time()), self._drain)

    def start(self) -> None:
        self._schedule()

    def _drain(self) -> None:
        self._timer = None
        now = time.time()
        applied = False
        while self._pending and self._pending[0][0] <= now:
            self.replica.apply_row(self._pending.popleft()[1])
            applied = True
        if applied:
            self._on_update(self.replica)
        self._schedule()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.replica.close()
