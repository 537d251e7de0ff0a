"""Stage 2, early exit: the library has no answer (a cooking question in a Photoshop course)."""

from __future__ import annotations

import re

from engine.analysis import uses_porter
from engine.config import SearchConfig
from engine.search.candidates import Pool
from engine.search.handoff import Candidate
from engine.search.query import Query
from engine.words import fold, stem


def gated(query: Query, pool: Pool, cfg: SearchConfig, gate: float) -> bool:
    """No segment's vector is as close to the query's as ``gate`` (on the embedder's scale),
    and no candidate has a sentence holding a good share of the query's term weight. The word
    being typed does not count when it may be the start of a longer word a candidate holds
    ("quick" of "quicksort"); one no candidate's word starts with counts as a whole word, as
    the command line counts it ("giraffe" in a course on sorting). Without vectors, never."""
    if gate <= 0 or pool.best_similarity is None or pool.best_similarity >= gate:
        return False
    typed = stem(query.typed) if query.typed is not None and _may_grow(query.typed, pool) else None
    total = sum(w for s, w in query.weights.items() if s != typed)
    if total <= 0:
        return False
    best = max((_share(query, c, total) for c in pool.head if c.passage is not None), default=0.0)
    return best < cfg.gate_overlap


def _may_grow(typed: str, pool: Pool) -> bool:
    """Whether a candidate holds a word longer than ``typed`` (folded) that starts with it:
    the word the user is still typing may become it."""
    longer = re.compile(r"\b" + re.escape(typed) + r"\w", re.UNICODE)
    return any(longer.search(fold(c.row.text)) for c in pool.head)


def _share(query: Query, candidate: Candidate, total: float) -> float:
    """The share of the query's term weight (read in the candidate's language) its best
    sentence holds."""
    score = candidate.passage.score if candidate.passage is not None else 0.0
    if not uses_porter(candidate.row.language):
        # the last n-gram or stem may still grow while typing: all of them count here
        total = sum(query.weights_for(candidate.row.language).values())
    return min(score, total) / total if total > 0 else 0.0
