"""The queries a user searched, newest last: Up in an empty search box walks back through
them, as a shell's history does."""

from __future__ import annotations

from collections.abc import Iterable

HISTORY_SIZE = 50


class SearchHistory:
    def __init__(self, entries: Iterable[str] = ()) -> None:
        self.entries: list[str] = []
        for entry in entries:
            self.add(entry)
        self._at: int | None = None  # the entry recalled last (an index into entries)

    def add(self, query: str) -> None:
        """Remember a query (once: an older copy moves to the end); ends any recall."""
        query = query.strip()
        self._at = None
        if not query:
            return
        if query in self.entries:
            self.entries.remove(query)
        self.entries.append(query)
        del self.entries[:-HISTORY_SIZE]

    def recalling(self, text: str) -> bool:
        """Whether ``text`` is the entry recalled last (the user has not edited it)."""
        return self._at is not None and self.entries[self._at] == text

    def older(self) -> str | None:
        """The entry before the one recalled last (the newest at first); None at the end."""
        if not self.entries or self._at == 0:
            return None
        self._at = len(self.entries) - 1 if self._at is None else self._at - 1
        return self.entries[self._at]

    def newer(self) -> str:
        """The entry after the one recalled last; "" past the newest (the empty box)."""
        if self._at is None or self._at >= len(self.entries) - 1:
            self._at = None
            return ""
        self._at += 1
        return self.entries[self._at]
