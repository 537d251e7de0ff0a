"""Retrieval: query analysis, full-text, dense, fusion, seek refinement, snippets.

The pure pieces (query building, fusion, refinement, snippets) are module functions so they
can be tested and reused alone; :class:`Searcher` wires them to a store and a vector index.
"""

from __future__ import annotations

import functools
import logging
import math
import re
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.config import SearchConfig
from engine.diversity import jaccard, mmr, word_set
from engine.store import SegmentRow, Store
from engine.types import SegmentKind, SourceKind, Timing

if TYPE_CHECKING:
    from engine.enrich import QueryEnricher
    from engine.models import Embedder, Reranker
    from engine.vectors import VectorIndex

log = logging.getLogger(__name__)

_WORD = re.compile(r"\w+", re.UNICODE)
_CAMEL = re.compile(r"([a-z])([A-Z])")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_MAX_QUERY_TERMS = 48
HEAD = 10
SEEK_WORDS = 0.2  # in choosing a window's sentence: weight of query words beside similarity
_MAX_FULLTEXT_TERMS = 24
# Function words carry no topic; matching them makes bm25 walk most of the index.
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "don",
        "isn",
        "aren",
        "wasn",
        "weren",
        "hasn",
        "haven",
        "doesn",
        "didn",
        "won",
        "wouldn",
        "shouldn",
        "couldn",
        "can't",
        "i'm",
    ]
)


@functools.cache
def _porter() -> Any:
    """The Porter stemmer, made on first use (importing it costs ~0.2 s at start-up)."""
    import snowballstemmer

    return snowballstemmer.stemmer("porter")


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def query_terms(query: str) -> list[str]:
    """The user's words, lower-cased and diacritics folded, stopwords dropped (unless that
    leaves nothing), first occurrence order, capped so a pasted page stays a fast query."""
    words = [_fold(w) for w in _WORD.findall(query)]
    words = [w for w in words if w.strip("_")]
    kept = [w for w in words if w not in STOPWORDS] or words
    seen: dict[str, None] = {}
    for w in kept:
        seen.setdefault(w, None)
    return list(seen)[:_MAX_QUERY_TERMS]


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Porter stem of a folded word: the same stems FTS5's porter tokenizer indexes."""
    return _porter().stemWord(_fold(word))


def fts_match(
    query: str, *, prefix_last: bool = False, terms: Sequence[str] | None = None
) -> str | None:
    """An FTS5 MATCH expression for any user text, or None when it has no words.

    Every term is double-quoted, so operators (NOT, AND, NEAR), a lone quote, ``*`` or
    parentheses typed by the user are just text. Terms are OR-ed and bm25 ranks documents
    that contain more and rarer terms first. ``terms`` replaces the query's own terms
    (the caller may have dropped some).
    """
    terms = list(query_terms(query) if terms is None else terms)
    if not terms:
        return None
    quoted = ['"' + t.replace('"', "") + '"' for t in terms]
    words = _WORD.findall(query)
    if prefix_last and words and query[-1].isalnum():
        # The word being typed may be the start of a longer one ("so" -> "sort"), even
        # when it looks like a stopword on its own.
        last = _fold(words[-1])
        if len(last) >= 2:
            if last in terms:
                quoted.pop(terms.index(last))
            quoted.append(f'"{last}"*')
    return " OR ".join(quoted)


def informative_terms(terms: Sequence[str], df: Callable[[str], int], total: int) -> list[str]:
    """The terms worth a full-text lookup, rarest first.

    A term found in thousands of segments and in over 5% of the library adds little to
    bm25 but makes FTS5 walk a long posting list, and a pasted page has dozens of terms:
    keep the rarer ones (at most ``_MAX_FULLTEXT_TERMS``), and the rarest term if every one
    is common. Small libraries keep every term: there a common word is cheap and can still
    separate one lecture from another.
    """
    ranked = sorted(terms, key=lambda t: df(stem(t)))
    kept = [t for t in ranked if df(stem(t)) <= max(2000, total // 20)]
    return (kept or ranked[:1])[:_MAX_FULLTEXT_TERMS]


def fuse_rrf(rankings: Sequence[Sequence[int]], k: int = 60) -> list[tuple[int, float]]:
    """Reciprocal rank fusion: score(d) = sum over lists of 1 / (k + rank), rank from 1."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def _weights(terms: Sequence[str], idf: Callable[[str], float]) -> dict[str, float]:
    return {stem(t): idf(stem(t)) for t in terms}


def _candidate_words(weights: dict[str, float]) -> re.Pattern[str]:
    """Words that may stem to a query stem. Porter only rewrites a word's tail, so a word
    shares all but the last letter of its stem; matching on that prefix in the regex
    engine leaves only a handful of words per sentence to stem in Python."""
    keys = sorted({s[: max(1, min(len(s) - 1, 3))] for s in weights}, key=len, reverse=True)
    if not keys:
        return re.compile(r"(?!x)x")
    return re.compile(r"\b(?:" + "|".join(map(re.escape, keys)) + r")\w*", re.IGNORECASE)


def _scorer(weights: dict[str, float]) -> Callable[[str], float]:
    """Scores a text by the idf sum of the distinct query stems it contains."""
    candidates = _candidate_words(weights)

    def score(text: str) -> float:
        found = {stem(w) for w in candidates.findall(text)}
        return sum(weights[s] for s in found if s in weights)

    return score


def best_timing(
    timings: Sequence[Timing], weights: dict[str, float], follow: float = 0.0
) -> tuple[int, float] | None:
    """Index and score of the cue or sentence that best matches the weighted query stems.

    A span scores the idf sum of the distinct query stems it contains, plus ``follow``
    times the next span's score (an answer often goes on in the next sentence); only spans
    that match themselves can win. Ties go to the earliest, so playback starts where the
    matching passage begins. None when no span shares a word with the query.
    """
    score = _scorer(weights)
    values = [score(t.text) for t in timings]
    best: tuple[int, float] | None = None
    for i, value in enumerate(values):
        if value <= 0:
            continue
        total = value + (follow * values[i + 1] if i + 1 < len(values) else 0.0)
        if best is None or total > best[1] + 1e-9:
            best = (i, total)
    return best


_TIMED_SOURCES = (SourceKind.VIDEO, SourceKind.AUDIO, SourceKind.SUBTITLES)


def first_matching_word(
    words: Sequence[Timing], span: Timing, weights: dict[str, float]
) -> Timing | None:
    """The first recognised word inside ``span`` that is one of the query's stems."""
    for word in words:
        if word.start_ms < span.start_ms - 50:
            continue
        if word.start_ms >= span.end_ms:
            break
        if any(stem(w) in weights for w in _WORD.findall(word.text)):
            return word
    return None


def best_passage(
    row: SegmentRow, weights: dict[str, float], follow: float = 0.0
) -> tuple[int, float] | None:
    """The best-matching cue of a timed segment, or sentence of any other, with its score."""
    if not weights:
        return None
    if row.timings:
        return best_timing(row.timings, weights, follow)
    sentences = [Timing(0, 0, part) for part in _SENTENCE.split(row.text) if part.strip()]
    return best_timing(sentences, weights, follow)


def _unit(values: Sequence[float]) -> np.ndarray:
    """Scores scaled to 0..1 (all 1 when they are equal): fused RRF scores only compare
    within one query's candidates."""
    raw = np.asarray(values, dtype=np.float64)
    span = float(raw.max() - raw.min())
    return (raw - raw.min()) / span if span > 0 else np.ones_like(raw)


def seek_ms(
    row: SegmentRow, passage: tuple[int, float] | None, weights: dict[str, float], refine: bool
) -> int | None:
    """Where the player starts for a hit: its best sentence (cue), at its first query word
    when speech was recognised; the segment's start without refinement or a passage."""
    if not (refine and row.timings and passage is not None):
        return row.start_ms
    best = row.timings[passage[0]]
    word = first_matching_word(row.words, best, weights) if row.words else None
    return best.start_ms if word is None else word.start_ms


def _distinct_moments(
    order: Sequence[int],
    rows: dict[int, SegmentRow],
    passages: dict[int, tuple[int, float] | None],
    weights: dict[str, float],
    refine: bool,
) -> list[int]:
    """``order`` without the candidates that seek within 2 s of an earlier one of the same
    kind in the same file (overlapping windows whose best sentence is the same one): before
    reranking, so the budget is not spent twice on one moment. Across kinds the result
    loop decides, after near-copies (a frame showing a slide) are gone."""
    seen: dict[tuple[int, str | None, SegmentKind], list[int]] = {}
    out: list[int] = []
    for sid in order:
        row = rows[sid]
        at = seek_ms(row, passages.get(sid), weights, refine)
        if at is not None:
            earlier = seen.setdefault((row.source_id, row.path_in_archive, row.kind), [])
            if any(abs(at - t) < 2000 for t in earlier):
                continue
            earlier.append(at)
        out.append(sid)
    return out


def _same_moment(a: SearchResult, b: SearchResult) -> bool:
    """Overlapping transcript windows that seek to the same moment are one hit."""
    if a.source != b.source or a.start_ms is None or b.start_ms is None:
        return False
    return a.path_in_archive == b.path_in_archive and abs(a.start_ms - b.start_ms) < 2000


def rerank_text(
    row: SegmentRow, passage: tuple[int, float] | None, weights: dict[str, float], words: int
) -> str:
    """What the cross-encoder reads of a candidate: its heading (or file title) and about
    ``words`` words around its best-matching sentence."""
    around = None
    if passage is not None and row.timings:
        found = row.text.find(row.timings[passage[0]].text[:40])
        around = None if found < 0 else found
    window, _ = make_snippet(row.text, weights, words=words, around=around)
    context = row.heading or row.source_title
    return f"{context}. {window.strip('…')}" if context else window.strip("…")


def _gated(
    cfg: SearchConfig,
    best_similarity: float | None,
    passages: dict[int, tuple[int, float] | None],
    weights: dict[str, float],
    query: str,
    typing: bool,
) -> bool:
    """Early exit: no segment's vector is close to the query's, and no candidate has a
    sentence holding a good share of the query's term weight (the word being typed does
    not count: it may be the start of a longer one). Without vectors, never."""
    if best_similarity is None or best_similarity >= cfg.gate:
        return False
    words = _WORD.findall(query)
    typed = stem(_fold(words[-1])) if typing and words and query[-1].isalnum() else None
    total = sum(w for s, w in weights.items() if s != typed)
    if total <= 0:
        return False
    best = max((p[1] for p in passages.values() if p is not None), default=0.0)
    return min(best, total) / total < cfg.gate_overlap


def best_line(text: str, weights: dict[str, float]) -> int | None:
    """0-based line of ``text`` that best matches the query stems (for code hits)."""
    score = _scorer(weights)
    best: tuple[int, float] | None = None
    for i, line in enumerate(text.splitlines()):
        value = score(_CAMEL.sub(r"\1 \2", line).replace("_", " "))
        if value > 0 and (best is None or value > best[1] + 1e-9):
            best = (i, value)
    return None if best is None else best[0]


def _is_query_word(weights: dict[str, float]) -> Callable[[str], bool]:
    candidates = _candidate_words(weights)

    def check(word: str) -> bool:
        return candidates.fullmatch(word) is not None and stem(word) in weights

    return check


def make_snippet(
    text: str, weights: dict[str, float], *, words: int = 32, around: int | None = None
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A window of about ``words`` words where the query terms are densest (or starting
    near character ``around``), and the character spans of the query terms inside it."""
    tokens = list(_WORD.finditer(text))
    if not tokens:
        return text[:200], ()
    is_query_word = _is_query_word(weights)
    hits = [i for i, m in enumerate(tokens) if is_query_word(m.group())]
    if around is not None:
        start_tok = next((i for i, m in enumerate(tokens) if m.start() >= around), 0)
        start_tok = max(0, start_tok - 3)
    elif hits:
        # slide a window over token positions and keep the one covering the most weight
        hit_weight = {i: weights[stem(_fold(tokens[i].group()))] for i in hits}
        best_i, best_w = hits[0], -1.0
        for i in hits:
            w = sum(v for j, v in hit_weight.items() if i <= j < i + words)
            if w > best_w:
                best_i, best_w = i, w
        start_tok = max(0, best_i - words // 4)
    else:
        start_tok = 0
    end_tok = min(len(tokens), start_tok + words)
    start_tok = max(0, min(start_tok, end_tok - words))
    lo = 0 if start_tok == 0 else tokens[start_tok].start()
    hi = len(text) if end_tok == len(tokens) else tokens[end_tok - 1].end()
    prefix = "" if lo == 0 else "…"
    suffix = "" if hi == len(text) else "…"
    snippet = prefix + " ".join(text[lo:hi].split()) + suffix
    spans = tuple((m.start(), m.end()) for m in _WORD.finditer(snippet) if is_query_word(m.group()))
    return snippet, spans


@dataclass(frozen=True, slots=True)
class SearchFilters:
    kinds: tuple[SegmentKind, ...] = ()
    course: str | None = None


NO_FILTERS = SearchFilters()


@dataclass(frozen=True, slots=True)
class SearchResult:
    segment_id: int
    source: str
    source_kind: SourceKind  # what the file is (video, slides, ...); ``kind`` is the segment's
    kind: SegmentKind
    course: str
    title: str
    heading: str
    start_ms: int | None
    end_ms: int | None
    page: int | None
    path_in_archive: str | None
    line_start: int | None
    line_end: int | None
    line: int | None
    snippet: str
    highlights: tuple[tuple[int, int], ...]
    score: float
    fulltext_rank: int | None
    dense_rank: int | None
    thumbnail: str | None = None  # the scene on screen at ``start_ms`` (a JPEG path)
    slide: tuple[str, int] | None = None  # (slides path, page) shown at ``start_ms``
    shown_in: tuple[tuple[str, int], ...] = ()  # a slide hit: (video path, start_ms) shown
    # With SearchConfig.neighbours: the text of the segments before and after it in its file.
    context: tuple[str, str] | None = None

    def to_json(self) -> dict[str, object]:
        """The CLI's JSON shape: seconds for times, 1-based pages and lines."""

        def sec(ms: int | None) -> float | None:
            return None if ms is None else round(ms / 1000, 3)

        return {
            "source": self.source,
            "kind": self.kind.value,
            "course": self.course,
            "title": self.title,
            "heading": self.heading,
            "start": sec(self.start_ms),
            "end": sec(self.end_ms),
            "page": self.page,
            "path_in_archive": self.path_in_archive,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "line": self.line,
            "snippet": self.snippet,
            "highlights": [list(h) for h in self.highlights],
            "score": round(self.score, 6),
            "segment_id": self.segment_id,
            "thumbnail": self.thumbnail,
            "slide": (
                None if self.slide is None else {"source": self.slide[0], "page": self.slide[1]}
            ),
            "shown_in": [{"source": p, "start": sec(ms)} for p, ms in self.shown_in],
            "context": (
                None
                if self.context is None
                else {"before": self.context[0], "after": self.context[1]}
            ),
        }


@dataclass(slots=True)
class SearchOutcome:
    results: list[SearchResult]
    took_ms: dict[str, float] = field(default_factory=dict)
    # Early exit: nothing in the library came close (no results were returned for it).
    gated: bool = False
    best_similarity: float | None = None  # of the nearest segment's vector to the query's
    reranked: int = 0  # candidates the cross-encoder scored (0: no reranker or stage off)


class Searcher:
    """Runs one query through the enabled stages. Holds no state between queries."""

    def __init__(
        self,
        store: Store,
        index: Callable[[], VectorIndex | None],
        embedder: Callable[[], Embedder | None],
        config: SearchConfig,
        thumbs: Path | None = None,
        reranker: Callable[[], Reranker | None] = lambda: None,
    ) -> None:
        self._store = store
        self._thumbs = thumbs
        self._reranker = reranker
        self._enricher: QueryEnricher | None = None
        self._enriched_by: Embedder | None = None
        self._index = index
        self._embedder = embedder
        self.config = config
        self._df_cache: dict[str, int] = {}
        self._df_total = 0
        self._df_generation = -1
        self._allowed_cache: dict[tuple[tuple[str, ...], int | None], frozenset[int]] = {}
        self._allowed_generation = -1

    def _df(self, stems: Sequence[str]) -> Callable[[str], int]:
        """Document frequency of stems, cached until the library changes."""
        generation = self._store.generation
        if generation != self._df_generation:
            # A new dict, not clear(): a search in another thread keeps reading its own.
            self._df_cache = {}
            self._df_total = self._store.segment_count()
            self._df_generation = generation
        cache = self._df_cache
        missing = [s for s in stems if s not in cache]
        if missing:
            cache.update(self._store.document_frequency(missing))
        return lambda s: cache.get(s, 0)

    def _allowed(self, kinds: tuple[str, ...], course_id: int | None) -> frozenset[int]:
        """Segment ids a filter lets through, cached until the library changes (reading
        them is O(library); typing in a filtered search repeats the same filter)."""
        generation = self._store.generation
        if generation != self._allowed_generation:
            self._allowed_cache = {}  # not clear(): another thread may be between get and set
            self._allowed_generation = generation
        cache = self._allowed_cache
        key = (kinds, course_id)
        ids = cache.get(key)
        if ids is None:
            ids = cache[key] = frozenset(self._store.allowed_segment_ids(kinds, course_id))
        return ids

    def _idf(self, df: Callable[[str], int]) -> Callable[[str], float]:
        n = max(self._df_total, 1)
        return lambda s: math.log(1 + (n - df(s) + 0.5) / (df(s) + 0.5))

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        filters: SearchFilters = NO_FILTERS,
        config: SearchConfig | None = None,
        typing: bool = False,
    ) -> SearchOutcome:
        cfg = config or self.config
        took: dict[str, float] = {}
        limit = max(1, min(limit, 1000))
        pool = limit * cfg.candidate_factor
        kinds = [k.value for k in filters.kinds]
        course_id = self._store.course_id(filters.course) if filters.course else None
        lists: list[list[int]] = []
        ft_rank: dict[int, int] = {}
        bm25: dict[int, float] = {}
        dense_rank: dict[int, int] = {}

        t0 = time.perf_counter()
        terms = query_terms(query)
        df = self._df([stem(t) for t in terms])
        weights = _weights(terms, self._idf(df)) if terms else {}
        took["analyse"] = (time.perf_counter() - t0) * 1000

        t0 = time.perf_counter()
        match = None
        if cfg.fulltext:
            kept = informative_terms(terms, df, self._df_total)
            match = fts_match(query, prefix_last=typing, terms=kept)
        if match:
            hits = self._store.fulltext(match, pool, kinds=kinds, course_id=course_id)
            bm25 = dict(hits)
            ranking = [sid for sid, _ in hits]
            ft_rank = {sid: i for i, sid in enumerate(ranking, start=1)}
            lists.append(ranking)
        took["fulltext"] = (time.perf_counter() - t0) * 1000

        index = self._index() if cfg.dense else None
        embedder = self._embedder() if cfg.dense and index is not None and len(index) else None
        best_similarity: float | None = None
        vector: np.ndarray | None = None
        if index is not None and embedder is not None and query_terms(query):
            t0 = time.perf_counter()
            dense_query = self._enriched(query, embedder) if cfg.enrich else query
            vector = query_vector = embedder.embed([dense_query], query=True)[0]
            took["embed"] = (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            allowed = None
            if kinds or course_id is not None:
                allowed = self._allowed(tuple(kinds), course_id).__contains__
            ids, distances = index.search(
                query_vector, pool, ef=max(cfg.hnsw_ef, pool), allowed=allowed
            )
            ranking = [int(i) for i in ids]
            if len(distances):
                best_similarity = 1.0 - float(distances[0])
            dense_rank = {sid: i for i, sid in enumerate(ranking, start=1)}
            lists.append(ranking)
            took["dense"] = (time.perf_counter() - t0) * 1000

        t0 = time.perf_counter()
        # Only the head of the fused lists can reach the results: read and score just that.
        head = [sid for sid, _ in fuse_rrf(lists, cfg.rrf_k)[: limit * HEAD]]
        rows = self._store.segments(head)
        passages = {
            sid: best_passage(rows[sid], weights, cfg.passage_follow) for sid in head if sid in rows
        }
        if cfg.passage_rank and weights:
            # Multi-granularity on the lexical side: rank candidates by their single best
            # sentence (or cue), so a window that answers in one sentence beats one that
            # spreads the same words thinly.
            scored = [(sid, p[1]) for sid, p in passages.items() if p is not None]
            lists.append([sid for sid, _ in sorted(scored, key=lambda kv: (-kv[1], kv[0]))])
        took["passages"] = (time.perf_counter() - t0) * 1000

        fused = fuse_rrf(lists, cfg.rrf_k)
        if cfg.gate > 0 and _gated(cfg, best_similarity, passages, weights, query, typing):
            took["total"] = sum(took.values())
            return SearchOutcome([], took, gated=True, best_similarity=best_similarity)
        scores = dict(fused)
        order = [sid for sid, _ in fused if sid in rows]
        if cfg.sentences and vector is not None and index is not None and order:
            t0 = time.perf_counter()
            scores, seeks = self._by_sentence(
                order, scores, bm25, rows, passages, weights, vector, index, cfg
            )
            passages.update(seeks)
            order.sort(key=lambda sid: -scores[sid])
            took["sentences"] = (time.perf_counter() - t0) * 1000
        if cfg.dedup:
            order = _distinct_moments(order, rows, passages, weights, cfg.seek_refinement)
        reranked = 0
        reranker = self._reranker() if cfg.rerank and cfg.rerank_top > 0 and order else None
        if reranker is not None:
            t0 = time.perf_counter()
            order, reranked = self._rerank(reranker, query, order, rows, passages, weights, cfg)
            took["rerank"] = (time.perf_counter() - t0) * 1000
        if cfg.mmr > 0 and len(order) > 1 and index is not None:
            t0 = time.perf_counter()
            order = self._diversify(order, scores, index.dimension, limit, cfg.mmr)
            took["mmr"] = (time.perf_counter() - t0) * 1000

        t0 = time.perf_counter()
        results: list[SearchResult] = []
        kept_words: list[frozenset[str]] = []
        for sid in order:
            words = word_set(rows[sid].text) if cfg.near_duplicates > 0 else frozenset()
            if cfg.near_duplicates > 0 and any(
                jaccard(words, other) >= cfg.near_duplicates for other in kept_words
            ):
                continue
            result = self._result(
                rows[sid],
                passages.get(sid),
                scores[sid],
                weights,
                cfg,
                ft_rank.get(sid),
                dense_rank.get(sid),
            )
            if cfg.dedup and any(_same_moment(result, kept) for kept in results):
                continue
            results.append(result)
            kept_words.append(words)
            if len(results) == limit:
                break
        if cfg.neighbours and results:
            around = self._store.neighbours([r.segment_id for r in results])
            results = [replace(r, context=around.get(r.segment_id, ("", ""))) for r in results]
        took["fuse"] = (time.perf_counter() - t0) * 1000
        took["total"] = sum(took.values())
        return SearchOutcome(results, took, best_similarity=best_similarity, reranked=reranked)

    def _by_sentence(
        self,
        order: list[int],
        fused: dict[int, float],
        bm25: dict[int, float],
        rows: dict[int, SegmentRow],
        passages: dict[int, tuple[int, float] | None],
        weights: dict[str, float],
        vector: np.ndarray,
        index: VectorIndex,
        cfg: SearchConfig,
    ) -> tuple[dict[int, float], dict[int, tuple[int, float]]]:
        """Multi-granularity over the head: a candidate scores its fused RRF score (scaled to
        0..1; with ``score_fusion``, its BM25 over the query's best and its own vector's
        similarity instead), the similarity of its closest sentence and the share of the
        query's term weight its best sentence holds, each weighted. A timed window answers
        in one sentence, not on average, so it is scored by that sentence and playback seeks
        to it; a candidate without sentence vectors (a slide, a note, code) stands for its
        one sentence."""
        sentences = self._store.sentence_vectors(order, index.dimension)
        # Own vectors: every candidate's for score fusion, else only those without sentences.
        needed = order if cfg.score_fusion else [sid for sid in order if sid not in sentences]
        found, matrix = self._store.vectors(needed, index.dimension)
        whole = {int(sid): float(v @ vector) for sid, v in zip(found, matrix, strict=True)}
        best_bm25 = max(bm25.values(), default=0.0)
        rrf = dict(zip(order, _unit([fused[sid] for sid in order]), strict=True))
        total = sum(weights.values())
        score = _scorer(weights) if total > 0 else None
        out: dict[int, float] = {}
        seeks: dict[int, tuple[int, float]] = {}
        for sid in order:
            row, cues = rows[sid], sentences.get(sid)
            own = whole.get(sid, 0.0)
            if cues is not None and len(cues) == len(row.timings):
                sims = cues @ vector
                share = np.array([score(t.text) / total if score else 0.0 for t in row.timings])
                best = int(np.argmax(sims + SEEK_WORDS * share))
                seeks[sid] = (best, float(share[best] * total))
                similarity, words = float(sims.max()), float(share.max())
            else:
                similarity = own
                passage = passages.get(sid)
                words = min(1.0, passage[1] / total) if passage and total > 0 else 0.0
            if cfg.score_fusion:
                lexical = bm25.get(sid, 0.0) / best_bm25 if best_bm25 > 0 else 0.0
                prior = cfg.fulltext_weight * lexical + cfg.window_weight * own
            else:
                prior = float(rrf[sid])
            out[sid] = prior + cfg.sentence_weight * similarity + cfg.sentence_words * words
        return out, seeks

    def _enriched(self, query: str, embedder: Embedder) -> str:
        """The dense side's text for a long query: KeyBERT keyphrases, then the query."""
        from engine.enrich import QueryEnricher

        if self._enricher is None or self._enriched_by is not embedder:
            self._enricher = QueryEnricher(embedder, min_words=self.config.enrich_min_words)
            self._enriched_by = embedder
        return self._enricher.dense_query(query)

    def _rerank(
        self,
        reranker: Reranker,
        query: str,
        order: list[int],
        rows: dict[int, SegmentRow],
        passages: dict[int, tuple[int, float] | None],
        weights: dict[str, float],
        cfg: SearchConfig,
    ) -> tuple[list[int], int]:
        """The head of ``order`` sorted by the cross-encoder (what the time budget let it
        score), the rest as fused. Each candidate is read as its heading and the words
        around its best sentence, so a pair stays short."""
        head = order[: cfg.rerank_top]
        texts = [
            rerank_text(rows[sid], passages.get(sid), weights, cfg.rerank_words) for sid in head
        ]
        logits = reranker.score(query, texts, budget_ms=cfg.rerank_budget_ms)
        scored = [(sid, float(x)) for sid, x in zip(head, logits, strict=True) if not math.isnan(x)]
        unscored = [sid for sid, x in zip(head, logits, strict=True) if math.isnan(x)]
        ranked = [sid for sid, _ in sorted(scored, key=lambda kv: -kv[1])]
        return ranked + unscored + order[cfg.rerank_top :], len(scored)

    def _diversify(
        self, order: list[int], scores: dict[int, float], dimension: int, limit: int, lam: float
    ) -> list[int]:
        """MMR over the candidates that can reach the page (three times the limit)."""
        head = order[: limit * 3]
        found, vectors = self._store.vectors(head, dimension)
        ids = [int(i) for i in found]
        if len(ids) < 2:
            return order
        relevance = _unit([scores[sid] for sid in ids])
        picked = [ids[i] for i in mmr(relevance, vectors, len(ids), lam)]
        chosen = set(picked)
        return picked + [sid for sid in order if sid not in chosen]

    def _result(
        self,
        row: SegmentRow,
        passage: tuple[int, float] | None,
        score: float,
        weights: dict[str, float],
        cfg: SearchConfig,
        ft: int | None,
        dense: int | None,
    ) -> SearchResult:
        end_ms, line = row.end_ms, None
        start_ms = seek_ms(row, passage, weights, cfg.seek_refinement)
        around: int | None = None
        if cfg.seek_refinement and row.timings and passage is not None:
            found = row.text.find(row.timings[passage[0]].text[:40])
            around = None if found < 0 else found
        if row.line_start is not None:
            offset = best_line(row.text, weights) if weights else None
            line = row.line_start + (offset or 0)
        snippet, spans = make_snippet(row.text, weights, words=cfg.snippet_words, around=around)
        thumbnail, slide, shown_in = self._media_links(row, start_ms)
        return SearchResult(
            segment_id=row.id,
            source=row.source_path,
            source_kind=row.source_kind,
            kind=row.kind,
            course=row.course,
            title=row.source_title,
            heading=row.heading,
            start_ms=start_ms,
            end_ms=end_ms,
            page=row.page,
            path_in_archive=row.path_in_archive,
            line_start=row.line_start,
            line_end=row.line_end,
            line=line,
            snippet=snippet,
            highlights=spans,
            score=score,
            fulltext_rank=ft,
            dense_rank=dense,
            thumbnail=thumbnail,
            slide=slide,
            shown_in=shown_in,
        )

    def _media_links(
        self, row: SegmentRow, start_ms: int | None
    ) -> tuple[str | None, tuple[str, int] | None, tuple[tuple[str, int], ...]]:
        """The scene thumbnail and the slide on screen at a video moment, or the video
        moments that show a slide page."""
        if row.page is not None and row.kind == SegmentKind.SLIDE:
            shown = self._store.shown_at(row.source_id, row.page)
            return None, None, tuple((path, a) for path, a, _ in shown[:5])
        if start_ms is None or row.source_kind not in _TIMED_SOURCES:
            return None, None, ()
        name = self._store.thumbnail_at(row.source_id, start_ms)
        thumbnail = str(self._thumbs / name) if name and self._thumbs is not None else None
        return thumbnail, self._store.slide_at(row.source_id, start_ms), ()
