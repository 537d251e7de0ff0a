"""Cost of the diversity stages on a search-sized candidate list.

    uv run python bench/diversity.py [--runs 200] [--candidates 200] [--words 100]

dedup_near: ``--candidates`` transcript windows of ``--words`` words from the TutorialVQA
subtitles (../shared/eval; a Zipf-distributed word list when they are missing), a fifth of
them copies of another window shifted by a few words, as overlapping windows of one moment
are. mmr: the same number of random unit vectors of 384 dimensions, picking 10 (a page of
results) and all of them. Prints p50/p95 over ``--runs`` runs; never passes or fails.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.search.diversity import dedup_near, mmr  # noqa: E402
from engine.search.evaluate import default_data_dir  # noqa: E402


def transcript_words(data: Path) -> list[str]:
    """Every subtitle word of the TutorialVQA transcripts, in order; [] when missing."""
    words: list[str] = []
    for srt in sorted((data / "tutorialvqa" / "srt").glob("*.srt")):
        for block in srt.read_text(encoding="utf-8").split("\n\n"):
            for line in block.splitlines()[2:]:
                words.extend(line.split())
    return words


def candidates(n: int, size: int, rng: random.Random) -> tuple[list[str], str]:
    words = transcript_words(default_data_dir())
    source = "TutorialVQA subtitles"
    if len(words) < 2 * n * size:
        vocabulary = [f"w{i}" for i in range(5000)]
        zipf = [1 / (i + 1) for i in range(5000)]
        words = rng.choices(vocabulary, zipf, k=2 * n * size)
        source = "Zipf word list (TutorialVQA subtitles not found)"
    starts = rng.sample(range(0, len(words) - size - 10, size), n)
    texts = [" ".join(words[s : s + size]) for s in starts]
    for i in rng.sample(range(1, n), n // 5):  # a window shifted by 1-4 words
        shift = rng.randint(1, 4)
        base = starts[rng.randrange(i)]
        texts[i] = " ".join(words[base + shift : base + shift + size])
    return texts, source


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    fn()  # warm caches (regex, numpy dispatch)
    took = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        took.append((time.perf_counter() - t0) * 1000)
    cuts = statistics.quantiles(took, n=20, method="inclusive")
    return statistics.median(took), cuts[18]


def main() -> None:
    parser = argparse.ArgumentParser(description="Cost of the diversity stages.")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--candidates", type=int, default=200)
    parser.add_argument("--words", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(0)
    texts, source = candidates(args.candidates, args.words, rng)
    kept = dedup_near(texts, str)
    vectors = np.random.default_rng(0).standard_normal((args.candidates, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    relevance = np.sort(np.random.default_rng(1).random(args.candidates))[::-1]
    print(f"{args.candidates} candidates of {args.words} words from {source}")
    print(f"dedup_near keeps {len(kept)} (threshold 0.9); {args.runs} runs each")
    print(f"  {'stage':28s} {'p50 ms':>8s} {'p95 ms':>8s}")
    rows = [
        ("dedup_near", lambda: dedup_near(texts, str)),
        ("mmr k=10 on 200x384", lambda: mmr(relevance, vectors, 10)),
        ("mmr k=all on 200x384", lambda: mmr(relevance, vectors, args.candidates)),
    ]
    for name, fn in rows:
        p50, p95 = timed(fn, args.runs)
        print(f"  {name:28s} {p50:8.2f} {p95:8.2f}")


if __name__ == "__main__":
    main()
