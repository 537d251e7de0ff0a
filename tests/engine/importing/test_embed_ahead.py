"""Texts embedded ahead of need (a lecture's windows while the rest is still recognised) are
taken by the import instead of being embedded a second time; real embedder."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from engine.importing.embedding import Ahead, Embedding
from engine.models.embedder import OnnxEmbedder
from engine.models.manifest import Calibration


class Counted:
    """The real embedder, with a list of every text it was given."""

    def __init__(self, inner: OnnxEmbedder) -> None:
        self.inner = inner
        self.seen: list[str] = []
        self.calls: list[list[str]] = []  # the texts of each call
        self.vectors: dict[str, npt.NDArray[np.float32]] = {}

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    @property
    def calibration(self) -> Calibration:
        return self.inner.calibration

    def embed(
        self, texts: Sequence[str], *, query: bool = False, batch_size: int = 32
    ) -> npt.NDArray[np.float32]:
        self.seen.extend(texts)
        self.calls.append(list(texts))
        vectors = self.inner.embed(texts, query=query, batch_size=batch_size)
        self.vectors.update(zip(texts, vectors, strict=True))
        return vectors


def _worker_niceness() -> int | None:
    worker = next((t for t in threading.enumerate() if t.name == "coursedex-embed-ahead"), None)
    if worker is None or worker.native_id is None:
        return None
    return os.getpriority(os.PRIO_PROCESS, worker.native_id)


def test_texts_embedded_ahead_are_not_embedded_again(embedder: OnnxEmbedder) -> None:
    counted = Counted(embedder)
    ahead = Ahead(lambda: counted, batch_size=8)
    early = ["Merge sort splits the array in halves.", "A heap keeps the smallest key on top."]
    try:
        ahead.want(early)
        deadline = time.monotonic() + 120
        while len(ahead.vectors(counted, early)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        if sys.platform.startswith("linux"):
            niceness = _worker_niceness()
            assert niceness is not None and niceness > os.getpriority(os.PRIO_PROCESS, 0)
        kept = ahead.vectors(counted, early)
        assert counted.seen == early

        texts = [early[0], "Quicksort picks a pivot.", early[1]]
        vectors = Embedding(8, True, ahead).texts(counted, texts)
        assert counted.seen == [*early, "Quicksort picks a pivot."]
        assert vectors.shape == (3, embedder.dimension)
        assert np.array_equal(vectors[0], kept[early[0]])
        assert np.array_equal(vectors[2], kept[early[1]])
        # The same texts embedded afresh give the same vectors (up to batch padding).
        fresh = embedder.embed(texts, batch_size=8)
        assert np.allclose(vectors, fresh, atol=1e-4)

        assert ahead.vectors(embedder, early) == {}, "another embedder's vectors are not taken"
        ahead.clear()  # the file is done
        assert ahead.vectors(counted, early) == {}
    finally:
        ahead.stop()
    assert _worker_niceness() is None, "stop ends the worker"
