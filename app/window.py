"""The main window: the library panel, a search box focused on start with results that
follow the typing, and a preview that plays a lecture from the hit, or shows the slide or
the code. Files dropped anywhere on it are imported in the background.

Searches run on a worker thread (the model loads there on first use); each keystroke
restarts a short debounce timer, and results of an older query than the newest are dropped,
so the window never waits on the engine.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QThreadPool, QTimer, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QFont,
    QIcon,
    QImage,
    QKeySequence,
    QPainter,
    QPalette,
    QPixmap,
    QShortcut,
)
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
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
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.code_view import CodeView
from app.importing import (
    ImportJob,
    ImportSignals,
    file_state,
    progress_text,
    report_text,
)
from app.library_panel import LibraryPanel
from app.playback import PlayerUnavailable
from app.player import PlayerView
from app.results import KIND_GLYPHS, KIND_NAMES, OPEN_HINT, ResultRow, thumbnail
from app.slide_view import SlideView
from app.tasks import Failure, Tasks
from engine.api import (
    IngestProgress,
    Library,
    ModelRegistry,
    SearchFilters,
    SearchResult,
    SegmentKind,
    SourceKind,
    SourceStatus,
    query_terms,
)

if TYPE_CHECKING:
    from app.settings import Settings

log = logging.getLogger(__name__)

_UNFINISHED = (SourceStatus.QUEUED, SourceStatus.INDEXING)
DEBOUNCE_MS = 120
RESULT_LIMIT = 20
ROW_BATCH = 4  # result rows added per turn of the event loop
EMPTY_LIBRARY = (
    "Nothing indexed yet. Drop lecture videos, slide decks, code archives or notes here."
)


class SearchWindow(QMainWindow):
    """Library panel, search with filters and results, and a preview that plays the hit."""

    imported = Signal(object)  # IngestReport (or an error message) when an import ends
    opened = Signal(object)  # the SearchResult shown in the preview

    def __init__(
        self,
        library: Library,
        *,
        player_backend: str = "auto",
        vlc_args: Sequence[str] = (),
        registry: ModelRegistry | None = None,
        settings: Settings | None = None,
        settings_path: Path | None = None,
    ) -> None:
        super().__init__()
        self.library = library
        self.registry = registry
        self.settings = settings
        self.settings_path = settings_path
        self.player_backend = settings.player if settings is not None else player_backend
        self.vlc_args = tuple(vlc_args)
        self.setWindowTitle("Coursedex")
        self.resize(1280, 800)
        self.tasks = Tasks(self)  # searches, panel refreshes, file texts
        self._icons = self._kind_icons()

        # --- the library panel (left) ---
        self.panel = LibraryPanel()
        self.panel.course_selected.connect(self._course_picked)
        self.panel.remove_requested.connect(self._remove)

        # --- search, filters, results (middle) ---
        self.search = QLineEdit(placeholderText="Search your courses")
        self.search.setClearButtonEnabled(True)
        self.search.installEventFilter(self)
        self.course_box = QComboBox()
        self.course_box.addItem("All courses", None)
        self.kind_box = QComboBox()
        self.kind_box.addItem("All kinds", None)
        for kind in SegmentKind:
            self.kind_box.addItem(KIND_NAMES[kind], kind.value)  # Qt keeps enums as plain str
        self.results = QListWidget()
        self.results.setWordWrap(True)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
        # A scroll bar that comes and goes would change the width rows were wrapped for.
        self.results.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.results.viewport().installEventFilter(self)
        # Why the list is empty, said inside it ("Nothing in your library is close to …").
        self.empty_note = QLabel(self.results.viewport())
        self.empty_note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_note.setWordWrap(True)
        self.empty_note.setMargin(24)
        self.empty_note.hide()
        self._relayout = QTimer(self, singleShot=True, interval=60)
        self._relayout.timeout.connect(self._relayout_rows)
        self.results.itemActivated.connect(self._activated)
        self.results.itemClicked.connect(self._activated)
        self.status = QLabel()
        self.status.setWordWrap(True)
        middle = QWidget()
        column = QVBoxLayout(middle)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.search)
        filters = QHBoxLayout()
        filters.addWidget(self.course_box, 1)
        filters.addWidget(self.kind_box, 1)
        column.addLayout(filters)
        column.addWidget(self.results, 1)
        column.addWidget(self.status)

        # --- the preview (right): placeholder, player, slide, code ---
        self.preview = QStackedWidget()
        self.placeholder = QLabel(OPEN_HINT)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.preview.addWidget(self.placeholder)
        self.slide_view = SlideView()
        self.slide_view.play_requested.connect(self.play)
        self.preview.addWidget(self.slide_view)
        self.code_view = CodeView()
        self.preview.addWidget(self.code_view)
        self._player: PlayerView | None = None
        self.preview_error = QLabel()
        self.preview_error.setWordWrap(True)
        self.preview_error.hide()
        right = QWidget()
        right_column = QVBoxLayout(right)
        right_column.setContentsMargins(0, 0, 0, 0)
        right_column.addWidget(self.preview, 1)
        right_column.addWidget(self.preview_error)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.panel)
        self.splitter.addWidget(middle)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 2)
        self.splitter.setSizes([280, 460, 660])

        # --- the import bar (bottom) ---
        self.import_status = QLabel()  # the import's line; the search keeps ``status``
        self.import_status.setWordWrap(True)
        self.progress = QProgressBar(maximum=1000, textVisible=False)
        self.cancel_button = QPushButton("Cancel import")
        self.cancel_button.clicked.connect(self.cancel_import)
        bar = QHBoxLayout()
        bar.addWidget(self.import_status, 1)
        bar.addWidget(self.progress, 1)
        bar.addWidget(self.cancel_button)
        self.progress.hide()
        self.cancel_button.hide()

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(self.splitter, 1)
        layout.addLayout(bar)
        self.setCentralWidget(body)
        self.setAcceptDrops(True)
        self._menus()

        self._import_pool = QThreadPool(self)
        self._import_pool.setMaxThreadCount(1)
        self._import_signals = ImportSignals(self)
        self._import_signals.progress.connect(self._import_progress)
        self._import_signals.finished.connect(self._import_finished)
        self._job: ImportJob | None = None
        self._queued: list[tuple[list[Path], str | None]] = []
        self._seen_in_panel: set[str] = set()  # files of this run the panel already lists

        self._generation = 0
        self._query = ""
        self._rows: list[tuple[SearchResult, QImage | None]] = []  # rows still to add
        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(self._start_search)
        self.search.textChanged.connect(self._debounce.start)
        self.course_box.currentIndexChanged.connect(self._filters_changed)
        self.kind_box.currentIndexChanged.connect(self._filters_changed)
        for keys in ("Ctrl+F", "Ctrl+L"):
            QShortcut(QKeySequence(keys), self).activated.connect(self.focus_search)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self).activated.connect(self._escape)
        self._sources = 0
        self.refresh_library()
        self.status.setText("")
        self.search.setFocus()

    def _menus(self) -> None:
        menu = self.menuBar().addMenu("&File")
        menu.addAction("Add &files…", QKeySequence.StandardKey.Open, self._add_files)
        menu.addAction("Add f&older…", self._add_folder)
        menu.addSeparator()
        settings = menu.addAction("&Settings…", self.open_settings)
        settings.setShortcut(QKeySequence.StandardKey.Preferences)
        settings.setEnabled(self.registry is not None)
        menu.addSeparator()
        menu.addAction("&Quit", QKeySequence.StandardKey.Quit, self.close)
        self.menuBar().addMenu("&Help").addAction("&About Coursedex", self.show_about)

    def show_about(self) -> None:
        from app.about import AboutDialog  # imports the model libraries to read their versions

        dialog = AboutDialog(self.library.folder, self.registry or self.library.models, self)
        dialog.exec()
        dialog.deleteLater()

    def _kind_icons(self) -> dict[SegmentKind, QIcon]:
        """A glyph per kind, drawn in the palette's text colour (legible light and dark)."""
        colour = self.palette().color(QPalette.ColorRole.WindowText)
        icons: dict[SegmentKind, QIcon] = {}
        for kind, glyph in KIND_GLYPHS.items():
            pixmap = QPixmap(40, 40)
            pixmap.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pixmap)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            font = QFont(self.font())
            font.setPixelSize(30 if len(glyph) == 1 else 20)
            font.setBold(True)
            painter.setFont(font)
            painter.setPen(colour)
            painter.drawText(pixmap.rect(), Qt.AlignmentFlag.AlignCenter, glyph)
            painter.end()
            icons[kind] = QIcon(pixmap)
        return icons

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._icons = self._kind_icons()
            for row in range(self.results.count()):
                widget = self.row_widget(row)
                if widget is not None:
                    widget.icon.setPixmap(self._icons[widget.result.kind].pixmap(20, 20))
        super().changeEvent(event)

    def _row_width(self) -> int:
        return max(240, self.results.viewport().width() - 2)

    def _relayout_rows(self) -> None:
        """Rows wrap to the list's width: after a resize their heights change."""
        self.empty_note.setGeometry(self.results.viewport().rect())
        width = self._row_width()
        for row in range(self.results.count()):
            item, widget = self.results.item(row), self.row_widget(row)
            if item is not None and widget is not None:
                item.setSizeHint(QSize(width, widget.height_for(width)))

    # --- the library panel -----------------------------------------------------------------

    def refresh_library(self) -> None:
        """Re-read courses and files on a worker; the panel and course filter follow."""
        library = self.library
        self.tasks.run(lambda: (library.courses(), library.sources()), self._library_read)

    def _library_read(self, payload: object) -> None:
        if isinstance(payload, Failure):
            self.status.setText(payload.message)
            return
        courses, sources = payload  # type: ignore[misc]
        self.panel.refresh(courses, sources)
        current = self.course_box.currentData()
        self.course_box.blockSignals(True)
        self.course_box.clear()
        self.course_box.addItem("All courses", None)
        for course in sorted(courses, key=lambda c: c.name.casefold()):
            self.course_box.addItem(course.name, course.name)
        index = self.course_box.findData(current)
        self.course_box.setCurrentIndex(max(0, index))
        self.course_box.blockSignals(False)
        self._sources = len(sources)
        if not self._query:
            self._show_idle()

    def _course_picked(self, name: object) -> None:
        index = self.course_box.findData(name)
        self.course_box.setCurrentIndex(max(0, index))

    def _remove(self, target: str, is_course: bool) -> None:
        if self._job is not None:
            self.import_status.setText("Wait for the import to finish before removing files.")
            return
        what = f"the course “{target}” and its files" if is_course else f"“{Path(target).name}”"
        answer = QMessageBox.question(
            self,
            "Remove from the library",
            f"Remove {what} from the library? The files on disk are not touched.",
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        library = self.library
        self.tasks.run(lambda: library.remove(target), self._removed)

    def _removed(self, payload: object) -> None:
        if isinstance(payload, Failure):
            self.import_status.setText(payload.message)
        else:
            self.import_status.setText(f"Removed {payload} file(s) from the library")
        self.refresh_library()
        if self._query:
            self._start_search()

    # --- search ------------------------------------------------------------------------------

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def _escape(self) -> None:
        self.search.clear()
        self.search.setFocus()

    def _show_idle(self) -> None:
        self.status.setText(
            EMPTY_LIBRARY if not self._sources else f"{self._sources} files in the library"
        )
        self.placeholder.setText(EMPTY_LIBRARY if not self._sources else OPEN_HINT)

    def filters(self) -> SearchFilters:
        kind = self.kind_box.currentData()
        return SearchFilters(
            kinds=(SegmentKind(kind),) if kind else (), course=self.course_box.currentData()
        )

    def _filters_changed(self) -> None:
        if self.search.text().strip():
            self._start_search()

    def _start_search(self) -> None:
        self._generation += 1
        generation = self._generation
        query = self._query = self.search.text().strip()
        if not query:
            self.results.clear()
            self._note_empty("")
            self._show_idle()
            return
        self.status.setText("Searching…")
        library, filters = self.library, self.filters()

        def job() -> tuple[list[SearchResult], dict[int, QImage | None], float, bool]:
            outcome = library.search(query, limit=RESULT_LIMIT, filters=filters, typing=True)
            thumbs = {r.segment_id: thumbnail(r) for r in outcome.results}
            return outcome.results, thumbs, outcome.took_ms.get("total", 0.0), outcome.gated

        self.tasks.run(job, lambda payload: self._show(generation, payload))

    def _show(self, generation: int, payload: object) -> None:
        if generation != self._generation:
            return  # an older query finished after a newer one started
        if isinstance(payload, Failure):
            self.status.setText(payload.message)
            return
        results, thumbs, took, gated = payload  # type: ignore[misc]
        self.results.clear()
        self._rows = [(result, thumbs.get(result.segment_id)) for result in results]
        self._add_rows(generation)
        count = len(results)
        if results:
            self.status.setText(f"{count} result{'s' if count != 1 else ''} ({took:.0f} ms)")
        elif gated:
            # The early exit: nothing is close, rather than the nearest noise.
            self.status.setText(f"Nothing in your library is close to “{self._query}”.")
        else:
            self.status.setText("No results")
        self._note_empty("" if results else self.status.text())

    def _note_empty(self, text: str) -> None:
        self.empty_note.setText(text)
        self.empty_note.setGeometry(self.results.viewport().rect())
        self.empty_note.setVisible(bool(text))

    def _add_rows(self, generation: int) -> None:
        """Add a few rows, and the rest on later turns of the event loop: a row costs about
        1.5 ms of layout, so 20 at once would hold the UI thread for 30 ms or more."""
        if generation != self._generation:
            return
        width = self._row_width()
        batch, self._rows = self._rows[:ROW_BATCH], self._rows[ROW_BATCH:]
        for result, thumb in batch:
            item = QListWidgetItem(self.results)
            item.setData(Qt.ItemDataRole.UserRole, result)
            row = ResultRow(result, self._icons[result.kind])
            row.set_thumbnail(thumb)
            item.setSizeHint(QSize(width, row.height_for(width)))
            self.results.setItemWidget(item, row)
        if batch and self.results.currentRow() < 0:
            self.results.setCurrentRow(0)
        if self._rows:
            QTimer.singleShot(0, lambda: self._add_rows(generation))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Up/Down in the search box move through the results; Enter opens the current one."""
        if watched is self.results.viewport() and event.type() == QEvent.Type.Resize:
            self._relayout.start()
        if watched is self.search and event.type() == QEvent.Type.KeyPress:
            key = event.key()  # type: ignore[attr-defined]
            step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1}.get(key)
            if step is not None and self.results.count():
                row = min(max(0, self.results.currentRow() + step), self.results.count() - 1)
                self.results.setCurrentRow(row)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.open_current()
                return True
        return super().eventFilter(watched, event)

    def result_at(self, row: int) -> SearchResult | None:
        item = self.results.item(row)
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)

    def row_widget(self, row: int) -> ResultRow | None:
        item = self.results.item(row)
        widget = None if item is None else self.results.itemWidget(item)
        return widget if isinstance(widget, ResultRow) else None

    # --- opening a result --------------------------------------------------------------------

    def open_current(self) -> None:
        result = self.result_at(self.results.currentRow())
        if result is not None:
            self.open_result(result)

    def _activated(self, item: QListWidgetItem) -> None:
        result = item.data(Qt.ItemDataRole.UserRole)
        if result is not None:
            self.open_result(result)

    def open_result(self, result: SearchResult) -> None:
        """Play a video hit from its time, show a slide page, or a file at the line."""
        self.preview_error.hide()
        terms = query_terms(self._query)
        playable = result.source_kind in (SourceKind.VIDEO, SourceKind.AUDIO)
        if result.kind == SegmentKind.SLIDE and result.page is not None:
            self.slide_view.show_page(result.source, result.page, result.shown_in, terms)
            self.preview.setCurrentWidget(self.slide_view)
        elif playable and result.start_ms is not None:
            self.play(result.source, result.start_ms)
        else:
            library, member = self.library, result.path_in_archive
            line = result.line or result.line_start
            name = member or Path(result.source).name

            def shown(text: object) -> None:
                if isinstance(text, Failure):
                    self.code_view.show_error(text.message)
                else:
                    self.code_view.show_code(str(text), name, line, terms)
                self.preview.setCurrentWidget(self.code_view)

            self.tasks.run(lambda: library.source_text(result.source, member), shown)
        self.opened.emit(result)

    @property
    def player(self) -> PlayerView:
        """The player, made on first use (loading libVLC takes a moment)."""
        if self._player is None:
            try:
                self._player = PlayerView(backend=self.player_backend, vlc_args=self.vlc_args)
            except PlayerUnavailable as e:
                log.warning("%s; using Qt Multimedia", e)
                self._player = PlayerView(backend="qt")
            self._player.error.connect(self._player_error)
            self.preview.addWidget(self._player)
        return self._player

    def play(self, path: str, start_ms: int) -> None:
        """Open a lecture at a time, with its transcript beside it."""
        player = self.player
        self.preview.setCurrentWidget(player)
        library = self.library

        def with_lines(lines: object) -> None:
            transcript = [] if isinstance(lines, Failure) else lines
            player.open(path, start_ms, transcript)  # type: ignore[arg-type]

        self.tasks.run(lambda: library.transcript(path), with_lines)

    def _player_error(self, message: str) -> None:
        self.preview_error.setText(message)
        self.preview_error.show()

    # --- settings ------------------------------------------------------------------------------

    def open_settings(self) -> None:
        from app.settings import SettingsDialog, apply_theme, engine_config, save_settings

        if self.registry is None or self.settings is None:
            return
        dialog = SettingsDialog(self.settings, self.registry, self)
        accepted = dialog.exec() == QDialog.DialogCode.Accepted
        new = dialog.settings()
        dialog.deleteLater()
        if not accepted:
            apply_theme(QApplication.instance(), self.settings.theme)  # type: ignore[arg-type]
            return
        apply_theme(QApplication.instance(), new.theme)  # type: ignore[arg-type]
        if self.settings_path is not None:
            save_settings(self.settings_path, new)
        self.library.config = engine_config(new, self.library.config)  # the next import
        if new.player != self.settings.player and self._player is not None:
            self._player.shutdown()
            self.preview.removeWidget(self._player)
            self._player.deleteLater()
            self._player = None
        self.player_backend = new.player
        if new.library_dir != self.settings.library_dir:
            self.import_status.setText("The new library folder is used from the next start.")
        self.settings = new

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

    def import_paths(self, paths: Sequence[Path], course: str | None = None) -> None:
        """Import in the background; paths dropped during a run wait for the next one."""
        if self._job is not None:
            self._queued.append((list(paths), course))
            self.import_status.setText(
                f"{self.import_status.text()}\n{len(paths)} more item(s) wait their turn"
            )
            return
        self._start_job(ImportJob(self.library, list(paths), self._import_signals, course))
        self.import_status.setText(f"Importing {len(paths)} item{'s' if len(paths) > 1 else ''}…")

    def resume_pending(self) -> bool:
        """Finish the files an earlier run queued but did not index; False if none."""
        pending = [s for s in self.library.sources() if s.status in _UNFINISHED]
        if not pending or self._job is not None:
            return False
        self._start_job(ImportJob(self.library, None, self._import_signals))
        n = len(pending)
        self.import_status.setText(f"Resuming the import of {n} file{'s' if n != 1 else ''}…")
        return True

    def _start_job(self, job: ImportJob) -> None:
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
        if p.path not in self._seen_in_panel or p.result is not None:
            self._seen_in_panel.add(p.path)
            self.refresh_library()  # a new file in the panel, or a file done
        self.panel.set_file_state(p.path, file_state(p))

    def _import_finished(self, payload: object) -> None:
        self._job = None
        self._seen_in_panel = set()
        self.progress.hide()
        self.cancel_button.hide()
        self.import_status.setText(payload if isinstance(payload, str) else report_text(payload))  # type: ignore[arg-type]
        self.panel.clear_live()
        self.refresh_library()
        self.imported.emit(payload)
        if self._queued:
            (paths, course), *self._queued = self._queued
            self.import_paths(paths, course)
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
        if self._player is not None:
            self._player.shutdown()
        # A query typed just now must not start once the library may be closing.
        self._debounce.stop()
        if not self.tasks.close(30_000):
            log.warning("a background task was still running when the window closed")
        event.accept()
