"""Stage 5, diversity: MMR when enabled, then one hit per moment and per text (windows that
seek to the same moment, near-copies), up to the limit."""

from __future__ import annotations

from collections.abc import Sequence

from engine.config import SearchConfig
from engine.search.diversity import jaccard, mmr, word_set
from engine.search.granularity import unit
from engine.search.handoff import Candidate
from engine.search.seek import SAME_MOMENT_MS
from engine.store import Store
from engine.types import SegmentKind


def by_mmr(
    head: Sequence[Candidate], store: Store, dimension: int, limit: int, lam: float
) -> list[Candidate]:
    """MMR over the candidates that can reach the page (three times the limit)."""
    top = head[: limit * 3]
    found, vectors = store.embeddings.vectors([c.id for c in top], dimension)
    by_id = {c.id: c for c in top}
    picks = [by_id[int(i)] for i in found]
    if len(picks) < 2:
        return list(head)
    relevance = unit([c.score for c in picks])
    picked = [picks[i] for i in mmr(relevance, vectors, len(picks), lam)]
    chosen = {c.id for c in picked}
    return picked + [c for c in head if c.id not in chosen]


def _same_moment(a: Candidate, b: Candidate) -> bool:
    """Overlapping transcript windows that seek to the same moment are one hit. A user's
    note is its own hit: it neither hides nor is hidden by what was said there."""
    if a.row.source_path != b.row.source_path or a.seek_ms is None or b.seek_ms is None:
        return False
    if SegmentKind.BOOKMARK in (a.row.kind, b.row.kind):
        return False
    return (
        a.row.path_in_archive == b.row.path_in_archive
        and abs(a.seek_ms - b.seek_ms) < SAME_MOMENT_MS
    )


def distinct_hits(head: Sequence[Candidate], cfg: SearchConfig, limit: int) -> list[Candidate]:
    """The first ``limit`` candidates that are neither a near-copy (Jaccard on words, at
    ``near_duplicates``) nor, with ``dedup``, the same moment as one kept before them."""
    kept: list[Candidate] = []
    kept_words: list[frozenset[str]] = []
    for candidate in head:
        words = word_set(candidate.row.text) if cfg.near_duplicates > 0 else frozenset()
        if cfg.near_duplicates > 0 and any(
            jaccard(words, other) >= cfg.near_duplicates for other in kept_words
        ):
            continue
        if cfg.dedup and any(_same_moment(candidate, other) for other in kept):
            continue
        kept.append(candidate)
        kept_words.append(words)
        if len(kept) == limit:
            break
    return kept
