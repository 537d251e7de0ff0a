"""The benchmark scores as ``../shared/eval/README.md`` defines them (first-hit NDCG@10,
MRR@10, Hit@1, Hit@10; graded NDCG@10 on unique documents; a moment hit in
``[begin - 5 s, end]``), search latency percentiles, and the table that prints a run's rows.
engine/search/evaluate.py runs the benchmarks."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from engine.search import SearchResult
from engine.search.results import AtMoment


def metrics(first_hit_ranks: Sequence[int | None], ndcgs: Sequence[float]) -> dict[str, float]:
    n = max(len(first_hit_ranks), 1)
    return {
        "ndcg@10": sum(ndcgs) / n,
        "mrr@10": sum(1 / r for r in first_hit_ranks if r) / n,
        "hit@1": sum(1 for r in first_hit_ranks if r == 1) / n,
        "hit@10": sum(1 for r in first_hit_ranks if r) / n,
    }


def latency(samples: Sequence[float]) -> dict[str, float]:
    if not samples:
        return {"p50_ms": 0.0, "p95_ms": 0.0}
    ordered = sorted(samples)
    return {
        "p50_ms": statistics.median(ordered),
        "p95_ms": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
    }


def first_moment_hit(
    results: Sequence[SearchResult], video_id: str, begin: float, end: float
) -> int | None:
    for rank, r in enumerate(results[:10], start=1):
        if Path(r.source).name.split(" ", 1)[0] != video_id:
            continue
        if isinstance(r.place, AtMoment) and begin - 5.0 <= r.place.start_ms / 1000 <= end:
            return rank
    return None


def unique_docs(results: Sequence[SearchResult]) -> list[str]:
    seen: dict[str, None] = {}
    for r in results:
        seen.setdefault(Path(r.source).stem, None)
    return list(seen)


def ndcg(ranked: Sequence[str], relevant: dict[str, int]) -> float:
    dcg = sum(relevant.get(d, 0) / math.log2(i + 1) for i, d in enumerate(ranked, start=1))
    ideal = sorted(relevant.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, start=1))
    return dcg / idcg if idcg else 0.0


def format_table(table: dict[str, object]) -> str:
    rows = cast(dict[str, dict[str, float]], table["rows"])
    width = max([10, *map(len, rows)])
    lines = [
        f"{table['benchmark']}: {table['queries']} queries, {table['segments']} segments, "
        f"embedder {table['embedder']}, reranker {table['reranker']}, ingest {table['ingest_s']} s",
        "off-topic: share of 40 questions no course answers that still got results",
        f"{'mode':{width}s} "
        + " ".join(
            f"{h:>8s}"
            for h in ("NDCG@10", "MRR@10", "Hit@1", "Hit@10", "p50 ms", "p95 ms", "off-topic")
        ),
    ]
    for mode, m in rows.items():
        lines.append(
            f"{mode:{width}s} {m['ndcg@10']:8.3f} {m['mrr@10']:8.3f} {m['hit@1']:8.3f} "
            f"{m['hit@10']:8.3f} {m['p50_ms']:8.1f} {m['p95_ms']:8.1f} "
            f"{m['off_topic_answered']:8.0%}"
        )
    return "\n".join(lines)
