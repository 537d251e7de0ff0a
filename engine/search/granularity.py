"""Stage 3, multi-granularity: the fused head rescored by its closest sentence."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from engine.config import SearchConfig
from engine.models.manifest import Calibration
from engine.search.handoff import Candidate, Passage
from engine.search.lexical import scorer
from engine.search.query import Query
from engine.store import SegmentRow, Store


def unit(values: Sequence[float]) -> np.ndarray:
    """Scores scaled to 0..1 (all 1 when they are equal): fused RRF scores only compare
    within one query's candidates."""
    raw = np.asarray(values, dtype=np.float64)
    span = float(raw.max() - raw.min())
    return (raw - raw.min()) / span if span > 0 else np.ones_like(raw)


def by_sentence(
    head: Sequence[Candidate],
    query: Query,
    vector: np.ndarray,
    dimension: int,
    best_bm25: float,
    store: Store,
    cfg: SearchConfig,
    scale: Calibration,
) -> list[Candidate]:
    """The head rescored and re-sorted. A candidate scores its fused RRF score (scaled to
    0..1; with ``score_fusion``, its BM25 over the best (``best_bm25``) and its own vector's
    similarity instead), the similarity of its closest sentence and the share of the query's
    term weight its best sentence holds, each weighted. A timed window answers in one
    sentence, not on average, so it is scored by that sentence and playback seeks to it (its
    passage becomes that sentence); a candidate without sentence vectors (a slide, a note,
    code) stands for its one sentence. Weights on similarity are ``scale``'s."""
    ids = [c.id for c in head]
    sentences = store.embeddings.sentence_vectors(ids, dimension)
    # Own vectors: every candidate's for score fusion, else only those without sentences.
    needed = ids if cfg.score_fusion else [sid for sid in ids if sid not in sentences]
    found, matrix = store.embeddings.vectors(needed, dimension)
    whole = {int(sid): float(v @ vector) for sid, v in zip(found, matrix, strict=True)}
    rrf = unit([c.score for c in head])
    out: list[Candidate] = []
    for candidate, prior_rrf in zip(head, rrf, strict=True):
        weights = query.weights_for(candidate.row.language)
        total = sum(weights.values())
        score = scorer(weights, candidate.row.language) if total > 0 else None
        own = whole.get(candidate.id, 0.0)
        cues = sentences.get(candidate.id)
        passage = candidate.passage
        if cues is not None and len(cues) == len(candidate.row.timings):
            similarity, words, passage = _closest_cue(
                candidate.row, cues, vector, score, total, scale.seek_words
            )
        else:
            similarity = own
            words = min(1.0, passage.score / total) if passage and total > 0 else 0.0
        if cfg.score_fusion:
            lexical = candidate.bm25 / best_bm25 if best_bm25 > 0 else 0.0
            prior = cfg.fulltext_weight * lexical + scale.window_weight * own
        else:
            prior = float(prior_rrf)
        rescored = prior + scale.sentence_weight * similarity + cfg.sentence_words * words
        out.append(candidate.rescored(rescored, passage))
    out.sort(key=lambda c: -c.score)
    return out


def _closest_cue(
    row: SegmentRow,
    cues: np.ndarray,
    vector: np.ndarray,
    score: Callable[[str], float] | None,
    total: float,
    seek_words: float,
) -> tuple[float, float, Passage]:
    """(similarity of the closest cue, largest share of the query's term weight a cue
    holds, the cue playback seeks to: by similarity and, a little (``seek_words``), by the
    query words it holds; in recognised speech, by those it and the next line hold together)."""
    sims = cues @ vector
    timings = row.timings
    share = np.array([score(t.text) / total if score else 0.0 for t in timings])
    held = share
    if row.words:
        # Whisper cuts its lines at pauses, not at sentence ends, and an answer often takes
        # two ("Merge sort has one more property. It is a stable sort."): a line that holds
        # query words counts those it and the next line hold, so playback starts where the
        # passage holding them begins. Subtitle cues are sentences: on TutorialVQA's, the
        # same moved starts before the answer (Hit@10 -0.1 point on dev, -0.2 on train).
        pairs = [f"{a.text} {b.text}" for a, b in itertools.pairwise(timings)]
        together = [score(t) / total if score else 0.0 for t in pairs] + list(share[-1:])
        held = np.where(share > 0, together, share)
    best = int(np.argmax(sims + seek_words * held))
    return float(sims.max()), float(share.max()), Passage(best, float(share[best] * total))
