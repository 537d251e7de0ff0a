"""``Store``: one library database, the single entry point the rest of the engine uses.

Its table groups are public (``store.catalog``, ``store.segments``, ``store.embeddings``,
``store.recordings``, ``store.notes``, ``store.meta``) and share one connection, lock and
transaction; callers use them directly, so each transaction is taken where it can be seen. ``Store``
does itself only what spans several groups: writing a source's content, and the
library's counts.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from engine.store.courses import Catalog
from engine.store.database import Database
from engine.store.embeddings import Embeddings
from engine.store.meta import Meta
from engine.store.notes import Notes
from engine.store.recordings import (
    Recordings,
)
from engine.store.segments import Segments
from engine.types import SegmentDraft, SourceStatus, StoreStats

log = logging.getLogger(__name__)


class Store:
    """One library database. Thread-safe: every call holds the connection's lock briefly.

    Raises:
        LibraryError: the file is not a Coursedex database or is newer than this program.
    """

    def __init__(self, path: Path | str, *, read_only: bool = False) -> None:
        self.path = Path(path) if str(path) != ":memory:" else None
        self.db = Database.open(path, read_only=read_only)
        self.meta = Meta(self.db)
        self.catalog = Catalog(self.db)
        self.segments = Segments(self.db)
        self.embeddings = Embeddings(self.db)
        self.recordings = Recordings(self.db)
        self.notes = Notes(self.db)
        if not read_only:
            self.analyse_pending()

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
        speech_model: str | None = None,
        language: str | None = None,
    ) -> list[int]:
        """Swap a source's segments for new ones and mark it indexed, in one transaction.

        ``status`` INDEXING keeps it marked unfinished (a later stage still has to run) while
        its segments are already searchable.

        Returns the new segment ids in the order of ``segments``. Must be called inside
        :meth:`transaction` by a caller that also updates the vector index after commit.
        """
        self.segments.delete_of_source(source_id)  # cascades to vectors and the FTS index
        self.recordings.delete_scenes(source_id)
        ids = self._add_segments(source_id, 0, segments, vectors, space, language)
        self.embeddings.put_sentences(ids, sentences)
        self.catalog.mark_indexed(
            source_id,
            title=title,
            sha256=sha256,
            size=size,
            mtime_ns=mtime_ns,
            duration_ms=duration_ms,
            embedder_id=embedder_id,
            status=status,
            speech_model=speech_model,
            language=language,
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
        first = self.segments.next_ord(source_id)
        language = self.segments.language_of(source_id)
        return self._add_segments(source_id, first, segments, vectors, space, language)

    def _add_segments(
        self,
        source_id: int,
        first_ord: int,
        segments: Sequence[SegmentDraft],
        vectors: np.ndarray | None,
        space: str,
        language: str | None = None,
    ) -> list[int]:
        ids = self.segments.insert(source_id, first_ord, segments, language)
        if vectors is not None:
            self.embeddings.add_for_new(ids, segments, vectors, space)
        return ids

    def analyse_pending(self) -> int:
        """Move the text of files in a language other than English from FTS5's Porter index
        to the analysed one (engine/analysis.py), a file per transaction: a kill loses
        nothing, and the next open goes on. Nothing to do in a library from before files
        had languages (all of them are read by Porter, as before). Returns rows moved."""
        moved = 0
        for source_id, language in self.segments.unanalysed():
            with self.transaction():
                moved += self.segments.analyse(source_id, language)
        if moved:
            log.info("%d segments indexed in their language", moved)
        return moved

    def stats(self) -> StoreStats:
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
        return StoreStats(
            courses=int(courses),
            sources=int(sum(statuses.values())),
            sources_by_status=statuses,
            segments=int(sum(kinds.values())),
            segments_by_kind=kinds,
            media_hours=round(int(timed) / 3_600_000, 2),
            pages_waiting_for_ocr=int(ocr),
        )
