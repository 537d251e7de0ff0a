"""What a search returns: its filters, each hit and the outcome with per-stage timings."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.types import SegmentKind, SourceKind


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
    slide_title: str = ""  # that page's title ("" when unknown)
    shown_in: tuple[tuple[str, int], ...] = ()  # a slide hit: (video path, start_ms) shown
    # With SearchConfig.neighbours: the text of the segments before and after it in its file.
    context: tuple[str, str] | None = None
    # A strong match passes the early exit on its own (engine/search/strength.py); the
    # results below the first weaker one are all weaker.
    strong: bool = True
    language: str | None = None  # its file's (engine.languages code; None: not known)

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
                None
                if self.slide is None
                else {"source": self.slide[0], "page": self.slide[1], "title": self.slide_title}
            ),
            "shown_in": [{"source": p, "start": sec(ms)} for p, ms in self.shown_in],
            "strong": self.strong,
            "language": self.language,
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
    # What the user should know of these results, e.g. "keyword matches only: <why>" when
    # the search model cannot load (empty: nothing).
    notice: str = ""
