"""How sure each hit is: the early exit's own test, asked of one hit at a time.

A hit is strong when it alone would have kept the search from the early exit: its vector
is as close to the query's as the gate asks, or its best sentence holds the share of the
query's term weight that overrides the gate. The ranking is the search's, so strength is a
prefix: from the first weak hit down every hit is weaker (the window draws a divider there).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.config import SearchConfig
from engine.search.handoff import Candidate
from engine.search.lexical import Weights, weights_of


def is_strong(
    hit: Candidate,
    weights: Mapping[str, float],
    similarity: float | None,
    cfg: SearchConfig,
    gate: float,
) -> bool:
    if similarity is not None and similarity >= gate:
        return True
    total = sum(weights.values())
    if total <= 0 or hit.passage is None:
        return similarity is None and total <= 0  # nothing to measure it by: not weaker
    return min(hit.passage.score, total) / total >= cfg.gate_overlap


def strengths(
    hits: Sequence[Candidate],
    weights: Weights,
    similarity: Mapping[int, float],
    cfg: SearchConfig,
    gate: float,
) -> list[bool]:
    """Strong or not, for each hit in rank order; False from the first weak hit on."""
    out: list[bool] = []
    strong = True
    for hit in hits:
        own = weights_of(weights, hit.row.language)
        strong = strong and is_strong(hit, own, similarity.get(hit.id), cfg, gate)
        out.append(strong)
    return out
