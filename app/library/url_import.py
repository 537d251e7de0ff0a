"""File > Add from URL: fetch a lecture from a web page (yt-dlp, on a worker), then import
it like a dropped file. Only when the user asks: the dialog is the only way in. It gets the
library, the task pool and the window's import, not the window."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.library.fetch_words import plain_fetch_error
from app.tasks import Failure, Task, Tasks
from engine.api import (
    WEB_COURSE,
    Fetched,
    FetchProgress,
    IngestReport,
    Library,
    Outcome,
    fetch_url,
    human_size,
    is_url,
    media_folder,
    remove_fetched,
)

MENU_TEXT = "Add from &URL…"

ImportPaths = Callable[[Sequence[Path], str | None], None]  # the window's import: paths, course
Remove = Callable[[str], None]  # the window's removal of a file, without asking


class UrlImportDialog(QDialog):
    """A page's address, the course to put it in, and whether to take only its subtitles.
    Fetch downloads on the window's pool; a failure stays in the dialog with its reason."""

    def __init__(
        self,
        library: Library,
        tasks: Tasks,
        import_paths: ImportPaths,
        parent: QWidget,
        *,
        imported: SignalInstance | None = None,
        remove: Remove | None = None,
    ) -> None:
        super().__init__(parent)
        self.library = library
        self.tasks = tasks
        self.import_paths = import_paths
        # A download whose import fails goes, file and row, as with `coursedex ingest URL`:
        # the window says when an import ended (``imported``) and removes (``remove``).
        self._imported = imported
        self._remove = remove
        self._fetches: list[Fetched] = []
        self.setWindowTitle("Add from URL")
        self.url = QLineEdit()
        self.url.setPlaceholderText("https://… a page with a lecture video")
        self.course = QLineEdit()
        self.course.setPlaceholderText(WEB_COURSE)
        self.subtitles_only = QCheckBox("Only the subtitles (no video)")
        self.note = QLabel(
            "Coursedex fetches the page now, and only this once. The file is kept in the "
            "library's media folder."
        )
        self.note.setWordWrap(True)
        self.error = QLabel()  # what went wrong in plain words; the engine's in details
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c62828")
        self.details_button = QPushButton("Details…")
        self.details_button.setToolTip("The error as the downloader gave it")
        self.details_button.clicked.connect(self.show_details)
        self.details_box: QMessageBox | None = None
        self._detail = ""
        self.progress = QProgressBar()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.fetch_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.fetch_button.setText("Fetch")
        self.buttons.accepted.connect(self.start)
        self.buttons.rejected.connect(self.stop)
        form = QFormLayout()
        form.addRow("Page", self.url)
        form.addRow("Course", self.course)
        form.addRow("", self.subtitles_only)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addWidget(self.progress)
        layout.addLayout(self._error_row())
        layout.addWidget(self.buttons)
        self.resize(520, self.sizeHint().height())
        self._job: Task[FetchProgress] | None = None

    def _error_row(self) -> QHBoxLayout:
        """The error and its Details button, and the progress bar, keep their room when
        hidden, the error two lines of it: what comes and goes never squashes the fields."""
        for part in (self.progress, self.error, self.details_button):
            policy = part.sizePolicy()
            policy.setRetainSizeWhenHidden(True)
            part.setSizePolicy(policy)
            part.hide()
        self.error.setFixedHeight(2 * self.error.fontMetrics().lineSpacing() + 2)
        self.error.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        row = QHBoxLayout()
        row.addWidget(self.error, 1)
        row.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignTop)
        return row

    def start(self) -> None:
        url = self.url.text().strip()
        if not is_url(url):
            self._fail("Give the page's address, starting with https:// or http://")
            return
        self.error.hide()
        self.details_button.hide()
        self.fetch_button.setEnabled(False)
        self.progress.setRange(0, 0)
        self.progress.show()
        library, subtitles_only = self.library, self.subtitles_only.isChecked()

        def work(job: Task[FetchProgress]) -> Fetched:
            return fetch_url(
                url,
                media_folder(library),
                subtitles_only=subtitles_only,
                limits=library.config.limits,  # the size limit and stall timeout of now
                progress=job.report,
                cancel=job.cancelled,
            )

        self._job = self.tasks.start(work, self._fetched, self._failed, self._progress)

    def stop(self) -> None:
        if self._job is not None:
            self._job.cancel()
        self.reject()

    def _progress(self, p: FetchProgress) -> None:
        if p.total_bytes:
            self.progress.setRange(0, 1000)
            self.progress.setValue(round(1000 * p.done_bytes / p.total_bytes))
        self.progress.setFormat(
            human_size(p.done_bytes) + (f" of {human_size(p.total_bytes)}" if p.total_bytes else "")
        )

    def _fetched(self, got: Fetched) -> None:
        self._job = None
        self.library.set_origin(got.path.absolute().parent.resolve() / got.path.name, got.url)
        if got.made and self._imported is not None and self._remove is not None:
            if not self._fetches:
                self._imported.connect(self._import_ended)
            self._fetches.append(got)
        self.import_paths([got.path], self.course.text().strip() or WEB_COURSE)
        self.accept()

    def _import_ended(self, outcome: object) -> None:
        """Remove what this dialog fetched if its import failed (no speech found, say): the
        panel showed its reason until now; the file was never one the user chose."""
        if not isinstance(outcome, IngestReport) or self._remove is None:
            return
        results = {Path(f.path).absolute(): f for f in outcome.files}
        for got in list(self._fetches):
            result = results.get(got.path.absolute())
            if result is None:
                continue  # still waiting its turn
            self._fetches.remove(got)
            if result.outcome == Outcome.ERROR:
                self._remove(str(got.path.absolute().parent.resolve() / got.path.name))
                remove_fetched(got)
        if not self._fetches and self._imported is not None:
            self._imported.disconnect(self._import_ended)

    def _failed(self, failed: Failure) -> None:
        self._job = None
        self._fail(plain_fetch_error(self.url.text().strip(), failed.message), failed.message)

    def _fail(self, message: str, detail: str = "") -> None:
        self.progress.hide()
        self.fetch_button.setEnabled(True)
        self.error.setText(message)
        self.error.show()
        self._detail = detail
        self.details_button.setVisible(bool(detail))

    def show_details(self) -> None:
        """The error as the engine (and yt-dlp) gave it: selectable, to search or report."""
        if self.details_box is not None:
            self.details_box.deleteLater()
        box = QMessageBox(QMessageBox.Icon.Information, "What went wrong", self._detail)
        box.setParent(self, box.windowFlags())
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details_box = box
        box.open()
