"""Query enrichment (engine/search/enrich.py) on TutorialVQA dev: how often, how slow, does it help.

    uv run python bench/enrichment.py [--min-words 12] [--stride 3] [--cache FILE.npz]

Prints how many dev queries are long (> min words), the keybert import time, the KeyBERT
time per long query (p50/p95), three long queries with their dense query, and a dense-only
retrieval check: the 76 transcripts cut into windows of 5 sentences (cues), embedded with the
default embedder, and for the long queries video-level Hit@1/Hit@10/MRR@10 (videos ranked by
their best window) for the raw query and each way of enriching it. Data is read from
../shared/eval/tutorialvqa at run time. Never pass/fail.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.ingest.subtitles import cues_from_text  # noqa: E402
from engine.models import Embedder  # noqa: E402
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry  # noqa: E402
from engine.search.enrich import (  # noqa: E402
    NGRAM_RANGE,
    QueryEnricher,
    _keybert_model,
    compose_dense_query,
    word_count,
)

DATA = ROOT.parent / "shared" / "eval" / "tutorialvqa"
WINDOW = 5


def _jsonl(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _windows(stride: int) -> tuple[list[str], list[str]]:
    """Texts of 5-cue windows over every transcript and the video id of each."""
    texts: list[str] = []
    videos: list[str] = []
    for path in sorted((DATA / "srt").glob("*.srt")):
        video = path.name.split(" ", 1)[0]
        cues, _ = cues_from_text(path.read_text(encoding="utf-8", errors="replace"), path.name)
        for start in range(0, max(1, len(cues) - WINDOW + stride), stride):
            part = cues[start : start + WINDOW]
            if part:
                texts.append(" ".join(c.text for c in part))
                videos.append(video)
    return texts, videos


def _window_vectors(
    embedder: Embedder, texts: list[str], cache: Path | None
) -> npt.NDArray[np.float32]:
    if cache is not None and cache.is_file():
        data = np.load(cache)
        if data["vectors"].shape[0] == len(texts):
            return data["vectors"]
    t0 = time.perf_counter()
    vectors = embedder.embed(texts)
    print(f"embedded {len(texts)} windows in {time.perf_counter() - t0:.1f} s")
    if cache is not None:
        np.savez(cache, vectors=vectors)
    return vectors


def _video_ranks(
    query_vectors: npt.NDArray[np.float32],
    windows: npt.NDArray[np.float32],
    videos: Sequence[str],
    gold: Sequence[str],
) -> list[int | None]:
    """1-based rank of the gold video (videos ordered by their best window), None past 10."""
    ranks: list[int | None] = []
    scores = query_vectors @ windows.T
    for row, want in zip(scores, gold, strict=True):
        seen: list[str] = []
        for i in map(int, np.argsort(-row)):
            if videos[i] not in seen:
                seen.append(videos[i])
                if len(seen) == 10:
                    break
        ranks.append(seen.index(want) + 1 if want in seen else None)
    return ranks


def _row(name: str, ranks: Sequence[int | None]) -> str:
    n = len(ranks)
    hit1 = sum(r == 1 for r in ranks) / n
    hit10 = sum(r is not None for r in ranks) / n
    mrr = sum(1 / r for r in ranks if r is not None) / n
    return f"{name:<34} {hit1:6.3f} {hit10:7.3f} {mrr:7.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--min-words", type=int, default=12)
    parser.add_argument("--stride", type=int, default=3, help="cues between window starts")
    parser.add_argument("--cache", type=Path, help="keep window vectors in this .npz")
    args = parser.parse_args()

    queries = {str(q["id"]): str(q["query"]) for q in _jsonl(DATA / "dev_queries.jsonl")}
    gold = {str(g["id"]): str(g["video_id"]) for g in _jsonl(DATA / "dev_gold.jsonl")}
    with tempfile.TemporaryDirectory() as tmp:
        embedder = ModelRegistry(Path(tmp)).load_embedder(DEFAULT_EMBEDDER, 2)
    enricher = QueryEnricher(embedder, min_words=args.min_words)
    long_ids = [i for i, q in queries.items() if enricher.is_long(q) and i in gold]
    print(f"{len(long_ids)} of {len(queries)} dev queries have > {args.min_words} words")

    t0 = time.perf_counter()
    enricher.warm()
    print(f"keybert import + model: {time.perf_counter() - t0:.2f} s (once, on a worker)")

    phrases: dict[str, list[str]] = {}
    took: list[float] = []
    for i in long_ids:
        t0 = time.perf_counter()
        phrases[i] = enricher.extract(queries[i])
        took.append((time.perf_counter() - t0) * 1000)
    took.sort()
    p95 = took[min(len(took) - 1, int(0.95 * len(took)))]
    print(f"KeyBERT per long query: p50 {statistics.median(took):.1f} ms, p95 {p95:.1f} ms")
    paste = " ".join(queries[i] for i in long_ids)
    paste = " ".join((paste.split() * 5000)[:5000])
    t0 = time.perf_counter()
    enricher.dense_query(paste)
    print(f"a 5,000-word paste: {(time.perf_counter() - t0) * 1000:.0f} ms")

    by_length = sorted(long_ids, key=lambda i: word_count(queries[i]), reverse=True)
    print("\nexamples:")
    for i in (by_length[0], by_length[1], by_length[len(by_length) // 2]):
        print(f"  query: {queries[i]!r}\n  dense: {enricher.dense_query(queries[i])!r}\n")

    model = _keybert_model(embedder)

    def diverse(**options: object) -> dict[str, list[str]]:
        return {
            i: [
                str(p)
                for p, _ in model.extract_keywords(
                    queries[i],
                    keyphrase_ngram_range=NGRAM_RANGE,
                    stop_words="english",
                    top_n=enricher.keyphrases,
                    **options,
                )
            ]
            for i in long_ids
        }

    mmr = diverse(use_mmr=True, diversity=0.5)
    maxsum = diverse(use_maxsum=True, nr_candidates=20)
    variants: dict[str, Callable[[str], str]] = {
        "raw query": lambda i: queries[i],
        "keyphrases + query (default)": lambda i: compose_dense_query(queries[i], phrases[i]),
        "query + keyphrases": lambda i: queries[i] + "\n" + "; ".join(phrases[i]),
        "keyphrases alone": lambda i: "; ".join(phrases[i]) or queries[i],
        "keyphrases + query (MMR 0.5)": lambda i: compose_dense_query(queries[i], mmr[i]),
        "keyphrases + query (MaxSum)": lambda i: compose_dense_query(queries[i], maxsum[i]),
        "keyphrases alone (MMR 0.5)": lambda i: "; ".join(mmr[i]) or queries[i],
    }

    texts, videos = _windows(args.stride)
    windows = _window_vectors(embedder, texts, args.cache)
    print(
        f"\ndense only, {len(texts)} windows of {WINDOW} cues over 76 videos, "
        f"{len(long_ids)} long dev queries, video level"
    )
    print(f"{'dense query':<34} {'Hit@1':>6} {'Hit@10':>7} {'MRR@10':>7}")
    want = [gold[i] for i in long_ids]
    for name, make in variants.items():
        vectors = embedder.embed([make(i) for i in long_ids], query=True)
        print(_row(name, _video_ranks(vectors, windows, videos, want)))


if __name__ == "__main__":
    main()
