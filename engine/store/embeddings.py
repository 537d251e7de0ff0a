"""Each segment's embedding, and a timed segment's cue (sentence) vectors, kept so the
vector index can always be rebuilt without running the model again."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np

from engine.store.codec import cue_matrix_blob, cue_matrix_from, vector_blobs, vectors_from
from engine.store.database import Database
from engine.types import SegmentDraft

_COLUMNS = ("segment_id", "space", "vector")


class Embeddings:
    """The ``embeddings`` and ``sentence_vectors`` tables."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def generation(self) -> int | None:
        """The number of the last vector write (0: none yet); it only grows. None when the
        database predates it (a read-only library of an older version)."""
        try:
            row = self._db.row("SELECT seq FROM sqlite_sequence WHERE name = 'vector_writes'")
            if row is None:  # no write yet, or a library made before it was recorded
                self._db.value("SELECT 1 FROM vector_writes LIMIT 1")
        except sqlite3.OperationalError:  # no such table
            return None
        return 0 if row is None else int(row.seq)

    def written_since(self, generation: int) -> set[int]:
        """Segments whose stored vector was written after ``generation``."""
        rows = self._db.rows("SELECT segment_id FROM vector_writes WHERE seq > ?", (generation,))
        return {int(r.segment_id) for r in rows}

    def vectors(self, ids: Sequence[int], dimension: int) -> tuple[np.ndarray, np.ndarray]:
        """Stored vectors of the given segment ids (those that have one)."""
        rows = list(
            self._db.ids_in(
                "SELECT segment_id, vector FROM embeddings WHERE segment_id IN ({marks})", ids
            )
        )
        found = np.asarray([int(r.segment_id) for r in rows], dtype=np.int64)
        return found, vectors_from([r.vector for r in rows], dimension)

    def put(self, ids: Sequence[int], vectors: np.ndarray, space: str) -> None:
        """Store (or replace) the vectors of the given segments, ``vectors[i]`` for ``ids[i]``."""
        blobs = vector_blobs(vectors)
        with self._db.transaction():
            # A replaced row is deleted and inserted again: its write gets a new number all
            # the same (the triggers of migration 5), as an update's would.
            self._db.insert_all(
                "embeddings",
                _COLUMNS,
                ((sid, space, blobs[i].tobytes()) for i, sid in enumerate(ids)),
                replace=True,
            )

    def add_for_new(
        self, ids: Sequence[int], drafts: Sequence[SegmentDraft], vectors: np.ndarray, space: str
    ) -> None:
        """The vectors of just-inserted segments ``ids`` (made from ``drafts``): one row of
        ``vectors`` per segment with text, in order. Must be called inside a transaction."""
        # Segments without text (pages waiting for OCR) have no vector.
        with_text = [sid for sid, seg in zip(ids, drafts, strict=True) if seg.text.strip()]
        blobs = vector_blobs(vectors)
        self._db.insert_all(
            "embeddings",
            _COLUMNS,
            ((sid, space, blobs[i].tobytes()) for i, sid in enumerate(with_text)),
        )

    def clear(self) -> None:
        """Forget every vector (a switch of embedding model re-embeds everything)."""
        with self._db.transaction():
            self._db.delete_where("embeddings")
            self._db.delete_where("sentence_vectors")

    def put_sentences(self, ids: Sequence[int], sentences: Sequence[np.ndarray | None]) -> None:
        """``sentences[i]``: the cue vectors of segment ``ids[i]`` (None: it has none).

        Writes without a transaction of its own: callers hold one."""
        if not sentences:
            return
        self._db.insert_all(
            "sentence_vectors",
            ("segment_id", "vectors"),
            (
                (sid, cue_matrix_blob(m))
                for sid, m in zip(ids, sentences, strict=True)
                if m is not None and len(m)
            ),
            replace=True,
        )

    def sentence_vectors(self, ids: Sequence[int], dimension: int) -> dict[int, np.ndarray]:
        """The cue vectors (rows in cue order, float32) of those given segments that have them."""
        rows = self._db.ids_in(
            "SELECT segment_id, vectors FROM sentence_vectors WHERE segment_id IN ({marks})", ids
        )
        return {int(r.segment_id): cue_matrix_from(r.vectors, dimension) for r in rows}
