"""Approximate nearest-neighbour indexes on disk: one hnswlib index per embedding space.

``<folder>/<space>.hnsw`` holds the graph, ``<space>.json`` the sidecar that says which model,
dimension and build settings made it and fingerprints the index file (hnsw_files.py reads and
writes the pair). Labels are segment ids.
A mismatched, missing or torn pair is never used: the index opens empty with ``needs_rebuild``
and the caller refills it with :meth:`VectorIndex.reconcile`. The sidecar also names the
library it belongs to (an index of another library is not used either) and the ``generation``
of the stored vectors it holds, so the caller can tell which vectors were written since.

Thread-safe: every public method runs under the index's own lock, because hnswlib does not
allow ``knn_query`` during ``add_items`` or ``resize_index`` (a search then crashes the
process) and the window searches while it imports. One plain lock, not readers-writer:
``knn_query`` takes ``ef`` from the index, which each search sets, so concurrent searches would
race too; and a graph search or one file's add is short next to embedding, which callers do
before they take the lock.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

import numpy as np

from engine.errors import LibraryError, ModelMismatchError
from engine.index import hnsw_files
from engine.index.hnsw_files import HnswSettings

log = logging.getLogger(__name__)

_INITIAL_CAPACITY = 1024
_COMPACT_RATIO = 0.3
_BATCH = 4096
_ADD_BATCH = 256
_SPACE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_TOO_FEW = "contiguous 2D array"  # hnswlib's message when it found fewer than k
_DEFAULT_SETTINGS = HnswSettings()

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _locked(
    method: Callable[Concatenate[VectorIndex, _P], _R],
) -> Callable[Concatenate[VectorIndex, _P], _R]:
    """Run a :class:`VectorIndex` method under the index's lock."""

    @functools.wraps(method)
    def run(self: VectorIndex, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            return method(self, *args, **kwargs)

    return run


@dataclass(frozen=True, slots=True)
class ReconcileReport:
    added: int
    deleted: int
    missing_vectors: tuple[int, ...]  # expected ids the caller could not supply: re-embed them
    compacted: bool = False
    replaced: int = 0  # ids held with a vector older than the caller's (among ``added``)


class VectorIndex:
    """One hnswlib index whose labels are segment ids. Open with :meth:`open`."""

    def __init__(
        self,
        folder: Path,
        space: str,
        dimension: int,
        model_id: str,
        settings: HnswSettings,
        threads: int,
        library_id: str | None = None,
    ) -> None:
        if not _SPACE_NAME.fullmatch(space):
            raise LibraryError(f"invalid vector space name {space!r}")
        if dimension <= 0:
            raise LibraryError(f"invalid vector dimension {dimension}")
        self.folder, self.space = folder, space
        self.index_path, self.sidecar_path = folder / f"{space}.hnsw", folder / f"{space}.json"
        self.dimension, self.model_id, self.settings = dimension, model_id, settings
        self.threads = max(1, threads)
        self.library_id = library_id
        self.needs_rebuild = False
        self.problem: str | None = None  # why the files on disk were not used
        # The caller's number for the stored vectors this index holds (None: not known).
        self.generation: int | None = None
        # Reentrant: reconcile adds, deletes and compacts under the lock it already holds.
        self._lock = threading.RLock()
        self._reset()

    def _reset(self) -> None:
        self._index = hnsw_files.new_index(self.settings, self.dimension, _INITIAL_CAPACITY)
        self._live: set[int] = set()
        # Labels still in the graph but marked deleted. get_ids_list includes them and probing
        # get_items label by label costs ~20 us each (2 s at 100k), so we keep the set and persist
        # it in the sidecar, which carries the sha256 of the very index bytes it describes.
        self._deleted: set[int] = set()
        self._dirty = False

    @classmethod
    def open(
        cls,
        folder: Path,
        space: str,
        *,
        dimension: int,
        model_id: str,
        settings: HnswSettings = _DEFAULT_SETTINGS,
        threads: int = 2,
        library_id: str | None = None,
    ) -> VectorIndex:
        """Load the index of ``space`` in ``folder`` or start an empty one. With a
        ``library_id``, an index whose sidecar names another library is not used.

        Raises:
            LibraryError: the space name or dimension is invalid.
        """
        self = cls(folder, space, dimension, model_id, settings, threads, library_id)
        has_index, has_sidecar = self.index_path.exists(), self.sidecar_path.exists()
        if not has_index and not has_sidecar:
            return self
        problem = self._load() if has_index else "sidecar without an index file"
        if problem is not None:
            log.warning(
                "vector index %s was unusable (%s): it is rebuilt from the library database",
                self.index_path,
                problem,
            )
            self.discard(problem)
        return self

    @_locked
    def discard(self, problem: str) -> None:
        """Forget every vector (``problem`` says why); the caller refills the index."""
        self._reset()
        self.problem, self.needs_rebuild, self.generation = problem, True, None
        self._dirty = True  # the next save replaces the bad pair

    @_locked
    def set_generation(self, generation: int) -> None:
        """The caller's number for the stored vectors the index now holds (saved with it)."""
        if generation != self.generation:
            self.generation = generation
            self._dirty = True

    def _expected_meta(self) -> dict[str, Any]:
        return hnsw_files.build_meta(self.model_id, self.dimension, self.settings)

    def _ownership(self) -> dict[str, Any]:
        """Whose vectors these are: written with the index, checked at load apart from
        :meth:`_expected_meta` (a sidecar of an older version has neither)."""
        return {"library_id": self.library_id, "generation": self.generation}

    def _load(self) -> str | None:
        """Load the pair from disk; return why it cannot be used, or None when it was loaded."""
        loaded = hnsw_files.load(
            self.index_path,
            self.sidecar_path,
            self._expected_meta(),
            self.settings,
            self.dimension,
            self.library_id,
        )
        if isinstance(loaded, str):
            return loaded
        self._index, self._live, self._deleted = loaded.index, loaded.live, loaded.deleted
        self.generation = loaded.generation
        return None

    @_locked
    def __len__(self) -> int:
        return len(self._live)

    @_locked
    def ids(self) -> set[int]:
        return set(self._live)

    @_locked
    def get(self, ids: Iterable[int]) -> np.ndarray:
        """The vectors held for live ``ids``, in order (normalized when the metric is cosine).

        Raises:
            LibraryError: an id is not in the index.
        """
        labels = [int(x) for x in ids]
        if not set(labels) <= self._live:
            raise LibraryError(f"{len(set(labels) - self._live)} ids are not in the index")
        if not labels:
            return np.zeros((0, self.dimension), np.float32)
        return np.asarray(self._index.get_items(labels), dtype=np.float32)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Add vectors (n, dim) under int64 ids; re-adding an id replaces its vector.

        Raises:
            ModelMismatchError: the vectors have another dimension than the index.
            LibraryError: ids and vectors disagree, ids are negative or values are not finite.
        """
        labels = np.asarray(ids, dtype=np.int64).reshape(-1)
        data = self._check_vectors(vectors, 2)
        if len(labels) != len(data):
            raise LibraryError(f"{len(labels)} ids for {len(data)} vectors")
        if len(labels) and labels.min() < 0:
            raise LibraryError("vector ids must be non-negative")
        # Keep the last occurrence of a repeated id, as sequential adds would.
        last = len(labels) - 1 - np.unique(labels[::-1], return_index=True)[1]
        labels, data = labels[last], data[last]
        # Batch by batch, so a search waits for one batch, not for a whole large file.
        for start in range(0, len(labels), _ADD_BATCH):
            end = start + _ADD_BATCH
            self._add_batch(labels[start:end], data[start:end])

    @_locked
    def _add_batch(self, labels: np.ndarray, data: np.ndarray) -> None:
        for label in [int(x) for x in labels if int(x) in self._deleted]:
            # With allow_replace_deleted hnswlib refuses to update a deleted label in place.
            self._index.unmark_deleted(label)
            self._deleted.discard(label)
            self._live.add(label)
        known = np.fromiter((int(x) in self._live for x in labels), bool, len(labels))
        fresh = ~known
        # Updates must not go through replace_deleted: it would give the label a second slot.
        if known.any():
            self._index.add_items(data[known], labels[known], num_threads=self.threads)
        if fresh.any():
            n_new = int(fresh.sum())
            vacant = len(self._deleted)
            self._reserve(self._index.get_current_count() + max(0, n_new - vacant))
            self._index.add_items(
                data[fresh], labels[fresh], num_threads=self.threads, replace_deleted=True
            )
            self._live.update(int(x) for x in labels[fresh])
            if vacant:  # reused slots drop their old labels from the graph
                self._deleted &= {int(x) for x in self._index.get_ids_list()}
        self._dirty = self._dirty or len(labels) > 0

    def _reserve(self, needed: int) -> None:
        capacity = self._index.get_max_elements()
        if needed > capacity:
            self._index.resize_index(max(needed, int(capacity * 1.5), capacity + 1024))

    def _check_vectors(self, vectors: np.ndarray, ndim: int) -> np.ndarray:
        data = np.ascontiguousarray(vectors, dtype=np.float32)
        if ndim == 1 and data.ndim == 2 and data.shape[0] == 1:
            data = data[0]
        if data.ndim != ndim:
            raise LibraryError(f"expected a {ndim}-d vector array, got shape {data.shape}")
        if data.shape[-1] != self.dimension:
            got = data.shape[-1]
            raise ModelMismatchError(f"vectors of dimension {got}, index holds {self.dimension}")
        if not np.isfinite(data).all():
            raise LibraryError("vectors contain NaN or infinite values")
        return data

    @_locked
    def delete(self, ids: Iterable[int]) -> None:
        """Hide ids from search; unknown or already deleted ids are ignored."""
        for raw in ids:
            label = int(raw)
            if label in self._live:
                self._index.mark_deleted(label)
                self._live.discard(label)
                self._deleted.add(label)
                self._dirty = True

    @_locked
    def search(
        self,
        query: np.ndarray,
        k: int,
        *,
        ef: int | None = None,
        allowed: Callable[[int], bool] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Return (ids int64, distances float32) of up to ``k`` nearest live vectors, nearest first.

        ``allowed`` keeps only ids for which it returns True; if fewer than ``k`` pass, all are
        returned (as far as the graph search reaches them). It is called under the index's
        lock, so it must not wait for another thread that uses this index.

        Raises:
            ModelMismatchError: the query has another dimension than the index.
            LibraryError: the query is not one finite vector.
        """
        vector = self._check_vectors(query, 1)
        k = min(k, len(self._live))
        if k <= 0:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        # ef stays fixed across retries so a retry repeats the same traversal.
        self._index.set_ef(max(ef or self.settings.ef_search, k))
        seen: set[int] = set()

        def tracking(label: int) -> bool:
            ok = label in self._live and (allowed is None or bool(allowed(label)))
            if ok:
                seen.add(label)
            return ok

        # Unfiltered queries skip the Python callback until a retry needs it.
        use = None if allowed is None else tracking
        while True:
            try:
                labels, distances = self._index.knn_query(vector, k=k, filter=use)
                break
            except RuntimeError as e:
                if _TOO_FEW not in str(e):
                    raise LibraryError(f"vector search failed: {e}") from e
                # Fewer than k reachable: nothing was evicted from the candidate heap, so the
                # allowed labels the filter saw are exactly what the search can return.
                k = min(k - 1, len(seen)) if use is tracking else k
                use = tracking
                seen.clear()
                if k <= 0:
                    return np.empty(0, np.int64), np.empty(0, np.float32)
        return labels[0].astype(np.int64), np.maximum(distances[0], 0).astype(np.float32)

    @_locked
    def compact(self) -> None:
        """Rebuild the graph from the live vectors only, dropping tombstones."""
        live = sorted(self._live)
        capacity = max(_INITIAL_CAPACITY, int(len(live) * 1.25))
        index = hnsw_files.new_index(self.settings, self.dimension, capacity)
        for start in range(0, len(live), _BATCH):
            batch = live[start : start + _BATCH]
            index.add_items(self._index.get_items(batch), batch, num_threads=self.threads)
        self._index, self._deleted = index, set()
        self._dirty = True

    @_locked
    def reconcile(
        self,
        expected_ids: set[int],
        fetch_vectors: Callable[[list[int]], tuple[np.ndarray, np.ndarray]],
        stale: Iterable[int] = (),
    ) -> ReconcileReport:
        """Make the index hold exactly ``expected_ids``, and replace the vectors of ``stale``
        ids it holds (the caller's were written since).

        ``fetch_vectors(ids)`` is called in batches and returns (ids, vectors) for those it has;
        the rest are reported as ``missing_vectors``. Clears ``needs_rebuild``.
        """
        extra = self._live - expected_ids
        tombstones = len(self._deleted) + len(extra)
        compacted = tombstones > _COMPACT_RATIO * max(1, self._index.get_current_count())
        if compacted:
            self._live -= extra
            self.compact()
        else:
            self.delete(extra)
        replaced = self._live & expected_ids & set(stale)
        wanted = sorted((expected_ids - self._live) | replaced)
        missing: list[int] = []
        added = 0
        for start in range(0, len(wanted), _BATCH):
            batch = wanted[start : start + _BATCH]
            got_ids, got_vectors = fetch_vectors(batch)
            got = np.asarray(got_ids, dtype=np.int64).reshape(-1)
            if len(got) != len(got_vectors):
                raise LibraryError(f"fetch returned {len(got)} ids for {len(got_vectors)} vectors")
            keep = np.isin(got, np.asarray(batch, dtype=np.int64))
            self.add(got[keep], np.asarray(got_vectors)[keep])
            added += int(np.unique(got[keep]).size)
            missing.extend(sorted(set(batch) - {int(x) for x in got[keep]}))
        self.needs_rebuild = False
        return ReconcileReport(added, len(extra), tuple(missing), compacted, len(replaced))

    @_locked
    def save(self) -> None:
        """Write index then sidecar atomically (temp file, fsync, rename); no-op when clean.

        Raises:
            LibraryError: the files cannot be written.
        """
        if not self._dirty:
            return
        hnsw_files.save(
            self._index,
            self.index_path,
            self.sidecar_path,
            self._expected_meta() | self._ownership(),
            self._deleted,
            len(self._live),
        )
        self._dirty = False
