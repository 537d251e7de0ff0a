"""Where a note is (:class:`Place`), the note as the API hands it out (:class:`Note`), and the
checks a new note passes: text that is not blank, and one place that exists in its file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.errors import CoursedexError
from engine.numbers import span_fault
from engine.plain_text import clock, plural, valid_text
from engine.store import NoteRow
from engine.types import SourceKind

MAX_NOTE_CHARS = 10_000  # a note, not a document: a pasted chapter is refused, not cut


class NoteError(CoursedexError, ValueError):
    """A note cannot be added as asked: blank text, or a place its file does not have."""


@dataclass(frozen=True, slots=True)
class Place:
    """Where a note is anchored: exactly one of ``at_ms``, ``page``, ``line``, or none (the
    whole file, or the whole member of an archive)."""

    sha256: str  # the file's content: survives importing it again, renaming and moving it
    path_in_archive: str | None = None  # a member of a code archive
    at_ms: int | None = None  # a time in a lecture (video, audio, subtitles)
    page: int | None = None  # a slide or PDF page, 1-based
    line: int | None = None  # a line of a code or notes file, 1-based


@dataclass(frozen=True, slots=True)
class Note:
    id: int
    course: str
    place: Place
    text: str
    created: float  # unix seconds
    source_path: str | None  # the file's path in the library now (None: no file has its content)
    source_title: str | None
    last_path: str = ""  # where its file was when last seen (for a note whose file is gone)


def place_text(place: Place) -> str:
    """Where a note is, in words: ``12:34``, ``page 6``, ``line 12``, ``src/sort.py line
    12``, ``src/sort.py`` (a whole member) or ``the whole file``."""
    member = place.path_in_archive or ""
    if place.at_ms is not None:
        return clock(place.at_ms)
    if place.page is not None:
        return f"page {place.page}"
    if place.line is not None:
        return f"{member} line {place.line}".strip()
    return member or "the whole file"


def note_json(note: Note) -> dict[str, object]:
    """A note as the CLI's ``--json`` and the MCP server give it: seconds for times."""
    place = note.place
    return {
        "id": note.id,
        "course": note.course,
        "source": note.source_path,
        "title": note.source_title,
        "last_path": note.last_path,
        "sha256": place.sha256,
        "path_in_archive": place.path_in_archive,
        "at": None if place.at_ms is None else round(place.at_ms / 1000, 3),
        "page": place.page,
        "line": place.line,
        "place": place_text(place),
        "text": note.text,
        "created": round(note.created, 3),
    }


def note_from(row: NoteRow) -> Note:
    place = Place(row.sha256, row.path_in_archive, row.at_ms, row.page, row.line)
    return Note(
        id=row.id,
        course=row.course,
        place=place,
        text=row.text,
        created=row.created,
        source_path=row.source_path,
        source_title=row.source_title,
        last_path=row.last_path,
    )


def note_order(note: Note) -> tuple[object, ...]:
    """Lecture order: by course, then file (a note whose file is gone after those whose file
    is here), then place in it, then when it was written."""
    place = note.place
    at = place.at_ms if place.at_ms is not None else (place.page or place.line or 0)
    path = note.source_path or note.last_path
    return (
        note.course.casefold(),
        note.source_path is None,
        path.casefold(),
        place.path_in_archive or "",
        at,
        note.id,
    )


@dataclass(frozen=True, slots=True)
class Extent:
    """How far a file goes, to check a place in it."""

    name: str  # the file's name, for messages
    kind: SourceKind
    duration_ms: int | None  # a lecture's length (None: not known)
    pages: int  # a deck's pages
    lines: Mapping[str | None, int]  # lines of the file (None) or of each archive member


_TIMED = (SourceKind.VIDEO, SourceKind.AUDIO, SourceKind.SUBTITLES)
_WANTED = {SourceKind.SLIDES: "a page", SourceKind.CODE: "a line", SourceKind.NOTES: "a line"}


def note_text(text: str) -> str:
    """The note's text as stored: any text, not blank, not beyond :data:`MAX_NOTE_CHARS`.

    Raises:
        NoteError: blank, or too long.
    """
    text = valid_text(text).strip()
    if not text:
        raise NoteError("a note needs some text (it is blank)")
    if len(text) > MAX_NOTE_CHARS:
        raise NoteError(
            f"a note is at most {MAX_NOTE_CHARS:,} characters; this one has {len(text):,}"
        )
    return text


def check_place(
    sha256: str,
    extent: Extent,
    *,
    at_ms: int | None = None,
    page: int | None = None,
    line: int | None = None,
    path_in_archive: str | None = None,
) -> Place:
    """The place asked for, if its file has it.

    Raises:
        NoteError: more than one place, a kind of place the file does not have (a page of a
            lecture), or one beyond it (a time after its end, a page after its last).
    """
    given = [
        name for name, v in (("a time", at_ms), ("a page", page), ("a line", line)) if v is not None
    ]
    if len(given) > 1:
        raise NoteError(f"a note is at one place: {' or '.join(given)}, not both")
    wanted = "a time" if extent.kind in _TIMED else _WANTED.get(extent.kind, "a line")
    if given and given[0] != wanted:
        raise NoteError(f"a note on {extent.name} is at {wanted}, not at {given[0]}")
    member = _member(extent, path_in_archive, line is not None)
    if at_ms is not None:
        _check_time(extent, at_ms)
    if page is not None and not 1 <= page <= extent.pages:
        raise NoteError(
            f"page {page} is not in {extent.name}: it has {plural(extent.pages, 'page')}"
        )
    if line is not None:
        lines = extent.lines.get(member, 0)
        if not 1 <= line <= lines:
            name = f"{extent.name}:{member}" if member else extent.name
            raise NoteError(f"line {line} is not in {name}: it has {plural(lines, 'line')}")
    return Place(sha256, member, at_ms, page, line)


def _check_time(extent: Extent, at_ms: int) -> None:
    fault = span_fault(at_ms, at_ms, extent.duration_ms, extent.name)
    if fault is not None:
        raise NoteError(fault)


def _member(extent: Extent, asked: str | None, for_line: bool) -> str | None:
    """The archive member a note is on: the one asked for, or an archive's only one."""
    members = sorted(m for m in extent.lines if m is not None)
    if asked is not None:
        if asked not in members:
            raise NoteError(
                f"{extent.name} has no file {asked}"
                if members
                else f"{extent.name} is not an archive: a note on it names no file inside"
            )
        return asked
    if not members or not for_line:
        return None
    if len(members) == 1:
        return members[0]
    raise NoteError(
        f"{extent.name} holds {plural(len(members), 'file')}: name the one the line is in "
        f"(e.g. {members[0]})"
    )
