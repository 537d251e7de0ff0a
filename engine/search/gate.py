"""Stage 2, early exit: the library has no answer (a cooking question in a Photoshop course)."""

from __future__ import annotations

from engine.analysis import uses_porter
from engine.config import SearchConfig
from engine.search.candidates import Pool
from engine.search.handoff import Candidate
from engine.search.query import Query
from engine.words import stem


def gated(query: Query, pool: Pool, cfg: SearchConfig, gate: float) -> bool:
    """No segment's vector is as close to the query's as ``gate`` (on the embedder's scale),
    and no candidate has a sentence holding a good share of the query's term weight (the
    word being typed does not count: it may be the start of a longer one). Without vectors,
    never."""
    if gate <= 0 or pool.best_similarity is None or pool.best_similarity >= gate:
        return False
    typed = None if query.typed is None else stem(query.typed)
    total = sum(w for s, w in query.weights.items() if s != typed)
    if total <= 0:
        return False
    best = max((_share(query, c, total) for c in pool.head if c.passage is not None), default=0.0)
    return best < cfg.gate_overlap


def _share(query: Query, candidate: Candidate, total: float) -> float:
    """The share of the query's term weight (read in the candidate's language) its best
    sentence holds."""
    score = candidate.passage.score if candidate.passage is not None else 0.0
    if not uses_porter(candidate.row.language):
        # the last n-gram or stem may still grow while typing: all of them count here
        total = sum(query.weights_for(candidate.row.language).values())
    return min(score, total) / total if total > 0 else 0.0
