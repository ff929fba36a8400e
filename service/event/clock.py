"""The round clock: how long a round lasts (the director's minutes, journalled as ``clock`` club rows) and when
each table's current round began (the journalled time of the row that put the table in it: a round change, the
first board of the round, or the director restarting the clock).

A table is **late** when its round's time has run out and it has not finished the round's boards.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

MAX_MINUTES = 240


class RoundClock:
    def __init__(self) -> None:
        self.minutes: float | None = None
        self.started: dict[str, str] = {}          # table id -> when its current round began (ISO, UTC)

    def moved(self, table_id: str, at: str) -> None:
        """``table_id`` entered a new round at ``at``."""
        self.started[table_id] = at

    def first_board(self, table_id: str, at: str) -> None:
        """A board of the table's round started: the round began then unless something began it already."""
        self.started.setdefault(table_id, at)

    def apply(self, body: dict[str, Any], at: str, tables: list[str]) -> None:
        """A journalled ``clock`` row: new minutes; ``restart`` begins the rounds of ``tables`` (all) at ``at``,
        as setting the minutes does for a table whose round has not begun."""
        if "minutes" in body:
            self.minutes = None if body["minutes"] is None else float(body["minutes"])
        for tid in body.get("tables") or tables:
            if body.get("restart") or (self.minutes is not None and tid not in self.started):
                self.started[tid] = at               # a table whose round had not begun begins with the clock

    def status(self, table_id: str, finished: bool, now: datetime) -> dict[str, Any]:
        """The table's clock: when its round began, the minutes, the seconds left (negative: over time), late."""
        at = self.started.get(table_id)
        remaining: int | None = None
        if at is not None and self.minutes is not None:
            remaining = round(self.minutes * 60 - (now - datetime.fromisoformat(at)).total_seconds())
        return {"started_at": at, "minutes": self.minutes, "remaining": remaining,
                "late": remaining is not None and remaining <= 0 and not finished}
