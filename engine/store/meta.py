"""The ``meta`` table: what a library records about itself (the embedding model and its
dimension, ``flag:<name>`` marks of one-time work done)."""

from __future__ import annotations

from engine.store.database import Database


class Meta:
    """The ``meta`` table: one value per key."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, key: str) -> str | None:
        rows = self._db.rows_where("meta", "key = ?", (key,), select="value")
        return rows[0].value if rows else None

    def set(self, key: str, value: str) -> None:
        self._db.insert_all("meta", ("key", "value"), [(key, value)], replace=True)
