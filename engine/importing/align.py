"""Slides lined up with a video: which page is on screen during each moment.

Each moment (a scene with the text read off its keyframe, or a window of speech) is compared
with every page by TF-IDF cosine over stemmed words, optionally plus an embedding cosine. An
order-preserving alignment (Viterbi over moments x pages, as in MaViLS) then picks one page per
moment: staying on a page is free, the next page is cheap, skipping ahead costs more and going
back costs most, but nothing is forbidden because lecturers do go back. Pure numpy.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.types import Timing
from engine.words import STOPWORDS, stem

log = logging.getLogger(__name__)

_TOKEN = re.compile(r"[^\W\d_]{2,}", re.UNICODE)  # letters only: page numbers say nothing
_MIN_SCREEN_TERMS = 3
_MIN_MOMENT_MS = 1_000  # fewer words read off a frame are noise, not a slide

Matrix = npt.NDArray[np.float64]
Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True, slots=True)
class Moment:
    """A stretch of the video: a scene (with its on-screen text) or a transcript window."""

    start_ms: int
    end_ms: int
    screen_text: str = ""
    speech_text: str = ""


@dataclass(frozen=True, slots=True)
class Alignment:
    """The page shown during each moment (1-based, None = no slide) and how well it fits.

    ``score`` is the mean similarity of the moments to their pages (None counts 0): it is
    comparable between decks, so the deck with the highest score is the one a video shows.
    """

    pages: tuple[int | None, ...]
    scores: tuple[float, ...]
    score: float


@dataclass(frozen=True, slots=True)
class AlignConfig:
    """Weights and costs, in units of cosine similarity. Tuned on MaViLS (bench/slide_alignment)."""

    unit_ms: int = 5_000  # similarity x (moment length / unit) is the evidence a moment gives
    screen_weight: float = 2.0  # OCR of the very slide: strong evidence
    speech_weight: float = 1.0  # what the lecturer says about it: weaker, scaled by the costs
    embed_weight: float = 0.1  # share of the speech similarity taken from the embedder
    next_cost: float = 0.05  # moving on to the next page
    skip_cost: float = 1.0  # skipping ahead (plus ``per_page_cost`` per page skipped)
    back_cost: float = 4.0  # going back (plus ``per_page_cost`` per page)
    per_page_cost: float = 0.05
    screen_min: float = 0.2  # screen text this far from every page: the screen shows no slide
    center_speech: bool = True  # speech evidence relative to each page's mean over moments
    speech_min: float = 0.0  # likewise for speech alone (0: speech never says "no slide")


def terms(text: str) -> list[str]:
    """Lower-cased, stemmed content words of ``text`` (no stop words, digits or 1-letter words)."""
    out: list[str] = []
    for word in _TOKEN.findall(text.lower()):
        if word not in STOPWORDS:
            out.append(stem(word))
    return out


def _tfidf(docs: Sequence[list[str]], vocab: dict[str, int], idf: Matrix) -> Matrix:
    """Rows of sublinear TF x IDF, L2-normalised (an empty document is a zero row)."""
    out = np.zeros((len(docs), len(vocab)), dtype=np.float64)
    for i, doc in enumerate(docs):
        for term, n in Counter(doc).items():
            j = vocab.get(term)
            if j is not None:
                out[i, j] = 1.0 + math.log(n)
    out *= idf
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


def tfidf_similarity(page_texts: Sequence[str], texts: Sequence[str]) -> Matrix:
    """Cosine (moments x pages) over stemmed words; IDF from the pages and the moments together,
    so words said all the time ("so", "going") weigh little even when no page has them."""
    page_terms = [terms(t) for t in page_texts]
    moment_terms = [terms(t) for t in texts]
    vocab: dict[str, int] = {}
    for doc in page_terms:
        for term in doc:
            vocab.setdefault(term, len(vocab))
    if not vocab:
        return np.zeros((len(texts), len(page_texts)), dtype=np.float64)
    df = np.zeros(len(vocab), dtype=np.float64)
    for doc in (*page_terms, *moment_terms):
        for term in set(doc):
            j = vocab.get(term)
            if j is not None:
                df[j] += 1
    n_docs = len(page_terms) + len(moment_terms)
    idf = np.log((1 + n_docs) / (1 + df)) + 1.0
    return _tfidf(moment_terms, vocab, idf) @ _tfidf(page_terms, vocab, idf).T


def embed_similarity(page_texts: Sequence[str], texts: Sequence[str], embed: Embed) -> Matrix:
    """Embedding cosine (moments x pages) minus each moment's mean over the pages: the common
    part of the similarity says nothing about which page it is. Empty texts give zero rows."""
    out = np.zeros((len(texts), len(page_texts)), dtype=np.float64)
    pages = [i for i, t in enumerate(page_texts) if t.strip()]
    rows = [i for i, t in enumerate(texts) if t.strip()]
    if not pages or not rows:
        return out
    vectors = np.asarray(embed([page_texts[i] for i in pages] + [texts[i] for i in rows]))
    page_vecs, row_vecs = vectors[: len(pages)], vectors[len(pages) :]
    cos = row_vecs.astype(np.float64) @ page_vecs.astype(np.float64).T
    cos -= cos.mean(axis=1, keepdims=True)
    out[np.ix_(rows, pages)] = cos
    return out


def transition_costs(n_pages: int, config: AlignConfig) -> Matrix:
    """Cost of going from page i (row) to page j (column)."""
    idx = np.arange(n_pages)
    step = idx[None, :] - idx[:, None]
    costs = np.zeros((n_pages, n_pages), dtype=np.float64)
    costs[step == 1] = config.next_cost
    ahead = step > 1
    costs[ahead] = config.skip_cost + config.per_page_cost * (step[ahead] - 2)
    back = step < 0
    costs[back] = config.back_cost + config.per_page_cost * (-step[back] - 1)
    return costs


def viterbi(evidence: Matrix, costs: Matrix, start_costs: Matrix) -> list[int]:
    """The page sequence maximising total evidence minus transition costs (0-based pages)."""
    n_moments, n_pages = evidence.shape
    if n_moments == 0 or n_pages == 0:
        return []
    back = np.zeros((n_moments, n_pages), dtype=np.intp)
    total = evidence[0] - start_costs
    for t in range(1, n_moments):
        cand = total[:, None] - costs
        best = np.argmax(cand, axis=0)
        back[t] = best
        total = cand[best, np.arange(n_pages)] + evidence[t]
    path = [int(np.argmax(total))]
    for t in range(n_moments - 1, 0, -1):
        path.append(int(back[t, path[-1]]))
    path.reverse()
    return path


def similarities(
    page_texts: Sequence[str],
    moments: Sequence[Moment],
    embed: Embed | None,
    config: AlignConfig,
) -> tuple[Matrix, Matrix, npt.NDArray[np.bool_]]:
    """Screen and speech similarity (moments x pages), and which moments have screen text."""
    screen = tfidf_similarity(page_texts, [m.screen_text for m in moments])
    speech = tfidf_similarity(page_texts, [m.speech_text for m in moments])
    if embed is not None and config.embed_weight > 0:
        dense = embed_similarity(page_texts, [m.speech_text for m in moments], embed)
        w = config.embed_weight
        speech = (1 - w) * speech + w * dense
    has_screen = np.array(
        [len(terms(m.screen_text)) >= _MIN_SCREEN_TERMS for m in moments], dtype=np.bool_
    )
    return screen, speech, has_screen


def align_slides(
    page_texts: Sequence[str],
    moments: Sequence[Moment],
    *,
    embed: Embed | None = None,
    config: AlignConfig | None = None,
    ordered: bool = True,
) -> Alignment:
    """Which page (1-based) is on screen during each moment, in the order the moments come.

    ``embed`` (optional) maps texts to L2-normalised rows, e.g. ``OnnxEmbedder.embed``; it
    adds meaning to the speech side. ``ordered=False`` takes each moment's most similar page
    alone (the baseline the alignment is measured against).

    A moment maps to None when nothing on it matches a page: screen text (if enough was read)
    below ``config.screen_min``, or otherwise speech below ``config.speech_min``, or no text.
    Such moments do not pull the alignment anywhere.
    """
    cfg = config or AlignConfig()
    n_pages, n_moments = len(page_texts), len(moments)
    if n_moments == 0:
        return Alignment((), (), 0.0)
    if n_pages == 0:
        return Alignment((None,) * n_moments, (0.0,) * n_moments, 0.0)
    screen, speech, has_screen = similarities(page_texts, moments, embed, cfg)
    combined = cfg.screen_weight * screen + cfg.speech_weight * speech
    best = combined.max(axis=1)
    blank = np.where(
        has_screen,
        screen.max(axis=1) < cfg.screen_min,
        (speech.max(axis=1) <= cfg.speech_min) | (best <= 0),
    )
    speech_evidence = speech
    if cfg.center_speech and n_moments > 1:
        # A page with much text resembles everything said; what counts is where it stands out.
        speech_evidence = np.maximum(speech - speech.mean(axis=0, keepdims=True), 0.0)
    evidence = cfg.screen_weight * screen + cfg.speech_weight * speech_evidence
    evidence[blank] = 0.0
    # Evidence piles up with time: a long scene outweighs a flicker, and the costs mean the same
    # whether moments are 5-s steps or minute-long scenes.
    lengths = np.array([max(m.end_ms - m.start_ms, _MIN_MOMENT_MS) for m in moments], dtype=float)
    evidence *= (lengths / cfg.unit_ms)[:, None]
    if ordered:
        costs = transition_costs(n_pages, cfg)
        path = viterbi(evidence, costs, costs[0])
    else:
        path = [int(i) for i in np.argmax(np.where(blank[:, None], 0.0, combined), axis=1)]
    pages: list[int | None] = []
    scores: list[float] = []
    for t, p in enumerate(path):
        if blank[t]:
            pages.append(None)
            scores.append(0.0)
        else:
            pages.append(p + 1)
            scores.append(float(combined[t, p]))
    return Alignment(tuple(pages), tuple(scores), float(np.mean(scores)))


def speech_moments(
    words: Sequence[Timing], *, hop_ms: int = 10_000, context_ms: int = 30_000
) -> list[Moment]:
    """Moments of ``hop_ms`` tiling the speech, each with the words said in the ``context_ms``
    centred on it (a window longer than the moment gives steadier evidence)."""
    if not words:
        return []
    starts = np.array([w.start_ms for w in words], dtype=np.int64)
    first = (int(starts[0]) // hop_ms) * hop_ms
    end = max(w.end_ms for w in words)
    pad = max(0, context_ms - hop_ms) // 2
    moments: list[Moment] = []
    for start in range(first, end + 1, hop_ms):
        lo = int(np.searchsorted(starts, start - pad, side="left"))
        hi = int(np.searchsorted(starts, start + hop_ms + pad, side="left"))
        text = " ".join(w.text for w in words[lo:hi])
        moments.append(Moment(start, start + hop_ms, speech_text=text))
    return moments
