"""The main window: the library panel, the search pane, the preview and the import bar.
Files dropped anywhere on it are imported in the background.

It composes the parts and wires them: the panel's course picks the search's course, a
result asked for opens in the preview. What a call that wrote to the library changed (an
import's end, the panel's actions, followed folders, another process) is what the engine
says it changed (engine/changes.py), relayed unchanged on ``library_changed``; the panel
follows row by row, the notes and the results when it names them (app/library/changes.py).
An import's live state of each file is progress, passed to the panel apart. The helpers get
only what they use, never the window; the menus (app/window_menus.py) and the panes' layout
and remembered state (app/window_layout.py) are their own. Background work goes through
``tasks`` (imports through the bar's own pool), so the window never waits on the engine.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.library.actions import LibraryActions
from app.library.changes import FileState, LibraryFollower
from app.library.drops import DropTarget
from app.library.file_dialogs import FileDialogs
from app.library.import_bar import ImportBar, file_state
from app.library.outside_changes import OutsideChanges
from app.library.pack_export import PackExport
from app.library.pack_import import PackImport
from app.library.panel import LibraryPanel
from app.notes.panel import NotesPanel
from app.notes.side import SideTabs
from app.player.memory import PlaybackMemory
from app.search.examples import EMPTY_LIBRARY
from app.search.first_steps import FirstSteps
from app.search.pane import SearchPane
from app.search.results import ResultRow
from app.tasks import Tasks
from app.viewers.preview import PreviewPane
from app.window_layout import PaneLayout
from app.window_menus import (
    FileActions,
    add_files,
    add_folder,
    ask_settings,
    file_menu,
    go_menu,
    help_menu,
)
from app.window_state import WindowState, place_window, state_path
from engine.api import (
    Changes,
    IngestProgress,
    IngestReport,
    Library,
    ModelRegistry,
    SearchResult,
    shown_words,
)

if TYPE_CHECKING:
    from app.settings_model import AppSettings, Settings

__all__ = ["EMPTY_LIBRARY", "MainWindow"]

log = logging.getLogger(__name__)


class MainWindow(QMainWindow):
    """Library panel, search with filters and results, and a preview that plays the hit."""

    imported = Signal(object)  # IngestReport (or an error message) when an import ends
    opened = Signal(object)  # the SearchResult shown in the preview
    library_changed = Signal(object)  # the engine's Changes: what a call changed

    def __init__(
        self,
        library: Library,
        *,
        player_backend: str = "auto",
        vlc_args: Sequence[str] = (),
        registry: ModelRegistry | None = None,
        settings: AppSettings | None = None,
        settings_path: Path | None = None,
        tasks: Tasks | None = None,
        window_state: Path | None = None,
    ) -> None:
        """``window_state``: the file remembering size, panes and searches between starts
        (default: ``window.ini`` beside ``settings_path``, by default the settings' file)."""
        super().__init__()
        self._ask_before_closing = True  # about an import running
        self.library = library
        self.registry = registry
        self.settings = settings  # the user's, read where used (app/settings_model.py)
        if settings is not None:
            settings_path = settings_path or settings.path
            settings.changed.connect(self._settings_changed)
        self.settings_path = settings_path
        self.setWindowTitle("Coursedex")
        place_window(self)  # 1280 x 800, or as large as a smaller screen
        self.tasks = tasks or Tasks(self)  # searches, panel refreshes, file texts
        backend = settings.current.player if settings is not None else player_backend
        self._panes(backend, vlc_args)
        self._library_parts()
        body = self._body()
        self.drops = DropTarget(self, body, self.pack_import.take_packs, self.import_paths)
        self._menus()
        self.layout_ = PaneLayout(
            self,
            self.splitter,
            self.panel,
            self.search_pane,
            self.preview_pane,
            self.file_dialogs,
            window_state or state_path(settings_path),
        )
        self.layout_.lay_out()
        self._start(self.layout_.load())

    def _panes(self, backend: str, vlc_args: Sequence[str]) -> None:
        """The library panel, the search pane, the preview and the import bar."""
        library = self.library
        self.panel = LibraryPanel()
        self.panel.course_selected.connect(self._course_picked)
        self.panel.itemDoubleClicked.connect(self._panel_double_clicked)
        self._course_before: object = None  # the course filter before the panel's last pick
        self.search_pane = SearchPane(library, self.tasks)
        self.search_pane.open_requested.connect(self.open_result)
        # The filter cleared (by the chip, the empty list's link or the box): a course still
        # picked in the panel would look like a filter, and a click on it would do nothing.
        self.search_pane.course_box.currentIndexChanged.connect(
            lambda: (
                self.search_pane.course_box.currentData() is None and self.panel.clearSelection()
            )
        )
        self.preview_pane = PreviewPane(library, self.tasks, backend=backend, vlc_args=vlc_args)
        if self.settings_path is not None:  # speed and positions, beside the settings
            self.preview_pane.memory = PlaybackMemory.beside(self.settings_path)
        # Space, Left, Right reach the player from the search box: see app/player/keys.py.
        self.preview_pane.keys_from = self.search_pane.search
        self.import_bar = ImportBar(library)
        self.import_bar.started.connect(lambda: self.panel.set_importing(True))
        self.import_bar.progress_reported.connect(self._import_progress)
        self.import_bar.finished.connect(self._import_finished)
        self.panel.play_requested.connect(lambda path: self.play(path, None))  # where left
        self.panel.play_from_start.connect(lambda path: self.play(path, 0))
        self.panel.position_of = self._position_of

    def _library_parts(self) -> None:
        """What follows the library's changes, and what changes it from the panel."""
        library, changed = self.library, self.library_changed.emit
        # The results follow an import (or one waiting its turn) at most every few seconds.
        self.follower = LibraryFollower(
            library,
            self.tasks,
            self.panel,
            lambda: self.importing or self.import_bar.waiting,
            self,
        )
        self.first_steps = FirstSteps(  # what is said while the library is empty, examples
            self.search_pane, self.preview_pane.placeholder, self.panel, self.import_bar
        )
        self.follower.courses_read.connect(self.first_steps.courses_read)
        self.follower.search_due.connect(self.search_pane.refresh)
        self.follower.failed.connect(self.search_pane.status.setText)
        self.library_changed.connect(self._library_changed)
        self.file_dialogs = FileDialogs(self)  # in the last folder used, kept between starts
        self.library_actions = LibraryActions(  # open, export, remove from the panel
            self.panel,
            library,
            self.tasks,
            importing=lambda: self.importing,
            say=self.import_bar.say,
            changed=changed,
            recheck=self.follower.recheck,
            dialogs=self.file_dialogs,
            import_again=self.import_bar.import_again,
            parent=self,
        )
        self.pack_import = PackImport(  # File > Import course pack…, on the bar's worker
            library, self.import_bar, self.file_dialogs, changed, self
        )
        self.pack_export = PackExport(library, self.import_bar, self.file_dialogs, self.panel, self)
        self.preview_pane.missing.linked.connect(self.pack_import.located)
        self.notes_panel = NotesPanel(library, self.tasks)  # a tab beside the library's
        self.side = SideTabs(self.panel, self.notes_panel)
        self.side.connect_notes(self.preview_pane, self.search_pane, self.library_changed)

    def _body(self) -> QWidget:
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.side)
        self.splitter.addWidget(self.search_pane)
        self.splitter.addWidget(self.preview_pane)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.import_bar)
        self.setCentralWidget(body)
        return body

    def _start(self, remembered: WindowState | None) -> None:
        """Read the library (and what the window remembers) into the panes."""
        if remembered is not None:  # before the first fill, which opens them so
            self.panel.remember_open(remembered.expanded, remembered.collapsed)
            self.file_dialogs.last_folder = remembered.folder
        # What another process adds (`coursedex ingest` in a terminal) shows here too; its
        # first read goes before the panel's.
        self.outside_changes = OutsideChanges(
            self.library, self.tasks, self.library_changed.emit, lambda: self.importing, self
        )
        self.outside_changes.start()
        self.refresh_library()
        self.search_pane.status.setText("")
        self.search_pane.search.setFocus()
        if remembered is not None:
            self.layout_.restore(remembered)

    def _menus(self) -> None:
        bar, settings = self.menuBar(), self.registry is not None
        actions = FileActions(
            add_files=lambda: add_files(self.file_dialogs, self.import_paths),
            add_folder=lambda: add_folder(self.file_dialogs, self.import_paths),
            add_from_url=self.add_from_url,
            follow_folders=self.follow_folders,
            import_pack=self.pack_import.choose,
            export_pack=lambda: self.pack_export.choose(),
            settings=self.open_settings if settings else None,
            quit=self.close,
        )
        file_menu(bar, actions)
        go_menu(bar, self.search_pane, self.preview_pane, self.panel, self.notes_panel.tree)
        help_menu(bar, self, self.library, self.registry)

    def add_from_url(self) -> None:
        """File > Add from URL: fetch a lecture from a web page (yt-dlp) and import it."""
        from app.library.url_import import UrlImportDialog

        UrlImportDialog(
            self.library,
            self.tasks,
            self.import_paths,
            self,
            imported=self.imported,
            remove=lambda path: self.library_actions.remove(path, False, confirm=False),
        ).open()

    def follow_folders(self) -> None:
        """File > Follow course folders: which courses import what appears in their folder."""
        from app.library.watch_folders import FollowDialog

        FollowDialog(self.library, self).open()

    # --- the library panel -----------------------------------------------------------------

    def refresh_library(self) -> None:
        """Re-read the whole library on a worker; the panel and course filter follow."""
        self.follower.reread()

    def _library_changed(self, changes: Changes) -> None:
        gone = {*changes.courses_removed, *(old for old, _new in changes.courses_renamed)}
        if gone and self.search_pane.filters().course in gone:
            self.panel.select_course(None)  # a filter on a course that is gone finds nothing
            self.search_pane.pick_course(None)
        if changes.removed:
            self.preview_pane.removed(changes.removed)
        if changes.files:
            self.preview_pane.restored(changes.files)
        self.follower.apply(changes)

    def _position_of(self, path: str) -> int | None:
        """Where a lecture was left, if the player remembers (it does beside the settings)."""
        memory = self.preview_pane.memory
        return memory.position(path) if memory is not None else None

    def _course_picked(self, name: object) -> None:
        """A course row picked in the panel filters the search (the chip above the results
        says so); a file row picked, to see or play it, does not."""
        items = self.panel.selectedItems()
        if items and items[0].parent() is not None:
            return
        self._course_before = self.search_pane.course_box.currentData()
        self.search_pane.pick_course(name)

    def _panel_double_clicked(self, item: QTreeWidgetItem) -> None:
        """A double-click on a course opens or closes it: the filter its first click set
        was not asked for."""
        if item.parent() is None:
            self.search_pane.pick_course(self._course_before)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.layout_.resized()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.layout_.shown()

    # --- search and opening a result ------------------------------------------------------

    def result_at(self, row: int) -> SearchResult | None:
        return self.search_pane.result_at(row)

    def row_widget(self, row: int) -> ResultRow | None:
        return self.search_pane.row_widget(row)

    def open_current(self) -> None:
        self.search_pane.open_current()

    def open_result(self, result: SearchResult) -> None:
        """Play a video hit from its time, show a slide page, or a file at the line."""
        self.preview_pane.show_result(result, shown_words(self.search_pane.query, result.language))
        self.opened.emit(result)

    def play(self, path: str, start_ms: int | None) -> None:
        """Open a lecture at a time (None: where it was left), with its transcript beside it."""
        self.preview_pane.play(path, start_ms)

    # --- settings ------------------------------------------------------------------------------

    def open_settings(self) -> None:
        if self.registry is not None and self.settings is not None:
            ask_settings(self, self.settings, self.registry, self.library)

    def _settings_changed(self, before: Settings, new: Settings) -> None:
        from app.settings_model import engine_config

        # The next import, search and re-index use them (an import running keeps its own).
        self.library.configure(engine_config(new, self.library.config))
        self.preview_pane.set_backend(new.player)
        if new.library_dir != before.library_dir:
            self.import_bar.status.setText("The new library folder is used from the next start.")

    # --- import ----------------------------------------------------------------------------

    @property
    def importing(self) -> bool:
        return self.import_bar.running

    def import_paths(self, paths: Sequence[Path], course: str | None = None) -> None:
        """Import in the background; paths dropped during a run wait for the next one."""
        self.import_bar.start(paths, course)

    def resume_pending(self) -> bool:
        """Finish the files an earlier run queued but did not index; False if none."""
        return self.import_bar.resume()

    def _import_progress(self, p: IngestProgress) -> None:
        self.follower.progress(FileState.of(p, file_state(p)))

    def _import_finished(self, outcome: object) -> None:
        self.panel.clear_live()
        report = outcome if isinstance(outcome, IngestReport) else None
        # What it changed, the stored states shown again; failed as a whole: all read again.
        self.library_changed.emit(report.changes if report is not None else Changes(whole=True))
        self.library_actions.import_ended(report)
        self.imported.emit(outcome)
        # The bar starts what waits its turn; else show what the import added.
        if not self.import_bar.waiting:
            self.follower.flush_search()

    def close_without_asking(self) -> None:
        """Close as Quit does, an import running included (it resumes at the next start):
        a signal to quit (SIGTERM at logout) cannot wait for an answer."""
        self._ask_before_closing = False
        self.close()

    def quit_question(self) -> str:
        return self.import_bar.quit_question()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Ask only when an import is running, saying what a quit leaves to resume."""
        if self.importing:
            answer = QMessageBox.StandardButton.Yes
            if self._ask_before_closing:
                answer = QMessageBox.question(self, "Import running", self.quit_question())
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
            self.import_bar.shutdown(30_000)
        self.layout_.save()
        self.preview_pane.shutdown()
        self.search_pane.stop()
        if not self.tasks.close(30_000):
            log.warning("a background task was still running when the window closed")
        event.accept()
