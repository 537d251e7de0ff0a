"""``Store``: one library database, the single entry point the rest of the engine uses.

It composes the table groups (catalog, segments, embeddings, media, meta), which share one
connection, lock and transaction, and does itself only what spans several of them: writing a
source's content, and the library's counts.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from engine.store.courses import Catalog, Course, Source
from engine.store.database import Database
from engine.store.embeddings import Embeddings
from engine.store.meta import Meta
from engine.store.recordings import (
    FinishedTranscript,
    Recordings,
    Scene,
    Showing,
    SlideLink,
    SlidePage,
    TranscriptPart,
)
from engine.store.segments import SegmentRow, Segments, SegmentText
from engine.types import SegmentDraft, SourceKind, SourceStatus, Timing


class Store:
    """One library database. Thread-safe: every call holds the connection's lock briefly.

    Raises:
        LibraryError: the file is not a Coursedex database or is newer than this program.
    """

    def __init__(self, path: Path | str, *, read_only: bool = False) -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        self.db = Database.open(path, read_only=read_only)
        self._meta = Meta(self.db)
        self._catalog = Catalog(self.db)
        self._segments = Segments(self.db)
        self._embeddings = Embeddings(self.db)
        self._media = Recordings(self.db)

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    @property
    def generation(self) -> int:
        """Moves after every transaction: readers cache statistics per generation."""
        return self.db.generation

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """All writes inside commit together or roll back together (and re-raise)."""
        with self.db.transaction():
            yield self

    # --- what spans table groups --------------------------------------------------------

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
        self._segments.delete_of_source(source_id)  # cascades to vectors and the FTS index
        self._media.delete_scenes(source_id)
        ids = self._add_segments(source_id, 0, segments, vectors, space)
        self._embeddings.put_sentences(ids, sentences)
        self._catalog.mark_indexed(
            source_id,
            title=title,
            sha256=sha256,
            size=size,
            mtime_ns=mtime_ns,
            duration_ms=duration_ms,
            embedder_id=embedder_id,
            status=status,
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
        first = self._segments.next_ord(source_id)
        return self._add_segments(source_id, first, segments, vectors, space)

    def _add_segments(
        self,
        source_id: int,
        first_ord: int,
        segments: Sequence[SegmentDraft],
        vectors: np.ndarray | None,
        space: str,
    ) -> list[int]:
        ids = self._segments.insert(source_id, first_ord, segments)
        if vectors is not None:
            self._embeddings.add_for_new(ids, segments, vectors, space)
        return ids

    def stats(self) -> dict[str, object]:
        db = self.db
        with db.lock:
            kinds = {
                r.kind: r.n
                for r in db.rows("SELECT kind, count(*) AS n FROM segments GROUP BY kind")
            }
            statuses = {
                r.status: r.n
                for r in db.rows("SELECT status, count(*) AS n FROM sources GROUP BY status")
            }
            courses = db.value("SELECT count(*) FROM courses")
            ocr = db.value("SELECT count(*) FROM segments WHERE needs_ocr")
            timed = db.value(
                "SELECT coalesce(sum(duration_ms), 0) FROM sources WHERE status = 'indexed'"
            )
        return {
            "courses": int(courses),
            "sources": int(sum(statuses.values())),
            "sources_by_status": statuses,
            "segments": int(sum(kinds.values())),
            "segments_by_kind": kinds,
            "media_hours": round(int(timed) / 3_600_000, 2),
            "pages_waiting_for_ocr": int(ocr),
        }

    # --- meta ---------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        return self._meta.get(key)

    def set_meta(self, key: str, value: str) -> None:
        self._meta.set(key, value)

    # --- courses and sources ------------------------------------------------------------

    def ensure_course(self, name: str, root: str | None = None) -> int:
        return self._catalog.ensure_course(name, root)

    def courses(self) -> list[Course]:
        return self._catalog.courses()

    def course_id(self, name: str) -> int:
        """Raises: NotFoundError (no course ``name``)."""
        return self._catalog.course_id(name)

    def rename_course(self, old: str, new: str) -> None:
        """Raises: NotFoundError (no course ``old``), CoursedexError (``new`` is taken)."""
        self._catalog.rename_course(old, new)

    def delete_course(self, course_id: int) -> None:
        self._catalog.delete_course(course_id)

    def sources(self, course_id: int | None = None) -> list[Source]:
        return self._catalog.sources(course_id)

    def source_by_path(self, path: str) -> Source | None:
        return self._catalog.source_by_path(path)

    def sources_by_sha256(self, sha256: str) -> list[Source]:
        return self._catalog.sources_by_sha256(sha256)

    def upsert_source(
        self, *, course_id: int, path: str, kind: SourceKind, title: str, status: SourceStatus
    ) -> int:
        """Register a file (queued or about to be indexed); keeps the row id of a known path."""
        return self._catalog.upsert_source(
            course_id=course_id, path=path, kind=kind, title=title, status=status
        )

    def set_embedder_id(self, embedder_id: str) -> None:
        """Record that every indexed source's vectors now come from ``embedder_id``."""
        self._catalog.set_embedder_id(embedder_id)

    def set_source_status(self, source_id: int, status: SourceStatus, error: str | None) -> None:
        self._catalog.set_source_status(source_id, status, error)

    def move_source(self, source_id: int, new_path: str, course_id: int) -> None:
        self._catalog.move_source(source_id, new_path, course_id)

    def delete_source(self, source_id: int) -> None:
        self._catalog.delete_source(source_id)

    # --- segments and full text ---------------------------------------------------------

    def segment_ids_of_source(self, source_id: int) -> list[int]:
        return self._segments.ids_of_source(source_id)

    def delete_segments(self, source_id: int) -> None:
        with self.db.transaction():
            self._segments.delete_of_source(source_id)

    def segments(self, ids: Sequence[int]) -> dict[int, SegmentRow]:
        return self._segments.by_ids(ids)

    def segments_of_source(self, source_id: int) -> list[SegmentRow]:
        return self._segments.of_source(source_id)

    def timed_segments(self, *, missing_only: bool, batch: int = 256) -> Iterator[list[SegmentRow]]:
        """Segments with cues, in batches; ``missing_only``: those without cue vectors."""
        return self._segments.timed(missing_only=missing_only, batch=batch)

    def neighbours(self, ids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """The text of the same-kind segments just before and after each given one."""
        return self._segments.neighbours(ids)

    def texts(self, ids: Sequence[int]) -> list[SegmentText]:
        """(id, heading, text, source title) of the given segments."""
        return self._segments.texts(ids)

    def iter_segment_texts(self, batch: int = 512) -> Iterator[list[SegmentText]]:
        """(id, heading, text, source title) of every segment with text, in batches."""
        return self._segments.iter_texts(batch)

    def segment_ids(self) -> set[int]:
        """Segments that should have a vector: all that have text."""
        return self._segments.ids_with_text()

    def segment_count(self) -> int:
        return self._segments.count()

    def fulltext(
        self,
        match: str,
        limit: int,
        *,
        kinds: Sequence[str] = (),
        course_id: int | None = None,
    ) -> list[tuple[int, float]]:
        """bm25-ranked (segment id, score) for an FTS5 MATCH expression; higher is better."""
        return self._segments.fulltext(match, limit, kinds=kinds, course_id=course_id)

    def allowed_segment_ids(self, kinds: Sequence[str], course_id: int | None) -> set[int]:
        return self._segments.allowed_ids(kinds, course_id)

    def document_frequency(self, terms: Iterable[str]) -> dict[str, int]:
        """How many segments contain each (already stemmed) term."""
        return self._segments.document_frequency(terms)

    # --- embeddings ---------------------------------------------------------------------

    def embedded_ids(self, space: str) -> set[int]:
        return self._embeddings.embedded_ids(space)

    def vectors(self, ids: Sequence[int], dimension: int) -> tuple[np.ndarray, np.ndarray]:
        """Stored vectors of the given segment ids (those that have one)."""
        return self._embeddings.vectors(ids, dimension)

    def vector_generation(self) -> int | None:
        """The number of the last vector write; None in a database that predates it."""
        return self._embeddings.generation()

    def vectors_written_since(self, generation: int) -> set[int]:
        return self._embeddings.written_since(generation)

    def put_vectors(self, ids: Sequence[int], vectors: np.ndarray, space: str) -> None:
        self._embeddings.put(ids, vectors, space)

    def clear_vectors(self) -> None:
        self._embeddings.clear()

    def put_sentence_vectors(self, ids: Sequence[int], sentences: Sequence[np.ndarray]) -> None:
        with self.db.transaction():
            self._embeddings.put_sentences(ids, sentences)

    def sentence_vectors(self, ids: Sequence[int], dimension: int) -> dict[int, np.ndarray]:
        """The cue vectors (rows in cue order, float32) of those given segments that have them."""
        return self._embeddings.sentence_vectors(ids, dimension)

    # --- video: transcription parts, scenes, slide links ---------------------------------

    def transcript_parts(self, sha256: str, model: str) -> list[TranscriptPart]:
        """The finished part of a transcription: (start_ms, end_ms, text, words)."""
        return self._media.transcript_parts(sha256, model)

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
        self._media.add_transcript_part(sha256, model, start_ms, end_ms, text, words)

    def finish_transcript(self, sha256: str, model: str, language: str, duration_ms: int) -> None:
        self._media.finish_transcript(sha256, model, language, duration_ms)

    def transcript_finished(self, sha256: str, model: str) -> FinishedTranscript | None:
        """(language, duration_ms) when the whole file was transcribed with ``model``."""
        return self._media.transcript_finished(sha256, model)

    def forget_transcript(self, sha256: str) -> None:
        """Drop the kept transcription of a file once its source is fully indexed."""
        self._media.forget_transcript(sha256)

    def put_scenes(self, source_id: int, scenes: Sequence[tuple[int, int, int, str]]) -> None:
        """Replace a video's scenes: (start_ms, end_ms, keyframe_ms, thumbnail file name).

        Must be called inside :meth:`transaction`."""
        self._media.put_scenes(source_id, scenes)

    def scenes(self, source_id: int) -> list[Scene]:
        return self._media.scenes(source_id)

    def thumbnail_at(self, source_id: int, ms: int) -> str | None:
        """The thumbnail of the scene on screen at ``ms`` (None without scenes)."""
        return self._media.thumbnail_at(source_id, ms)

    def thumbnails_of_source(self, source_id: int) -> list[str]:
        return self._media.thumbnails_of_source(source_id)

    def thumbnail_names(self) -> set[str]:
        with self.db.lock:
            return self._media.thumbnail_names()

    def replace_slide_links(
        self, video_id: int, links: Sequence[tuple[int, int, int, int, float]]
    ) -> None:
        """A video's slide links: (start_ms, end_ms, slides source id, page, score)."""
        self._media.replace_slide_links(video_id, links)

    def slide_at(self, video_id: int, ms: int) -> SlidePage | None:
        """(slides path, page) linked to the video moment ``ms``."""
        return self._media.slide_at(video_id, ms)

    def shown_at(self, slides_id: int, page: int) -> list[Showing]:
        """Where a slide page is shown: (video path, start_ms, end_ms), earliest first."""
        return self._media.shown_at(slides_id, page)

    def slide_links(self, video_id: int) -> list[SlideLink]:
        return self._media.slide_links(video_id)
