"""An hnswlib graph made, and kept on disk: ``<space>.hnsw`` with the ``<space>.json``
sidecar written next to it, which says which model, dimension and build settings made the
index, whose it is, and fingerprints the index bytes. Loading checks all of it before hnswlib
reads a byte; saving writes both atomically. :class:`engine.index.vectors.VectorIndex` holds
the graph in memory.
"""

from __future__ import annotations

import errno
import importlib.metadata
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import hnswlib

from engine.errors import LibraryError
from engine.index.atomic_files import atomic_write, fingerprint
from engine.own_folders import own_folder

_FORMAT = 1


@dataclass(frozen=True, slots=True)
class HnswSettings:
    # hnswlib metric; vectors are L2-normalized so 'ip' and 'cosine' rank alike
    space: Literal["l2", "ip", "cosine"] = "cosine"
    m: int = 16
    ef_construction: int = 200
    ef_search: int = 128


@dataclass(frozen=True, slots=True)
class LoadedIndex:
    """An index read from disk: its live labels, the labels marked deleted in its graph, and
    the caller's number for the stored vectors it holds (None: not known)."""

    index: hnswlib.Index
    live: set[int]
    deleted: set[int]
    generation: int | None


def new_index(settings: HnswSettings, dimension: int, capacity: int) -> hnswlib.Index:
    """An empty graph with room for ``capacity`` vectors."""
    index = hnswlib.Index(space=settings.space, dim=dimension)
    index.init_index(
        max_elements=capacity,
        M=settings.m,
        ef_construction=settings.ef_construction,
        allow_replace_deleted=True,  # pyright: ignore[reportCallIssue] (stub typo)
    )
    index.set_num_threads(1)  # queries: one at a time (under the lock), no contention
    return index


def _hnswlib_version() -> str:
    try:
        return importlib.metadata.version("hnswlib")
    except importlib.metadata.PackageNotFoundError:  # frozen builds may drop dist-info
        return "unknown"


def build_meta(model_id: str, dimension: int, settings: HnswSettings) -> dict[str, Any]:
    """What the sidecar must say for an index to be used: what built it."""
    return {
        "format": _FORMAT,
        "model_id": model_id,
        "dimension": dimension,
        "metric": settings.space,
        "m": settings.m,
        "ef_construction": settings.ef_construction,
        "hnswlib_version": _hnswlib_version(),
    }


def load(
    index_path: Path,
    sidecar_path: Path,
    expected: dict[str, Any],
    settings: HnswSettings,
    dimension: int,
    library_id: str | None,
) -> LoadedIndex | str:
    """The pair on disk, or why it cannot be used. ``expected``: :func:`build_meta`'s; with
    a ``library_id``, a sidecar naming another library is refused."""
    try:
        meta = json.loads(sidecar_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return "missing sidecar"
    except (OSError, ValueError) as e:
        return f"unreadable sidecar: {e}"
    if not isinstance(meta, dict):
        return "malformed sidecar"
    for key, want in expected.items():
        if meta.get(key) != want:
            return f"built with {key}={meta.get(key)!r}, expected {want!r}"
    owner = meta.get("library_id")
    if owner is not None and library_id is not None and owner != library_id:
        return "it belongs to another library"
    # Only bytes that hash to what we wrote reach hnswlib's loader, which trusts its input.
    try:
        size, digest = fingerprint(index_path)
        if (size, digest) != (meta.get("index_size"), meta.get("index_sha256")):
            return "index file does not match its sidecar (interrupted save?)"
        deleted = {int(x) for x in meta.get("deleted", [])}
        count = int(meta["count"])
        index = hnswlib.Index(space=settings.space, dim=dimension)
        # typeshed's stub misspells this keyword; hnswlib 0.8.0 takes allow_replace_deleted.
        index.load_index(str(index_path), allow_replace_deleted=True)  # pyright: ignore[reportCallIssue]
    except (OSError, RuntimeError, ValueError, TypeError, KeyError) as e:
        return f"cannot load: {e}"
    labels = {int(x) for x in index.get_ids_list()}
    if not deleted <= labels or len(labels) - len(deleted) != count:
        return "label counts disagree with the sidecar"
    index.set_num_threads(1)
    generation = meta.get("generation")
    return LoadedIndex(
        index, labels - deleted, deleted, generation if isinstance(generation, int) else None
    )


def save(
    index: hnswlib.Index,
    index_path: Path,
    sidecar_path: Path,
    meta: dict[str, Any],
    deleted: set[int],
    count: int,
) -> None:
    """Write the index then its sidecar (``meta`` and what describes these bytes) atomically:
    temp file, fsync, rename.

    Raises:
        LibraryError: the files cannot be written.
    """
    try:
        own_folder(index_path.parent)
        atomic_write(index_path, lambda path: _write_index(index, path))
        size, digest = fingerprint(index_path)
        meta = meta | {
            "count": count,
            "deleted": sorted(deleted),
            "index_size": size,
            "index_sha256": digest,
            "saved_at_ms": time.time_ns() // 1_000_000,
        }
        text = json.dumps(meta)
        atomic_write(sidecar_path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    except (OSError, RuntimeError) as e:
        raise LibraryError(f"cannot save vector index {index_path}: {e}") from e


def _write_index(index: hnswlib.Index, path: Path) -> None:
    """hnswlib writes through a C++ stream that ignores a full disk: it reports success
    for a file cut short, which would replace the good index. So the size is checked."""
    index.save_index(str(path))
    written, expected = path.stat().st_size, index.index_file_size()
    if written != expected:
        raise OSError(errno.ENOSPC, f"wrote {written} of {expected} bytes (is the disk full?)")
