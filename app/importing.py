"""Imports on a worker thread for the window: the job, its signals, and the lines it shows."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, Signal

from engine.api import (
    CoursedexError,
    IngestProgress,
    IngestReport,
    Library,
    Outcome,
    progress_line,
    stage_text,
)

log = logging.getLogger(__name__)


class ImportSignals(QObject):
    progress = Signal(object)  # IngestProgress
    finished = Signal(object)  # IngestReport, or an error message


class ImportJob(QRunnable):
    """One ingest run on a worker thread (``paths`` None: finish what an earlier run left);
    ``cancel`` stops it between files or stages."""

    def __init__(
        self,
        library: Library,
        paths: list[Path] | None,
        signals: ImportSignals,
        course: str | None = None,
    ) -> None:
        super().__init__()
        self.library = library
        self.paths = paths
        self.course = course
        self.signals = signals
        self.cancel = threading.Event()

    def run(self) -> None:
        try:
            progress = self.signals.progress.emit
            if self.paths is None:
                report = self.library.resume(progress=progress, cancel=self.cancel)
            else:
                report = self.library.ingest(
                    self.paths, course=self.course, progress=progress, cancel=self.cancel
                )
            self.signals.finished.emit(report)
        except CoursedexError as e:
            self.signals.finished.emit(str(e))
        except Exception as e:  # a worker reports every failure; it never dies silently
            log.warning("import failed", exc_info=True)
            self.signals.finished.emit(f"Import failed: {e}")


def file_state(p: IngestProgress) -> str:
    """A file's live state in the library panel: "transcribing 43%", then its outcome."""
    if p.result is not None:
        return (
            p.result.outcome.value
            if p.result.outcome != Outcome.ERROR
            else (f"error: {p.result.detail}")
        )
    return stage_text(p)


def progress_text(p: IngestProgress) -> str:
    """The bar's line: which file of how many, its stage and share, and the time left."""
    return f"Importing {progress_line(p)}"


def report_text(report: IngestReport) -> str:
    counts = [f"{report.count(o)} {o.value}" for o in Outcome if report.count(o)]
    lines = [f"Import finished: {', '.join(counts) or 'nothing to do'}"]
    lines += [f"{Path(f.path).name}: {f.detail}" for f in report.errors[:5]]
    return "\n".join(lines)
