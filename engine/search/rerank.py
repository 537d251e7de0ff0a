"""Stage 4, reranking: a cross-encoder re-sorts the head as far as its time budget pays for."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from engine.config import SearchConfig
from engine.search.handoff import Candidate, Passage
from engine.search.lexical import passage_offset
from engine.search.query import Query
from engine.search.snippets import make_snippet
from engine.store import SegmentRow

if TYPE_CHECKING:
    from engine.models import Reranker


def rerank_text(
    row: SegmentRow, passage: Passage | None, weights: Mapping[str, float], words: int
) -> str:
    """What the cross-encoder reads of a candidate: its heading (or file title) and about
    ``words`` words around its best-matching sentence."""
    around = passage_offset(row, passage)
    window, _ = make_snippet(row.text, weights, words=words, around=around, language=row.language)
    context = row.heading or row.source_title
    return f"{context}. {window.strip('…')}" if context else window.strip("…")


def rerank(
    reranker: Reranker, query: Query, head: Sequence[Candidate], cfg: SearchConfig
) -> tuple[list[Candidate], int]:
    """The first ``rerank_top`` sorted by the cross-encoder (those the budget let it
    score), then the ones it could not afford and the rest, in their order; and how many
    it scored. Each candidate is read as its heading and the words around its best
    sentence, so a pair stays short."""
    top = head[: cfg.rerank_top]
    texts = [
        rerank_text(c.row, c.passage, query.weights_for(c.row.language), cfg.rerank_words)
        for c in top
    ]
    logits = reranker.score(query.text, texts, budget_ms=cfg.rerank_budget_ms)
    scored = [(c, float(x)) for c, x in zip(top, logits, strict=True) if not math.isnan(x)]
    unscored = [c for c, x in zip(top, logits, strict=True) if math.isnan(x)]
    ranked = [c for c, _ in sorted(scored, key=lambda kv: -kv[1])]
    return ranked + unscored + list(head[cfg.rerank_top :]), len(scored)
