"""The one SQLite schema of the service's database file: the journal, its ``meta`` table and the live-upload
outbox, versioned with ``PRAGMA user_version``.

``MIGRATIONS[i]`` takes a database from version ``i`` to ``i + 1``. Version 0 is a file made before the schema
was versioned (its tables were created with ``IF NOT EXISTS`` by the journal and by the outbox, each when it
first opened the file), so migration 1 creates whatever is missing and keeps every row. Every connection
(``service/store/journal.py``, ``service/outbox/store.py``) calls ``migrate`` when it opens the file; a file from a
newer version of the service is refused rather than written with an older idea of its tables.
"""
from __future__ import annotations

import sqlite3

from service.errors import ServiceError

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the unversioned schema, as the journal and the outbox made it
    (
        """CREATE TABLE IF NOT EXISTS journal (
            id       INTEGER PRIMARY KEY AUTOINCREMENT,
            table_id TEXT    NOT NULL,
            seq      INTEGER NOT NULL,
            at       TEXT    NOT NULL,
            actor    TEXT    NOT NULL,
            kind     TEXT    NOT NULL,
            body     TEXT    NOT NULL,
            UNIQUE (table_id, seq)
        )""",
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """CREATE TABLE IF NOT EXISTS outbox_message (
            key        TEXT    PRIMARY KEY,
            table_id   TEXT    NOT NULL,
            board      INTEGER NOT NULL,
            version    INTEGER NOT NULL,
            seq        INTEGER NOT NULL,
            supersedes TEXT,
            content    TEXT    NOT NULL,          -- the result fields compared to detect a new version
            payload    TEXT    NOT NULL,
            lin        TEXT    NOT NULL,
            created_at REAL    NOT NULL,
            UNIQUE (table_id, board, version)
        )""",
        """CREATE TABLE IF NOT EXISTS outbox (
            id              INTEGER PRIMARY KEY AUTOINCREMENT,
            target          TEXT    NOT NULL,
            key             TEXT    NOT NULL REFERENCES outbox_message (key),
            table_id        TEXT    NOT NULL,
            board           INTEGER NOT NULL,
            version         INTEGER NOT NULL,
            status          TEXT    NOT NULL DEFAULT 'pending'
                                    CHECK (status IN ('pending', 'delivered', 'failed', 'superseded')),
            held            INTEGER NOT NULL DEFAULT 0,      -- waiting for the board's release (only_released)
            attempts        INTEGER NOT NULL DEFAULT 0,
            next_at         REAL    NOT NULL,                -- unix time of the next attempt
            last_error      TEXT,
            last_attempt_at REAL,
            delivered_at    REAL,
            created_at      REAL    NOT NULL,
            UNIQUE (target, key)
        )""",
        "CREATE INDEX IF NOT EXISTS outbox_due ON outbox (target, status, held, next_at)",
        "CREATE INDEX IF NOT EXISTS outbox_board ON outbox (target, table_id, board, status, version)",
    ),
)
VERSION = len(MIGRATIONS)


class SchemaError(ServiceError):
    """The database cannot be used by this version of the service."""


def version_of(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def migrate(db: sqlite3.Connection, name: str = "the database") -> int:
    """Bring ``db`` (a connection in autocommit mode) to ``VERSION`` in one transaction; returns the number of
    migrations applied (0: it was current). Raises ``SchemaError`` for a database of a newer version."""
    db.execute("BEGIN IMMEDIATE")            # two connections opening one file migrate it once
    try:
        found = version_of(db)
        if found > VERSION:
            raise SchemaError(f"{name} has schema version {found}, newer than this service's ({VERSION}): it was "
                              "written by a newer bridgetable; upgrade, or use another database file")
        for steps in MIGRATIONS[found:]:
            for sql in steps:
                db.execute(sql)
        if found < VERSION:
            db.execute(f"PRAGMA user_version = {VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return VERSION - found
