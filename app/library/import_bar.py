"""The import bar at the bottom of the window: imports run one at a time on their own worker
(searches keep theirs), with the file, stage and time left, a progress bar and Cancel.
Paths given during a run wait for the next one. Files an earlier run did not finish are
offered for resuming, not resumed unasked. The bar is one line high whatever it shows: a
long line is elided, the whole of it in its tooltip. It shows a file's share of a stage at
most ten times a second (a folder of small files reports many times a second, and each
repaint of the bar waits for the import's thread to let go of Python), but a new file or
stage at once, before it is passed on: a file's row never says a stage the bar does not.
Every report is passed on.

A cancelled import offers Resume at once (the files it left are queued in the library, and
speech already recognised is kept), as does the next start. Files that could not be read
are counted on the status line; "Show the errors" lists each with its reason."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QWidget

from app.library.elided_label import ElidedLabel
from app.library.import_errors import ImportErrorsDialog
from app.library.rows import ALREADY_IN
from app.tasks import Failure, Task, Tasks
from engine.api import (
    CoursedexError,
    FileResult,
    IngestProgress,
    IngestReport,
    Library,
    Outcome,
    Source,
    SourceStatus,
    copies_line,
    left_out,
    not_imported_line,
    outcome_counts,
    plural,
    printable,
    progress_line,
    shown_name,
    stage_text,
)

log = logging.getLogger(__name__)

_UNFINISHED = (SourceStatus.QUEUED, SourceStatus.INDEXING)
SHOW_EVERY_MS = 100


class ImportBar(QWidget):
    """Runs imports and shows the one under way; its status line keeps the last outcome."""

    progress_reported = Signal(object)  # IngestProgress, on the UI thread
    started = Signal()  # an import (or a resume) starts running
    finished = Signal(object)  # IngestReport, or an error message, when an import ends

    def __init__(self, library: Library, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.tasks = Tasks(self)  # one import at a time, beside the window's searches
        self.status = ElidedLabel()  # the import's line; the search pane keeps its own
        self.progress = QProgressBar(maximum=1000, textVisible=False)
        self.cancel_button = QPushButton("Cancel import")
        self.cancel_button.clicked.connect(self.cancel)
        self.resume_button = QPushButton("Resume import")
        self.resume_button.clicked.connect(self.resume_now)
        self.later_button = QPushButton("Not now")
        self.later_button.clicked.connect(self.decline)
        self.errors_button = QPushButton("Show the errors…")
        self.errors_button.clicked.connect(self.show_errors)
        self.errors_dialog: ImportErrorsDialog | None = None
        self._errors: list[FileResult] = []  # the last import's files that failed
        bar = QHBoxLayout(self)
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.status, 3)  # the line is read; the bar is glanced at
        bar.addWidget(self.progress, 1)
        buttons = (self.errors_button, self.cancel_button, self.resume_button, self.later_button)
        for button in buttons:
            bar.addWidget(button)
            button.hide()
        self.progress.hide()
        # As high as a button whether or not one shows, so the window never jumps.
        parts = (self.cancel_button, self.progress, self.status)
        self.setFixedHeight(max(part.sizeHint().height() for part in parts))
        self._job: Task[IngestProgress] | None = None
        self._latest: IngestProgress | None = None  # the report not shown yet
        self._stage = ("", "")  # the file and stage the bar shows
        self._shown = QTimer(self, singleShot=True, interval=SHOW_EVERY_MS)
        self._shown.timeout.connect(self._show_latest)
        # (paths, course, True: import again, queued by Library.set_language)
        self._queued: list[tuple[list[Path], str | None, bool]] = []
        self._unfinished = 0  # files offered for resuming
        self._note = ""  # said during the run: shown after its progress until it ends
        self.course: str | None = None  # the course the run imports into, when one is named

    @property
    def running(self) -> bool:
        return self._job is not None

    def start(self, paths: Sequence[Path], course: str | None = None) -> None:
        """Import in the background; paths given during a run wait for the next one."""
        if self._job is not None:
            self._queued.append((list(paths), course, False))
            self.status.setText(f"{self.status.text()} ({self._waiting_text()})")
            return
        library, chosen = self.library, list(paths)

        def work(job: Task[IngestProgress]) -> IngestReport:
            return library.ingest(chosen, course=course, progress=job.report, cancel=job.cancelled)

        self._run(work, course)
        self.status.setText(f"Importing {plural(len(paths), 'item')}…")

    def import_again(self, paths: Sequence[Path]) -> None:
        """Import again the files the library queued for it (their language was set:
        Library.set_language), each in its course; during a run, after it."""
        if self._job is not None:
            self._queued.append((list(paths), None, True))
            self.status.setText(f"{self.status.text()} ({self._waiting_text()})")
            return
        library, chosen = self.library, list(paths)
        self._run(lambda job: library.resume(job.report, job.cancelled, paths=chosen))
        self.status.setText(f"Importing {plural(len(chosen), 'file')} again…")

    def _waiting_text(self) -> str:
        n = sum(len(paths) for paths, _, _ in self._queued)
        return f"then {plural(n, 'more item')}"

    def resume(self) -> bool:
        """Offer to finish the files an earlier run queued but did not index (a cancel, a
        quit or a crash left them); False if there are none. Nothing runs until the user
        says so: they may have cancelled on purpose."""
        return self._offer(unfinished(self.library), "")

    def _offer(self, pending: list[Source], lead: str) -> bool:
        """Show Resume for ``pending`` after ``lead`` (what ended; "" at a start)."""
        if not pending or self._job is not None:
            return False
        self._unfinished = n = len(pending)
        first = printable(Path(pending[0].path).name)
        more = f" and {plural(n - 1, 'other')}" if n > 1 else ""
        if lead:
            self.status.setText(f"{lead}. {first}{more} can be resumed where it stopped.")
        else:
            self.status.setText(f"{first}{more} did not finish importing last time. Resume?")
        self.resume_button.show()
        self.later_button.show()
        return True

    def _offer_after(self, report: IngestReport) -> None:
        """After a cancel: offer Resume for what the library holds unfinished (read on the
        bar's worker; files never queued, e.g. cancelled while waiting for another
        process's import, are not resumable)."""
        library, lead = self.library, report_text(report)

        def offer(found: list[Source]) -> None:
            self._offer(found, lead)

        self.tasks.run(lambda: unfinished(library), offer)

    @property
    def offering(self) -> bool:
        """Whether unfinished files are offered for resuming."""
        return not self.resume_button.isHidden()

    def resume_now(self) -> None:
        """Finish the files an earlier run did not (the user's answer to the offer)."""
        self._hide_offer()
        if self._job is not None:
            return
        library, n = self.library, self._unfinished
        self._run(lambda job: library.resume(progress=job.report, cancel=job.cancelled))
        self.status.setText(f"Resuming the import of {plural(n, 'file')}…")

    def decline(self) -> None:
        self._hide_offer()
        n = self._unfinished
        self.status.setText(
            f"Not resumed: {plural(n, 'file')} stay{'s' if n == 1 else ''} not indexed "
            "(offered again at the next start)."
        )

    def _hide_offer(self) -> None:
        self.resume_button.hide()
        self.later_button.hide()

    def say(self, text: str) -> None:
        """Show ``text`` on the status line; during an import, after its progress until it
        ends (the next progress report would hide it at once)."""
        if self._job is None:
            self.status.setText(text)
            return
        self._note = text
        shown = self.status.text().split(" · ")[0]
        self.status.setText(f"{shown} · {text}")

    def quit_question(self) -> str:
        """What quitting now does to the import: the files offered for resuming at the next
        start (the library's import session counts them: not ended, not removed during it),
        and the items waiting their turn, which are not queued anywhere yet."""
        left = self.library.importing.left() if self._job is not None else 0
        if left is None:
            then = "What it has not imported yet is offered for resuming at the next start."
        elif left:
            then = (
                f"{plural(left, 'file')} not imported yet "
                f"{'is' if left == 1 else 'are'} offered for resuming at the next start."
            )
        else:
            then = "It stops now; nothing is left to resume."
        waiting = self.waiting_items
        if waiting:
            then += f" {plural(waiting, 'item')} waiting for it {'is' if waiting == 1 else 'are'}"
            then += " not imported: add them again after the next start."
        return f"An import is still running. Quit anyway? {then}"

    def _run(
        self, work: Callable[[Task[IngestProgress]], IngestReport], course: str | None = None
    ) -> None:
        self._hide_offer()
        self.course = course
        self.errors_button.hide()
        self._note = ""
        self.progress.setValue(0)
        self.progress.show()
        self.cancel_button.show()
        self._job = self.tasks.start(work, self._end, self._failed, self._progress)
        self.started.emit()

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
        self._latest = p
        # The first at once, then the latest every 100 ms; a new file or stage at once.
        if not self._shown.isActive() or self._stage != (p.path, p.stage):
            self._show_latest()
        self.progress_reported.emit(p)

    def _show_latest(self) -> None:
        p, self._latest = self._latest, None
        if p is None or self._job is None:
            return
        self.progress.setValue(round(p.fraction * 1000))
        waiting = f" ({self._waiting_text()})" if self._queued else ""
        note = f" · {self._note}" if self._note else ""
        name = printable(shown_name(p.path))  # cut in its middle if the line is too long
        self.status.setText(progress_text(p) + waiting + note, name)
        self._stage = (p.path, p.stage)
        self._shown.start()

    def _failed(self, failed: Failure) -> None:
        # Our errors say what went wrong; anything else was logged with its traceback.
        ours = isinstance(failed.error, CoursedexError)
        self._end(failed.message if ours else f"Import failed: {failed.error}")

    def _end(self, outcome: IngestReport | str) -> None:
        self._job = None
        self._shown.stop()
        self._latest = None
        self.progress.hide()
        self.cancel_button.hide()
        said = outcome if isinstance(outcome, str) else report_text(outcome)
        note, self._note = self._note, ""  # what was said during the run still holds
        self.status.setText(f"{said} · {note}" if note else said)
        if isinstance(outcome, IngestReport):
            self._errors = outcome.errors
            n = len(self._errors)
            self.errors_button.setText(f"Show {'the error' if n == 1 else f'the {n} errors'}…")
            self.errors_button.setVisible(n > 0)
        self.finished.emit(outcome)
        if self._queued:
            (paths, course, again), *self._queued = self._queued
            if again:
                self.import_again(paths)
            else:
                self.start(paths, course)
        elif isinstance(outcome, IngestReport) and outcome.count(Outcome.CANCELLED):
            self._offer_after(outcome)

    def show_errors(self) -> None:
        """List the last import's files that failed, each with its reason (not modal)."""
        if self.errors_dialog is not None:
            self.errors_dialog.deleteLater()
        self.errors_dialog = ImportErrorsDialog(self._errors, self)
        self.errors_dialog.open()

    @property
    def waiting_items(self) -> int:
        """How many paths wait their turn for the next run."""
        return sum(len(paths) for paths, _, _ in self._queued)

    @property
    def waiting(self) -> bool:
        """Whether paths wait their turn for the next run."""
        return bool(self._queued)


def file_state(p: IngestProgress) -> str:
    """A file's live state in the library panel: "transcribing 43%", then its outcome (an
    error with its reason: the panel shows the word, the reason in a tooltip)."""
    if p.result is not None:
        if p.result.outcome == Outcome.ERROR:
            return f"error: {p.result.detail}"
        if p.result.outcome == Outcome.DUPLICATE:  # not listed here: where it is
            return f"{ALREADY_IN} “{p.result.kept_in}”: {p.result.detail}, listed there once"
        return p.result.outcome.value
    return stage_text(p)


def progress_text(p: IngestProgress) -> str:
    """The bar's line: which file of how many, its stage and share, and the time left, in
    plain words (the CLI's speed of transcription, "0.05x real time", is left out)."""
    return f"Importing {progress_line(replace(p, detail=''))}"


def report_text(report: IngestReport) -> str:
    """One line: the counts, then the one error's file and reason, or how many files
    failed (their reasons are one click away, in the bar's "Show the errors"); with no
    error, what the first file indexed with a remark says ("meaning search now reads any
    language", "2 pages without a text layer wait for OCR")."""
    cancelled = report.count(Outcome.CANCELLED)
    counts = ", ".join(outcome_counts(report)) or "nothing to do"
    line = f"Import {'cancelled' if cancelled else 'finished'}: {counts}"
    if copies := copies_line(report):  # not listed in the course imported into: where they are
        line += f". {copies}"
    members = left_out(report.files)
    if members:  # a zip's files: named, so none is dropped without a word
        said = ". ".join(not_imported_line(a, f) for a, f in members.items())
        others = len(report.errors) - sum(len(f) for f in members.values())
        more = f". {plural(others, 'other file')} could not be imported" if others else ""
        return f"{line}. {said}{more}"
    errors = report.errors
    if len(errors) == 1:
        return f"{line}. {elided(printable(Path(errors[0].path).name))}: {errors[0].detail}"
    if errors:
        return f"{line}. {plural(len(errors), 'file')} could not be imported"
    said = [f for f in report.files if f.outcome == Outcome.INDEXED and f.detail]
    if said:
        return f"{line}. {elided(printable(Path(said[0].path).name))}: {said[0].detail}"
    return line


def elided(name: str, most: int = 40) -> str:
    """A long file name cut in its middle: its start and its end (often a number and the
    extension) tell files apart."""
    if len(name) <= most:
        return name
    keep = most - 1
    return f"{name[: keep - keep // 2]}…{name[-(keep // 2) :]}"


def unfinished(library: Library) -> list[Source]:
    """The files the library holds queued or half imported: what Resume finishes."""
    return [s for s in library.sources() if s.status in _UNFINISHED]
