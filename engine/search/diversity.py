"""Diversity of a result list: near-duplicate removal and maximal marginal relevance.

Pure functions over candidates the caller has already ranked. Words are folded by
:mod:`engine.words`, as search folds query words.
"""

from __future__ import annotations

import itertools
import logging
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from engine.words import WORD, fold

log = logging.getLogger(__name__)

T = TypeVar("T")

_ASCII_WORD = re.compile(r"\w+", re.ASCII)  # same words on ASCII text, a third faster
# ceil(threshold * n) computed in floats may land one above the true integer (0.7 * 10 =
# 7.000000000000001); a prefix one token longer is still correct, one shorter is not.
_EPS = 1e-9


def word_set(text: str) -> frozenset[str]:
    """The distinct words of ``text``, folded as the search folds query words."""
    folded = fold(text)
    words = (_ASCII_WORD if folded.isascii() else WORD).findall(folded)
    if "_" in folded:
        return frozenset(w for w in words if w.strip("_"))
    return frozenset(words)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a & b| / |a | b|; 0.0 when both are empty (no words is no evidence of a copy)."""
    common = len(a & b)
    union = len(a) + len(b) - common
    return common / union if union else 0.0


def _check_threshold(threshold: float) -> None:
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")


def dedup_near(items: Sequence[T], text: Callable[[T], str], threshold: float = 0.9) -> list[T]:
    """``items`` in order, without those whose words are a near copy (Jaccard >= threshold)
    of an item already kept: overlapping windows of one moment, a paragraph in two handouts.

    An item is compared with kept items only, so a chain of small edits can survive. Items
    without words are always kept. Candidates are found by prefix filtering (two sets with
    Jaccard >= t share a word among their ``n - ceil(t n) + 1`` rarest), so 200 windows of
    100 words cost a few milliseconds instead of 20,000 set intersections.

    Raises:
        ValueError: ``threshold`` is not in (0, 1].
    """
    _check_threshold(threshold)
    sets = [word_set(text(item)) for item in items]
    frequency = Counter(itertools.chain.from_iterable(sets))
    # Any total order shared by all sets works; rarest first keeps candidate lists short.
    # Ties are broken by first appearance (a Counter keeps insertion order).
    size = len(frequency)
    order = {word: count * size + i for i, (word, count) in enumerate(frequency.items())}

    kept: list[T] = []
    kept_sets: list[frozenset[str]] = []
    by_prefix_word: dict[str, list[int]] = {}
    for item, words in zip(items, sets, strict=True):
        n = len(words)
        if n == 0:
            kept.append(item)
            continue
        prefix = sorted(words, key=order.__getitem__)[: n - math.ceil(threshold * n - _EPS) + 1]
        seen: set[int] = set()
        duplicate = False
        for word in prefix:
            for k in by_prefix_word.get(word, ()):
                if k in seen:
                    continue
                seen.add(k)
                other = kept_sets[k]
                m = len(other)
                # Jaccard <= min/max, so sets of too different sizes cannot be copies.
                if min(n, m) < threshold * max(n, m):
                    continue
                if jaccard(words, other) >= threshold:
                    duplicate = True
                    break
            if duplicate:
                break
        if duplicate:
            continue
        for word in prefix:
            by_prefix_word.setdefault(word, []).append(len(kept_sets))
        kept.append(item)
        kept_sets.append(words)
    if len(kept) < len(items):
        log.debug("dedup_near: %d of %d items were near copies", len(items) - len(kept), len(items))
    return kept


def mmr(
    relevance: Sequence[float] | npt.NDArray[np.floating],
    vectors: npt.NDArray[np.floating],
    k: int,
    lam: float = 0.7,
) -> list[int]:
    """Indices of up to ``k`` candidates in selection order by maximal marginal relevance:
    each pick maximises ``lam * relevance - (1 - lam) * max cosine to the picks so far``.

    ``vectors`` holds one unit vector per candidate (rows), so dot products are cosines.
    ``relevance`` is any higher-is-better score; put it on a scale comparable to cosines
    (e.g. score / max score). Ties go to the earlier candidate, so ``lam=1`` returns the
    candidates by relevance, input order among equals.

    Raises:
        ValueError: shapes disagree, ``lam`` is not in [0, 1], or a value is NaN or infinite.
    """
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lam must be in [0, 1], got {lam}")
    rel = np.asarray(relevance, dtype=np.float64)
    if rel.size == 0:
        return []  # however the caller shaped an empty vector array
    vecs = np.asarray(vectors)
    n = rel.shape[0] if rel.ndim == 1 else -1
    if rel.ndim != 1 or vecs.ndim != 2 or vecs.shape[0] != n:
        raise ValueError(
            f"mmr needs one relevance per vector row, got {rel.shape} and {vecs.shape}"
        )
    if not (np.isfinite(rel).all() and np.isfinite(vecs).all()):
        raise ValueError("mmr got a NaN or infinite relevance or vector value")
    k = min(k, n)
    if k <= 0:
        return []
    gain = lam * rel
    penalty = np.zeros(n, dtype=np.float64)  # max cosine to the picks so far
    chosen = np.zeros(n, dtype=bool)
    picks: list[int] = []
    for step in range(k):
        score = gain - (1.0 - lam) * penalty
        score[chosen] = -np.inf
        best = int(np.argmax(score))
        picks.append(best)
        chosen[best] = True
        if step + 1 < k:
            cosine = (vecs @ vecs[best]).astype(np.float64)
            penalty = cosine if step == 0 else np.maximum(penalty, cosine)
    return picks


__all__ = ["dedup_near", "jaccard", "mmr", "word_set"]
