"""How long the window's event loop goes unanswered while a 10-minute lecture imports.

    uv run python bench/ui_stalls.py

Opens the real window (offscreen) on a library holding the demo course's text files, drops
a generated 11-minute narrated lecture on it (cached in .bench-cache/), and while it imports
types a new query every half second and scrolls the results, as a user would. A 5-ms timer
on the UI thread measures how late each tick is. Prints the tick lateness p50/p95/p99/max,
the number of stalls over 50 and 100 ms, and the import time. Never pass/fail.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QElapsedTimer, QEventLoop, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.window import SearchWindow  # noqa: E402
from engine.config import EngineConfig  # noqa: E402
from engine.demo import DEMO_COURSE, demo_files  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.paths import default_models  # noqa: E402
from tools.lecture_media import make_long_lecture  # noqa: E402

CACHE = ROOT / ".bench-cache" / "ui-stalls"


def lecture() -> Path:
    folder = CACHE / "Long lecture"
    video = folder / "lecture.mp4"
    if not video.exists():
        folder.mkdir(parents=True, exist_ok=True)
        make_long_lecture(video, CACHE / "pictures")
    return folder


def main() -> int:
    folder = lecture()
    app = QApplication(sys.argv[:1])
    registry = ModelRegistry(default_models(os.environ))
    work = Path(tempfile.mkdtemp(prefix="coursedex-stalls-"))
    library = Library.open(work / "lib", EngineConfig(), registry.load_embedder, models=registry)
    texts = [p for p in demo_files() if p.suffix != ".mp4"]
    library.ingest(texts, course=DEMO_COURSE)
    window = SearchWindow(library)
    window.show()
    clock = QElapsedTimer()
    clock.start()
    late: list[int] = []
    last = [0]

    def tick() -> None:
        now = clock.elapsed()
        late.append(max(0, now - last[0] - 5))
        last[0] = now

    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(5)
    timer.timeout.connect(tick)
    timer.start()
    started = time.monotonic()
    window.import_paths([folder])
    queries = ["merge sort stable", "hash table resize", "binary search", "pivot", "big o"]
    searches = 0
    while window.importing:
        window.search.setText(queries[searches % len(queries)])
        searches += 1
        end = time.monotonic() + 0.5
        while time.monotonic() < end:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 10)
        bar = window.results.verticalScrollBar()
        for value in range(0, bar.maximum() + 1, 20):
            bar.setValue(value)
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 10)
    seconds = time.monotonic() - started
    timer.stop()
    ordered = sorted(late)

    def pct(q: float) -> int:
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    print(f"import of an {11.4:.1f}-min lecture: {seconds:.1f} s, {searches} searches typed")
    print(
        f"UI tick lateness over {len(late)} ticks: p50 {pct(0.5)} ms, p95 {pct(0.95)} ms, "
        f"p99 {pct(0.99)} ms, max {ordered[-1]} ms, mean {statistics.mean(late):.1f} ms"
    )
    print(
        f"stalls over 50 ms: {sum(v > 50 for v in late)}, over 100 ms: {sum(v > 100 for v in late)}"
    )
    window.close()
    library.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
