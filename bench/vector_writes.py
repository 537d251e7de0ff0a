"""What schema step 5's triggers (each stored vector's write numbered in ``vector_writes``)
cost when vectors are stored: 100,000 vectors of 384 floats in transactions of 500, as an
import commits them, into a database at schema 4 and at schema 5.

    uv run python bench/vector_writes.py [--vectors 100000]

Prints seconds per run and microseconds per vector. Never pass/fail.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.store.schema import MIGRATIONS  # noqa: E402


def _store(path: Path, steps: int, count: int) -> float:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    for step in MIGRATIONS[:steps]:
        conn.executescript(f"BEGIN;\n{step};\nCOMMIT;")
    conn.execute("PRAGMA foreign_keys = OFF")  # vectors only: no segment rows to point at
    blob = bytes(384 * 4)
    started = time.perf_counter()
    for start in range(0, count, 500):
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO embeddings(segment_id, space, vector) VALUES (?, 'text', ?)",
            ((i, blob) for i in range(start, min(start + 500, count))),
        )
        conn.execute("COMMIT")
    took = time.perf_counter() - started
    conn.close()
    return took


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--vectors", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for steps in (4, 5, 4, 5):
            took = _store(Path(work) / f"s{steps}-{time.time_ns()}.db", steps, args.vectors)
            print(
                f"schema {steps}: {args.vectors:,} vectors stored in {took:.2f} s "
                f"({took / args.vectors * 1e6:.1f} us per vector)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
