"""The ``meta`` table: what a library records about itself (the embedding model and its
dimension, ``flag:<name>`` marks of one-time work done)."""

from __future__ import annotations

from engine.store.database import Database


class Meta:
    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, key: str) -> str | None:
        row = self._db.row("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else row.value

    def set(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
