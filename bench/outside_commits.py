"""What a search in an open library (the window) costs when another process has just
committed to it: the first search after such a commit reads the vector index again and
reconciles it with the database (issue 15, item 3).

Builds a library of ``--segments`` note segments (random vectors, stored as the bulk loader
does), opens it twice (``window`` and ``other``: two connections and two write locks, as two
processes have), then times the window's searches: with nothing new, after the other one
committed a file without saving its vector index (it is still importing), and after it
saved it (its import ended).

    uv run python bench/outside_commits.py [--segments 100000] [--models DIR]

Prints milliseconds. Never pass/fail.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.config import EngineConfig  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry, default_models_dir  # noqa: E402
from engine.types import ParsedSource, SegmentDraft, SegmentKind, SourceKind  # noqa: E402

_TEXT = (
    "graph tree heap stack queue array hash sort merge pivot node edge weight path cycle "
    "matrix vector proof lemma theorem limit series integral derivative entropy signal"
)
WORDS = _TEXT.split()
QUERIES = ("shortest path in a weighted graph", "merge sort pivot", "integral of a series")
PER_SOURCE = 500


def _parsed(rng: random.Random, n: int, title: str) -> ParsedSource:
    drafts = tuple(
        SegmentDraft(SegmentKind.NOTE, " ".join(rng.choices(WORDS, k=40)), heading=title)
        for _ in range(n)
    )
    return ParsedSource(SourceKind.NOTES, title, drafts)


def _vectors(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _add(lib: Library, i: int, n: int, rng: random.Random, nrng: np.random.Generator) -> None:
    dim = lib.embedder().dimension
    path = f"/bench/note-{i:05d}.md"
    lib.index_parsed(
        path,
        _parsed(rng, n, f"note {i}"),
        course="Bench",
        sha256=hashlib.sha256(path.encode()).hexdigest(),
        vectors=_vectors(nrng, n, dim),
    )


def _ms(lib: Library, query: str) -> float:
    started = time.perf_counter()
    lib.search(query)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description="Search cost after another process commits")
    parser.add_argument("--segments", type=int, default=100_000)
    parser.add_argument("--models", type=Path, default=default_models_dir())
    args = parser.parse_args()
    model = ModelRegistry(args.models).load_embedder(DEFAULT_EMBEDDER, 2)
    rng, nrng = random.Random(15), np.random.default_rng(15)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "lib"
        started = time.perf_counter()
        with Library.open(folder, EngineConfig(), lambda: model) as lib:
            for i in range(args.segments // PER_SOURCE):
                _add(lib, i, PER_SOURCE, rng, nrng)
        print(f"built {args.segments} segments in {time.perf_counter() - started:.0f} s")
        window = Library.open(folder, EngineConfig(), lambda: model)
        other = Library.open(folder, EngineConfig(), lambda: model)
        for q in QUERIES * 3:
            window.search(q)  # warm
        quiet = [_ms(window, q) for q in QUERIES * 10]
        print(f"search, nothing new:        p50 {statistics.median(quiet):7.1f} ms")
        unsaved, unsaved_next, saved = [], [], []
        for round_ in range(5):
            _add(other, 100_000 + round_, 20, rng, nrng)  # committed, index not saved
            unsaved.append(_ms(window, QUERIES[0]))
            unsaved_next.append(_ms(window, QUERIES[1]))
            other.save()  # the other import ends: its vector index is written
            _add(other, 200_000 + round_, 1, rng, nrng)
            other.save()
            saved.append(_ms(window, QUERIES[2]))
        print(f"first search after a commit, index not saved: p50 "
              f"{statistics.median(unsaved):7.1f} ms (max {max(unsaved):.1f})")  # fmt: skip
        print(f"the search after that one:                    p50 "
              f"{statistics.median(unsaved_next):7.1f} ms")  # fmt: skip
        print(f"first search after the index was saved:      p50 "
              f"{statistics.median(saved):7.1f} ms (max {max(saved):.1f})")  # fmt: skip
        other.close()
        window.close()


if __name__ == "__main__":
    main()
