"""The numpy products the app computes, at realistic sizes, timed in this environment
(bench/numpy_blas.py runs it in two: numpy with OpenBLAS and without BLAS).

    uv run python bench/numpy_ops.py [--repeats 20]

Where the engine and what it calls multiply matrices with numpy (grep for @, dot, matmul,
einsum, linalg in engine/ and app/): faster-whisper's log-mel features (its mel filters times
the power spectrum, 5 minutes at a time: engine/media/transcribe.py feeds pieces of that
length); slide alignment's TF-IDF and embedding cosines (engine/importing/align.py, an hour's
lecture against 60 slides); MMR's cosines (engine/search/diversity.py) and a result's
sentence scores (engine/search/granularity.py) at search time; the embedder's mean pooling
and norms (engine/models/embedder.py, one batch). KeyBERT (sklearn's cosine) is not in the
frozen app. Median milliseconds of --repeats after one warm-up. Never pass/fail.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.importing.align import tfidf_similarity  # noqa: E402
from engine.search.diversity import mmr  # noqa: E402

DIMENSION = 384  # all-MiniLM-L6-v2, the default embedder
# fmt: off
WORDS = (
    "sort", "merge", "split", "array", "pivot", "heap", "tree", "graph", "edge", "node", "path",
    "cost", "time", "space", "bound", "hash", "table", "key", "value", "list", "queue", "stack",
    "search", "binary", "linear", "order", "proof", "step", "case",
)
# fmt: on


def _texts(rng: np.random.Generator, n: int, words: int) -> list[str]:
    return [" ".join(rng.choice(WORDS, words)) for _ in range(n)]


def _units(rng: np.random.Generator, n: int) -> np.ndarray:
    vectors = rng.standard_normal((n, DIMENSION)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _cases() -> dict[str, Callable[[], object]]:
    from faster_whisper.feature_extractor import FeatureExtractor

    rng = np.random.default_rng(0)
    features = FeatureExtractor(feature_size=80)
    piece = (rng.standard_normal(16_000 * 300) * 0.1).astype(np.float32)
    spectrum = np.abs(rng.standard_normal((201, 30_000))).astype(np.float32)
    pages, moments = _texts(rng, 60, 40), _texts(rng, 720, 15)
    rows, page_vecs = _units(rng, 720).astype(np.float64), _units(rng, 60).astype(np.float64)
    candidates, relevance = _units(rng, 100), rng.random(100)
    cues, query = _units(rng, 40), _units(rng, 1)[0]
    states = rng.standard_normal((32, 128, DIMENSION)).astype(np.float32)
    weights = (rng.random((32, 128, 1)) > 0.3).astype(np.float32)

    def pool() -> np.ndarray:
        pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    return {
        "log-mel features of a 5-min piece (whole)": lambda: features(piece),
        "  mel filters @ power spectrum (80x201 @ 201x30000)": lambda: (
            features.mel_filters @ spectrum
        ),
        "slide alignment TF-IDF, 720 moments x 60 pages (whole)": lambda: tfidf_similarity(
            pages, moments
        ),
        "slide alignment embedding cosines (720x384 @ 384x60, f64)": lambda: rows @ page_vecs.T,
        "MMR, 100 candidates, k=10": lambda: mmr(relevance, candidates, 10),
        "sentence scores, 40 cues @ query": lambda: cues @ query,
        "embedder mean pooling + norms, batch 32x128": pool,
    }


def timings(repeats: int) -> dict[str, float]:
    """Median milliseconds of each case."""
    out: dict[str, float] = {}
    for name, case in _cases().items():
        case()
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            case()
            times.append((time.perf_counter() - started) * 1000)
        out[name] = statistics.median(times)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--repeats", type=int, default=20)
    args = p.parse_args()
    print(f"numpy {np.__version__}; median ms of {args.repeats}")
    for name, ms in timings(args.repeats).items():
        print(f"  {name:58s} {ms:10.3f}")


if __name__ == "__main__":
    main()
