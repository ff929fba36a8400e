"""A game record as read from a file: the events it describes, plus what the file itself claims."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import BridgeError
from .events import TableEvent


class RecordError(BridgeError, ValueError):
    """A record (or a whole file) that cannot be read; the message says where and why."""


@dataclass
class Recorded:
    """What the file says, verbatim where possible (``None`` where absent)."""
    contract: str | None = None
    declarer: str | None = None
    result: str | None = None
    score: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"contract": self.contract, "declarer": self.declarer, "result": self.result, "score": self.score}


@dataclass
class GameRecord:
    source: str
    index: int                                   # 0-based position of the record in its file
    events: list[TableEvent] = field(default_factory=list)
    recorded: Recorded = field(default_factory=Recorded)
    tags: dict[str, str] = field(default_factory=dict)   # other metadata (Event, Site, players ...)
    notes: list[str] = field(default_factory=list)       # auction/play notes and commentary, as text
    error: str | None = None                  # set when the record could not be (fully) read
