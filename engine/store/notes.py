"""A user's notes at places in files (the ``notes`` table, schema step 7).

A note is anchored by its file's content (sha256) and a place in it, never by the file's row:
removing the file or importing it again leaves the note, and it shows again under the file
that has that content. While such a file is in the library, the note is also one of its
segments, of kind ``bookmark`` at ``ord = -note id`` (every other segment's ord is >= 0), so
search finds it like any text; the indexer writes those (engine/index/indexer.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.store.database import Database, Record
from engine.types import SegmentDraft, SegmentKind

_COLUMNS = (
    "n.id, n.course, n.sha256, n.path_in_archive, n.at_ms, n.page, n.line, n.text, n.created, "
    "n.last_path, n.last_title"
)


@dataclass(frozen=True, slots=True)
class NoteRow:
    """A stored note, with the file that has its content now (None: none in the library)."""

    id: int
    course: str  # the file's course now, or the one it was in when last seen
    sha256: str
    path_in_archive: str | None
    at_ms: int | None
    page: int | None
    line: int | None
    text: str
    created: float
    last_path: str  # where the file was when last seen ("" never)
    last_title: str
    source_path: str | None = None
    source_title: str | None = None

    @classmethod
    def from_row(cls, row: Record) -> NoteRow:
        path = getattr(row, "source_path", None)
        return cls(
            id=int(row.id),
            course=getattr(row, "source_course", None) or row.course,
            sha256=row.sha256,
            path_in_archive=row.path_in_archive,
            at_ms=row.at_ms,
            page=row.page,
            line=row.line,
            text=row.text,
            created=float(row.created),
            last_path=row.last_path,
            last_title=row.last_title,
            source_path=path,
            source_title=getattr(row, "source_title", None) if path is not None else None,
        )

    def draft(self) -> SegmentDraft:
        """The segment that makes the note searchable: its text at its place."""
        return SegmentDraft(
            kind=SegmentKind.BOOKMARK,
            text=self.text,
            start_ms=self.at_ms,
            end_ms=self.at_ms,
            page=self.page,
            path_in_archive=self.path_in_archive,
            line_start=self.line,
            line_end=self.line,
        )


class Notes:
    """The ``notes`` table, and the ``bookmark`` segments that mirror it."""

    def __init__(self, db: Database) -> None:
        self._db = db
        # A read-only library a step behind (schema 6) has no notes table: it has no notes.
        self.present = db.value("SELECT 1 FROM sqlite_master WHERE name = 'notes'") is not None

    # --- writing (inside a transaction) --------------------------------------------------

    def insert(self, note: NoteRow) -> int:
        """Store ``note`` as a new row (its ``id`` and file are not read); its new id."""
        cursor = self._db.execute(
            "INSERT INTO notes(course, sha256, path_in_archive, at_ms, page, line, text, "
            "created, last_path, last_title) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                note.course,
                note.sha256,
                note.path_in_archive,
                note.at_ms,
                note.page,
                note.line,
                note.text,
                note.created,
                note.last_path,
                note.last_title,
            ),
        )
        return int(cursor.lastrowid or 0)

    def delete(self, note_id: int) -> list[int]:
        """Delete a note and its segments; returns the ids of those segments (their vectors
        go from the vector index next). Empty when there was no such note."""
        with self._db.lock:
            found = self._db.value("SELECT 1 FROM notes WHERE id = ?", (note_id,))
            ids = self.segment_ids(note_id)
            self._db.execute(
                "DELETE FROM segments WHERE kind = 'bookmark' AND ord = ?", (-note_id,)
            )
            self._db.execute("DELETE FROM notes WHERE id = ?", (note_id,))
        return ids if found is not None else []

    def attach(self, source_id: int, note: NoteRow) -> int:
        """Add a note's segment under a file of its content; returns the segment's id."""
        draft = note.draft()
        cursor = self._db.execute(
            "INSERT INTO segments(source_id, ord, kind, start_ms, end_ms, page, "
            "path_in_archive, line_start, line_end, heading, text) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?)",
            (
                source_id,
                -note.id,
                draft.kind.value,
                draft.start_ms,
                draft.end_ms,
                draft.page,
                draft.path_in_archive,
                draft.line_start,
                draft.line_end,
                draft.text,
            ),
        )
        return int(cursor.lastrowid or 0)

    def seen_in(self, source_id: int) -> None:
        """Record where the notes on a file's content are (its path, title and course), so
        a note whose file is removed still says where it was and in which course."""
        if not self.present:
            return
        self._db.execute(
            "UPDATE notes SET last_path = s.path, last_title = s.title, course = c.name "
            "FROM sources s JOIN courses c ON c.id = s.course_id "
            "WHERE s.id = ? AND notes.sha256 = s.sha256",
            (source_id,),
        )

    def rename_course(self, old: str, new: str) -> None:
        """The course a note whose file is gone was last in, renamed (the others' course is
        their file's)."""
        if self.present:
            self._db.execute(
                "UPDATE notes SET course = ? WHERE course = ? COLLATE NOCASE", (new, old)
            )

    # --- reading -------------------------------------------------------------------------

    def files_of(self, sha256: str) -> list[int]:
        """The files (source ids) a note on this content shows under: those read at least
        once with it (a video whose frames are still being read included), not failed."""
        rows = self._db.rows(
            "SELECT id FROM sources WHERE sha256 = ? AND status != 'error' ORDER BY id",
            (sha256,),
        )
        return [int(r.id) for r in rows]

    def reach(self, source_id: int) -> tuple[int | None, int, dict[str | None, int]]:
        """How far a file's segments go: the last time, the last page, and the last line of
        the file (None) or of each archive member; notes on it not counted."""
        rows = self._db.rows(
            "SELECT path_in_archive, max(end_ms) AS end_ms, coalesce(max(page), 0) AS page, "
            "coalesce(max(line_end), 0) AS line FROM segments "
            "WHERE source_id = ? AND kind != 'bookmark' GROUP BY path_in_archive",
            (source_id,),
        )
        ends = [r.end_ms for r in rows if r.end_ms is not None]
        return (
            max(ends) if ends else None,
            max((int(r.page) for r in rows), default=0),
            {r.path_in_archive: int(r.line) for r in rows},
        )

    def segment_ids(self, note_id: int) -> list[int]:
        rows = self._db.rows(
            "SELECT id FROM segments WHERE kind = 'bookmark' AND ord = ?", (-note_id,)
        )
        return [int(r.id) for r in rows]

    def of_content(self, sha256: str) -> list[NoteRow]:
        """The notes on a file's content, oldest first."""
        if not self.present:
            return []
        rows = self._db.rows(
            f"SELECT {_COLUMNS} FROM notes n WHERE n.sha256 = ? ORDER BY n.id", (sha256,)
        )
        return [NoteRow.from_row(r) for r in rows]

    def all(self) -> list[NoteRow]:
        """Every note, each with the file that has its content now (the indexed one first
        when a copy is still being read), in no particular order."""
        if not self.present:
            return []
        rows = self._db.rows(
            f"SELECT {_COLUMNS}, s.path AS source_path, s.title AS source_title, "
            "c.name AS source_course FROM notes n "
            "LEFT JOIN sources s ON s.sha256 = n.sha256 AND s.status != 'error' "
            "LEFT JOIN courses c ON c.id = s.course_id "
            "ORDER BY n.id, s.status != 'indexed', s.id"
        )
        seen: set[int] = set()
        out: list[NoteRow] = []
        for row in rows:
            if row.id not in seen:
                seen.add(row.id)
                out.append(NoteRow.from_row(row))
        return out

    def get(self, note_id: int) -> NoteRow | None:
        return next((n for n in self.all() if n.id == note_id), None)
