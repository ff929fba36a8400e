"""The journal file of an earlier session, for ``bridgetable serve`` (``bridgetable/serve_cli.py``): what it
holds (when it started, how many tables), and moving it aside for a new session. A new session is a new
database (``service/app.py`` draws its session id afresh, so no credential of the old one works); the old file
is renamed with a time stamp, never deleted."""
from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from service.store.journal import CLUB


@dataclass(frozen=True)
class EarlierSession:
    started: str            # the first journal row's time, "YYYY-MM-DD HH:MM UTC"
    tables: int             # tables with at least one journalled row
    rows: int


def earlier_session(database: str) -> EarlierSession | None:
    """The session ``database`` holds, or None (no file, an empty journal, or not a journal at all)."""
    if database == ":memory:" or not Path(database).is_file():
        return None
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
            first, rows = db.execute("SELECT MIN(at), COUNT(*) FROM journal").fetchone()
            (tables,) = db.execute("SELECT COUNT(DISTINCT table_id) FROM journal WHERE table_id != ?",
                                   (CLUB,)).fetchone()
    except sqlite3.Error:
        return None
    if not rows:
        return None
    return EarlierSession(str(first)[:16].replace("T", " ") + " UTC", int(tables), int(rows))


def move_aside(database: str, now: datetime | None = None) -> str:
    """Rename ``database`` (and its SQLite -wal/-shm companions) to ``<name>.<YYYYmmdd-HHMMSS>``; returns the new
    name. Never overwrites: a second move in the same second gets a suffix."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    target = f"{database}.{stamp}"
    n = 1
    while os.path.exists(target):
        n += 1
        target = f"{database}.{stamp}-{n}"
    os.rename(database, target)
    for companion in ("-wal", "-shm"):
        if os.path.exists(database + companion):
            os.rename(database + companion, target + companion)
    return target
