"""How values that SQLite has no type for are stored: times as compact JSON, vectors as
raw float32 blobs, a segment's cue vectors as one float16 matrix blob."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from engine.types import Timing


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def timings_json(timings: Sequence[Timing]) -> str | None:
    if not timings:
        return None
    return json.dumps([[t.start_ms, t.end_ms, t.text] for t in timings], separators=(",", ":"))


def timings_from(raw: str | None) -> tuple[Timing, ...]:
    if not raw:
        return ()
    return tuple(Timing(int(a), int(b), str(c)) for a, b, c in json.loads(raw))


def vector_blobs(vectors: np.ndarray) -> np.ndarray:
    """Rows whose ``tobytes()`` is the stored form of each vector."""
    return np.ascontiguousarray(vectors, dtype=np.float32)


def vectors_from(blobs: Sequence[bytes], dimension: int) -> np.ndarray:
    return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dimension)


def cue_matrix_blob(matrix: np.ndarray) -> bytes:
    return np.ascontiguousarray(matrix, dtype=np.float16).tobytes()


def cue_matrix_from(blob: bytes, dimension: int) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float16).reshape(-1, dimension).astype(np.float32)
