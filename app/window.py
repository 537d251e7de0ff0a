"""The main window: a search box focused on start, results that follow the typing.

Searches run on a worker thread (the model loads there on first use); each keystroke
restarts a short debounce timer, and results of an older query than the newest are dropped,
so the window never waits on the engine.
"""

from __future__ import annotations

import html
import logging
import threading
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, QSize, Qt, QThreadPool, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.errors import CoursedexError
from engine.library import IngestProgress, IngestReport, Library, Outcome
from engine.search import SearchResult
from engine.types import SourceStatus

log = logging.getLogger(__name__)

_UNFINISHED = (SourceStatus.QUEUED, SourceStatus.INDEXING)
DEBOUNCE_MS = 120
RESULT_LIMIT = 20
EMPTY_LIBRARY = (
    "Nothing indexed yet. Drop lecture videos, slide decks, code archives or notes here."
)


def location(result: SearchResult) -> str:
    """Where in its file a hit is: mm:ss, page N, or path:line."""
    if result.start_ms is not None:
        seconds = result.start_ms // 1000
        h, rest = divmod(seconds, 3600)
        m, s = divmod(rest, 60)
        return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"
    if result.page is not None:
        return f"page {result.page}"
    if result.path_in_archive is not None:
        line = result.line or result.line_start
        return f"{result.path_in_archive}:{line}" if line else result.path_in_archive
    return ""


def snippet_html(result: SearchResult) -> str:
    """The snippet with the query words in bold, escaped for a rich-text label."""
    out: list[str] = []
    last = 0
    for a, b in result.highlights:
        out.append(html.escape(result.snippet[last:a]))
        out.append(f"<b>{html.escape(result.snippet[a:b])}</b>")
        last = b
    out.append(html.escape(result.snippet[last:]))
    return "".join(out)


class _Signals(QObject):
    done = Signal(int, object)  # generation, list[SearchResult] or an error message


class _SearchJob(QRunnable):
    def __init__(self, library: Library, query: str, generation: int, signals: _Signals) -> None:
        super().__init__()
        self.library = library
        self.query = query
        self.generation = generation
        self.signals = signals

    def run(self) -> None:
        try:
            outcome = self.library.search(self.query, limit=RESULT_LIMIT, typing=True)
            self.signals.done.emit(self.generation, outcome.results)
        except CoursedexError as e:
            self.signals.done.emit(self.generation, str(e))
        except Exception as e:  # a worker reports every failure; it never dies silently
            log.warning("search failed", exc_info=True)
            self.signals.done.emit(self.generation, f"Search failed: {e}")


class _ImportSignals(QObject):
    progress = Signal(object)  # IngestProgress
    finished = Signal(object)  # IngestReport, or an error message


class _ImportJob(QRunnable):
    """One ingest run on a worker thread (``paths`` None: finish what an earlier run left);
    ``cancel`` stops it between files or stages."""

    def __init__(self, library: Library, paths: list[Path] | None, signals: _ImportSignals) -> None:
        super().__init__()
        self.library = library
        self.paths = paths
        self.signals = signals
        self.cancel = threading.Event()

    def run(self) -> None:
        try:
            progress = self.signals.progress.emit
            if self.paths is None:
                report = self.library.resume(progress=progress, cancel=self.cancel)
            else:
                report = self.library.ingest(self.paths, progress=progress, cancel=self.cancel)
            self.signals.finished.emit(report)
        except CoursedexError as e:
            self.signals.finished.emit(str(e))
        except Exception as e:  # a worker reports every failure; it never dies silently
            log.warning("import failed", exc_info=True)
            self.signals.finished.emit(f"Import failed: {e}")


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


class SearchWindow(QMainWindow):
    """Search box, result list, status line; files dropped anywhere on it are imported."""

    imported = Signal(object)  # IngestReport (or an error message) when an import ends

    def __init__(self, library: Library) -> None:
        super().__init__()
        self.library = library
        self.setWindowTitle("Coursedex")
        self.resize(960, 640)
        self.search = QLineEdit(placeholderText="Search your courses")
        self.search.setClearButtonEnabled(True)
        self.results = QListWidget()
        self.results.setWordWrap(True)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.status = QLabel()
        self.status.setWordWrap(True)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(self.search)
        layout.addWidget(self.results, 1)
        layout.addWidget(self.status)
        self.import_status = QLabel()  # the import's line; the search keeps ``status``
        self.import_status.setWordWrap(True)
        layout.addWidget(self.import_status)
        self.progress = QProgressBar(maximum=1000, textVisible=False)
        self.cancel_button = QPushButton("Cancel import")
        row = QHBoxLayout()
        row.addWidget(self.progress, 1)
        row.addWidget(self.cancel_button)
        layout.addLayout(row)
        self.progress.hide()
        self.cancel_button.hide()
        self.cancel_button.clicked.connect(self.cancel_import)
        self.setCentralWidget(body)
        self.setAcceptDrops(True)
        menu = self.menuBar().addMenu("&File")
        menu.addAction("Add &files…", self._add_files)
        menu.addAction("Add f&older…", self._add_folder)
        self._import_pool = QThreadPool(self)
        self._import_pool.setMaxThreadCount(1)
        self._import_signals = _ImportSignals(self)
        self._import_signals.progress.connect(self._import_progress)
        self._import_signals.finished.connect(self._import_finished)
        self._job: _ImportJob | None = None
        self._queued: list[Path] = []

        self._generation = 0
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._signals = _Signals(self)
        self._signals.done.connect(self._show)
        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(self._start_search)
        self.search.textChanged.connect(self._debounce.start)
        for keys in ("Ctrl+F", "Ctrl+L"):
            QShortcut(QKeySequence(keys), self).activated.connect(self.focus_search)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self).activated.connect(self.search.clear)
        self._show_idle()
        self.search.setFocus()

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def _show_idle(self) -> None:
        sources = self.library.sources()
        self.status.setText(
            EMPTY_LIBRARY if not sources else f"{len(sources)} files in the library"
        )

    def _start_search(self) -> None:
        self._generation += 1
        query = self.search.text().strip()
        if not query:
            self.results.clear()
            self._show_idle()
            return
        self.status.setText("Searching…")
        self._pool.start(_SearchJob(self.library, query, self._generation, self._signals))

    def _show(self, generation: int, payload: object) -> None:
        if generation != self._generation:
            return  # an older query finished after a newer one started
        if isinstance(payload, str):
            self.status.setText(payload)
            return
        results: Sequence[SearchResult] = payload  # type: ignore[assignment]
        self.results.clear()
        for result in results:
            item = QListWidgetItem(self.results)
            item.setData(Qt.ItemDataRole.UserRole, result)
            label = QLabel(
                f"<small>{html.escape(result.kind.value)} · {html.escape(result.course)}</small> "
                f"<b>{html.escape(result.title)}</b> {html.escape(location(result))}<br>"
                f"{snippet_html(result)}"
            )
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            width = max(200, self.results.viewport().width() - 12)
            item.setSizeHint(QSize(width, label.heightForWidth(width) + 10))
            self.results.setItemWidget(item, label)
        if results:
            self.results.setCurrentRow(0)
        self.status.setText(f"{len(results)} results" if results else "No results")

    # --- import ----------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.import_paths(paths)

    def _add_files(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, "Add files to the library")
        if names:
            self.import_paths([Path(n) for n in names])

    def _add_folder(self) -> None:
        name = QFileDialog.getExistingDirectory(self, "Add a course folder")
        if name:
            self.import_paths([Path(name)])

    @property
    def importing(self) -> bool:
        return self._job is not None

    def import_paths(self, paths: Sequence[Path]) -> None:
        """Import in the background; paths dropped during a run wait for the next one."""
        if self._job is not None:
            self._queued.extend(paths)
            return
        self._start_job(_ImportJob(self.library, list(paths), self._import_signals))
        self.import_status.setText(f"Importing {len(paths)} item{'s' if len(paths) > 1 else ''}…")

    def resume_pending(self) -> bool:
        """Finish the files an earlier run queued but did not index; False if none."""
        pending = [s for s in self.library.sources() if s.status in _UNFINISHED]
        if not pending or self._job is not None:
            return False
        self._start_job(_ImportJob(self.library, None, self._import_signals))
        self.import_status.setText(f"Resuming the import of {len(pending)} files…")
        return True

    def _start_job(self, job: _ImportJob) -> None:
        self._job = job
        self.progress.setValue(0)
        self.progress.show()
        self.cancel_button.show()
        self._import_pool.start(job)

    def cancel_import(self) -> None:
        if self._job is not None:
            self._job.cancel.set()
            self._queued.clear()
            self.import_status.setText("Cancelling the import…")

    def _import_progress(self, p: IngestProgress) -> None:
        self.progress.setValue(round(p.fraction * 1000))
        self.import_status.setText(progress_text(p))

    def _import_finished(self, payload: object) -> None:
        self._job = None
        self.progress.hide()
        self.cancel_button.hide()
        self.import_status.setText(payload if isinstance(payload, str) else report_text(payload))  # type: ignore[arg-type]
        self.imported.emit(payload)
        if self._queued:
            queued, self._queued = self._queued, []
            self.import_paths(queued)
        elif self.search.text().strip():
            self._start_search()  # show what the import added

    def closeEvent(self, event: QCloseEvent) -> None:
        """Ask only when an import is running; what it did not finish resumes next time."""
        if self._job is not None:
            answer = QMessageBox.question(
                self,
                "Import running",
                "An import is still running. Quit anyway? It resumes at the next start.",
            )
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
            self._job.cancel.set()
            self._import_pool.waitForDone(30_000)
        self._pool.waitForDone(5_000)
        event.accept()

    def result_at(self, row: int) -> SearchResult | None:
        item = self.results.item(row)
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)
