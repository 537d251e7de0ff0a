"""Frozen value types passed between engine stages. Times are integer milliseconds."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypedDict


class SegmentKind(StrEnum):
    TRANSCRIPT = "transcript"  # speech: subtitles or speech recognition
    SCREEN = "screen"  # text read off video frames
    SLIDE = "slide"
    CODE = "code"
    NOTE = "note"
    # A user's own note at a place in a file (engine/notes): found by search as its own kind.
    BOOKMARK = "bookmark"


class SourceKind(StrEnum):
    VIDEO = "video"
    AUDIO = "audio"
    SUBTITLES = "subtitles"
    SLIDES = "slides"
    CODE = "code"
    NOTES = "notes"


class SourceStatus(StrEnum):
    QUEUED = "queued"
    INDEXING = "indexing"
    INDEXED = "indexed"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class Timing:
    """A timed span of text inside a transcript segment: a subtitle cue or a recognised word."""

    start_ms: int
    end_ms: int
    text: str


@dataclass(frozen=True, slots=True)
class SegmentDraft:
    """One searchable unit produced by a parser, before it has a database id.

    Exactly one locator family is set, by kind: times (transcript, screen), ``page``
    (slide, 1-based), or ``path_in_archive`` + lines (code; lines are 1-based, inclusive).
    ``extra`` is additional text for full-text search only (e.g. split identifiers);
    it is never shown. ``timings`` keeps cue or sentence times so a hit can seek inside;
    ``words`` keeps recognised words' times so it can seek to the very word.
    """

    kind: SegmentKind
    text: str
    heading: str = ""
    start_ms: int | None = None
    end_ms: int | None = None
    page: int | None = None
    path_in_archive: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    extra: str = ""
    timings: tuple[Timing, ...] = ()
    needs_ocr: bool = False
    words: tuple[Timing, ...] = ()


@dataclass(frozen=True, slots=True)
class ParsedSource:
    """What a parser read from one file."""

    kind: SourceKind
    title: str
    segments: tuple[SegmentDraft, ...]
    duration_ms: int | None = None
    warnings: tuple[str, ...] = field(default=())
    speech_model: str | None = None  # the model that heard it (None: not transcribed)
    language: str | None = None  # its text's (engine.languages code; None: not known)


class StoreStats(TypedDict):
    """What the library database holds (Store.stats)."""

    courses: int
    sources: int
    sources_by_status: dict[str, int]  # "indexed", "error"... -> files
    segments: int
    segments_by_kind: dict[str, int]  # SegmentKind value -> segments
    media_hours: float  # of the indexed lectures, to 2 decimals
    pages_waiting_for_ocr: int


class LibraryStats(StoreStats):
    """What ``coursedex stats`` tells (Library.stats; its JSON has these keys)."""

    library: str  # the library's folder
    embedder: str | None  # the search model's id, None before the first import
    vectors: int  # in the vector index
    database_bytes: int
