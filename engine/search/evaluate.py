"""Retrieval benchmarks on the public data in ``../shared/eval`` (read at run time only).

Definitions follow ``../shared/eval/README.md`` exactly:
- TutorialVQA: a result is a hit when it comes from the gold video and its ``start`` lies in
  ``[begin - 5 s, end]``; with r the rank of the first hit in the top 10, NDCG@10 =
  1/log2(r+1), MRR@10 = 1/r, Hit@1, Hit@10; means over the split.
- SciFact: results collapsed to unique documents in rank order; graded NDCG@10 (linear gain,
  as trec_eval / BEIR) against the test qrels; MRR@10, Hit@1, Hit@10 on any relevant document.
"""

from __future__ import annotations

import json
import logging
import math
import statistics
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import cast

from engine.config import EngineConfig, SearchConfig
from engine.errors import CoursedexError
from engine.importing.progress import IngestProgress
from engine.library import Library
from engine.models import Embedder, Reranker
from engine.search import SearchResult
from engine.search.results import AtMoment

log = logging.getLogger(__name__)


def _plain(c: SearchConfig) -> SearchConfig:
    """The engine core's hybrid: fusion, passage list, seek refinement, same-moment dedup;
    no sentence rescoring, near-duplicate removal, MMR, enrichment, gate or reranker."""
    return replace(
        c, sentences=False, near_duplicates=0.0, mmr=0.0, enrich=False, gate=0.0, rerank=False
    )


def _multi(c: SearchConfig) -> SearchConfig:
    """The plain hybrid with multi-granularity: the head rescored by each window's best
    sentence (the base every later ablation row adds one stage to)."""
    return replace(_plain(c), sentences=True)


# The single-retriever rows are pure: the passage list (a lexical re-ranking of the fused
# head) belongs to hybrid.
MODES: dict[str, Callable[[SearchConfig], SearchConfig]] = {
    "full-text": lambda c: replace(_plain(c), dense=False, passage_rank=False),
    "dense": lambda c: replace(_plain(c), fulltext=False, passage_rank=False),
    "hybrid": _plain,
    "default": lambda c: c,
}

# ``--ablation``: "hybrid" runs on a second library embedded without titles or headings;
# "+context" is the same search on the real one, "+multi-granularity" adds sentence
# rescoring, and each later row adds one stage to that; "default" is what ships.
ABLATION: dict[str, Callable[[SearchConfig], SearchConfig]] = {
    "full-text": MODES["full-text"],
    "dense": MODES["dense"],
    "hybrid": _plain,
    "+context": _plain,
    "+multi-granularity": _multi,
    "+dedup": lambda c: replace(_multi(c), near_duplicates=0.9),
    "+mmr": lambda c: replace(_multi(c), near_duplicates=0.9, mmr=0.7),
    "+enrich": lambda c: replace(_multi(c), near_duplicates=0.9, enrich=True),
    "+gate": lambda c: replace(_multi(c), near_duplicates=0.9, gate=c.gate),
    "+rerank": lambda c: replace(_multi(c), near_duplicates=0.9, rerank=True),
    "default": lambda c: c,
}
WITHOUT_CONTEXT = frozenset({"hybrid"})  # ablation rows run on the library without context


# Questions no lecture, paper or course handout answers (cooking, sport, travel, chores),
# written for this project: with the early-exit gate on, each should return nothing.
OFF_TOPIC_QUERIES: tuple[str, ...] = (
    "how long should I knead bread dough",
    "best temperature to roast a chicken",
    "how do I make sourdough starter from scratch",
    "what wine goes with grilled salmon",
    "how many eggs in a carbonara for four people",
    "how to fix a flat bicycle tyre",
    "who won the football world cup in 1998",
    "offside rule in soccer explained",
    "how to train for a marathon in twelve weeks",
    "cheap flights from london to lisbon",
    "what to pack for a week of hiking in the alps",
    "how to unclog a kitchen sink drain",
    "how often should I water tomato plants",
    "how to remove red wine stains from a carpet",
    "best way to fold a fitted sheet",
    "how to change the oil in a car engine",
    "what time does the bakery open on sunday",
    "recipe for vegetable lasagna with spinach",
    "how to teach a puppy to sit",
    "how do I knit a scarf for beginners",
    "tips for growing basil on a windowsill",
    "how much tip to leave at a restaurant",
    "rules of chess castling",
    "how to boil an egg so the yolk stays soft",
    "what is the capital of australia",
    "how to tie a bow tie",
    "when is the best season to visit japan",
    "how do I descale an espresso machine",
    "how to season a cast iron pan",
    "what are the lyrics of happy birthday",
    "how to patch a hole in drywall",
    "good exercises for lower back pain at the gym",
    "how to make pancakes fluffy",
    "how do I renew my passport",
    "which houseplants are safe for cats",
    "how to sharpen a kitchen knife with a whetstone",
    "how to play a barre chord on guitar",
    "what size surfboard should a beginner buy",
    "how to make cold brew coffee at home",
    "how do I get rid of ants in the kitchen",
)


def default_data_dir() -> Path:
    """``../shared/eval`` beside the checkout (this file is ROOT/engine/search/evaluate.py)."""
    return Path(__file__).resolve().parents[3] / "shared" / "eval"


def default_work_dir(name: str, model_id: str) -> Path:
    import platformdirs

    safe = model_id.replace("@", "-").replace("/", "-")
    return (
        Path(platformdirs.user_cache_dir("coursedex", appauthor=False)) / "eval" / f"{name}-{safe}"
    )


def _read_jsonl(path: Path) -> list[dict[str, object]]:
    if not path.is_file():
        raise CoursedexError(f"benchmark file not found: {path}")
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _metrics(first_hit_ranks: Sequence[int | None], ndcgs: Sequence[float]) -> dict[str, float]:
    n = max(len(first_hit_ranks), 1)
    return {
        "ndcg@10": sum(ndcgs) / n,
        "mrr@10": sum(1 / r for r in first_hit_ranks if r) / n,
        "hit@1": sum(1 for r in first_hit_ranks if r == 1) / n,
        "hit@10": sum(1 for r in first_hit_ranks if r) / n,
    }


def _latency(samples: Sequence[float]) -> dict[str, float]:
    if not samples:
        return {"p50_ms": 0.0, "p95_ms": 0.0}
    ordered = sorted(samples)
    return {
        "p50_ms": statistics.median(ordered),
        "p95_ms": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
    }


def _open(
    work: Path, config: EngineConfig, embedder: Embedder, reranker: Reranker | None
) -> Library:
    return Library.open(work, config, lambda: embedder, reranker=lambda: reranker)


# A scorer turns one query's results into (rank of the first hit or None, NDCG@10).
Scorer = Callable[[Sequence[SearchResult]], tuple[int | None, float]]


def _run(
    name: str,
    folder: Path,
    work: Path,
    config: EngineConfig,
    embedder: Embedder,
    queries: Sequence[tuple[str, Scorer]],
    limit: int,
    progress: Callable[[IngestProgress], None] | None,
    reranker: Reranker | None = None,
    ablation: bool = False,
) -> dict[str, object]:
    """Ingest ``folder`` end to end (skipped when unchanged), then score every mode (or
    every ablation row). Each row also runs :data:`OFF_TOPIC_QUERIES` and reports the share
    that got any result."""
    rows: dict[str, dict[str, float]] = {}
    modes = ABLATION if ablation else MODES
    with ExitStack() as stack:
        library = stack.enter_context(_open(work, config, embedder, reranker))
        started = time.monotonic()
        _ingest(library, folder, name, progress)
        ingest_s = time.monotonic() - started
        bare = library
        if ablation:
            bare_config = replace(config, embed_context=False)
            bare_work = work.with_name(f"{work.name}-no-context")
            bare = stack.enter_context(_open(bare_work, bare_config, embedder, reranker))
            _ingest(bare, folder, name, progress)
        for mode, adjust in modes.items():
            cfg = adjust(config.search)
            if cfg.rerank and reranker is None and mode != "default":
                continue
            searched = bare if ablation and mode in WITHOUT_CONTEXT else library
            ranks: list[int | None] = []
            ndcgs: list[float] = []
            took: list[float] = []
            for query, score in queries:
                t0 = time.perf_counter()
                results = searched.search(query, limit=limit, config=cfg).results
                took.append((time.perf_counter() - t0) * 1000)
                rank, ndcg = score(results)
                ranks.append(rank)
                ndcgs.append(ndcg)
            answered = sum(
                bool(searched.search(q, limit=limit, config=cfg).results) for q in OFF_TOPIC_QUERIES
            )
            rows[mode] = {
                **_metrics(ranks, ndcgs),
                **_latency(took),
                "off_topic_answered": answered / len(OFF_TOPIC_QUERIES),
            }
        stats = library.stats()
    return {
        "benchmark": name,
        "queries": len(queries),
        "segments": stats["segments"],
        "ingest_s": round(ingest_s, 2),
        "embedder": embedder.model_id,
        "reranker": _describe(reranker),
        "rows": rows,
    }


def _ingest(
    library: Library, folder: Path, name: str, progress: Callable[[IngestProgress], None] | None
) -> None:
    report = library.ingest([folder], course=name, progress=progress)
    if report.errors:
        raise CoursedexError(f"{len(report.errors)} {name} files failed to ingest")


def _describe(reranker: Reranker | None) -> str:
    if reranker is None:
        return "none (rows without +rerank)"
    if reranker.model_id.startswith(STANDIN_PREFIX):
        return (
            f"{reranker.model_id}, a stand-in: its scores are noise, read +rerank for latency only"
        )
    return reranker.model_id


STANDIN_PREFIX = "standin-"


def tutorialvqa(
    data: Path,
    split: str,
    config: EngineConfig,
    embedder: Embedder,
    work: Path | None = None,
    limit_queries: int | None = None,
    progress: Callable[[IngestProgress], None] | None = None,
    reranker: Reranker | None = None,
    ablation: bool = False,
) -> dict[str, object]:
    """Ingest the 76 subtitle files end to end and score moment retrieval per mode."""
    root = data / "tutorialvqa"
    srt = root / "srt"
    if not srt.is_dir():
        raise CoursedexError(f"TutorialVQA subtitles not found in {srt}")
    gold = {str(g["id"]): g for g in _read_jsonl(root / f"{split}_gold.jsonl")}

    def scorer(g: dict[str, object]) -> Scorer:
        video, begin, end = str(g["video_id"]), float(str(g["begin"])), float(str(g["end"]))

        def score(results: Sequence[SearchResult]) -> tuple[int | None, float]:
            rank = _first_moment_hit(results, video, begin, end)
            return rank, 1 / math.log2(rank + 1) if rank else 0.0

        return score

    queries = [
        (str(q["query"]), scorer(gold[str(q["id"])]))
        for q in _read_jsonl(root / f"{split}_queries.jsonl")[:limit_queries]
    ]
    work = work or default_work_dir("tutorialvqa", embedder.model_id)
    return _run(
        f"tutorialvqa-{split}",
        srt,
        work,
        config,
        embedder,
        queries,
        10,
        progress,
        reranker,
        ablation,
    )


def _first_moment_hit(
    results: Sequence[SearchResult], video_id: str, begin: float, end: float
) -> int | None:
    for rank, r in enumerate(results[:10], start=1):
        if Path(r.source).name.split(" ", 1)[0] != video_id:
            continue
        if isinstance(r.place, AtMoment) and begin - 5.0 <= r.place.start_ms / 1000 <= end:
            return rank
    return None


def scifact(
    data: Path,
    config: EngineConfig,
    embedder: Embedder,
    work: Path | None = None,
    limit_queries: int | None = None,
    progress: Callable[[IngestProgress], None] | None = None,
    reranker: Reranker | None = None,
    ablation: bool = False,
) -> dict[str, object]:
    """Ingest the 5,183 abstracts as text documents and score document retrieval per mode."""
    root = data / "scifact"
    qrels: dict[str, dict[str, int]] = {}
    with (root / "test_qrels.tsv").open(encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[2].isdigit():
                qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    work = work or default_work_dir("scifact", embedder.model_id)
    docs = work / "docs"
    if not (docs / ".complete").exists():
        docs.mkdir(parents=True, exist_ok=True)
        for doc in _read_jsonl(root / "corpus.jsonl"):
            text = f"{doc['title']}\n\n{doc['text']}\n"
            (docs / f"{doc['_id']}.txt").write_text(text, encoding="utf-8")
        (docs / ".complete").touch()

    def scorer(relevant: dict[str, int]) -> Scorer:
        def score(results: Sequence[SearchResult]) -> tuple[int | None, float]:
            ranked = _unique_docs(results)[:10]
            rank = next((i for i, d in enumerate(ranked, 1) if relevant.get(d, 0) > 0), None)
            return rank, _ndcg(ranked, relevant)

        return score

    queries = [
        (str(q["query"]), scorer(qrels.get(str(q["id"]), {})))
        for q in _read_jsonl(root / "test_queries.jsonl")[:limit_queries]
    ]
    # Forty segments leave at least ten distinct abstracts after collapsing.
    return _run(
        "scifact-test",
        docs,
        work / "library",
        config,
        embedder,
        queries,
        40,
        progress,
        reranker,
        ablation,
    )


def _unique_docs(results: Sequence[SearchResult]) -> list[str]:
    seen: dict[str, None] = {}
    for r in results:
        seen.setdefault(Path(r.source).stem, None)
    return list(seen)


def _ndcg(ranked: Sequence[str], relevant: dict[str, int]) -> float:
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
