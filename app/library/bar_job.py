"""A course pack's import or export as the import bar shows it: on the bar's worker, with its
progress bar, its Cancel button and its status line, one job at a time (an import's
progress is not written over: the job waits for the user to ask again)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.library.import_bar import ImportBar
from app.tasks import Failure, Task
from engine.api import Cancelled, PackProgress


class BarJob(QObject):
    """The part of a pack job that is the bar's: start, progress, cancel, end."""

    finished = Signal(object)  # what the job made, or the one line that says why not
    progressed = Signal(object)  # a PackProgress, once the bar shows it

    def __init__(self, bar: ImportBar, parent: QObject) -> None:
        super().__init__(parent)
        self.bar = bar
        self._job: Task[PackProgress] | None = None
        bar.cancel_button.clicked.connect(self.cancel)  # the bar's own runs ignore it
        self.cancelling = ""  # the status line's words once Cancel is pressed

    @property
    def running(self) -> bool:
        return self._job is not None

    def busy(self, then: str) -> bool:
        """Whether the bar shows another job (an import, a pack's); if so it says to ``then``
        once that has finished."""
        if self._job is None and self.bar.progress.isHidden() and not self.bar.running:
            return False
        self.bar.say(f"An import is running: {then} when it has finished.")
        return True

    def begin(
        self,
        line: str,
        work: Callable[[Task[PackProgress]], Any],
        done: Callable[[Any], None],
        failed: Callable[[Failure], None],
        progress: Callable[[PackProgress], None],
    ) -> None:
        bar = self.bar
        bar.progress.setValue(0)
        bar.progress.show()
        bar.cancel_button.show()
        bar.status.setText(line)
        self._job = bar.tasks.start(work, done, failed, progress)

    def show_progress(self, p: PackProgress, line: str) -> None:
        if self._job is not None:
            self.bar.progress.setValue(round(p.fraction * 1000))
            self.bar.status.setText(line)
            self.progressed.emit(p)

    def cancel(self) -> None:
        """Stop before anything is written (a pack is written whole or not at all)."""
        if self._job is not None:
            self._job.cancel()
            self.bar.status.setText(self.cancelling)

    def ended(self, line: str) -> None:
        self._job = None
        self.bar.progress.hide()
        self.bar.cancel_button.hide()
        self.bar.status.setText(line)

    def failed(self, failure: Failure, cancelled: str, could_not: str) -> None:
        """The job ended without its result: ``cancelled`` when the user cancelled it, else
        ``could_not`` and why; ``finished`` carries the line."""
        stopped = isinstance(failure.error, Cancelled)
        line = cancelled if stopped else f"{could_not}: {failure.message}"
        self.ended(line)
        self.finished.emit(line)
