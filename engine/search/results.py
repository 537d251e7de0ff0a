"""What a search returns: its filters, each hit and the outcome with per-stage timings.

A hit's place in its file is one of four kinds (:data:`ResultPlace`): a moment of a lecture
(:class:`AtMoment`, with the scene and slide on screen then), a page of a deck or document
(:class:`OnPage`, with the lecture moments that show it), lines of a code or notes file or of
an archive's member (:class:`AtLines`), or the whole file (:class:`WholeFile`, a user's note
on it). A caller ``match``es the place: what belongs to one kind is never None on another."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from engine.types import SegmentKind, SourceKind


@dataclass(frozen=True, slots=True)
class SearchFilters:
    kinds: tuple[SegmentKind, ...] = ()
    course: str | None = None


NO_FILTERS = SearchFilters()


@dataclass(frozen=True, slots=True)
class SlideOnScreen:
    """The slide page on screen at a lecture's moment."""

    source: str  # the deck's path
    page: int  # 1-based
    title: str = ""  # that page's title ("" when unknown)


@dataclass(frozen=True, slots=True)
class ShownAt:
    """A lecture's moment that shows a slide page."""

    source: str  # the lecture's path
    start_ms: int


@dataclass(frozen=True, slots=True)
class AtMoment:
    """A moment of a lecture (video, audio, subtitles), or a user's note at one."""

    start_ms: int  # where the player starts: the sentence that answers
    end_ms: int | None  # the segment's end (None: not known, e.g. a link's moment)
    thumbnail: str | None = None  # the scene on screen at ``start_ms`` (a JPEG path)
    slide: SlideOnScreen | None = None  # the slide shown at ``start_ms``


@dataclass(frozen=True, slots=True)
class OnPage:
    """A page of a slide deck or document, or a user's note on one."""

    page: int  # 1-based
    shown_in: tuple[ShownAt, ...] = ()  # a slide hit: lecture moments that show its page


@dataclass(frozen=True, slots=True)
class AtLines:
    """Lines of a code or notes file (of a member of an archive), or a note at a line."""

    line_start: int  # 1-based, inclusive
    line_end: int | None  # None: a course pack's segment gave none
    line: int  # the line that answers best (where a viewer scrolls to)
    path_in_archive: str | None = None  # the archive's member (None: a file alone)


@dataclass(frozen=True, slots=True)
class WholeFile:
    """No place inside the file: a user's note on a whole file (or an archive's member)."""

    path_in_archive: str | None = None


ResultPlace: TypeAlias = AtMoment | OnPage | AtLines | WholeFile


def place_of(
    *,
    start_ms: int | None = None,
    end_ms: int | None = None,
    page: int | None = None,
    line_start: int | None = None,
    line_end: int | None = None,
    line: int | None = None,
    path_in_archive: str | None = None,
) -> ResultPlace:
    """The place a stored segment's locators name (a segment has one family of them, by
    its kind: times, a page, or lines with an archive's member), in that order."""
    if start_ms is not None:
        return AtMoment(start_ms, end_ms)
    if page is not None:
        return OnPage(page)
    if line_start is not None:
        return AtLines(line_start, line_end, line or line_start, path_in_archive)
    return WholeFile(path_in_archive)


def moment_ms(place: ResultPlace) -> int | None:
    """The time a place is at, for the calls that take an optional one (a link, a page's
    origin): None for a place that is no moment."""
    match place:
        case AtMoment(start_ms=ms):
            return ms
        case _:
            return None


@dataclass(frozen=True, slots=True)
class SearchResult:
    segment_id: int
    source: str
    source_kind: SourceKind  # what the file is (video, slides, ...); ``kind`` is the segment's
    kind: SegmentKind
    course: str
    title: str
    heading: str
    place: ResultPlace  # where in the file: a moment, a page, lines or the whole file
    snippet: str
    highlights: tuple[tuple[int, int], ...]
    score: float
    fulltext_rank: int | None
    dense_rank: int | None
    # With SearchConfig.neighbours: the text of the segments before and after it in its file.
    context: tuple[str, str] | None = None
    # A strong match passes the early exit on its own (engine/search/strength.py); the
    # results below the first weaker one are all weaker.
    strong: bool = True
    language: str | None = None  # its file's (engine.languages code; None: not known)

    def to_json(self) -> dict[str, object]:
        """The CLI's JSON shape: seconds for times, 1-based pages and lines."""
        return {
            "source": self.source,
            "kind": self.kind.value,
            "course": self.course,
            "title": self.title,
            "heading": self.heading,
            **place_json(self.place),
            "snippet": self.snippet,
            "highlights": [list(h) for h in self.highlights],
            "score": round(self.score, 6),
            "segment_id": self.segment_id,
            **_media_json(self.place),
            "strong": self.strong,
            "language": self.language,
            "context": (
                None
                if self.context is None
                else {"before": self.context[0], "after": self.context[1]}
            ),
        }


def seconds(ms: int | None) -> float | None:
    """Milliseconds as the JSON's seconds, to the millisecond."""
    return None if ms is None else round(ms / 1000, 3)


def place_json(place: ResultPlace) -> dict[str, object]:
    """The JSON's flat locator keys, each None where the place has no such thing."""
    start = end = page = member = line_start = line_end = line = None
    match place:
        case AtMoment(start_ms=start, end_ms=end):
            pass
        case OnPage(page=page):
            pass
        case AtLines(line_start, line_end, line, member):
            pass
        case WholeFile(path_in_archive=member):
            pass
    return {
        "start": seconds(start),
        "end": seconds(end),
        "page": page,
        "path_in_archive": member,
        "line_start": line_start,
        "line_end": line_end,
        "line": line,
    }


def _media_json(place: ResultPlace) -> dict[str, object]:
    """The scene and slide on screen at a moment, the moments that show a page."""
    thumbnail, slide, shown_in = None, None, ()
    match place:
        case AtMoment(thumbnail=thumbnail, slide=shown):
            if shown is not None:
                slide = {"source": shown.source, "page": shown.page, "title": shown.title}
        case OnPage(shown_in=shown_in):
            pass
    return {
        "thumbnail": thumbnail,
        "slide": slide,
        "shown_in": [{"source": s.source, "start": seconds(s.start_ms)} for s in shown_in],
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
