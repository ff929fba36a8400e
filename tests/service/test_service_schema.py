"""The database schema (service/store/migrations.py): a file made before the schema was versioned opens, is migrated and
keeps its rows; opening it again changes nothing; a file of a newer version is refused."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from service.outbox.store import OutboxStore
from service.store.journal import Journal
from service.store.migrations import VERSION, SchemaError, migrate, version_of

# The DDL of the unversioned schema, as the journal and the outbox each ran it when they opened the file.
OLD_JOURNAL_DDL = """
CREATE TABLE IF NOT EXISTS journal (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id TEXT    NOT NULL,
    seq      INTEGER NOT NULL,
    at       TEXT    NOT NULL,
    actor    TEXT    NOT NULL,
    kind     TEXT    NOT NULL,
    body     TEXT    NOT NULL,
    UNIQUE (table_id, seq)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
OLD_OUTBOX_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox_message (
    key        TEXT    PRIMARY KEY,
    table_id   TEXT    NOT NULL,
    board      INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    supersedes TEXT,
    content    TEXT    NOT NULL,
    payload    TEXT    NOT NULL,
    lin        TEXT    NOT NULL,
    created_at REAL    NOT NULL,
    UNIQUE (table_id, board, version)
);
CREATE TABLE IF NOT EXISTS outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    target          TEXT    NOT NULL,
    key             TEXT    NOT NULL REFERENCES outbox_message (key),
    table_id        TEXT    NOT NULL,
    board           INTEGER NOT NULL,
    version         INTEGER NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'pending'
                            CHECK (status IN ('pending', 'delivered', 'failed', 'superseded')),
    held            INTEGER NOT NULL DEFAULT 0,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_at         REAL    NOT NULL,
    last_error      TEXT,
    last_attempt_at REAL,
    delivered_at    REAL,
    created_at      REAL    NOT NULL,
    UNIQUE (target, key)
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (target, status, held, next_at);
CREATE INDEX IF NOT EXISTS outbox_board ON outbox (target, table_id, board, status, version);
"""


def old_database(path: Path, outbox: bool = True) -> None:
    """A file as the unversioned service left it: a journalled board, its token and, with an outbox, a result
    delivered to one target."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(OLD_JOURNAL_DDL)
        db.execute("INSERT INTO journal (table_id, seq, at, actor, kind, body) VALUES "
                   "('1', 1, '2024-05-01T19:00:00+00:00', 'director', 'event', '{\"type\":\"board\",\"board\":1}')")
        db.execute("INSERT INTO meta (key, value) VALUES ('director_token', 'old-director-token')")
        if outbox:
            db.executescript(OLD_OUTBOX_DDL)
            db.execute("INSERT INTO meta (key, value) VALUES ('outbox_source', 'abc123')")
            db.execute("INSERT INTO outbox_message VALUES ('abc123:1:1:9', '1', 1, 1, 9, NULL, '{}', '{}', '', 1.0)")
            db.execute("INSERT INTO outbox (target, key, table_id, board, version, status, next_at, delivered_at, "
                       "created_at) VALUES ('feed', 'abc123:1:1:9', '1', 1, 1, 'delivered', 1.0, 2.0, 1.0)")
        assert version_of(db) == 0


def test_an_unversioned_database_is_migrated_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old_database(path)
    journal = Journal(str(path))
    try:
        assert [(r.table_id, r.seq, r.body) for r in journal.rows()] == [("1", 1, {"type": "board", "board": 1})]
        assert journal.meta("director_token") == "old-director-token"
        assert journal.pragma("user_version") == VERSION
    finally:
        journal.close()
    store = OutboxStore(str(path))
    try:
        assert store.open() == "abc123"                       # the database's source id is kept: keys go on
        last = store.last_versions()
        assert list(last) == [("1", 1)] and last[("1", 1)].key == "abc123:1:1:9"
        assert store.history("feed").last_success_at == 2.0
    finally:
        store.close()


def test_a_journal_without_outbox_tables_gets_them(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old_database(path, outbox=False)
    Journal(str(path)).close()
    with sqlite3.connect(path) as db:
        tables = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"journal", "meta", "outbox_message", "outbox"} <= tables
        assert db.execute("SELECT COUNT(*) FROM journal").fetchone()[0] == 1
        assert version_of(db) == VERSION


def test_a_second_open_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old_database(path)
    Journal(str(path)).close()
    with sqlite3.connect(path, isolation_level=None) as db:
        before = db.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
        assert migrate(db) == 0
        assert version_of(db) == VERSION
        assert db.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == before
    journal = Journal(str(path))
    try:
        assert len(list(journal.rows())) == 1 and journal.pragma("user_version") == VERSION
    finally:
        journal.close()


def test_a_new_database_is_created_at_the_current_version(tmp_path: Path) -> None:
    journal = Journal(str(tmp_path / "new.db"))
    try:
        assert journal.pragma("user_version") == VERSION and list(journal.rows()) == []
    finally:
        journal.close()


def test_a_database_of_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    old_database(path)
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {VERSION + 1}")
    with pytest.raises(SchemaError, match=f"schema version {VERSION + 1}, newer than this service's"):
        Journal(str(path))
    with pytest.raises(SchemaError, match="newer"):
        OutboxStore(str(path)).open()
    with sqlite3.connect(path) as db:                          # refused, not touched
        assert version_of(db) == VERSION + 1
        assert db.execute("SELECT COUNT(*) FROM journal").fetchone()[0] == 1
