"""A pack's notes and slide links checked against its files as a user's are: a note by
:func:`engine.notes.check_place`, the check of ``notes add``, against how far its file goes
in the pack (its length, pages and lines); a slide link's times and page likewise.

One that its file does not have (a note at 10^12 ms of a one-minute lecture, on page 9999
of a five-page deck) is left out alone and named, and the rest of the pack is imported: each
stands alone, as ``notes add`` refuses one note, and a note may be beyond what the pack's
text shows (a line among the blank ones that end a file). A note that is no note at all (no
text, two places, no file of the pack) makes the pack malformed, and it is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine.ingest.safezip import member_escapes
from engine.notes.places import Extent, NoteError, check_place, note_text
from engine.numbers import RECORDING_SLACK_MS, span_fault
from engine.packs.format import NOTES, PackError, PackLimits, PackLink, PackNote, PackSource
from engine.packs.parts import Fields, bounded, read_json
from engine.types import SourceKind


def extent_of(source: PackSource) -> Extent:
    """How far a pack's file goes, read as the library reads it of an imported file
    (engine/store/notes.py ``reach``): its length (else its last segment's end), its last
    page, and the last line of the file (None) or of each archive member."""
    ends = [s.end_ms for s in source.segments if s.end_ms is not None]
    length = source.duration_ms if source.duration_ms is not None else max(ends, default=None)
    lines: dict[str | None, int] = {}
    for s in source.segments:
        lines[s.path_in_archive] = max(lines.get(s.path_in_archive, 0), s.line_end or 0)
    return Extent(
        name=source.path.rsplit("/", 1)[-1],
        kind=source.kind,
        duration_ms=length,
        pages=max((s.page or 0 for s in source.segments), default=0),
        lines=lines,
    )


class _Extents:
    """Each file's extent, made once however many notes or links are on it."""

    def __init__(self, sources: Sequence[PackSource]) -> None:
        self.sources = sources
        self._made: dict[int, Extent] = {}

    def __getitem__(self, index: int) -> Extent:
        if index not in self._made:
            self._made[index] = extent_of(self.sources[index])
        return self._made[index]


def placed_links(
    links: Sequence[PackLink], sources: Sequence[PackSource]
) -> tuple[tuple[PackLink, ...], tuple[str, ...]]:
    """The slide links whose lecture has their times and whose deck has their page, and a
    line naming each of the others (left out)."""
    extents = _Extents(sources)
    kept: list[PackLink] = []
    left: list[str] = []
    for i, link in enumerate(links):
        fault = _link_fault(link, sources, extents)
        if fault is None:
            kept.append(link)
        else:
            left.append(f"course.json: slide link {i + 1}: {fault}")
    return tuple(kept), tuple(left)


def _link_fault(link: PackLink, sources: Sequence[PackSource], extents: _Extents) -> str | None:
    lecture, deck = extents[link.video], extents[link.slides]
    if sources[link.video].kind not in (SourceKind.VIDEO, SourceKind.AUDIO):
        return f"{lecture.name} is not a lecture"
    if sources[link.slides].kind != SourceKind.SLIDES:
        return f"{deck.name} is not a slide deck"
    fault = span_fault(
        link.start_ms, link.end_ms, lecture.duration_ms, lecture.name, slack_ms=RECORDING_SLACK_MS
    )
    if fault is not None:
        return fault
    try:
        check_place(sources[link.slides].sha256, deck, page=link.page)
    except NoteError as e:
        return str(e)
    return None


def notes_from(
    data: bytes, sources: Sequence[PackSource], limits: PackLimits
) -> tuple[tuple[PackNote, ...], tuple[str, ...]]:
    """The notes at places their files have, and a line naming each of the others.

    Raises:
        PackError: more notes than ``limits`` allow (counted before any is read), or one
            that is malformed (no text, two places, no file of the pack).
    """
    raw = read_json(data, NOTES)
    if not isinstance(raw, list):
        raise PackError("notes.json: not a list of notes")
    bounded(NOTES, len(raw), limits.max_notes, "notes")
    extents = _Extents(sources)
    out: list[PackNote] = []
    left: list[str] = []
    for i, item in enumerate(raw):
        where = f"notes.json: note {i + 1}"
        note = _note(item, where, len(sources))
        try:
            place = check_place(
                sources[note.source].sha256,
                extents[note.source],
                at_ms=note.at_ms,
                page=note.page,
                line=note.line,
                path_in_archive=note.path_in_archive,
            )
        except NoteError as e:
            left.append(f"{where}: {e}")
            continue
        out.append(replace(note, path_in_archive=place.path_in_archive))
    return tuple(out), tuple(left)


def _note(raw: object, where: str, count: int) -> PackNote:
    """One note read whole, or the pack refused for it."""
    f = Fields(raw, where)
    source = f.int("source")
    if source >= count:
        raise f.bad("source", "not a file of the pack")
    try:
        text = note_text(f.text("text"))
    except NoteError as e:
        raise PackError(f"{where}: {e}") from None
    note = PackNote(
        source=source,
        text=text,
        at_ms=f.int("at_ms", optional=True),
        page=f.int("page", optional=True, low=1),
        line=f.int("line", optional=True, low=1),
        path_in_archive=f.text("path_in_archive", optional=True),
    )
    if sum(x is not None for x in (note.at_ms, note.page, note.line)) > 1:
        raise PackError(f"{where}: more than one place (a time, a page or a line)")
    if note.path_in_archive is not None and member_escapes(note.path_in_archive):
        raise f.bad("path_in_archive", "a path out of its archive")
    return note
