"""Ingest throughput: the 76 TutorialVQA subtitle files into a fresh library.

    uv run python bench/ingest_throughput.py [--threads 2]

Prints files, subtitle hours, wall time split into reading (parse + chunk) and the rest
(hashing, embedding, writing), segments/s and seconds per subtitle hour. Never pass/fail.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import ingest  # noqa: E402
from engine.config import EngineConfig  # noqa: E402
from engine.importing.progress import Outcome  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.search.evaluate import default_data_dir  # noqa: E402
from tools.memory import peak_rss_mb  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cache", default=str(ROOT / ".bench-cache"))
    args = p.parse_args()
    config = EngineConfig(threads=args.threads)
    srt = default_data_dir() / "tutorialvqa" / "srt"
    files = sorted(srt.glob("*.srt"))

    t0 = time.perf_counter()
    parsed = [ingest.parse_file(f, config) for f in files]
    parse_s = time.perf_counter() - t0
    hours = sum((x.duration_ms or 0) for x in parsed) / 3_600_000
    n_segments = sum(len(x.segments) for x in parsed)

    embedder = ModelRegistry(Path(args.cache) / "models").load_embedder(
        config.embedder, args.threads
    )
    embedder.embed(["warm up"])
    with (
        tempfile.TemporaryDirectory() as tmp,
        Library.open(Path(tmp), config, lambda: embedder) as lib,
    ):
        t0 = time.perf_counter()
        report = lib.ingest([srt], course="tutorialvqa")
        total_s = time.perf_counter() - t0
        indexed = report.count(Outcome.INDEXED)
        t0 = time.perf_counter()
        again = lib.ingest([srt], course="tutorialvqa")
        rescan_s = time.perf_counter() - t0
    print(f"files: {len(files)} ({indexed} indexed, {len(report.errors)} errors)")
    print(f"subtitle hours: {hours:.2f}; segments: {n_segments}")
    print(f"read (parse + chunk): {parse_s:.2f} s")
    print(f"full ingest (hash, parse, embed, write, index): {total_s:.2f} s")
    print(
        f"throughput: {n_segments / total_s:.0f} segments/s; "
        f"{total_s / max(hours, 1e-9):.2f} s per subtitle hour"
    )
    print(
        f"re-scan of unchanged files: {rescan_s:.2f} s ({again.count(Outcome.UNCHANGED)} unchanged)"
    )
    print(f"ingest process peak RSS: {peak_rss_mb()} MB")


if __name__ == "__main__":
    main()
