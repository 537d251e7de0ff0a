"""Imports on a worker thread for the window: the job, its signals, and the lines it shows."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QRunnable, Signal

from engine.errors import CoursedexError
from engine.library import IngestProgress, IngestReport, Library, Outcome

if TYPE_CHECKING:
    pass


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
    if p.file_fraction is not None:
        return f"{p.stage} {p.file_fraction:.0%}"
    return p.stage


def progress_text(p: IngestProgress) -> str:
    """One line: which file of how many, its stage and share, and the time left."""
    stage = p.stage
    if p.file_fraction is not None and p.result is None:
        stage += f" {p.file_fraction:.0%}"
    if p.detail:
        stage += f" ({p.detail})"
    left = ""
    if p.eta_s is not None:
        minutes, seconds = divmod(int(p.eta_s), 60)
        left = f", {minutes}:{seconds:02d} left"
    return f"Importing {p.index + 1}/{p.total} {Path(p.path).name}: {stage}{left}"


def report_text(report: IngestReport) -> str:
    counts = [f"{report.count(o)} {o.value}" for o in Outcome if report.count(o)]
    lines = [f"Import finished: {', '.join(counts) or 'nothing to do'}"]
    lines += [f"{Path(f.path).name}: {f.detail}" for f in report.errors[:5]]
    return "\n".join(lines)
