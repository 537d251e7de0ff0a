"""The library database's schema brought up to date: the migration scripts
(migrations.py, the schema's history) applied one committed step at a time.
"""

from __future__ import annotations

import logging
import sqlite3

from engine.errors import LibraryError
from engine.store.migrations import MIGRATIONS, READABLE_VERSION, SCHEMA_VERSION

log = logging.getLogger(__name__)


def migrate(conn: sqlite3.Connection) -> None:
    """Bring the database up to :data:`SCHEMA_VERSION`, one committed step at a time.

    Each step holds the write lock from before it reads the version (BEGIN IMMEDIATE): two
    processes opening a new library at once take turns, and the second finds the steps
    done instead of running them again ("table meta already exists").

    Raises:
        LibraryError: the file was written by a newer Coursedex.
        sqlite3.Error: a step failed (it is rolled back whole).
    """
    if _version(conn) == SCHEMA_VERSION:
        return  # the usual open: no write lock taken
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = _version(conn)
            if version >= SCHEMA_VERSION:
                conn.execute("COMMIT")
                break
            for statement in _statements(MIGRATIONS[version]):
                _run_step(conn, statement)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        log.info("library schema migrated to version %d", version + 1)


def _run_step(conn: sqlite3.Connection, statement: str) -> None:
    """One statement of a step. Steps run again on a database whose version was set back
    (an older copy of the program's, a test); SQLite has no ``ADD COLUMN IF NOT EXISTS``,
    so a column already there counts as added."""
    try:
        conn.execute(statement)
    except sqlite3.OperationalError as e:
        if "ADD COLUMN" in statement.upper() and "duplicate column name" in str(e):
            return
        raise


def _version(conn: sqlite3.Connection) -> int:
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise LibraryError(
            f"this library was written by a newer Coursedex (schema {version}); update the program"
        )
    return version


def _statements(script: str) -> list[str]:
    """A migration script's statements, one by one (a trigger's body is part of its own)."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip():
        statements.append(pending.strip())  # a last statement without its ';'
    return statements


__all__ = ["MIGRATIONS", "READABLE_VERSION", "SCHEMA_VERSION", "migrate"]
