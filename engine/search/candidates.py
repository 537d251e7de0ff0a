"""Stage 1, candidates: full-text and dense retrieval, and the head of their fusion ranked
a third time by its best sentence; reciprocal rank fusion merges the three."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from engine.config import SearchConfig
from engine.models.manifest import Calibration
from engine.search.clock import StageClock
from engine.search.handoff import Candidate, Passage
from engine.search.lexical import best_passage
from engine.search.query import Query
from engine.search.results import SearchFilters
from engine.search.scale import background
from engine.search.stats import LibraryStats
from engine.store import SegmentRow, Store

if TYPE_CHECKING:
    from engine.index.vectors import VectorIndex
    from engine.models import Embedder
    from engine.search.enrich import QueryEnricher

HEAD = 10  # times the limit: how many fused candidates are read and rescored


def fuse_rrf(rankings: Sequence[Sequence[int]], k: int = 60) -> list[tuple[int, float]]:
    """Reciprocal rank fusion: score(d) = sum over lists of 1 / (k + rank), rank from 1."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


@dataclass(frozen=True, slots=True)
class Pool:
    """The fused head and what later stages need from retrieval."""

    head: tuple[Candidate, ...]  # in fused order
    best_similarity: float | None  # of the nearest segment's vector (None: no dense search)
    vector: np.ndarray | None  # the query's (None: no dense search)
    dimension: int | None  # of the vector index (None: dense is off or there is no index)
    best_bm25: float  # the top full-text score (0: no full-text hits)
    similarity: Mapping[int, float]  # each dense hit's vector similarity to the query's
    calibration: Calibration  # the query's embedder's (without one, unused: no similarities)
    background: float | None  # the median similarity of its run (engine/search/scale.py)


@dataclass(frozen=True, slots=True)
class _Ranking:
    ids: list[int]
    scores: dict[int, float]  # bm25 for full-text, similarity for dense

    def ranks(self) -> dict[int, int]:
        return {sid: i for i, sid in enumerate(self.ids, start=1)}


_NOTHING = _Ranking([], {})


def _by_passage(head: dict[int, tuple[SegmentRow, Passage | None]]) -> list[int]:
    """The third list, multi-granularity on the lexical side: candidates by their single
    best sentence (or cue), so a window that answers in one sentence beats one that spreads
    the same words thinly."""
    scored = [(sid, p.score) for sid, (_, p) in head.items() if p is not None]
    return [sid for sid, _ in sorted(scored, key=lambda kv: (-kv[1], kv[0]))]


class CandidateFinder:
    def __init__(
        self,
        store: Store,
        stats: LibraryStats,
        index: Callable[[], VectorIndex | None],
        embedder: Callable[[], Embedder | None],
    ) -> None:
        self._store, self._stats = store, stats
        self._index, self._embedder = index, embedder
        self._enricher: QueryEnricher | None = None
        self._enriched_by: Embedder | None = None

    def find(
        self, query: Query, limit: int, filters: SearchFilters, cfg: SearchConfig, clock: StageClock
    ) -> Pool:
        """The head of the fused lists (``limit * HEAD``): only it can reach the results."""
        size = limit * cfg.candidate_factor
        kinds = tuple(k.value for k in filters.kinds)
        course_id = self._store.catalog.course_id(filters.course) if filters.course else None
        with clock("fulltext"):
            match = query.fts_match() if cfg.fulltext else None
            terms_match = query.terms_match() if cfg.fulltext else None
            fulltext = None
            if match or terms_match:
                fulltext = self._fulltext(match, terms_match, size, kinds, course_id)
        index = self._index() if cfg.dense else None
        embedder = self._embedder() if cfg.dense and index is not None and len(index) else None
        vector, dense = None, None
        if index is not None and embedder is not None and query.terms:
            with clock("embed"):
                vector = embedder.embed([self._dense_text(query, embedder, cfg)], query=True)[0]
            with clock("dense"):
                dense = self._dense(index, vector, size, cfg, kinds, course_id)
        lists = [r.ids for r in (fulltext, dense) if r is not None]
        with clock("passages"):
            head = self._head(query, lists, limit, cfg)
            if cfg.passage_rank and (query.weights or query.analysed):
                lists.append(_by_passage(head))
        fused = fuse_rrf(lists, cfg.rrf_k)
        ft, dn = fulltext or _NOTHING, dense or _NOTHING
        ft_rank, dense_rank = ft.ranks(), dn.ranks()
        return Pool(
            head=tuple(
                Candidate(
                    row=head[sid][0],
                    score=score,
                    passage=head[sid][1],
                    fulltext_rank=ft_rank.get(sid),
                    dense_rank=dense_rank.get(sid),
                    bm25=ft.scores.get(sid, 0.0),
                    seek_ms=head[sid][0].start_ms,
                )
                for sid, score in fused
                if sid in head
            ),
            best_similarity=dn.scores[dn.ids[0]] if dn.ids else None,
            vector=vector,
            dimension=None if index is None else index.dimension,
            best_bm25=max(ft.scores.values(), default=0.0),
            similarity=dn.scores,
            calibration=Calibration() if embedder is None else embedder.calibration,
            background=background([dn.scores[sid] for sid in dn.ids]),
        )

    def _head(
        self, query: Query, lists: list[list[int]], limit: int, cfg: SearchConfig
    ) -> dict[int, tuple[SegmentRow, Passage | None]]:
        """The rows of the fused head (those still in the library) and their best passages."""
        ids = [sid for sid, _ in fuse_rrf(lists, cfg.rrf_k)[: limit * HEAD]]
        rows = self._store.segments.by_ids(ids)
        head = {
            sid: (
                rows[sid],
                best_passage(rows[sid], query.weights_for(rows[sid].language), cfg.passage_follow),
            )
            for sid in ids
            if sid in rows
        }
        return head

    def _fulltext(
        self,
        match: str | None,
        terms_match: str | None,
        size: int,
        kinds: tuple[str, ...],
        course_id: int | None,
    ) -> _Ranking:
        hits = self._store.segments.fulltext(
            match, size, kinds=kinds, course_id=course_id, terms_match=terms_match
        )
        return _Ranking([sid for sid, _ in hits], dict(hits))

    def _dense(
        self,
        index: VectorIndex,
        vector: np.ndarray,
        size: int,
        cfg: SearchConfig,
        kinds: tuple[str, ...],
        course_id: int | None,
    ) -> _Ranking:
        allowed = None
        if kinds or course_id is not None:
            allowed = self._stats.allowed(kinds, course_id).__contains__
        ids, distances = index.search(vector, size, ef=max(cfg.hnsw_ef, size), allowed=allowed)
        ranking = [int(i) for i in ids]
        similarity = {sid: 1.0 - float(d) for sid, d in zip(ranking, distances, strict=True)}
        return _Ranking(ranking, similarity)

    def _dense_text(self, query: Query, embedder: Embedder, cfg: SearchConfig) -> str:
        """The dense side's text: the query, after KeyBERT keyphrases for a long one (more
        than ``cfg.enrich_min_words`` words)."""
        from engine.search.enrich import QueryEnricher, word_count

        if not cfg.enrich or word_count(query.text) <= cfg.enrich_min_words:
            return query.text
        enricher = self._enricher
        if enricher is None or self._enriched_by is not embedder:
            # Kept across searches (its model loads once); the length is checked above.
            enricher = self._enricher = QueryEnricher(embedder, min_words=0)
            self._enriched_by = embedder
        return enricher.dense_query(query.text)
