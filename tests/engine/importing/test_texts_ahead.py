"""The next text files of an import are embedded together, in full length-sorted batches,
and each file is still written with the vectors it would have had alone; real embedder."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from tests.engine.importing.test_embed_ahead import Counted
from tests.english import english

_NOTES = {
    "sorting.txt": "Merge sort splits the array in halves and merges the sorted halves.",
    "heaps.txt": "A binary heap keeps the smallest key at the root of the tree.",
    "graphs.txt": "Dijkstra's algorithm finds shortest paths from one vertex.",
}


def test_the_next_files_are_embedded_together(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder
) -> None:
    folder = tmp_path / "course"
    folder.mkdir()
    for name, text in _NOTES.items():
        (folder / name).write_text(text + "\n")
    counted = Counted(embedder)
    with Library.open(
        tmp_path / "lib", english(), lambda: counted, models=ModelRegistry(models_dir)
    ) as lib:
        report = lib.ingest([folder], course="algorithms")
        assert not report.errors
        first = counted.calls[0]
        assert sum(any(t in x for x in first) for t in _NOTES.values()) == 3, counted.calls
        assert len(counted.seen) == len(set(counted.seen)), "no text is embedded twice"
        for name, text in _NOTES.items():
            results = lib.search(text).results
            assert results and Path(results[0].source).name == name
        # Each file's vector is the one it has embedded alone (up to batch padding).
        stored = [t for t in counted.seen if "Merge sort" in t]
        alone = embedder.embed(stored)
        together = counted.vectors[stored[0]]
        assert np.allclose(alone[0], together, atol=1e-4)
