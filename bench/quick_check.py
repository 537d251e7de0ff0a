"""What SQLite's quick check of a library database costs: the check every writing process
runs once, before its first write (engine/library/write_access.py).

A degree-sized library (DESIGN.md: ~300k windows, 1M sentence vectors, 1,500 files) is
made by SQL in the library's own schema (its FTS triggers fill the full-text index): the
check reads every page whatever the rows hold, so SciFact sentences repeated and random
vectors cost what real ones do. Cached in .bench-cache/. Each size is checked with the
file in the page cache (a second command soon after the first) and out of it
(posix_fadvise DONTNEED on the database: a first command after a reboot).

    uv run python bench/quick_check.py [--windows 300000] [--demo LIBRARY]

Prints the database size and the check's seconds; never passes or fails on time.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.config import EngineConfig  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.models import Embedder  # noqa: E402
from engine.search.evaluate import default_data_dir  # noqa: E402

DIMENSION = 384
FILES = 1500
SENTENCES_PER_WINDOW = 3  # 1M sentence vectors for 300k windows


def _no_model() -> Embedder:
    raise AssertionError("the bench loads no model")


def sentences(n: int) -> list[str]:
    """SciFact abstracts cut into windows of about three sentences."""
    texts: list[str] = []
    with (default_data_dir() / "scifact" / "corpus.jsonl").open(encoding="utf-8") as f:
        for line in f:
            texts.append(json.loads(line)["text"][:600])
            if len(texts) >= n:
                break
    return texts


def build(folder: Path, windows: int) -> Path:
    """A library of ``windows`` transcript windows over :data:`FILES` files."""
    db = folder / "library.db"
    if (folder / ".complete").exists():
        return db
    Library.open(folder, EngineConfig(), _no_model).close()  # the schema, empty
    rng = np.random.default_rng(1)
    texts = sentences(5000)
    conn = sqlite3.connect(db)
    conn.execute(
        "INSERT INTO courses(name, root, created_at) VALUES ('Degree', NULL, '2026-01-01')"
    )
    conn.executemany(
        "INSERT INTO sources(id, course_id, path, kind, title, sha256, status, added_at) "
        "VALUES (?, 1, ?, 'video', ?, ?, 'indexed', '2026-01-01')",
        ((i, f"/lectures/l{i:04d}.mp4", f"Lecture {i}", f"{i:064x}") for i in range(1, FILES + 1)),
    )
    per_file = windows // FILES
    for first in range(0, windows, 10_000):
        ids = range(first + 1, min(first + 10_000, windows) + 1)
        conn.executemany(
            "INSERT INTO segments(id, source_id, ord, kind, start_ms, end_ms, text) "
            "VALUES (?, ?, ?, 'transcript', ?, ?, ?)",
            (
                (
                    i,
                    1 + (i - 1) // per_file % FILES,
                    i,
                    i * 30_000,
                    i * 30_000 + 30_000,
                    texts[i % len(texts)],
                )
                for i in ids
            ),
        )
        vectors = rng.standard_normal((len(ids), DIMENSION)).astype(np.float32)
        conn.executemany(
            "INSERT INTO embeddings(segment_id, space, vector) VALUES (?, 'text', ?)",
            ((i, v.tobytes()) for i, v in zip(ids, vectors, strict=True)),
        )
        cues = rng.standard_normal((SENTENCES_PER_WINDOW, DIMENSION)).astype(np.float16)
        conn.executemany(
            "INSERT INTO sentence_vectors(segment_id, vectors) VALUES (?, ?)",
            ((i, cues.tobytes()) for i in ids),
        )
        conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    (folder / ".complete").touch()
    return db


def evict(db: Path) -> None:
    """Drop the database's pages (only this file's) from the OS page cache."""
    fd = os.open(db, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def check(db: Path) -> tuple[float, bool]:
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        started = time.perf_counter()
        ok = conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        return time.perf_counter() - started, ok
    finally:
        conn.close()


def measure(name: str, db: Path) -> None:
    size = db.stat().st_size / 1e6
    evict(db)
    cold, ok = check(db)
    warm = min(check(db)[0] for _ in range(3))
    print(f"{name:<28} {size:9.1f} MB   cold {cold:6.3f} s   warm {warm:6.3f} s   ok={ok}")


def main() -> None:
    parser = argparse.ArgumentParser(description="the cost of SQLite's quick check")
    parser.add_argument("--windows", type=int, default=300_000)
    parser.add_argument("--demo", type=Path, help="a library of the demo course to check too")
    args = parser.parse_args()
    if args.demo is not None:
        measure("demo course", args.demo / "library.db")
    cache = ROOT / ".bench-cache" / f"quick-check-{args.windows}"
    cache.mkdir(parents=True, exist_ok=True)
    measure(f"{args.windows:,} windows", build(cache, args.windows))


if __name__ == "__main__":
    main()
