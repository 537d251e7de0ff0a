"""The part of :class:`~engine.library.facade.Library` that searches it: a hybrid search
through its :class:`~engine.search.Searcher`, by words alone when the search model cannot
load, after the vector index is read again if another process committed since."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from engine.config import EngineConfig, SearchConfig
from engine.errors import ModelError, ModelMismatchError
from engine.index.indexer import Indexer
from engine.library.write_access import WriteAccess
from engine.models import Embedder, Reranker
from engine.search import NO_FILTERS, Searcher, SearchFilters, SearchOutcome


class Searching:
    """Searches of one library: ``config`` gives its settings of the moment, ``embedder``
    the search model when the library has vectors (loaded on first use, never a repair),
    ``reranker`` the cross-encoder if any. The index of ``indexer`` is read again when
    another process (not holding ``access`` here) commits."""

    def __init__(
        self,
        indexer: Indexer,
        access: WriteAccess,
        config: Callable[[], EngineConfig],
        embedder: Callable[[], Embedder | None],
        thumbs: Path,
        reranker: Callable[[], Reranker | None],
    ) -> None:
        self.store = indexer.store
        self._searcher = Searcher(
            self.store, lambda: self.indexer.index, embedder, thumbs, reranker=reranker
        )
        self.indexer = indexer
        self.access = access
        self._config = config
        self._outside = self.store.db.outside_commits()  # another process's commits seen

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        filters: SearchFilters = NO_FILTERS,
        config: SearchConfig | None = None,
        typing: bool = False,
    ) -> SearchOutcome:
        """Hybrid search. Any text is a valid query; no words means no results.

        When the search model cannot load (damaged, missing), a search that uses words too
        finds by its words alone and says why in its ``notice``: a student still finds the
        page while the model is reinstalled.

        Raises:
            ModelMismatchError: the library's vectors come from another model (a choice the
                user made: ``coursedex reindex`` switches).
            ModelError: the search model cannot load and ``config`` searches by meaning only.
        """
        self._follow_other_writers()
        cfg = config or self._config().search
        try:
            return self._searcher.search(
                query, limit=limit, filters=filters, config=cfg, typing=typing
            )
        except ModelError as e:
            if isinstance(e, ModelMismatchError) or not (cfg.dense and cfg.fulltext):
                raise
            reason = e
        words_only = replace(cfg, dense=False, passage_rank=False)
        outcome = self._searcher.search(
            query, limit=limit, filters=filters, config=words_only, typing=typing
        )
        outcome.notice = f"keyword matches only: {reason}"
        return outcome

    def _follow_other_writers(self) -> None:
        """Read the vector index again when another process committed since it was read (a
        window open while `coursedex ingest` runs in a terminal): what that import committed
        is then found by meaning too, not only by its words. Nothing to do while this process
        writes: no other can."""
        outside = self.store.db.outside_commits()
        if outside != self._outside and not self.access.writing_here:
            self._outside = outside
            self.indexer.open(quiet=True, reload=False)
