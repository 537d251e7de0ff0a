"""Search latency per stage and peak memory on a library of >= 100,000 real-text segments.

The library is built once from the shared evaluation text (SciFact abstracts and the
TutorialVQA transcripts, cut into windows of 1-4 sentences, plus the 76 TutorialVQA
subtitle files ingested as timed transcripts with their sentence vectors) and cached in
.bench-cache/. The search phase runs in a fresh process so its peak RSS is that of
searching, not building (read as VmHWM: ru_maxrss would keep the builder's across exec).

    uv run python bench/search_latency.py [--segments 100000] [--queries 400] [--reranker]

Prints p50/p95/p99 per stage for the default search, full-text-only and dense-only search;
``--reranker`` adds the default with a cross-encoder stand-in of the real size on the top
20 (tools/standin_reranker.py: its scores are noise, its cost is real), once within the
default time budget and once scoring all 20. It never passes or
fails on time.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.config import EngineConfig, SearchConfig  # noqa: E402
from engine.importing.embedding import embed_text  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.models import Embedder, Reranker  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.search.evaluate import default_data_dir  # noqa: E402
from engine.types import ParsedSource, SegmentDraft, SegmentKind, SourceKind  # noqa: E402
from tools.memory import peak_rss_mb  # noqa: E402

SENTENCE = re.compile(r"(?<=[.!?])\s+")


def documents(data: Path) -> Iterator[tuple[str, str, list[str]]]:
    """(doc id, title, sentences) from SciFact abstracts, then TutorialVQA transcripts."""
    with (data / "scifact" / "corpus.jsonl").open(encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            yield f"scifact-{doc['_id']}", doc["title"], SENTENCE.split(doc["text"])
    for srt in sorted((data / "tutorialvqa" / "srt").glob("*.srt")):
        blocks = srt.read_text(encoding="utf-8").split("\n\n")
        sentences = [" ".join(b.splitlines()[2:]) for b in blocks if len(b.splitlines()) >= 3]
        yield f"tvqa-{srt.stem.split(' ', 1)[0]}", srt.stem, sentences


def windows(sentences: list[str], size: int) -> list[str]:
    return [" ".join(sentences[i : i + size]) for i in range(0, max(1, len(sentences) - size + 1))]


_worker_embedder: Embedder | None = None


def _init_worker(models: str) -> None:
    global _worker_embedder
    _worker_embedder = ModelRegistry(Path(models)).load_embedder(EngineConfig().embedder, 1)


def _embed_chunk(texts: list[str]) -> np.ndarray:
    if _worker_embedder is None:
        raise RuntimeError("worker not initialised")
    return _worker_embedder.embed(texts, batch_size=8)


def plan(data: Path, target: int) -> list[tuple[str, str, tuple[SegmentDraft, ...]]]:
    """(path, title, segments) of the bench's pseudo-sources, up to ``target`` segments."""
    out: list[tuple[str, str, tuple[SegmentDraft, ...]]] = []
    total = 0
    for size in (2, 3, 1, 4):
        for doc_id, title, sentences in documents(data):
            texts = windows([s for s in sentences if s.strip()], size)
            segs = tuple(
                SegmentDraft(
                    kind=SegmentKind.NOTE,
                    text=w,
                    heading=title,
                    line_start=i + 1,
                    line_end=i + size,
                )
                for i, w in enumerate(texts)
                if w.strip()
            )
            if segs:
                out.append((f"/bench/{doc_id}-w{size}.txt", title, segs))
                total += len(segs)
            if total >= target:
                return out
    return out


def build(folder: Path, target: int, threads: int, models: Path) -> None:
    """Embeds in bulk with one single-thread model per core (two small sessions use two
    cores better than one session with two threads), then indexes source by source."""
    config = EngineConfig(threads=threads)
    embedder = ModelRegistry(models).load_embedder(config.embedder, threads)
    with Library.open(folder, config, lambda: embedder) as library:
        todo = [p for p in plan(default_data_dir(), target)
                if library.store.catalog.source_by_path(p[0]) is None]  # fmt: skip
        if not todo:
            return
        started, added = time.perf_counter(), 0
        batch: list[tuple[str, str, tuple[SegmentDraft, ...]]] = []
        with multiprocessing.get_context("spawn").Pool(
            max(1, threads), initializer=_init_worker, initargs=(str(models),)
        ) as pool:
            for i in range(0, len(todo), 200):
                batch = todo[i : i + 200]
                texts = [embed_text(title, seg) for _, title, segs in batch for seg in segs]
                chunks = [texts[j : j + 64] for j in range(0, len(texts), 64)]
                vectors = np.vstack(pool.map(_embed_chunk, chunks))
                offset = 0
                for path, title, segs in batch:
                    parsed = ParsedSource(kind=SourceKind.NOTES, title=title, segments=segs)
                    part = vectors[offset : offset + len(segs)]
                    offset += len(segs)
                    course = f"bench-{Path(path).stem.rsplit('-', 1)[1]}"
                    added += library.index_parsed(
                        path, parsed, course=course, sha256=path, vectors=part
                    )
                rate = added / (time.perf_counter() - started)
                print(f"  {added} segments added ({rate:.0f} segments/s)", file=sys.stderr)
        library.save()
        took = time.perf_counter() - started
        print(f"built {added} segments in {took:.0f} s ({added / took:.0f} segments/s)")


def add_transcripts(folder: Path, threads: int, models: Path) -> None:
    """The TutorialVQA subtitles as timed transcripts (windows with cues and cue vectors),
    so the sentence stage reads real sentence vectors; skipped once ingested."""
    config = EngineConfig(threads=threads)
    embedder = ModelRegistry(models).load_embedder(config.embedder, threads)
    with Library.open(folder, config, lambda: embedder) as library:
        started = time.perf_counter()
        report = library.ingest([default_data_dir() / "tutorialvqa" / "srt"], course="timed")
        if report.files and any(f.segments for f in report.files):
            print(f"timed transcripts added in {time.perf_counter() - started:.0f} s")


def queries(data: Path, n: int) -> list[str]:
    out: list[str] = []
    for path in (
        data / "tutorialvqa" / "dev_queries.jsonl",
        data / "scifact" / "test_queries.jsonl",
    ):
        with path.open(encoding="utf-8") as f:
            out.extend(json.loads(line)["query"] for line in f if line.strip())
    step = max(1, len(out) // n)
    return out[::step][:n]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def measure(folder: Path, n_queries: int, threads: int, models: Path, rerank: bool) -> None:
    config = EngineConfig(threads=threads)
    registry = ModelRegistry(models)
    t0 = time.perf_counter()
    embedder = registry.load_embedder(config.embedder, threads)
    reranker: Reranker | None = None
    if rerank:
        from engine.models.reranker import OnnxReranker
        from tools.standin_reranker import build_standin

        standin = folder.parent / "standin-reranker"
        if not (standin / "manifest.json").exists():
            build_standin(standin, registry)
        reranker = OnnxReranker(standin, threads)
    library = Library.open(folder, config, lambda: embedder, reranker=lambda: reranker)
    timed = sum(1 for _ in library.store.segments.timed(missing_only=False, batch=1))
    print(
        f"library: {library.store.segments.count()} segments ({timed} timed, with sentence "
        f"vectors); open + model load {time.perf_counter() - t0:.2f} s"
    )
    qs = queries(default_data_dir(), n_queries)
    modes = {
        "default, no reranker": SearchConfig(rerank=False),
        "full-text only": SearchConfig(dense=False, passage_rank=False, rerank=False),
        "dense only": SearchConfig(fulltext=False, passage_rank=False, rerank=False),
    }
    if reranker is not None:
        modes["default + stand-in reranker, top 20 (50 ms budget)"] = SearchConfig(rerank_top=20)
        modes["default + stand-in reranker, all of the top 20"] = SearchConfig(
            rerank_top=20, rerank_budget_ms=1e9
        )
    for q in qs[:20]:  # warm caches and the model
        library.search(q)
    for mode, cfg in modes.items():
        stages: dict[str, list[float]] = {}
        gated = reranked = 0
        for q in qs:
            wall = time.perf_counter()
            outcome = library.search(q, limit=10, config=cfg)
            stages.setdefault("wall", []).append((time.perf_counter() - wall) * 1000)
            for stage, ms in outcome.took_ms.items():
                stages.setdefault(stage, []).append(ms)
            gated += outcome.gated
            reranked += outcome.reranked
        extra = f", {reranked / len(qs):.1f} pairs reranked per query" if reranked else ""
        print(f"\n{mode}: {len(qs)} queries, limit 10, {gated} stopped by the gate{extra}")
        print(f"  {'stage':10s} {'p50 ms':>8s} {'p95 ms':>8s} {'p99 ms':>8s} {'mean':>8s}")
        for stage, values in stages.items():
            print(
                f"  {stage:10s} {statistics.median(values):8.2f} {pct(values, 95):8.2f} "
                f"{pct(values, 99):8.2f} {statistics.mean(values):8.2f}"
            )
    print(f"\nsearch process peak RSS (open, load, search): {peak_rss_mb()} MB")


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--segments", type=int, default=100_000)
    p.add_argument("--queries", type=int, default=400)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cache", default=str(ROOT / ".bench-cache"))
    p.add_argument("--reranker", action="store_true", help="also time the stand-in reranker")
    p.add_argument(
        "--phase", choices=["all", "build", "search"], default="all", help=argparse.SUPPRESS
    )
    args = p.parse_args()
    cache = Path(args.cache)
    folder = cache / f"search-{args.segments}"
    models = cache / "models"
    if args.phase in ("all", "build"):
        build(folder, args.segments, args.threads, models)
        add_transcripts(folder, args.threads, models)
    if args.phase == "all":
        # search in a fresh process so peak RSS is the searcher's own
        cmd = [
            sys.executable,
            __file__,
            "--phase",
            "search",
            "--segments",
            str(args.segments),
            "--queries",
            str(args.queries),
            "--threads",
            str(args.threads),
            "--cache",
            str(cache),
            *(["--reranker"] if args.reranker else []),
        ]
        sys.exit(subprocess.call(cmd))
    if args.phase == "search":
        measure(folder, args.queries, args.threads, models, args.reranker)


if __name__ == "__main__":
    main()
