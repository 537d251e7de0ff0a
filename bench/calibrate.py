"""An embedder's similarity thresholds measured on TutorialVQA train (never dev).

    uv run python bench/calibrate.py --model multilingual-e5-small-int8 --queries 1000

The early exit needs two things: the best vector similarity below the gate, and little word
overlap. One pass with the gate off records each question's best similarity, its rank and
whether its overlap alone would let it through; the gate's effect at any threshold follows
without searching again: a question is gated when its similarity is below the threshold and
its overlap low. Train questions (train.json + sentence_times.json, the dev gold's recipe)
and the off-topic list of engine/search/evaluate.py are scored so.
``--scifact`` counts instead the SciFact claims outside its test split (no judgements here:
every claim is about an abstract of the corpus, so a gated one is a lost one) gated in a
library of the whole corpus.
``--weights`` also sweeps the sentence-rescoring weight (the default pipeline, gate off).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.config import EngineConfig, SearchConfig
from engine.library import Library
from engine.models.registry import ModelRegistry
from engine.search import eval_metrics, evaluate

GATES = tuple(round(0.25 + 0.005 * i, 3) for i in range(141))
NEVER, ALWAYS = 0.0, 10.0  # gate thresholds no similarity is below / above


def train_queries(data: Path, sample: int) -> list[tuple[str, str, float, float]]:
    """(question, video, gold begin s, gold end s), a seeded sample (0: all)."""
    root = data / "tutorialvqa"
    times = json.loads((root / "sentence_times.json").read_text(encoding="utf-8"))
    out = []
    for q in json.loads((root / "train.json").read_text(encoding="utf-8")):
        sentences = times[str(q["video_id"])]["sentences"]
        begin = sentences[int(q["answer_start"])]["begin"]
        end = sentences[int(q["answer_end"])]["end"]
        out.append((str(q["question"]), str(q["video_id"]), float(begin), float(end)))
    return random.Random(33).sample(out, sample) if 0 < sample < len(out) else out


def measure(library: Library, cfg: SearchConfig, queries: list[Any]) -> list[dict[str, Any]]:
    rows = []
    for query, video, begin, end in queries:
        outcome = library.search(query, limit=10, config=replace(cfg, gate=NEVER))
        rank = eval_metrics.first_moment_hit(outcome.results, video, begin, end)
        low = library.search(query, limit=10, config=replace(cfg, gate=ALWAYS)).gated
        rows.append({"sim": outcome.best_similarity, "rank": rank, "low_overlap": low})
    return rows


def sweep(train: list[dict[str, Any]], off: list[dict[str, Any]]) -> None:
    def gated(r: dict[str, Any], g: float) -> bool:
        return r["low_overlap"] and r["sim"] is not None and r["sim"] < g

    print(f"{'gate':>5} {'NDCG@10':>8} {'Hit@10':>7} {'gated':>6} {'lost':>5} {'off-topic':>9}")
    for g in GATES:
        ranks = [None if gated(r, g) else r["rank"] for r in train]
        ndcg = sum(1 / math.log2(r + 1) for r in ranks if r) / len(train)
        hit = sum(1 for r in ranks if r) / len(train)
        n_gated = sum(gated(r, g) for r in train)
        lost = sum(1 for r in train if gated(r, g) and r["rank"])
        answered = sum(not gated(r, g) for r in off) / len(off)
        print(f"{g:5.3f} {ndcg:8.3f} {hit:7.3f} {n_gated:6d} {lost:5d} {answered:9.0%}")


def scifact(library: Library, data: Path, docs: Path) -> None:
    """The share of SciFact's non-test claims (and of the off-topic questions) gated."""
    if not (docs / ".complete").exists():
        docs.mkdir(parents=True, exist_ok=True)
        for line in (data / "scifact" / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
            doc = json.loads(line)
            (docs / f"{doc['_id']}.txt").write_text(f"{doc['title']}\n\n{doc['text']}\n")
        (docs / ".complete").touch()
    report = library.ingest([docs], course="scifact")
    if report.errors:
        raise SystemExit(f"{len(report.errors)} abstracts failed to ingest")
    test = (data / "scifact" / "test_queries.jsonl").read_text(encoding="utf-8")
    held = {json.loads(line)["id"] for line in test.splitlines() if line.strip()}
    lines = (data / "scifact" / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    claims = [q["text"] for q in map(json.loads, lines) if q["_id"] not in held]
    train = measure(library, SearchConfig(), [(c, "", 0.0, 0.0) for c in claims])
    off = measure(library, SearchConfig(), [(q, "", 0.0, 0.0) for q in evaluate.OFF_TOPIC_QUERIES])
    print(f"{len(claims)} SciFact claims outside test")
    print(f"{'gate':>5} {'claims gated':>12} {'off-topic':>9}")
    for g in GATES:
        lost = sum(r["low_overlap"] and r["sim"] < g for r in train) / len(train)
        answered = sum(not (r["low_overlap"] and r["sim"] < g) for r in off) / len(off)
        print(f"{g:5.3f} {lost:12.1%} {answered:9.0%}")


def weights(library: Library, queries: list[Any], name: str, grid: list[float]) -> None:
    """The default pipeline (gate off) with the calibration value ``name`` at each of ``grid``."""
    for w in grid:
        cfg = replace(SearchConfig(), gate=NEVER, **{name: w})
        ranks = [r["rank"] for r in measure_ranks(library, cfg, queries)]
        ndcg = sum(1 / math.log2(r + 1) for r in ranks if r) / len(queries)
        hit1 = sum(1 for r in ranks if r == 1) / len(queries)
        hit10 = sum(1 for r in ranks if r) / len(queries)
        line = f"{name} {w:5.2f}: NDCG@10 {ndcg:.3f} Hit@1 {hit1:.3f} Hit@10 {hit10:.3f}"
        print(line, flush=True)


def measure_ranks(library: Library, cfg: SearchConfig, queries: list[Any]) -> list[dict[str, Any]]:
    out = []
    for query, video, begin, end in queries:
        results = library.search(query, limit=10, config=cfg).results
        out.append({"rank": eval_metrics.first_moment_hit(results, video, begin, end)})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--model", default="all-minilm-l6-v2-int8")
    parser.add_argument("--queries", type=int, default=1000, help="train questions (0: all)")
    parser.add_argument("--data", type=Path, default=evaluate.default_data_dir())
    parser.add_argument("--work", type=Path, default=Path("/tmp/coursedex-calibrate"))
    parser.add_argument("--scifact", action="store_true", help="SciFact's non-test claims")
    parser.add_argument(
        "--weights", default="", help="a calibration value to sweep, e.g. sentence_weight=2,3,6"
    )
    args = parser.parse_args()
    registry = ModelRegistry(args.work / "models")
    embedder = registry.load_embedder(args.model, 2)
    config = EngineConfig(threads=2, embedder=embedder.name, reranker=None)
    queries = train_queries(args.data, args.queries)
    folder = args.work / embedder.model_id.replace("@", "-")
    if args.scifact:
        with Library.open(
            folder.with_name(f"scifact-{folder.name}"), config, lambda: embedder
        ) as library:
            scifact(library, args.data, args.work / "scifact-docs")
        return 0
    with Library.open(folder, config, lambda: embedder, reranker=lambda: None) as library:
        report = library.ingest([args.data / "tutorialvqa" / "srt"], course="tutorialvqa")
        if report.errors:
            raise SystemExit(f"{len(report.errors)} files failed to ingest")
        if args.weights:
            name, grid = args.weights.split("=")
            weights(library, queries, name, [float(w) for w in grid.split(",")])
            return 0
        off = [(q, "", 0.0, 0.0) for q in evaluate.OFF_TOPIC_QUERIES]
        print(f"{embedder.model_id}: {len(queries)} train questions, gate sweep")
        sweep(measure(library, config.search, queries), measure(library, config.search, off))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
