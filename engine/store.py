"""The only module that touches SQLite: schema, migrations, full-text index, transactions.

A library database holds courses, sources (one per indexed file), segments (the searchable
units) with an FTS5 external-content index over them, and each segment's embedding so the
vector index can always be rebuilt without re-running the model.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import sqlite_utils

from engine.errors import CoursedexError, LibraryError, NotFoundError
from engine.types import SegmentDraft, SegmentKind, SourceKind, SourceStatus, Timing

log = logging.getLogger(__name__)

# Each entry moves the schema one version up; PRAGMA user_version records where a file is.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE courses (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        root TEXT,
        created_at TEXT NOT NULL
    );
    CREATE TABLE sources (
        id INTEGER PRIMARY KEY,
        course_id INTEGER NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
        path TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        sha256 TEXT,
        size INTEGER,
        mtime_ns INTEGER,
        duration_ms INTEGER,
        status TEXT NOT NULL,
        error TEXT,
        embedder_id TEXT,
        added_at TEXT NOT NULL,
        indexed_at TEXT
    );
    CREATE INDEX sources_sha256 ON sources(sha256);
    CREATE INDEX sources_course ON sources(course_id);
    CREATE TABLE segments (
        id INTEGER PRIMARY KEY,
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        kind TEXT NOT NULL,
        start_ms INTEGER,
        end_ms INTEGER,
        page INTEGER,
        path_in_archive TEXT,
        line_start INTEGER,
        line_end INTEGER,
        heading TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL,
        extra TEXT NOT NULL DEFAULT '',
        timings TEXT,
        needs_ocr INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX segments_source ON segments(source_id, ord);
    CREATE TABLE embeddings (
        segment_id INTEGER PRIMARY KEY REFERENCES segments(id) ON DELETE CASCADE,
        space TEXT NOT NULL,
        vector BLOB NOT NULL
    );
    CREATE VIRTUAL TABLE segments_fts USING fts5(
        text, heading, extra,
        content='segments', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2'
    );
    INSERT INTO segments_fts(segments_fts, rank) VALUES ('rank', 'bm25(1.0, 0.5, 0.6)');
    CREATE VIRTUAL TABLE segments_vocab USING fts5vocab(segments_fts, 'row');
    CREATE TRIGGER segments_ai AFTER INSERT ON segments BEGIN
        INSERT INTO segments_fts(rowid, text, heading, extra)
        VALUES (new.id, new.text, new.heading, new.extra);
    END;
    CREATE TRIGGER segments_ad AFTER DELETE ON segments BEGIN
        INSERT INTO segments_fts(segments_fts, rowid, text, heading, extra)
        VALUES ('delete', old.id, old.text, old.heading, old.extra);
    END;
    CREATE TRIGGER segments_au AFTER UPDATE ON segments BEGIN
        INSERT INTO segments_fts(segments_fts, rowid, text, heading, extra)
        VALUES ('delete', old.id, old.text, old.heading, old.extra);
        INSERT INTO segments_fts(rowid, text, heading, extra)
        VALUES (new.id, new.text, new.heading, new.extra);
    END;
    """,
    # 2: video and audio. Word times of recognised speech; scenes with their thumbnails;
    # slide pages linked to the video moments that show them; the finished part of a
    # transcription (kept per content and model, so a killed import resumes there).
    """
    ALTER TABLE segments ADD COLUMN words TEXT;
    CREATE TABLE scenes (
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        start_ms INTEGER NOT NULL,
        end_ms INTEGER NOT NULL,
        keyframe_ms INTEGER NOT NULL,
        thumbnail TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (source_id, ord)
    );
    CREATE TABLE slide_links (
        id INTEGER PRIMARY KEY,
        video_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        start_ms INTEGER NOT NULL,
        end_ms INTEGER NOT NULL,
        slides_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        page INTEGER NOT NULL,
        score REAL NOT NULL
    );
    CREATE INDEX slide_links_video ON slide_links(video_id, start_ms);
    CREATE INDEX slide_links_slides ON slide_links(slides_id, page);
    CREATE TABLE transcript_parts (
        sha256 TEXT NOT NULL,
        model TEXT NOT NULL,
        ord INTEGER NOT NULL,
        start_ms INTEGER NOT NULL,
        end_ms INTEGER NOT NULL,
        text TEXT NOT NULL,
        words TEXT,
        PRIMARY KEY (sha256, model, ord)
    );
    CREATE TABLE transcripts (
        sha256 TEXT NOT NULL,
        model TEXT NOT NULL,
        language TEXT NOT NULL,
        duration_ms INTEGER NOT NULL,
        PRIMARY KEY (sha256, model)
    );
    """,
    # 3: multi-granularity. A timed segment's cues (sentences) embedded one by one, as a
    # float16 matrix in cue order, so search can score a window by its closest sentence.
    """
    CREATE TABLE sentence_vectors (
        segment_id INTEGER PRIMARY KEY REFERENCES segments(id) ON DELETE CASCADE,
        vectors BLOB NOT NULL
    );
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class Course:
    id: int
    name: str
    root: str | None
    sources: int = 0
    segments: int = 0


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


def _timings_json(timings: Sequence[Timing]) -> str | None:
    if not timings:
        return None
    return json.dumps([[t.start_ms, t.end_ms, t.text] for t in timings], separators=(",", ":"))


def _timings_from(raw: str | None) -> tuple[Timing, ...]:
    if not raw:
        return ()
    return tuple(Timing(int(a), int(b), str(c)) for a, b, c in json.loads(raw))


_SEGMENT_COLUMNS = (
    "g.id, g.source_id, g.kind, g.start_ms, g.end_ms, g.page, g.path_in_archive, g.line_start, "
    "g.line_end, g.heading, g.text, g.timings, s.path, s.title, c.name, g.words, s.kind"
)


def _segment_row(r: sqlite3.Row | tuple) -> SegmentRow:
    return SegmentRow(
        id=r[0],
        source_id=r[1],
        kind=SegmentKind(r[2]),
        start_ms=r[3],
        end_ms=r[4],
        page=r[5],
        path_in_archive=r[6],
        line_start=r[7],
        line_end=r[8],
        heading=r[9],
        text=r[10],
        timings=_timings_from(r[11]),
        source_path=r[12],
        source_title=r[13],
        course=r[14],
        words=_timings_from(r[15]),
        source_kind=SourceKind(r[16]),
    )


class Store:
    """One library database. Thread-safe: every call holds the connection's lock briefly.

    Raises:
        LibraryError: the file is not a Coursedex database or is newer than this program.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        try:
            conn = sqlite3.connect(
                str(path), check_same_thread=False, timeout=30.0, isolation_level=None
            )
            self.db = sqlite_utils.Database(conn)
            self._lock = threading.RLock()
            self.generation = 0
            if self.path is not None:
                self.db.enable_wal()
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as e:
            raise LibraryError(f"cannot open library database {path}: {e}") from e

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def _migrate(self) -> None:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise LibraryError(
                f"this library was written by a newer Coursedex (schema {version}); "
                "update the program"
            )
        for number in range(version, SCHEMA_VERSION):
            # One script per step, inside its own transaction: a step applies whole or not.
            script = f"BEGIN;\n{MIGRATIONS[number]};\nPRAGMA user_version = {number + 1};\nCOMMIT;"
            try:
                self.conn.executescript(script)
            except sqlite3.Error:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise
            log.info("library schema migrated to version %d", number + 1)

    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """All writes inside commit together or roll back together (and re-raise)."""
        with self._lock:
            try:
                with self.db.atomic():
                    yield self
            finally:
                # Readers cache statistics per generation (search's document frequencies).
                self.generation += 1

    # --- meta ---------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self.conn.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # --- courses ------------------------------------------------------------------------

    def ensure_course(self, name: str, root: str | None = None) -> int:
        with self._lock:
            row = self.conn.execute("SELECT id FROM courses WHERE name = ?", (name,)).fetchone()
            if row:
                return int(row[0])
            cur = self.conn.execute(
                "INSERT INTO courses(name, root, created_at) VALUES (?, ?, ?)",
                (name, root, now_iso()),
            )
            return int(cur.lastrowid or 0)

    def courses(self) -> list[Course]:
        with self._lock:
            rows = self.conn.execute(
                "SELECT c.id, c.name, c.root, "
                "(SELECT count(*) FROM sources s WHERE s.course_id = c.id), "
                "(SELECT count(*) FROM segments g JOIN sources s ON g.source_id = s.id "
                " WHERE s.course_id = c.id) FROM courses c ORDER BY c.name"
            ).fetchall()
        return [Course(*r) for r in rows]

    def course_id(self, name: str) -> int:
        with self._lock:
            row = self.conn.execute("SELECT id FROM courses WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise NotFoundError(f"no course named {name!r}")
        return int(row[0])

    def rename_course(self, old: str, new: str) -> None:
        """Raises: NotFoundError (no course ``old``), CoursedexError (``new`` is taken)."""
        course = self.course_id(old)
        try:
            with self.transaction():
                self.conn.execute("UPDATE courses SET name = ? WHERE id = ?", (new, course))
        except sqlite3.IntegrityError as e:
            raise CoursedexError(f"there is already a course named {new!r}") from e

    def delete_course(self, course_id: int) -> None:
        with self.transaction():
            self.conn.execute("DELETE FROM courses WHERE id = ?", (course_id,))

    # --- sources ------------------------------------------------------------------------

    _SOURCE_SELECT = (
        "SELECT s.id, s.course_id, c.name, s.path, s.kind, s.title, s.sha256, s.size, "
        "s.duration_ms, s.status, s.error, s.embedder_id, "
        "(SELECT count(*) FROM segments g WHERE g.source_id = s.id), s.mtime_ns "
        "FROM sources s JOIN courses c ON c.id = s.course_id "
    )

    def _sources(self, where: str, args: Sequence[object]) -> list[Source]:
        with self._lock:
            rows = self.conn.execute(
                self._SOURCE_SELECT + where + " ORDER BY c.name, s.path", tuple(args)
            ).fetchall()
        return [
            Source(
                id=r[0],
                course_id=r[1],
                course=r[2],
                path=r[3],
                kind=SourceKind(r[4]),
                title=r[5],
                sha256=r[6],
                size=r[7],
                duration_ms=r[8],
                status=SourceStatus(r[9]),
                error=r[10],
                embedder_id=r[11],
                segments=r[12],
                mtime_ns=r[13],
            )
            for r in rows
        ]

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
        with self._lock:
            self.conn.execute(
                "INSERT INTO sources(course_id, path, kind, title, status, added_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET "
                "course_id = excluded.course_id, kind = excluded.kind, status = excluded.status",
                (course_id, path, kind.value, title, status.value, now_iso()),
            )
            row = self.conn.execute("SELECT id FROM sources WHERE path = ?", (path,)).fetchone()
        return int(row[0])

    def set_embedder_id(self, embedder_id: str) -> None:
        """Record that every indexed source's vectors now come from ``embedder_id``."""
        with self.transaction():
            self.conn.execute(
                "UPDATE sources SET embedder_id = ? WHERE status = 'indexed'", (embedder_id,)
            )

    def set_source_status(self, source_id: int, status: SourceStatus, error: str | None) -> None:
        with self._lock:
            self.conn.execute(
                "UPDATE sources SET status = ?, error = ? WHERE id = ?",
                (status.value, error, source_id),
            )

    def move_source(self, source_id: int, new_path: str, course_id: int) -> None:
        with self.transaction():  # a new generation: the source may change course
            self.conn.execute(
                "UPDATE sources SET path = ?, course_id = ? WHERE id = ?",
                (new_path, course_id, source_id),
            )

    def segment_ids_of_source(self, source_id: int) -> list[int]:
        with self._lock:
            rows = self.conn.execute(
                "SELECT id FROM segments WHERE source_id = ?", (source_id,)
            ).fetchall()
        return [r[0] for r in rows]

    def delete_segments(self, source_id: int) -> None:
        with self.transaction():
            self.conn.execute("DELETE FROM segments WHERE source_id = ?", (source_id,))

    def delete_source(self, source_id: int) -> None:
        with self.transaction():
            self.conn.execute("DELETE FROM sources WHERE id = ?", (source_id,))

    def replace_source_content(
        self,
        source_id: int,
        *,
        title: str,
        sha256: str,
        size: int,
        mtime_ns: int,
        duration_ms: int | None,
        embedder_id: str | None,
        segments: Sequence[SegmentDraft],
        vectors: np.ndarray | None,
        space: str,
        status: SourceStatus = SourceStatus.INDEXED,
        sentences: Sequence[np.ndarray | None] = (),
    ) -> list[int]:
        """Swap a source's segments for new ones and mark it indexed, in one transaction.

        ``status`` INDEXING keeps it marked unfinished (a later stage still has to run) while
        its segments are already searchable.

        Returns the new segment ids in the order of ``segments``. Must be called inside
        :meth:`transaction` by a caller that also updates the vector index after commit.
        """
        self.conn.execute("DELETE FROM segments WHERE source_id = ?", (source_id,))
        self.conn.execute("DELETE FROM scenes WHERE source_id = ?", (source_id,))
        ids = self._insert_segments(source_id, 0, segments, vectors, space)
        self._insert_sentence_vectors(ids, sentences)
        self.conn.execute(
            "UPDATE sources SET title = ?, sha256 = ?, size = ?, mtime_ns = ?, duration_ms = ?, "
            "embedder_id = ?, status = ?, error = NULL, indexed_at = ? WHERE id = ?",
            (
                title,
                sha256,
                size,
                mtime_ns,
                duration_ms,
                embedder_id,
                status.value,
                now_iso(),
                source_id,
            ),
        )
        return ids

    def append_segments(
        self,
        source_id: int,
        segments: Sequence[SegmentDraft],
        vectors: np.ndarray | None,
        space: str,
    ) -> list[int]:
        """Add segments after a source's existing ones (a later stage: on-screen text).

        Must be called inside :meth:`transaction`; returns the new ids in order.
        """
        row = self.conn.execute(
            "SELECT coalesce(max(ord) + 1, 0) FROM segments WHERE source_id = ?", (source_id,)
        ).fetchone()
        return self._insert_segments(source_id, int(row[0]), segments, vectors, space)

    def _insert_segments(
        self,
        source_id: int,
        first_ord: int,
        segments: Sequence[SegmentDraft],
        vectors: np.ndarray | None,
        space: str,
    ) -> list[int]:
        ids: list[int] = []
        for ord_, seg in enumerate(segments, start=first_ord):
            cur = self.conn.execute(
                "INSERT INTO segments(source_id, ord, kind, start_ms, end_ms, page, "
                "path_in_archive, line_start, line_end, heading, text, extra, timings, "
                "needs_ocr, words) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    source_id,
                    ord_,
                    seg.kind.value,
                    seg.start_ms,
                    seg.end_ms,
                    seg.page,
                    seg.path_in_archive,
                    seg.line_start,
                    seg.line_end,
                    seg.heading,
                    seg.text,
                    seg.extra,
                    _timings_json(seg.timings),
                    int(seg.needs_ocr),
                    _timings_json(seg.words),
                ),
            )
            ids.append(int(cur.lastrowid or 0))
        if vectors is not None:
            # Segments without text (pages waiting for OCR) have no vector.
            with_text = [sid for sid, seg in zip(ids, segments, strict=True) if seg.text.strip()]
            blobs = np.ascontiguousarray(vectors, dtype=np.float32)
            self.conn.executemany(
                "INSERT INTO embeddings(segment_id, space, vector) VALUES (?, ?, ?)",
                ((sid, space, blobs[i].tobytes()) for i, sid in enumerate(with_text)),
            )
        return ids

    def _insert_sentence_vectors(
        self, ids: Sequence[int], sentences: Sequence[np.ndarray | None]
    ) -> None:
        """``sentences[i]``: the cue vectors of segment ``ids[i]`` (None: it has none)."""
        if not sentences:
            return
        self.conn.executemany(
            "INSERT INTO sentence_vectors(segment_id, vectors) VALUES (?, ?) "
            "ON CONFLICT(segment_id) DO UPDATE SET vectors = excluded.vectors",
            (
                (sid, np.ascontiguousarray(m, dtype=np.float16).tobytes())
                for sid, m in zip(ids, sentences, strict=True)
                if m is not None and len(m)
            ),
        )

    def put_sentence_vectors(self, ids: Sequence[int], sentences: Sequence[np.ndarray]) -> None:
        with self.transaction():
            self._insert_sentence_vectors(ids, sentences)

    def sentence_vectors(self, ids: Sequence[int], dimension: int) -> dict[int, np.ndarray]:
        """The cue vectors (rows in cue order, float32) of those given segments that have them."""
        return {
            sid: np.frombuffer(blob, dtype=np.float16).reshape(-1, dimension).astype(np.float32)
            for sid, blob in self._blobs("SELECT segment_id, vectors FROM sentence_vectors", ids)
        }

    def neighbours(self, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """The text of the segments of the same kind just before and after each given one
        in its file ("" at either end)."""
        marks = ",".join("?" * len(ids))
        with self._lock:
            rows = self.conn.execute(
                "SELECT g.id, coalesce(p.text, ''), coalesce(n.text, '') FROM segments g "
                "LEFT JOIN segments p ON p.source_id = g.source_id AND p.ord = g.ord - 1 "
                "AND p.kind = g.kind "
                "LEFT JOIN segments n ON n.source_id = g.source_id AND n.ord = g.ord + 1 "
                f"AND n.kind = g.kind WHERE g.id IN ({marks})",
                tuple(ids),
            ).fetchall()
        return {int(sid): (before, after) for sid, before, after in rows}

    def timed_segments(self, *, missing_only: bool, batch: int = 256) -> Iterator[list[SegmentRow]]:
        """Segments with cues, in batches; ``missing_only``: those without cue vectors (a
        library from before they existed, or one whose vectors were cleared)."""
        missing = " AND id NOT IN (SELECT segment_id FROM sentence_vectors)" if missing_only else ""
        with self._lock:
            ids = [
                r[0]
                for r in self.conn.execute(
                    f"SELECT id FROM segments WHERE timings IS NOT NULL{missing} ORDER BY id"
                ).fetchall()
            ]
        for start in range(0, len(ids), batch):
            rows = self.segments(ids[start : start + batch])
            yield [rows[i] for i in ids[start : start + batch] if i in rows]

    # --- segments -----------------------------------------------------------------------

    def segments(self, ids: Sequence[int]) -> dict[int, SegmentRow]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        with self._lock:
            rows = self.conn.execute(
                f"SELECT {_SEGMENT_COLUMNS} FROM segments g JOIN sources s ON s.id = g.source_id "
                f"JOIN courses c ON c.id = s.course_id WHERE g.id IN ({marks})",
                tuple(ids),
            ).fetchall()
        return {r[0]: _segment_row(r) for r in rows}

    def iter_segment_texts(self, batch: int = 512) -> Iterator[list[tuple[int, str, str, str]]]:
        """(id, heading, text, source title) of every segment with text, in batches."""
        last = 0
        while True:
            with self._lock:
                rows = self.conn.execute(
                    "SELECT g.id, g.heading, g.text, s.title FROM segments g "
                    "JOIN sources s ON s.id = g.source_id WHERE g.id > ? AND g.text != '' "
                    "ORDER BY g.id LIMIT ?",
                    (last, batch),
                ).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            yield [(int(a), str(b), str(c), str(d)) for a, b, c, d in rows]

    def fulltext(
        self,
        match: str,
        limit: int,
        *,
        kinds: Sequence[str] = (),
        course_id: int | None = None,
    ) -> list[tuple[int, float]]:
        """bm25-ranked (segment id, score) for an FTS5 MATCH expression; higher is better."""
        # The table's rank is bm25 with column weights body 1.0, heading 0.5 (lower, per
        # DESIGN), split identifiers 0.6; ORDER BY rank lets FTS5 use its top-k path.
        where, args = self._filters(kinds, course_id)
        join = "JOIN segments g ON g.id = f.rowid JOIN sources s ON s.id = g.source_id "
        sql = (
            "SELECT f.rowid, f.rank FROM segments_fts f "
            + (join if where else "")
            + "WHERE segments_fts MATCH ? "
            + where
            + " ORDER BY f.rank LIMIT ?"
        )
        with self._lock:
            rows = self.conn.execute(sql, (match, *args, limit)).fetchall()
        return [(int(r[0]), -float(r[1])) for r in rows]

    @staticmethod
    def _filters(kinds: Sequence[str], course_id: int | None) -> tuple[str, list[object]]:
        where, args = "", []
        if kinds:
            where += f" AND g.kind IN ({','.join('?' * len(kinds))})"
            args.extend(kinds)
        if course_id is not None:
            where += " AND s.course_id = ?"
            args.append(course_id)
        return where, args

    def allowed_segment_ids(self, kinds: Sequence[str], course_id: int | None) -> set[int]:
        where, args = self._filters(kinds, course_id)
        with self._lock:
            rows = self.conn.execute(
                "SELECT g.id FROM segments g JOIN sources s ON s.id = g.source_id WHERE 1 " + where,
                tuple(args),
            ).fetchall()
        return {r[0] for r in rows}

    def document_frequency(self, terms: Iterable[str]) -> dict[str, int]:
        """How many segments contain each (already stemmed) term."""
        out: dict[str, int] = {}
        with self._lock:
            for term in set(terms):
                row = self.conn.execute(
                    "SELECT doc FROM segments_vocab WHERE term = ?", (term,)
                ).fetchone()
                out[term] = int(row[0]) if row else 0
        return out

    def segment_ids(self) -> set[int]:
        """Segments that should have a vector: all that have text."""
        with self._lock:
            return {r[0] for r in self.conn.execute("SELECT id FROM segments WHERE text != ''")}

    def texts(self, ids: Sequence[int]) -> list[tuple[int, str, str, str]]:
        """(id, heading, text, source title) of the given segments."""
        out: list[tuple[int, str, str, str]] = []
        for start in range(0, len(ids), 900):
            part = ids[start : start + 900]
            with self._lock:
                out.extend(
                    self.conn.execute(
                        "SELECT g.id, g.heading, g.text, s.title FROM segments g "
                        "JOIN sources s ON s.id = g.source_id WHERE g.id IN "
                        f"({','.join('?' * len(part))})",
                        tuple(part),
                    ).fetchall()
                )
        return out

    def segment_count(self) -> int:
        with self._lock:
            return int(self.conn.execute("SELECT count(*) FROM segments").fetchone()[0])

    # --- embeddings ---------------------------------------------------------------------

    def embedded_ids(self, space: str) -> set[int]:
        with self._lock:
            rows = self.conn.execute(
                "SELECT segment_id FROM embeddings WHERE space = ?", (space,)
            ).fetchall()
        return {r[0] for r in rows}

    def vectors(self, ids: Sequence[int], dimension: int) -> tuple[np.ndarray, np.ndarray]:
        """Stored vectors of the given segment ids (those that have one)."""
        found: list[int] = []
        blobs: list[bytes] = []
        for sid, blob in self._blobs("SELECT segment_id, vector FROM embeddings", ids):
            found.append(sid)
            blobs.append(blob)
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(found), dimension)
        return np.asarray(found, dtype=np.int64), matrix

    def _blobs(self, select: str, ids: Sequence[int]) -> Iterator[tuple[int, bytes]]:
        """(segment id, blob) rows of ``select`` for the given ids, 900 ids per query."""
        for start in range(0, len(ids), 900):
            part = ids[start : start + 900]
            with self._lock:
                rows = self.conn.execute(
                    f"{select} WHERE segment_id IN ({','.join('?' * len(part))})", tuple(part)
                ).fetchall()
            for sid, blob in rows:
                yield int(sid), blob

    def put_vectors(self, ids: Sequence[int], vectors: np.ndarray, space: str) -> None:
        blobs = np.ascontiguousarray(vectors, dtype=np.float32)
        with self.transaction():
            self.conn.executemany(
                "INSERT INTO embeddings(segment_id, space, vector) VALUES (?, ?, ?) "
                "ON CONFLICT(segment_id) DO UPDATE SET space = excluded.space, "
                "vector = excluded.vector",
                ((sid, space, blobs[i].tobytes()) for i, sid in enumerate(ids)),
            )

    def clear_vectors(self) -> None:
        with self.transaction():
            self.conn.execute("DELETE FROM embeddings")
            self.conn.execute("DELETE FROM sentence_vectors")

    # --- video: transcription parts, scenes, slide links ---------------------------------

    def transcript_parts(
        self, sha256: str, model: str
    ) -> list[tuple[int, int, str, tuple[Timing, ...]]]:
        """The finished part of a transcription: (start_ms, end_ms, text, words)."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT start_ms, end_ms, text, words FROM transcript_parts "
                "WHERE sha256 = ? AND model = ? ORDER BY ord",
                (sha256, model),
            ).fetchall()
        return [(int(a), int(b), str(c), _timings_from(d)) for a, b, c, d in rows]

    def add_transcript_part(
        self,
        sha256: str,
        model: str,
        start_ms: int,
        end_ms: int,
        text: str,
        words: Sequence[Timing],
    ) -> None:
        """Keep one recognised segment at once (committed: a kill loses nothing before it)."""
        with self._lock:
            self.conn.execute(
                "INSERT INTO transcript_parts(sha256, model, ord, start_ms, end_ms, text, words) "
                "SELECT ?, ?, coalesce(max(ord) + 1, 0), ?, ?, ?, ? FROM transcript_parts "
                "WHERE sha256 = ? AND model = ?",
                (sha256, model, start_ms, end_ms, text, _timings_json(words), sha256, model),
            )

    def finish_transcript(self, sha256: str, model: str, language: str, duration_ms: int) -> None:
        with self._lock:
            self.conn.execute(
                "INSERT OR REPLACE INTO transcripts(sha256, model, language, duration_ms) "
                "VALUES (?, ?, ?, ?)",
                (sha256, model, language, duration_ms),
            )

    def transcript_finished(self, sha256: str, model: str) -> tuple[str, int] | None:
        """(language, duration_ms) when the whole file was transcribed with ``model``."""
        with self._lock:
            row = self.conn.execute(
                "SELECT language, duration_ms FROM transcripts WHERE sha256 = ? AND model = ?",
                (sha256, model),
            ).fetchone()
        return None if row is None else (str(row[0]), int(row[1]))

    def forget_transcript(self, sha256: str) -> None:
        """Drop the kept transcription of a file once its source is fully indexed."""
        with self._lock:
            self.conn.execute("DELETE FROM transcript_parts WHERE sha256 = ?", (sha256,))
            self.conn.execute("DELETE FROM transcripts WHERE sha256 = ?", (sha256,))

    def put_scenes(self, source_id: int, scenes: Sequence[tuple[int, int, int, str]]) -> None:
        """Replace a video's scenes: (start_ms, end_ms, keyframe_ms, thumbnail file name).

        Must be called inside :meth:`transaction`."""
        self.conn.execute("DELETE FROM scenes WHERE source_id = ?", (source_id,))
        self.conn.executemany(
            "INSERT INTO scenes(source_id, ord, start_ms, end_ms, keyframe_ms, thumbnail) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            ((source_id, i, *scene) for i, scene in enumerate(scenes)),
        )

    def scenes(self, source_id: int) -> list[tuple[int, int, int, str]]:
        with self._lock:
            rows = self.conn.execute(
                "SELECT start_ms, end_ms, keyframe_ms, thumbnail FROM scenes "
                "WHERE source_id = ? ORDER BY ord",
                (source_id,),
            ).fetchall()
        return [(int(a), int(b), int(c), str(d)) for a, b, c, d in rows]

    def thumbnail_at(self, source_id: int, ms: int) -> str | None:
        """The thumbnail of the scene on screen at ``ms`` (None without scenes)."""
        with self._lock:
            row = self.conn.execute(
                "SELECT thumbnail FROM scenes WHERE source_id = ? AND start_ms <= ? "
                "ORDER BY start_ms DESC LIMIT 1",
                (source_id, ms),
            ).fetchone()
        return str(row[0]) if row is not None and row[0] else None

    def thumbnails_of_source(self, source_id: int) -> list[str]:
        with self._lock:
            rows = self.conn.execute(
                "SELECT thumbnail FROM scenes WHERE source_id = ? AND thumbnail != ''",
                (source_id,),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def segments_of_source(self, source_id: int) -> list[SegmentRow]:
        with self._lock:
            rows = self.conn.execute(
                f"SELECT {_SEGMENT_COLUMNS} FROM segments g JOIN sources s ON s.id = g.source_id "
                "JOIN courses c ON c.id = s.course_id WHERE g.source_id = ? ORDER BY g.ord",
                (source_id,),
            ).fetchall()
        return [_segment_row(r) for r in rows]

    def replace_slide_links(
        self, video_id: int, links: Sequence[tuple[int, int, int, int, float]]
    ) -> None:
        """A video's slide links: (start_ms, end_ms, slides source id, page, score)."""
        with self.transaction():
            self.conn.execute("DELETE FROM slide_links WHERE video_id = ?", (video_id,))
            self.conn.executemany(
                "INSERT INTO slide_links(video_id, start_ms, end_ms, slides_id, page, score) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                ((video_id, *link) for link in links),
            )

    def slide_at(self, video_id: int, ms: int) -> tuple[str, int] | None:
        """(slides path, page) linked to the video moment ``ms``."""
        with self._lock:
            row = self.conn.execute(
                "SELECT s.path, l.page FROM slide_links l JOIN sources s ON s.id = l.slides_id "
                "WHERE l.video_id = ? AND l.start_ms <= ? AND l.end_ms > ? "
                "ORDER BY l.start_ms DESC LIMIT 1",
                (video_id, ms, ms),
            ).fetchone()
        return None if row is None else (str(row[0]), int(row[1]))

    def shown_at(self, slides_id: int, page: int) -> list[tuple[str, int, int]]:
        """Where a slide page is shown: (video path, start_ms, end_ms), earliest first."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT s.path, l.start_ms, l.end_ms FROM slide_links l "
                "JOIN sources s ON s.id = l.video_id WHERE l.slides_id = ? AND l.page = ? "
                "ORDER BY s.path, l.start_ms",
                (slides_id, page),
            ).fetchall()
        return [(str(a), int(b), int(c)) for a, b, c in rows]

    def slide_links(self, video_id: int) -> list[tuple[int, int, int, int, float]]:
        with self._lock:
            rows = self.conn.execute(
                "SELECT start_ms, end_ms, slides_id, page, score FROM slide_links "
                "WHERE video_id = ? ORDER BY start_ms",
                (video_id,),
            ).fetchall()
        return [(int(a), int(b), int(c), int(d), float(e)) for a, b, c, d, e in rows]

    def stats(self) -> dict[str, object]:
        with self._lock:
            kinds = dict(
                self.conn.execute("SELECT kind, count(*) FROM segments GROUP BY kind").fetchall()
            )
            statuses = dict(
                self.conn.execute("SELECT status, count(*) FROM sources GROUP BY status").fetchall()
            )
            courses = self.conn.execute("SELECT count(*) FROM courses").fetchone()[0]
            ocr = self.conn.execute("SELECT count(*) FROM segments WHERE needs_ocr").fetchone()[0]
            timed = self.conn.execute(
                "SELECT coalesce(sum(duration_ms), 0) FROM sources WHERE status = 'indexed'"
            ).fetchone()[0]
        return {
            "courses": int(courses),
            "sources": int(sum(statuses.values())),
            "sources_by_status": statuses,
            "segments": int(sum(kinds.values())),
            "segments_by_kind": kinds,
            "media_hours": round(int(timed) / 3_600_000, 2),
            "pages_waiting_for_ocr": int(ocr),
        }
