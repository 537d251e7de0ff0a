"""Python's cyclic garbage collector, run on the UI thread only.

Left to itself, the collector runs in whichever thread allocates when a threshold is
crossed: a search on the pool thread. A cycle holding Qt objects (a widget and a lambda
that captures it) was then destroyed off the UI thread, and the process crashed
("Fatal Python error: Segmentation fault ... Garbage-collecting" in engine/search/snippets.py,
seen in the suite on a fresh clone). Automatic collection is turned off and a timer on the
UI thread collects by the same thresholds, the pattern pyqtgraph's GarbageCollector uses.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QThread, QTimer

INTERVAL_MS = 100

_collector: MainThreadCollector | None = None


class MainThreadCollector(QObject):
    """Checks the collector's counts every ``INTERVAL_MS`` and collects the generations
    whose threshold is passed, as the automatic collector would, but on this thread."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        gc.disable()
        self.timer = QTimer(self)
        self.timer.setInterval(INTERVAL_MS)
        self.timer.timeout.connect(self.check)
        self.timer.start()

    def check(self) -> None:
        young, middle, old = gc.get_count()
        if young > self.thresholds[0]:
            gc.collect(0)
            if middle > self.thresholds[1]:
                gc.collect(1)
                if old > self.thresholds[2]:
                    gc.collect(2)


def collect_on_the_ui_thread() -> MainThreadCollector | None:
    """Once per process, from the UI thread: the collector runs there from now on. Without
    an application (no event loop to run the timer) the automatic collector is left on."""
    global _collector
    app = QCoreApplication.instance()
    if _collector is None and app is not None and app.thread() is QThread.currentThread():
        _collector = MainThreadCollector(app)
    return _collector
