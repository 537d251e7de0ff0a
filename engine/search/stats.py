"""What search reads of the whole library and may keep until it changes: document
frequencies and the segments a filter lets through."""

from __future__ import annotations

from collections.abc import Sequence

from engine.search.query import Frequencies
from engine.store import Store


class LibraryStats:
    """Cached per store generation. Caches are replaced, never cleared: a search in another
    thread keeps reading the one it started with."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._df_cache: dict[str, int] = {}
        self._df_total = 0
        self._df_generation = -1
        self._allowed_cache: dict[tuple[tuple[str, ...], int | None], frozenset[int]] = {}
        self._allowed_generation = -1
        self._terms_cache: dict[str, int] = {}
        self._terms_generation = -1
        self._languages: tuple[str, ...] = ()

    def frequencies(self, stems: Sequence[str]) -> Frequencies:
        """Document frequency of ``stems`` (and of every stem asked before)."""
        generation = self._store.generation
        if generation != self._df_generation:
            self._df_cache = {}
            self._df_total = self._store.segments.count()
            self._df_generation = generation
        cache, total = self._df_cache, self._df_total
        missing = [s for s in stems if s not in cache]
        if missing:
            cache.update(self._store.segments.document_frequency(missing))
        return Frequencies(cache, total)

    def analysed_frequencies(self, terms: Sequence[str]) -> Frequencies:
        """Document frequency of ``terms`` in the index of analysed (non-English) text."""
        generation = self._store.generation
        if generation != self._terms_generation:
            self._terms_cache = {}
            self._languages = tuple(self._store.segments.analysed_languages())
            self._terms_generation = generation
        cache = self._terms_cache
        missing = [t for t in terms if t not in cache]
        if missing:
            cache.update(self._store.segments.document_frequency(missing, analysed=True))
        return Frequencies(cache, self.frequencies(()).total)

    def languages(self) -> tuple[str, ...]:
        """The library's languages other than English (whose text is analysed in Python)."""
        if self._store.generation != self._terms_generation:
            self.analysed_frequencies(())
        return self._languages

    def allowed(self, kinds: tuple[str, ...], course_id: int | None) -> frozenset[int]:
        """Segment ids a filter lets through (reading them is O(library); typing in a
        filtered search repeats the same filter)."""
        generation = self._store.generation
        if generation != self._allowed_generation:
            self._allowed_cache = {}
            self._allowed_generation = generation
        cache = self._allowed_cache
        key = (kinds, course_id)
        ids = cache.get(key)
        if ids is None:
            ids = cache[key] = frozenset(self._store.segments.allowed_ids(kinds, course_id))
        return ids
