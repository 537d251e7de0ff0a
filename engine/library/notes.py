"""The part of :class:`~engine.library.facade.Library` that keeps a user's notes on moments
(engine/notes): add one at a place in a file, list them in lecture order, remove one.

A note is written by the indexer with its segment and vector in one transaction, under the
library's write lock (an import running in this process holds it too: a note added from the
player while a course imports waits only for the file being written)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from engine.changes import NOTHING, Changes
from engine.config import EngineConfig
from engine.errors import CoursedexError, NotFoundError
from engine.index.indexer import Indexer
from engine.integrations import documents
from engine.library.outcomes import AddedNote
from engine.library.records import Records
from engine.models import Embedder
from engine.notes import Extent, Note, check_place, note_from, note_order, note_text
from engine.store import NoteRow, Source
from engine.types import SourceKind, SourceStatus


class NoteTaking:
    """Notes on moments, on the files of ``records``, embedded with ``embedder`` (the
    library's, loaded on first use); ``config`` gives the library's settings of the moment."""

    def __init__(
        self,
        records: Records,
        indexer: Indexer,
        embedder: Callable[[], Embedder],
        config: Callable[[], EngineConfig],
    ) -> None:
        self.records = records
        self.store = records.store
        self.access = records.access
        self.indexer = indexer
        self.embedder = embedder
        self._config = config

    def add_note(
        self,
        source: str,
        text: str,
        *,
        at_ms: int | None = None,
        page: int | None = None,
        line: int | None = None,
        path_in_archive: str | None = None,
    ) -> AddedNote:
        """Attach a note to a place in a file (by its path, as search results carry it):
        a time of a lecture, a page of a deck, a line of a code or notes file (of a member
        of an archive), or none for the whole file. Returns the note, with the changes.

        Raises:
            NotFoundError: the file is not in the library.
            NoteError: blank text, or a place the file does not have.
            LibraryBusyError: another process is importing into the library.
            LibraryError: the library is read-only.
        """
        body = note_text(text)
        found = self._note_file(source)
        place = check_place(
            found.sha256 or "",
            self._extent(found),
            at_ms=at_ms,
            page=page,
            line=line,
            path_in_archive=path_in_archive,
        )
        row = NoteRow(
            id=0,
            course=found.course,
            sha256=place.sha256,
            path_in_archive=place.path_in_archive,
            at_ms=place.at_ms,
            page=place.page,
            line=place.line,
            text=body,
            created=time.time(),
            last_path=found.path,
            last_title=found.title,
        )
        with self.access.writing("add a note"):
            note_id = self.indexer.add_note(row, found.title, self.embedder())
        stored = self.store.notes.get(note_id)
        if stored is None:  # removed by another process at once
            raise NotFoundError(f"note {note_id} was removed as it was added")
        added = Changes(notes_added=(note_id,), results=True)  # found as a bookmark
        return AddedNote.of(note_from(stored), added)

    def notes(self, course: str | None = None, *, source: str | None = None) -> list[Note]:
        """The notes, in lecture order (by course, file, then place); of one course (by its
        name, in any case) or one file (by its path). A note whose file was removed is
        listed with ``source_path`` None, in the course its file was last in.

        Raises:
            NotFoundError: no such course (and no note in one of that name), or no such file.
        """
        found = [note_from(r) for r in self.store.notes.all()]
        if course is not None:
            found = [n for n in found if n.course.casefold() == course.casefold()]
            if not found:
                # An unknown course is an error, a course without notes not.
                self.records.course(course)
        if source is not None:
            content = self._note_file(source).sha256
            found = [n for n in found if n.place.sha256 == content]
        return sorted(found, key=note_order)

    def remove_note(self, note_id: int) -> Changes:
        """Remove a note (its text, and its result from search); what it changed, nothing
        (false) when there is none.

        Raises:
            LibraryBusyError: another process is importing into the library.
            LibraryError: the library is read-only.
        """
        with self.access.writing("remove a note"):
            removed = self.indexer.remove_note(note_id)
        return Changes(notes_removed=(note_id,), results=True) if removed else NOTHING

    def _note_file(self, source: str) -> Source:
        """The file a note is on, read at least once (so its content is known).

        Raises:
            NotFoundError: no such file in the library.
            CoursedexError: it has not been read yet, or its import failed.
        """
        found = self.records.file_named(source)
        if found is None:
            raise NotFoundError(f"no file {source!r} in the library")
        if found.sha256 is None or found.status == SourceStatus.ERROR:
            why = "could not be imported" if found.status == SourceStatus.ERROR else "is queued"
            raise CoursedexError(f"{found.path} {why}: a note needs a file the library has read")
        return found

    def _extent(self, source: Source) -> Extent:
        """How far the file goes, by what its import read (and, for a single text file, by
        its lines on disk: blank lines at its end are in no segment)."""
        last_ms, pages, lines = self.store.notes.reach(source.id)
        if source.kind in (SourceKind.CODE, SourceKind.NOTES) and set(lines) <= {None}:
            try:
                text = documents.source_text(source, self._config().limits)
            except CoursedexError:
                pass  # gone or changed: the lines the import read
            else:
                lines[None] = max(lines.get(None, 0), len(text.splitlines()))
        return Extent(
            name=Path(source.path).name,
            kind=source.kind,
            duration_ms=source.duration_ms if source.duration_ms is not None else last_ms,
            pages=pages,
            lines=lines,
        )
