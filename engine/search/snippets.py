"""Stage 7, snippets: each hit as a result, with the words around its best passage, the
query words marked, its line in code, and the scene thumbnail or slide it goes with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from engine import analysis
from engine.analysis import uses_porter
from engine.config import SearchConfig
from engine.search.handoff import Candidate
from engine.search.lexical import Weights, best_line, is_query_word, passage_offset, weights_of
from engine.search.results import (
    AtMoment,
    OnPage,
    ResultPlace,
    SearchResult,
    ShownAt,
    SlideOnScreen,
    place_of,
)
from engine.store import SegmentRow, Store
from engine.types import SegmentKind, SourceKind
from engine.words import WORD, fold, stem

_TIMED_SOURCES = (SourceKind.VIDEO, SourceKind.AUDIO, SourceKind.SUBTITLES)


def make_snippet(
    text: str,
    weights: Mapping[str, float],
    *,
    words: int = 32,
    around: int | None = None,
    language: str | None = None,
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A window of about ``words`` words where the query terms are densest (or starting
    near character ``around``), and the character spans of the query terms inside it.
    ``language``: the text's (see engine.search.lexical)."""
    if not uses_porter(language):
        return _analysed_snippet(text, weights, words, around, language or "")
    tokens = list(WORD.finditer(text))
    if not tokens:
        return text[:200], ()
    is_match = is_query_word(weights)
    hits = [i for i, m in enumerate(tokens) if is_match(m.group())]
    if around is not None:
        start_tok = next((i for i, m in enumerate(tokens) if m.start() >= around), 0)
        start_tok = max(0, start_tok - 3)
    elif hits:
        # slide a window over token positions and keep the one covering the most weight
        hit_weight = {i: weights[stem(fold(tokens[i].group()))] for i in hits}
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
    spans = tuple((m.start(), m.end()) for m in WORD.finditer(snippet) if is_match(m.group()))
    return snippet, spans


def _analysed_snippet(
    text: str, weights: Mapping[str, float], words: int, around: int | None, language: str
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """:func:`make_snippet` for text analysed in its language: its terms are the tokens
    (a character pair counts as a third of a word, about what a word of Chinese is)."""
    terms = list(analysis.spans(text, language))
    if not terms:
        return text[:200], ()
    size = words * 3 if analysis.is_spaceless(terms[len(terms) // 2][2]) else words
    hits = [i for i, (_, _, t) in enumerate(terms) if t in weights]
    if around is not None:
        first = max(0, next((i for i, sp in enumerate(terms) if sp[0] >= around), 0) - 3)
    elif hits:
        first = max(0, _densest(hits, [weights[terms[i][2]] for i in hits], size) - size // 4)
    else:
        first = 0
    last = min(len(terms), first + size)
    first = max(0, min(first, last - size))
    lo = 0 if first == 0 else terms[first][0]
    hi = len(text) if last == len(terms) else terms[last - 1][1]
    prefix, suffix = ("" if lo == 0 else "…"), ("" if hi == len(text) else "…")
    body = " ".join(text[lo:hi].split())
    snippet = prefix + body + suffix
    marked = [(a, b) for a, b, t in analysis.spans(snippet, language) if t in weights]
    return snippet, _merged(marked)


def _densest(hits: list[int], weight: list[float], size: int) -> int:
    """The hit that starts the window of ``size`` terms holding the most query weight."""
    best, best_weight, total, end = hits[0], -1.0, 0.0, 0
    for k, i in enumerate(hits):
        while end < len(hits) and hits[end] < i + size:
            total += weight[end]
            end += 1
        if total > best_weight:
            best, best_weight = i, total
        total -= weight[k]
    return best


def _merged(spans: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Overlapping or touching spans as one (a word's character pairs mark the word)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


def code_snippet(
    text: str,
    weights: Mapping[str, float],
    line: int,
    *,
    lines: int = 6,
    language: str | None = None,
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """Up to ``lines`` lines of code from the 0-based ``line`` on (one before it), with their
    line breaks and relative indentation kept, and the spans of the query words in them."""
    source = text.splitlines()
    first = max(0, line - 1)
    shown = [s.rstrip() for s in source[first : first + lines]]
    while shown and not shown[-1].strip():
        shown.pop()
    while len(shown) > 1 and not shown[0].strip():
        shown.pop(0)
        first += 1
    indents = [len(s) - len(s.lstrip()) for s in shown if s.strip()]
    cut = min(indents, default=0)
    snippet = "\n".join(s[cut:] for s in shown)
    if first > 0:
        snippet = "…\n" + snippet
    if first + lines < len(source):
        snippet += "\n…"
    if not uses_porter(language):
        found = [(a, b) for a, b, t in analysis.spans(snippet, language or "") if t in weights]
        return snippet, _merged(found)
    is_match = is_query_word(weights)
    spans = tuple((m.start(), m.end()) for m in WORD.finditer(snippet) if is_match(m.group()))
    return snippet, spans


class ResultMaker:
    """Turns the chosen candidates into results; reads the media links from the store."""

    def __init__(self, store: Store, thumbs: Path | None) -> None:
        self._store, self._thumbs = store, thumbs
        # (deck path, page) -> the page's title, read once per store generation
        self._titles: dict[tuple[str, int], str] = {}
        self._titles_of = -1

    def results(
        self,
        hits: Sequence[Candidate],
        weights: Weights,
        cfg: SearchConfig,
        strong: Sequence[bool] = (),
    ) -> list[SearchResult]:
        """``strong`` says, per hit, whether it is a strong match (every hit when empty)."""
        context: Mapping[int, tuple[str, str]] = {}
        if cfg.neighbours and hits:
            context = self._store.segments.neighbours([c.id for c in hits])
        sure = list(strong) or [True] * len(hits)
        return [
            self._result(
                c,
                weights_of(weights, c.row.language),
                cfg,
                context.get(c.id, ("", "")) if cfg.neighbours else None,
                s,
            )
            for c, s in zip(hits, sure, strict=True)
        ]

    def _result(
        self,
        hit: Candidate,
        weights: Mapping[str, float],
        cfg: SearchConfig,
        context: tuple[str, str] | None,
        strong: bool = True,
    ) -> SearchResult:
        row, line, language = hit.row, None, hit.row.language
        around = passage_offset(row, hit.passage) if cfg.seek_refinement else None
        snippet, spans = make_snippet(
            row.text, weights, words=cfg.snippet_words, around=around, language=language
        )
        if row.line_start is not None:
            offset = best_line(row.text, weights, language) if weights else None
            line = row.line_start + (offset or 0)
            if row.kind == SegmentKind.CODE:  # code reads in lines, not in a run of words
                snippet, spans = code_snippet(row.text, weights, offset or 0, language=language)
        place = self._with_media(
            row,
            place_of(
                start_ms=hit.seek_ms,
                end_ms=row.end_ms,
                page=row.page,
                line_start=row.line_start,
                line_end=row.line_end,
                line=line,
                path_in_archive=row.path_in_archive,
            ),
        )
        return SearchResult(
            segment_id=row.id,
            source=row.source_path,
            source_kind=row.source_kind,
            kind=row.kind,
            course=row.course,
            title=row.source_title,
            heading=row.heading,
            place=place,
            snippet=snippet,
            highlights=spans,
            score=hit.score,
            fulltext_rank=hit.fulltext_rank,
            dense_rank=hit.dense_rank,
            context=context,
            strong=strong,
            language=row.language,
        )

    def _slide_title(self, deck: str, page: int) -> str:
        """The title of a deck's page (its heading), for "Slide 4 on screen: Hash tables"."""
        if self._titles_of != self._store.generation:
            self._titles, self._titles_of = {}, self._store.generation
        titles = self._titles  # replaced, never cleared: another search may be reading it
        if (deck, page) not in titles:
            source = self._store.catalog.source_by_path(deck)
            rows = [] if source is None else self._store.segments.of_source(source.id)
            for row in rows:
                if row.page is not None and row.heading:
                    titles.setdefault((deck, row.page), row.heading)
            titles.setdefault((deck, page), "")
        return titles[(deck, page)]

    def _with_media(self, row: SegmentRow, place: ResultPlace) -> ResultPlace:
        """A lecture moment with the scene thumbnail and the slide on screen then, a slide
        page with the lecture moments that show it; any other place as it is."""
        match place:
            case OnPage(page=page) if row.kind == SegmentKind.SLIDE:
                shown = self._store.recordings.shown_at(row.source_id, page)
                return replace(place, shown_in=tuple(ShownAt(p, a) for p, a, _ in shown[:5]))
            case AtMoment(start_ms=at) if row.source_kind in _TIMED_SOURCES:
                name = self._store.recordings.thumbnail_at(row.source_id, at)
                thumbs = self._thumbs
                thumbnail = str(thumbs / name) if name and thumbs is not None else None
                shown = self._store.recordings.slide_at(row.source_id, at)
                slide = None if shown is None else SlideOnScreen(*shown, self._slide_title(*shown))
                return replace(place, thumbnail=thumbnail, slide=slide)
            case _:
                return place
