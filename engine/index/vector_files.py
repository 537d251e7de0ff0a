"""A library's vector index file kept in step with its database: opened (again when another
process saved it since), reconciled with the stored vectors, started for a new model, saved.

The indexer (engine/index/indexer.py) owns one :class:`VectorFiles` and calls it under its
own lock; nothing here takes that lock.
"""

from __future__ import annotations

import logging
from pathlib import Path

from engine.errors import LibraryError
from engine.index.vectors import HnswSettings, ReconcileReport, VectorIndex
from engine.models import Embedder
from engine.store import Store

log = logging.getLogger(__name__)

SPACE = "text"  # one embedding space for now: every segment's text, by the text embedder


class VectorFiles:
    """The vector index of ``folder`` (None before the first import) and what is known of
    the files on disk: when they were last read or saved, and whether a save failed."""

    def __init__(self, store: Store, folder: Path) -> None:
        self.store = store
        self.folder = folder
        self.index: VectorIndex | None = None
        self.missing: set[int] = set()  # segments whose stored vector was lost
        self._seen: tuple[int, int, int] | None = None  # the index files as last read or saved
        self._unsaved = False  # a save failed and said so (a full disk)

    def open(self, model_id: str, dimension: int, *, quiet: bool, reload: bool) -> None:
        """Indexer.open's work, for the library's model (the caller holds the indexer's
        lock)."""
        seen = self._stamp()
        index = self.index
        saved_since = seen != self._seen and reload
        if index is None or saved_since or index.model_id != model_id:
            index = self._open_index(dimension, model_id)
            self._seen = seen
        now = self.store.embeddings.generation()
        stale = self._written_since(index, now)
        expected = self.store.segments.ids_with_text()
        report = index.reconcile(
            expected, lambda ids: self.store.embeddings.vectors(ids, dimension), stale
        )
        if now is not None:
            index.set_generation(now)
        self._say_repaired(index, report, quiet)
        self.index = index
        self.missing = set(report.missing_vectors)

    def _open_index(self, dimension: int, model_id: str) -> VectorIndex:
        return VectorIndex.open(
            self.folder,
            SPACE,
            dimension=dimension,
            model_id=model_id,
            library_id=self.store.meta.get("library_id"),
        )

    def _written_since(self, index: VectorIndex, now: int | None) -> set[int]:
        """The ids whose stored vector changed after the index was saved: a row removed and
        its id taken by a new one (SQLite reuses the highest free id) before a kill, or an
        index from an older copy of the library. An index newer than the database (one
        restored from an older copy) cannot say which it holds: it starts again."""
        saved = index.generation
        if now is None or saved is None or saved == now:
            return set()
        if saved > now:
            problem = "it is newer than the library database, restored from an older copy?"
            log.warning(
                "vector index %s was unusable (%s): it is rebuilt from the library database",
                index.index_path,
                problem,
            )
            index.discard(problem)
            return set()
        return self.store.embeddings.written_since(saved)

    @staticmethod
    def _say_repaired(index: VectorIndex, report: ReconcileReport, quiet: bool) -> None:
        """One line when the index was mended (an unusable one said so as it opened)."""
        if not (report.added or report.deleted) or index.problem is not None:
            return
        if quiet:
            log.info(
                "%d vectors another import has not saved yet were read from the database",
                report.added,
            )
            return
        log.warning(
            "vector index repaired from the library database: %d added (%d of them replaced), "
            "%d removed",
            report.added,
            report.replaced,
            report.deleted,
        )

    def _stamp(self) -> tuple[int, int, int] | None:
        """What tells that the index was saved since: its sidecar, replaced on every save."""
        try:
            st = (self.folder / f"{SPACE}.json").stat()
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def ensure(self, embedder: Embedder) -> VectorIndex:
        """The index, started for ``embedder`` at the library's first import."""
        if self.index is None:
            self.store.meta.set("embedder_id", embedder.model_id)
            self.store.meta.set("dimension", str(embedder.dimension))
            self.index = self._open_index(embedder.dimension, embedder.model_id)
            self._seen = self._stamp()
        return self.index

    def save(self) -> None:
        """Indexer.save's work.

        Raises:
            LibraryError: it cannot be written (the database still holds every vector).
        """
        if self.index is not None:
            self._save(self.index)
            self._unsaved = False

    def save_or_say(self) -> None:
        """Indexer.save_or_say's work: a failed save is said once, not at every try."""
        try:
            self.save()
        except LibraryError as e:
            if not self._unsaved:
                log.warning("%s; it is rebuilt from the library database at the next start", e)
            self._unsaved = True

    def _save(self, index: VectorIndex) -> None:
        """The index holds every stored vector now (the caller holds the write lock)."""
        now = self.store.embeddings.generation()
        if now is not None:
            index.set_generation(now)
        index.save()
        self._seen = self._stamp()

    def replace(self, embedder: Embedder, ids: set[int]) -> None:
        """A new index of ``embedder``'s stored vectors for ``ids``, saved, takes over (a
        re-index: the saved one holds the old model's vectors, nothing to read)."""
        index = VectorIndex(
            self.folder,
            SPACE,
            embedder.dimension,
            embedder.model_id,
            HnswSettings(),
            2,
            self.store.meta.get("library_id"),
        )
        index.reconcile(ids, lambda want: self.store.embeddings.vectors(want, embedder.dimension))
        self._save(index)
        self.index = index
        self.missing = set()

    def caught_up(self, index: VectorIndex, before: int | None) -> None:
        """After this process's own vector write: an index that held every stored vector
        before it holds them all after it, so the write is not taken later for one made by
        another process (which the next open would read again and call a repair)."""
        if before is not None and index.generation == before:
            now = self.store.embeddings.generation()
            if now is not None:
                index.set_generation(now)
