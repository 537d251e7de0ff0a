"""A stored segment as the engine reads it back: the row search ranks and shows
(:class:`SegmentRow`) and the text an embedding is made from (:class:`SegmentText`).
engine/store/segments.py reads them from the table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from engine.store.codec import timings_from
from engine.store.database import Record
from engine.types import SegmentKind, SourceKind, Timing


@dataclass(frozen=True, slots=True)
class SegmentRow:
    """A stored segment joined with where it came from, as search needs it."""

    id: int
    source_id: int
    kind: SegmentKind
    start_ms: int | None
    end_ms: int | None
    page: int | None
    path_in_archive: str | None
    line_start: int | None
    line_end: int | None
    heading: str
    text: str
    timings: tuple[Timing, ...]
    source_path: str
    source_title: str
    course: str
    source_kind: SourceKind
    words: tuple[Timing, ...] = ()
    language: str | None = None  # its file's (engine.languages code; None: not known)

    @classmethod
    def from_row(cls, row: Record) -> SegmentRow:
        return cls(
            id=row.id,
            source_id=row.source_id,
            kind=SegmentKind(row.kind),
            start_ms=row.start_ms,
            end_ms=row.end_ms,
            page=row.page,
            path_in_archive=row.path_in_archive,
            line_start=row.line_start,
            line_end=row.line_end,
            heading=row.heading,
            text=row.text,
            timings=timings_from(row.timings),
            source_path=row.source_path,
            source_title=row.source_title,
            course=row.course,
            source_kind=SourceKind(row.source_kind),
            words=timings_from(row.words),
            language=row.language,
        )


class SegmentText(NamedTuple):
    """What an embedding is made from. A tuple still: callers unpack it."""

    id: int
    heading: str
    text: str
    source_title: str

    @classmethod
    def from_row(cls, row: Record) -> SegmentText:
        return cls(int(row.id), str(row.heading), str(row.text), str(row.title))


__all__ = ["SegmentRow", "SegmentText"]
