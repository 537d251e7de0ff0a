"""Embedding again what a library already holds: the vectors a repair finds lost, the cue
vectors of timed segments stored without them, and every segment when the model changes.

The indexer (engine/index/indexer.py) calls these under its lock, so no segment id can change
hands between reading a text and storing its vector.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import numpy as np

from engine.errors import Cancelled
from engine.importing.embedding import Embedding
from engine.index.vector_files import SPACE, VectorFiles
from engine.models import Embedder

log = logging.getLogger(__name__)


def repair(
    files: VectorFiles,
    embedder: Embedder,
    embedding: Embedding,
    before_writing: Callable[[], None],
) -> None:
    """Indexer.repair's work."""
    store = files.store
    rows = store.segments.texts(sorted(files.missing))
    if rows:
        before_writing()
        vectors = embedding.stored(embedder, rows)
        ids = [sid for sid, _, _, _ in rows]
        index = files.ensure(embedder)
        before = store.embeddings.generation()
        store.embeddings.put(ids, vectors, SPACE)
        index.add(np.asarray(ids, dtype=np.int64), vectors)
        files.caught_up(index, before)
        log.warning("re-embedded %d segments that had lost their vectors", len(ids))
    files.missing = set()
    done = 0
    for batch in store.segments.timed(missing_only=True):
        if not done:
            before_writing()
        cues = embedding.sentences(embedder, [r.timings for r in batch])
        with store.transaction():
            store.embeddings.put_sentences([r.id for r in batch], cues)
        done += len(batch)
    if done:
        log.info("embedded the sentences of %d timed segments", done)


def rebuild(
    files: VectorFiles,
    embedder: Embedder,
    embedding: Embedding,
    switch: Callable[[], None],
    progress: Callable[[int, int], None] | None,
    cancel: threading.Event | None,
) -> int:
    """Indexer.rebuild's work.

    Raises:
        Cancelled: ``cancel`` was set; the library is unchanged.
    """
    store = files.store
    ids, vectors = _embed_all(files, embedder, embedding, progress, cancel)
    sentence_ids: list[int] = []
    sentences: list[np.ndarray] = []
    for rows in store.segments.timed(missing_only=False):
        timings = [r.timings for r in rows]
        sentences.extend(embedding.sentences(embedder, timings, cancel))
        sentence_ids.extend(r.id for r in rows)
    store.embeddings.clear()
    if ids:
        store.embeddings.put(ids, vectors, SPACE)
    with store.transaction():
        store.embeddings.put_sentences(sentence_ids, sentences)
    store.meta.set("embedder_id", embedder.model_id)
    store.meta.set("dimension", str(embedder.dimension))
    files.replace(embedder, set(ids))
    switch()
    store.catalog.set_embedder_id(embedder.model_id)
    return len(ids)


def _embed_all(
    files: VectorFiles,
    embedder: Embedder,
    embedding: Embedding,
    progress: Callable[[int, int], None] | None,
    cancel: threading.Event | None,
) -> tuple[list[int], np.ndarray]:
    segments = files.store.segments
    total = len(segments.ids_with_text())
    ids: list[int] = []
    parts: list[np.ndarray] = []
    for batch in segments.iter_texts():
        if cancel is not None and cancel.is_set():
            raise Cancelled("re-index cancelled; the library is unchanged")
        try:
            parts.append(embedding.stored(embedder, batch, cancel))
        except Cancelled:
            raise Cancelled("re-index cancelled; the library is unchanged") from None
        ids.extend(sid for sid, _, _, _ in batch)
        if progress is not None:
            progress(len(ids), total)
    vectors = np.vstack(parts) if parts else np.zeros((0, embedder.dimension), np.float32)
    return ids, vectors
