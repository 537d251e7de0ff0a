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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.config import SearchConfig
from engine.store import SegmentRow, Store
from engine.types import SegmentKind, SourceKind, Timing

if TYPE_CHECKING:
    from engine.models import Embedder
    from engine.vectors import VectorIndex

log = logging.getLogger(__name__)

_WORD = re.compile(r"\w+", re.UNICODE)
_CAMEL = re.compile(r"([a-z])([A-Z])")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_MAX_QUERY_TERMS = 48
HEAD = 10
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


def _same_moment(a: SearchResult, b: SearchResult) -> bool:
    """Overlapping transcript windows that seek to the same moment are one hit."""
    if a.source != b.source or a.start_ms is None or b.start_ms is None:
        return False
    return a.path_in_archive == b.path_in_archive and abs(a.start_ms - b.start_ms) < 2000


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
        }


@dataclass(slots=True)
class SearchOutcome:
    results: list[SearchResult]
    took_ms: dict[str, float] = field(default_factory=dict)


class Searcher:
    """Runs one query through the enabled stages. Holds no state between queries."""

    def __init__(
        self,
        store: Store,
        index: Callable[[], VectorIndex | None],
        embedder: Callable[[], Embedder | None],
        config: SearchConfig,
        thumbs: Path | None = None,
    ) -> None:
        self._store = store
        self._thumbs = thumbs
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
        if self._store.generation != self._df_generation:
            self._df_cache.clear()
            self._df_total = self._store.segment_count()
            self._df_generation = self._store.generation
        missing = [s for s in stems if s not in self._df_cache]
        if missing:
            self._df_cache.update(self._store.document_frequency(missing))
        return lambda s: self._df_cache.get(s, 0)

    def _allowed(self, kinds: tuple[str, ...], course_id: int | None) -> frozenset[int]:
        """Segment ids a filter lets through, cached until the library changes (reading
        them is O(library); typing in a filtered search repeats the same filter)."""
        if self._store.generation != self._allowed_generation:
            self._allowed_cache.clear()
            self._allowed_generation = self._store.generation
        key = (kinds, course_id)
        if key not in self._allowed_cache:
            ids = frozenset(self._store.allowed_segment_ids(kinds, course_id))
            self._allowed_cache[key] = ids
        return self._allowed_cache[key]

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
            ranking = [sid for sid, _ in hits]
            ft_rank = {sid: i for i, sid in enumerate(ranking, start=1)}
            lists.append(ranking)
        took["fulltext"] = (time.perf_counter() - t0) * 1000

        index = self._index() if cfg.dense else None
        embedder = self._embedder() if cfg.dense and index is not None and len(index) else None
        if index is not None and embedder is not None and query_terms(query):
            t0 = time.perf_counter()
            vector = embedder.embed([query], query=True)[0]
            took["embed"] = (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            allowed = None
            if kinds or course_id is not None:
                allowed = self._allowed(tuple(kinds), course_id).__contains__
            ids, _distances = index.search(vector, pool, ef=max(cfg.hnsw_ef, pool), allowed=allowed)
            ranking = [int(i) for i in ids]
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

        t0 = time.perf_counter()
        fused = fuse_rrf(lists, cfg.rrf_k)
        results: list[SearchResult] = []
        for sid, score in fused:
            if sid not in rows:
                continue
            result = self._result(
                rows[sid],
                passages.get(sid),
                score,
                weights,
                cfg,
                ft_rank.get(sid),
                dense_rank.get(sid),
            )
            if cfg.dedup and any(_same_moment(result, kept) for kept in results):
                continue
            results.append(result)
            if len(results) == limit:
                break
        took["fuse"] = (time.perf_counter() - t0) * 1000
        took["total"] = sum(took.values())
        return SearchOutcome(results, took)

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
        start_ms, end_ms, line = row.start_ms, row.end_ms, None
        around: int | None = None
        if cfg.seek_refinement and row.timings and passage is not None:
            best = row.timings[passage[0]]
            start_ms = best.start_ms
            found = row.text.find(best.text[:40])
            around = None if found < 0 else found
            if row.words:
                word = first_matching_word(row.words, best, weights)
                if word is not None:
                    start_ms = word.start_ms
        if row.line_start is not None:
            offset = best_line(row.text, weights) if weights else None
            line = row.line_start + (offset or 0)
        snippet, spans = make_snippet(row.text, weights, words=cfg.snippet_words, around=around)
        thumbnail, slide, shown_in = self._media_links(row, start_ms)
        return SearchResult(
            segment_id=row.id,
            source=row.source_path,
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
