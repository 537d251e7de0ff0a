"""Courses and sources: the library's catalog of what it holds (one source per indexed
file). Named after its tables; :mod:`engine.models.catalog` is the catalog of models."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from engine.errors import CoursedexError, NotFoundError
from engine.store.codec import now_iso
from engine.store.database import Database, Record
from engine.types import SourceKind, SourceStatus


@dataclass(frozen=True, slots=True)
class Course:
    id: int
    name: str
    root: str | None
    sources: int = 0
    segments: int = 0

    @classmethod
    def from_row(cls, row: Record) -> Course:
        return cls(
            id=row.id,
            name=row.name,
            root=row.root,
            sources=row.sources,
            segments=row.segments,
        )


@dataclass(frozen=True, slots=True)
class Source:
    id: int
    course_id: int
    course: str
    path: str
    kind: SourceKind
    title: str
    sha256: str | None
    size: int | None
    duration_ms: int | None
    status: SourceStatus
    error: str | None
    embedder_id: str | None
    segments: int = 0
    mtime_ns: int | None = None
    speech_model: str | None = None  # the model that transcribed it (None: not transcribed)
    language: str | None = None  # the language of its text (engine.languages; None: unknown)

    @classmethod
    def from_row(cls, row: Record) -> Source:
        return cls(
            id=row.id,
            course_id=row.course_id,
            course=row.course,
            path=row.path,
            kind=SourceKind(row.kind),
            title=row.title,
            sha256=row.sha256,
            size=row.size,
            duration_ms=row.duration_ms,
            status=SourceStatus(row.status),
            error=row.error,
            embedder_id=row.embedder_id,
            segments=row.segments,
            mtime_ns=row.mtime_ns,
            speech_model=row.speech_model,
            language=row.language,
        )


_SOURCE_SELECT = (
    "SELECT s.id, s.course_id, c.name AS course, s.path, s.kind, s.title, s.sha256, s.size, "
    "s.duration_ms, s.status, s.error, s.embedder_id, "
    "(SELECT count(*) FROM segments g WHERE g.source_id = s.id) AS segments, s.mtime_ns, "
    "{speech_model} AS speech_model, {language} AS language "
    "FROM sources s JOIN courses c ON c.id = s.course_id "
)


_LATER_COLUMNS = ("speech_model", "language")


class FileMark(NamedTuple):
    """What tells a file's record apart from an earlier read of it: its course, state and
    content (a plain tuple: a library of 10,000 files is marked in one light query)."""

    course: str
    status: str
    sha256: str | None
    indexed_at: str | None
    error: str | None


@dataclass(frozen=True, slots=True)
class LibraryMarks:
    """Every course's name and every file's :class:`FileMark`, read at one moment: two of
    them compared tell what changed between (files added, changed or gone, courses gone)."""

    courses: frozenset[str]
    files: Mapping[str, FileMark]


class Catalog:
    """The ``courses`` and ``sources`` tables."""

    def __init__(self, db: Database) -> None:
        self._db = db
        # A read-only library a step behind (schema 5, 7) has no speech_model or language
        # column yet.
        columns = {row.name for row in db.rows("PRAGMA table_info(sources)")}
        self._source_select = _SOURCE_SELECT.format(
            **{name: f"s.{name}" if name in columns else "NULL" for name in _LATER_COLUMNS}
        )

    # --- courses ------------------------------------------------------------------------

    def ensure_course(self, name: str, root: str | None = None) -> int:
        with self._db.lock:
            found = self._db.rows_where("courses", "name = ?", (name,), select="id")
            if found:
                return int(found[0].id)
            courses = self._db.table("courses")
            courses.insert({"name": name, "root": root, "created_at": now_iso()})
            return int(courses.last_rowid or 0)

    def courses(self) -> list[Course]:
        rows = self._db.rows(
            "SELECT c.id, c.name, c.root, "
            "(SELECT count(*) FROM sources s WHERE s.course_id = c.id) AS sources, "
            "(SELECT count(*) FROM segments g JOIN sources s ON g.source_id = s.id "
            " WHERE s.course_id = c.id) AS segments FROM courses c ORDER BY c.name"
        )
        return [Course.from_row(r) for r in rows]

    def course_id(self, name: str) -> int:
        # Hand-written: a search filtered by course asks for it each time.
        found = self._db.row("SELECT id FROM courses WHERE name = ?", (name,))
        if found is None:
            raise NotFoundError(f"no course named {name!r}")
        return int(found.id)

    def rename_course(self, old: str, new: str) -> None:
        """Raises: NotFoundError (no course ``old``), CoursedexError (``new`` is taken)."""
        course = self.course_id(old)
        try:
            with self._db.transaction():
                self._db.execute("UPDATE courses SET name = ? WHERE id = ?", (new, course))
        except sqlite3.IntegrityError as e:
            raise CoursedexError(f"there is already a course named {new!r}") from e

    def delete_course(self, course_id: int) -> None:
        with self._db.transaction():
            self._db.delete_where("courses", "id = ?", (course_id,))

    def marks(self) -> LibraryMarks:
        """One statement, so one snapshot of both tables (another process may be writing)."""
        with self._db.lock:
            rows = self._db.conn.execute(
                "SELECT c.name, s.path, s.status, s.sha256, s.indexed_at, s.error "
                "FROM courses c LEFT JOIN sources s ON s.course_id = c.id"
            ).fetchall()
        return LibraryMarks(
            frozenset(r[0] for r in rows),
            {r[1]: FileMark(r[0], *r[2:]) for r in rows if r[1] is not None},
        )

    # --- sources ------------------------------------------------------------------------

    def _sources(self, where: str, args: Sequence[object]) -> list[Source]:
        rows = self._db.rows(self._source_select + where + " ORDER BY c.name, s.path", args)
        return [Source.from_row(r) for r in rows]

    def sources(self, course_id: int | None = None) -> list[Source]:
        if course_id is None:
            return self._sources("", ())
        return self._sources("WHERE s.course_id = ?", (course_id,))

    def source_by_path(self, path: str) -> Source | None:
        found = self._sources("WHERE s.path = ?", (path,))
        return found[0] if found else None

    def sources_by_sha256(self, sha256: str) -> list[Source]:
        return self._sources("WHERE s.sha256 = ? AND s.status = 'indexed'", (sha256,))

    def upsert_source(
        self, *, course_id: int, path: str, kind: SourceKind, title: str, status: SourceStatus
    ) -> int:
        """Register a file (queued or about to be indexed); keeps the row id of a known path."""
        with self._db.lock:
            self._db.execute(
                "INSERT INTO sources(course_id, path, kind, title, status, added_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET "
                "course_id = excluded.course_id, kind = excluded.kind, status = excluded.status",
                (course_id, path, kind.value, title, status.value, now_iso()),
            )
            return int(self._db.value("SELECT id FROM sources WHERE path = ?", (path,)))

    def set_embedder_id(self, embedder_id: str) -> None:
        """Record that every indexed source's vectors now come from ``embedder_id``."""
        with self._db.transaction():
            self._db.execute(
                "UPDATE sources SET embedder_id = ? WHERE status = 'indexed'", (embedder_id,)
            )

    def set_source_status(self, source_id: int, status: SourceStatus, error: str | None) -> None:
        self._db.execute(
            "UPDATE sources SET status = ?, error = ? WHERE id = ?",
            (status.value, error, source_id),
        )

    def indexing(self) -> dict[int, str]:
        """The files marked as being indexed: their paths by id."""
        rows = self._db.rows(
            "SELECT id, path FROM sources WHERE status = ?", (SourceStatus.INDEXING.value,)
        )
        return {r.id: r.path for r in rows}

    def requeue(self, source_ids: Sequence[int]) -> None:
        """Mark files that were being indexed as queued again: no process is at them."""
        self._db.executemany(
            "UPDATE sources SET status = ? WHERE id = ? AND status = ?",
            ((SourceStatus.QUEUED.value, sid, SourceStatus.INDEXING.value) for sid in source_ids),
        )

    def move_source(self, source_id: int, new_path: str, course_id: int) -> None:
        with self._db.transaction():  # a new generation: the source may change course
            self._db.execute(
                "UPDATE sources SET path = ?, course_id = ? WHERE id = ?",
                (new_path, course_id, source_id),
            )

    def delete_source(self, source_id: int) -> None:
        with self._db.transaction():
            self._db.delete_where("sources", "id = ?", (source_id,))

    def mark_indexed(
        self,
        source_id: int,
        *,
        title: str,
        sha256: str,
        size: int,
        mtime_ns: int,
        duration_ms: int | None,
        embedder_id: str | None,
        status: SourceStatus,
        speech_model: str | None = None,
        language: str | None = None,
    ) -> None:
        """Record a source's new content and status (clearing its error)."""
        self._db.execute(
            "UPDATE sources SET title = ?, sha256 = ?, size = ?, mtime_ns = ?, duration_ms = ?, "
            "embedder_id = ?, speech_model = ?, language = ?, status = ?, error = NULL, "
            "indexed_at = ? WHERE id = ?",
            (
                title,
                sha256,
                size,
                mtime_ns,
                duration_ms,
                embedder_id,
                speech_model,
                language,
                status.value,
                now_iso(),
                source_id,
            ),
        )
