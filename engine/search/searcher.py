"""The search pipeline, in the order of the README's "How search ranks"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.config import SearchConfig
from engine.search.candidates import CandidateFinder
from engine.search.clock import StageClock
from engine.search.distinct import by_mmr, distinct_hits
from engine.search.gate import gated
from engine.search.granularity import by_sentence
from engine.search.query import analyse
from engine.search.rerank import rerank
from engine.search.results import NO_FILTERS, SearchFilters, SearchOutcome
from engine.search.said_first import said_first
from engine.search.scale import on_scale
from engine.search.seek import distinct_moments, refine_seeks
from engine.search.snippets import ResultMaker
from engine.search.stats import LibraryStats
from engine.search.strength import strengths
from engine.store import Store

if TYPE_CHECKING:
    from engine.index.vectors import VectorIndex
    from engine.models import Embedder, Reranker


class Searcher:
    """Runs one query through the enabled stages. Keeps nothing between queries but caches
    of library statistics (until the library changes) and the query enricher."""

    def __init__(
        self,
        store: Store,
        index: Callable[[], VectorIndex | None],
        embedder: Callable[[], Embedder | None],
        thumbs: Path | None = None,
        reranker: Callable[[], Reranker | None] = lambda: None,
    ) -> None:
        self._store = store
        self._reranker = reranker
        self._stats = LibraryStats(store)
        self._candidates = CandidateFinder(store, self._stats, index, embedder)
        self._results = ResultMaker(store, thumbs)

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        filters: SearchFilters = NO_FILTERS,
        config: SearchConfig,
        typing: bool = False,
    ) -> SearchOutcome:
        """``config`` is the library's search settings of the moment (or a caller's own)."""
        cfg = config
        limit = max(1, min(limit, 1000))
        clock = StageClock()
        with clock("analyse"):
            stats = self._stats
            q = analyse(
                query, typing, stats.frequencies, stats.languages(), stats.analysed_frequencies
            )
        pool = self._candidates.find(q, limit, filters, cfg, clock)  # 1. candidates
        # thresholds on the embedder's similarities (a gate that follows the query: its run's)
        scale = on_scale(cfg, pool.calibration, pool.background)
        if gated(q, pool, cfg, scale.gate):  # 2. early exit
            return SearchOutcome([], clock.took(), gated=True, best_similarity=pool.best_similarity)
        head = list(pool.head)
        # 3. multi-granularity; then each hit's seek, and windows at one moment collapse
        if cfg.sentences and pool.vector is not None and pool.dimension is not None and head:
            with clock("sentences"):
                head = by_sentence(
                    head, q, pool.vector, pool.dimension, pool.best_bm25, self._store, cfg, scale
                )
        head = refine_seeks(head, q.weights_for, cfg.seek_refinement)
        if cfg.dedup:
            head = distinct_moments(head)
        reranked = 0  # 4. reranking
        reranker = self._reranker() if cfg.rerank and cfg.rerank_top > 0 and head else None
        if reranker is not None:
            with clock("rerank"):
                head, reranked = rerank(reranker, q, head, cfg)
        # 5. diversity (MMR, off by default), then the results with their snippets
        if cfg.mmr > 0 and len(head) > 1 and pool.dimension is not None:
            with clock("mmr"):
                head = by_mmr(head, self._store, pool.dimension, limit, cfg.mmr)
        with clock("fuse"):  # its key in took_ms from before the split (bench/ prints it)
            hits = distinct_hits(head, cfg, limit)
            strong = strengths(hits, q.weights_for, pool.similarity, cfg, scale.gate)
            hits, strong = said_first(hits, strong)
            results = self._results.results(hits, q.weights_for, cfg, strong)
        return SearchOutcome(
            results, clock.took(), best_similarity=pool.best_similarity, reranked=reranked
        )
