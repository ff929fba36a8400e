"""Debouncing RFID reads: a card lying on an antenna is read again and again; it was played once.

A read of tag ``T`` on key ``K`` (a reader and its zone) is a *repeat* when the last read on ``K`` was
also ``T`` and came no more than ``window`` seconds earlier; each repeat extends the window (a card left
on the antenna keeps being one card). A different tag read on ``K`` in between ends the run, so the same
card can count again later. Time is passed in (device or host seconds), so the logic is pure.
"""
from __future__ import annotations

from collections.abc import Hashable


class Debouncer:
    def __init__(self, window: float = 0.5) -> None:
        self.window = window
        self._last: dict[Hashable, tuple[str, float]] = {}
        self._carried: set[Hashable] = set()
        self.repeats = 0

    def accept(self, key: Hashable, tag: str, now: float) -> bool:
        """True when this read is a new card event, False when it repeats the previous read on ``key``."""
        last = self._last.get(key)
        self._last[key] = (tag, now)
        carried = key in self._carried
        self._carried.discard(key)
        if last is not None and last[0] == tag and (carried or 0 <= now - last[1] <= self.window):
            self.repeats += 1
            return False
        return True

    def carry_over(self) -> None:
        """The reader restarted, its clock too: the next read on each key that is its last tag is a repeat
        whatever its time (the card lay there through the restart)."""
        self._carried = set(self._last)

    def reset(self, key: Hashable | None = None) -> None:
        """Forget one key (a zone cleared) or all keys (a new board)."""
        if key is None:
            self._last.clear()
            self._carried.clear()
        else:
            self._last.pop(key, None)
            self._carried.discard(key)
