"""The import bar at the bottom of the window: imports run one at a time on their own worker
(searches keep theirs), with the file, stage and time left, a progress bar and Cancel.
Paths given during a run wait for the next one."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from app.tasks import Failure, Job, Tasks
from engine.api import (
    CoursedexError,
    IngestProgress,
    IngestReport,
    Library,
    Outcome,
    SourceStatus,
    progress_line,
    stage_text,
)

log = logging.getLogger(__name__)

_UNFINISHED = (SourceStatus.QUEUED, SourceStatus.INDEXING)


class ImportBar(QWidget):
    """Runs imports and shows the one under way; its status line keeps the last outcome."""

    progress_reported = Signal(object)  # IngestProgress, on the UI thread
    finished = Signal(object)  # IngestReport, or an error message, when an import ends

    def __init__(self, library: Library, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.tasks = Tasks(self)  # one import at a time, beside the window's searches
        self.status = QLabel()  # the import's line; the search pane keeps its own
        self.status.setWordWrap(True)
        self.progress = QProgressBar(maximum=1000, textVisible=False)
        self.cancel_button = QPushButton("Cancel import")
        self.cancel_button.clicked.connect(self.cancel)
        bar = QHBoxLayout(self)
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.status, 1)
        bar.addWidget(self.progress, 1)
        bar.addWidget(self.cancel_button)
        self.progress.hide()
        self.cancel_button.hide()
        self._job: Job[IngestProgress] | None = None
        self._queued: list[tuple[list[Path], str | None]] = []

    @property
    def running(self) -> bool:
        return self._job is not None

    def start(self, paths: Sequence[Path], course: str | None = None) -> None:
        """Import in the background; paths given during a run wait for the next one."""
        if self._job is not None:
            self._queued.append((list(paths), course))
            self.status.setText(f"{self.status.text()}\n{len(paths)} more item(s) wait their turn")
            return
        library, chosen = self.library, list(paths)

        def work(job: Job[IngestProgress]) -> IngestReport:
            return library.ingest(chosen, course=course, progress=job.report, cancel=job.cancelled)

        self._run(work)
        self.status.setText(f"Importing {len(paths)} item{'s' if len(paths) > 1 else ''}…")

    def resume(self) -> bool:
        """Finish the files an earlier run queued but did not index; False if none."""
        pending = [s for s in self.library.sources() if s.status in _UNFINISHED]
        if not pending or self._job is not None:
            return False
        library = self.library
        self._run(lambda job: library.resume(progress=job.report, cancel=job.cancelled))
        n = len(pending)
        self.status.setText(f"Resuming the import of {n} file{'s' if n != 1 else ''}…")
        return True

    def _run(self, work: Callable[[Job[IngestProgress]], IngestReport]) -> None:
        self.progress.setValue(0)
        self.progress.show()
        self.cancel_button.show()
        self._job = self.tasks.start(work, self._end, self._failed, self._progress)

    def cancel(self) -> None:
        """Stop between files or stages, and drop what waits its turn."""
        if self._job is not None:
            self._job.cancel()
            self._queued.clear()
            self.status.setText("Cancelling the import…")

    def shutdown(self, ms: int) -> None:
        """Cancel what runs and wait up to ``ms`` for it; start nothing more."""
        self.cancel()
        self.tasks.close(ms)

    def _progress(self, p: IngestProgress) -> None:
        self.progress.setValue(round(p.fraction * 1000))
        self.status.setText(progress_text(p))
        self.progress_reported.emit(p)

    def _failed(self, failed: Failure) -> None:
        # Our errors say what went wrong; anything else was logged with its traceback.
        ours = isinstance(failed.error, CoursedexError)
        self._end(failed.message if ours else f"Import failed: {failed.error}")

    def _end(self, outcome: IngestReport | str) -> None:
        self._job = None
        self.progress.hide()
        self.cancel_button.hide()
        self.status.setText(outcome if isinstance(outcome, str) else report_text(outcome))
        self.finished.emit(outcome)
        if self._queued:
            (paths, course), *self._queued = self._queued
            self.start(paths, course)

    @property
    def waiting(self) -> bool:
        """Whether paths wait their turn for the next run."""
        return bool(self._queued)


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
