"""How long the window's event loop goes unanswered while an import runs, and how long a
query typed meanwhile waits for its results.

    uv run python bench/ui_stalls.py [--case notes|lecture|both]

Opens the real window (offscreen) on a library holding the demo course's text files and
drops on it either a generated 11-minute narrated lecture (``lecture``, cached in
.bench-cache/) or a folder of 300 short generated notes (``notes``, the folder a student
drops most often: each file imports in a moment, so the window hears of one every few
tenths of a second). While it imports, a new query is typed every half second (or as soon
as the last one's results are shown, when that takes longer) and the results are scrolled,
as a user would. A 5-ms timer on the UI thread measures how late each tick is.

Prints, per case: the import time, the tick lateness p50/p95/p99/max, the number of stalls
over 50 and 100 ms, and the time from a query typed to its results shown (p50/max, and how
many were answered before the import ended), and how long a query typed as the import ends
waits for its results (what the import left queued for the window). Never pass/fail.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QElapsedTimer, QEventLoop, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.window import MainWindow  # noqa: E402
from engine.api import (  # noqa: E402
    DEMO_COURSE,
    EngineConfig,
    Library,
    ModelRegistry,
    default_models,
    demo_files,
)
from tools.lecture_media import make_long_lecture  # noqa: E402

CACHE = ROOT / ".bench-cache" / "ui-stalls"
NOTES = 300
QUERIES = ["merge sort stable", "hash table resize", "binary search", "pivot", "big o"]
TOPICS = [
    ("Merge sort", "splits the list in halves, sorts each half and merges them; it is stable"),
    ("Quicksort", "picks a pivot and partitions the rest around it; on average n log n"),
    ("Hash tables", "keep keys in buckets and resize when the load factor grows too high"),
    ("Binary search", "halves a sorted range at each step until the key is found or not"),
    ("Big O", "names how the running time grows with the input, ignoring constants"),
    ("Heaps", "keep the smallest key at the root; insert and pop take log n steps"),
    ("Graphs", "are searched breadth first with a queue or depth first with a stack"),
    ("Dynamic programming", "stores the answers of overlapping subproblems in a table"),
]


def lecture() -> Path:
    folder = CACHE / "Long lecture"
    video = folder / "lecture.mp4"
    if not video.exists():
        folder.mkdir(parents=True, exist_ok=True)
        make_long_lecture(video, CACHE / "pictures")
    return folder


def notes(folder: Path, count: int = NOTES) -> Path:
    """``count`` short notes of a few sentences each, on the topics of the queries typed."""
    folder = folder / "Week notes"
    folder.mkdir(parents=True, exist_ok=True)
    pick = random.Random(23)
    for i in range(count):
        title, text = TOPICS[i % len(TOPICS)]
        lines = [f"# {title}, note {i + 1}", ""]
        lines += [f"{title} {text}." for _ in range(pick.randint(2, 5))]
        lines.append(f"Example {i + 1}: " + " ".join(pick.sample(text.split(), 6)) + ".")
        (folder / f"note-{i + 1:03}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def percentile(ordered: Sequence[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_case(app: QApplication, registry: ModelRegistry, name: str, drop: Path) -> None:
    work = Path(tempfile.mkdtemp(prefix="coursedex-stalls-"))
    library = Library.open(work / "lib", EngineConfig(), registry.load_embedder, models=registry)
    texts = [p for p in demo_files() if p.suffix != ".mp4"]
    library.ingest(texts, course=DEMO_COURSE)
    window = MainWindow(library)
    window.show()
    pane = window.search_pane
    clock = QElapsedTimer()
    clock.start()
    late: list[int] = []
    last = [0]

    def tick() -> None:
        now = clock.elapsed()
        late.append(max(0, now - last[0] - 5))
        last[0] = now

    def spin(until: Callable[[], bool], seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not until():
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 10)

    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(5)
    timer.timeout.connect(tick)
    timer.start()
    started = time.monotonic()
    window.import_paths([drop])
    answered: list[float] = []  # seconds from a query typed to its results shown
    typed = 0
    while window.importing:
        query = f"{QUERIES[typed % len(QUERIES)]} {typed}"  # each one new to the pane
        typed += 1
        typed_at = time.monotonic()
        pane.search.setText(query)
        spin(lambda q=query: pane.shown_query == q or not window.importing, 600)
        if pane.shown_query == query:
            answered.append(time.monotonic() - typed_at)
        spin(lambda: not window.importing, 0.5 - (time.monotonic() - typed_at))
        bar = pane.results.verticalScrollBar()
        for value in range(0, bar.maximum() + 1, 20):
            bar.setValue(value)
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 10)
    seconds = time.monotonic() - started
    # What the import left queued for the UI (panel refreshes, searches) still holds the
    # window: a query typed now shows when it comes back.
    typed_at, query = time.monotonic(), "merge sort after the import"
    pane.search.setText(query)
    spin(lambda: pane.shown_query == query, 600)
    back = time.monotonic() - typed_at
    timer.stop()
    ordered = sorted(late)
    print(f"[{name}] import: {seconds:.1f} s, {typed} queries typed meanwhile")
    print(
        f"[{name}] UI tick lateness over {len(late)} ticks: p50 {percentile(ordered, 0.5):.0f} ms, "
        f"p95 {percentile(ordered, 0.95):.0f} ms, p99 {percentile(ordered, 0.99):.0f} ms, "
        f"max {ordered[-1]:.0f} ms, mean {statistics.mean(late):.1f} ms"
    )
    print(
        f"[{name}] stalls over 50 ms: {sum(v > 50 for v in late)}, "
        f"over 100 ms: {sum(v > 100 for v in late)}"
    )
    waits = sorted(answered)
    if waits:
        print(
            f"[{name}] query typed -> its results shown: {len(waits)} of {typed} answered "
            f"during the import, p50 {percentile(waits, 0.5):.2f} s, "
            f"max {waits[-1]:.2f} s (120 ms of it the typing debounce)"
        )
    else:
        print(f"[{name}] query typed -> its results shown: none of {typed} answered in the import")
    print(f"[{name}] a query typed as the import ends: its results shown after {back:.2f} s")
    window.close()
    library.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--case", choices=("notes", "lecture", "both"), default="both")
    args = parser.parse_args()
    app = QApplication(sys.argv[:1])
    registry = ModelRegistry(default_models(os.environ))
    if args.case in ("notes", "both"):
        folder = notes(Path(tempfile.mkdtemp(prefix="coursedex-notes-")))
        run_case(app, registry, f"{NOTES} short notes", folder)
    if args.case in ("lecture", "both"):
        run_case(app, registry, "11.4-min lecture", lecture())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
