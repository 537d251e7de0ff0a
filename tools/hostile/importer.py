"""Import the hostile corpus (tools/hostile/corpus.py) in this process and report on it.

    python tools/hostile/importer.py CORPUS LIBRARY MODELS   # prints a JSON report

Run as a child process by tests/engine/importing/test_hostile_inputs.py, so that its peak memory is
its own (``VmHWM``, tools/memory.py) and a hang is ended by a timeout; its recognition
child's peak is sampled with psutil. One ``Library.ingest``
call reads the course folder and every special file by name; while it runs, one file is
deleted as its turn comes and another is rewritten, over and over, while it is read.
``outcome_table`` turns a report into the per-kind table the closing note quotes.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.config import EngineConfig
from engine.importing.progress import IngestProgress
from engine.ingest import classify
from engine.library import Library
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry
from tools.hostile.corpus import DELETED, REWRITTEN, rewritten_text
from tools.memory import RECOGNITION_CHILD, TreePeaks, peak_rss_mb


class Disturber:
    """A progress callback: deletes one file when its turn comes, and rewrites another from
    a thread (truncated, then written again) for as long as the import reads it."""

    def __init__(self, course: Path) -> None:
        self.deleted, self.rewritten = course / DELETED, course / REWRITTEN
        self.done = threading.Event()
        self.rewrites = 0
        self._thread: threading.Thread | None = None

    def __call__(self, p: IngestProgress) -> None:
        name = Path(p.path).name
        if name == DELETED and p.result is None and self.deleted.exists():
            self.deleted.unlink()
        if name == REWRITTEN and p.result is None and self._thread is None:
            self._thread = threading.Thread(target=self._rewrite, daemon=True)
            self._thread.start()
        if name == REWRITTEN and p.result is not None and self._thread is not None:
            self.done.set()
            self._thread.join()

    def _rewrite(self) -> None:
        while not self.done.is_set():
            self.rewrites += 1
            with self.rewritten.open("w") as f:  # truncated first: a moment it is empty
                f.write(rewritten_text(self.rewrites))
            time.sleep(0.01)


def special_paths(corpus: Path) -> list[Path]:
    return sorted((corpus / "special").iterdir())


def run(corpus: Path, library_dir: Path, models: Path) -> dict[str, object]:
    course = corpus / "course"
    registry = ModelRegistry(models)
    embedder = registry.load_embedder(DEFAULT_EMBEDDER, 2)
    disturber = Disturber(course)
    library = Library.open(library_dir, EngineConfig(), lambda: embedder, models=registry)
    children = TreePeaks(os.getpid(), "import process")
    try:
        report = library.ingest([course, *special_paths(corpus)], progress=disturber)
    finally:
        library.close()
        peaks = children.stop()
    return {
        "seconds": round(report.seconds, 1),
        "rewrites": disturber.rewrites,
        "peak_rss_mb": peak_rss_mb(),
        "recognition_child_peak_rss_mb": round(peaks.get(RECOGNITION_CHILD, 0.0)),
        "files": [
            {"path": f.path, "outcome": f.outcome.value, "detail": f.detail, "stages": f.stages}
            for f in report.files
        ],
    }


def kind_of(path: str) -> str:
    """The kind a path is read as, or what it is when it is not a regular file."""
    p = Path(path)
    if "/special/" in path:
        return "special"
    kind = classify(p)
    if kind is None:
        return "other"
    if p.suffix.lower() in (".zip", ".ipynb"):
        return p.suffix.lower()[1:]
    return kind.value


def outcome_table(files: list[dict[str, object]]) -> dict[str, Counter[str]]:
    """{kind: Counter(outcome)} of a report's files."""
    table: dict[str, Counter[str]] = {}
    for f in files:
        table.setdefault(kind_of(str(f["path"])), Counter())[str(f["outcome"])] += 1
    return table


def format_table(table: dict[str, Counter[str]]) -> str:
    outcomes = sorted({o for c in table.values() for o in c})
    rows = [f"| kind | inputs | {' | '.join(outcomes)} |", "|---" * (len(outcomes) + 2) + "|"]
    for kind in sorted(table):
        counts = table[kind]
        cells = " | ".join(str(counts.get(o, 0)) for o in outcomes)
        rows.append(f"| {kind} | {sum(counts.values())} | {cells} |")
    return "\n".join(rows)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print("usage: python tools/hostile/importer.py CORPUS LIBRARY MODELS", file=sys.stderr)
        sys.exit(2)
    result = run(*(Path(a) for a in sys.argv[1:]))
    print(json.dumps(result))
    print(format_table(outcome_table(result["files"])), file=sys.stderr)  # type: ignore[arg-type]
