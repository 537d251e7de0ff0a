"""The main window: the library panel, the search pane, the preview and the import bar.
Files dropped anywhere on it are imported in the background.

It composes the parts and wires them: the panel's course picks the search's course, a
result asked for opens in the preview. What changes the library (an import's progress and
end, the panel's actions, followed folders) is told once, by ``library_changed``; the panel
follows row by row and the results when they can change (app/library/changes.py). The
helpers get only what they use, never the window. Background work goes through ``tasks``
(imports through the bar's own pool), so the window never waits on the engine.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.focus import focus_into, mention_key
from app.library.actions import LibraryActions
from app.library.changes import (
    FilesChanged,
    FileState,
    LibraryChange,
    LibraryFollower,
    Removed,
    Reread,
)
from app.library.drops import DropTarget
from app.library.file_dialogs import FileDialogs
from app.library.import_bar import ImportBar, file_state
from app.library.outside_changes import OutsideChanges
from app.library.pack_export import PackExport
from app.library.pack_import import PackImport
from app.library.panel import LibraryPanel
from app.notes.panel import NotesPanel
from app.notes.side import SideTabs
from app.panes import PREVIEW_LEAST, pane_widths, preview_wanted
from app.player.memory import PlaybackMemory
from app.search.examples import EMPTY_LIBRARY
from app.search.first_steps import FirstSteps
from app.search.pane import SEARCH_SHORTCUTS, SearchPane
from app.search.results import ResultRow
from app.tasks import Tasks
from app.viewers.preview import PreviewPane
from app.window_state import WindowState, load_state, place_window, save_state, state_path
from engine.api import (
    IngestProgress,
    IngestReport,
    Library,
    ModelRegistry,
    SearchResult,
    shown_words,
)

if TYPE_CHECKING:
    from app.settings_model import AppSettings, Settings

__all__ = ["EMPTY_LIBRARY", "SearchWindow"]

log = logging.getLogger(__name__)


class SearchWindow(QMainWindow):
    """Library panel, search with filters and results, and a preview that plays the hit."""

    imported = Signal(object)  # IngestReport (or an error message) when an import ends
    opened = Signal(object)  # the SearchResult shown in the preview
    library_changed = Signal(object)  # a LibraryChange: what changed in the library

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
        self._panes_placed = False  # the splitter's sizes set for the shown window
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
        backend = settings.current.player if settings is not None else player_backend
        self.preview_pane = PreviewPane(library, self.tasks, backend=backend, vlc_args=vlc_args)
        if settings_path is not None:  # speed and positions, beside the settings
            self.preview_pane.memory = PlaybackMemory.beside(settings_path)
        # Space, Left, Right reach the player from the search box: see app/player/keys.py.
        self.preview_pane.keys_from = self.search_pane.search
        self.import_bar = ImportBar(library)
        self.import_bar.started.connect(lambda: self.panel.set_importing(True))
        self.import_bar.progress_reported.connect(self._import_progress)
        self.import_bar.finished.connect(self._import_finished)
        self.follower = LibraryFollower(
            library, self.tasks, self.panel, lambda: self.importing, self
        )
        self.first_steps = FirstSteps(  # what is said while the library is empty, examples
            self.search_pane, self.preview_pane.placeholder, self.panel, self.import_bar
        )
        self.follower.courses_read.connect(self.first_steps.courses_read)
        self.follower.search_due.connect(self.search_pane.refresh)
        self.follower.failed.connect(self.search_pane.status.setText)
        self.library_changed.connect(self._library_changed)
        self.panel.play_requested.connect(lambda path: self.play(path, None))  # where left
        self.panel.play_from_start.connect(lambda path: self.play(path, 0))
        self.panel.position_of = self._position_of
        self.file_dialogs = FileDialogs(self)  # in the last folder used, kept between starts
        self.library_actions = LibraryActions(  # open, export, remove from the panel
            self.panel,
            library,
            self.tasks,
            importing=lambda: self.importing,
            say=self.import_bar.say,
            changed=self.library_changed.emit,
            dialogs=self.file_dialogs,
            import_again=self.import_bar.import_again,
            parent=self,
        )

        self.pack_import = PackImport(  # File > Import course pack…, on the bar's worker
            library, self.import_bar, self.file_dialogs, self.library_changed.emit, self
        )
        self.pack_export = PackExport(library, self.import_bar, self.file_dialogs, self.panel, self)
        self.preview_pane.missing.linked.connect(self.pack_import.located)
        self.notes_panel = NotesPanel(library, self.tasks)  # a tab beside the library's
        self.side = SideTabs(self.panel, self.notes_panel)
        self.side.connect_notes(self.preview_pane, self.search_pane, self.library_changed)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.side)
        self.splitter.addWidget(self.search_pane)
        self.splitter.addWidget(self.preview_pane)
        self._lay_out_panes()
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.import_bar)
        self.setCentralWidget(body)
        self.drops = DropTarget(self, body, self.pack_import.take_packs, self.import_paths)
        self._menus()
        self.state_file = window_state or state_path(settings_path)
        remembered = self._load_state()
        if remembered is not None:  # before the first fill, which opens them so
            self.panel.remember_open(remembered.expanded, remembered.collapsed)
            self.file_dialogs.last_folder = remembered.folder
        # What another process adds (`coursedex ingest` in a terminal) shows here too; its
        # first read goes before the panel's.
        self.outside_changes = OutsideChanges(
            library, self.tasks, self.library_changed.emit, lambda: self.importing, self
        )
        self.outside_changes.committed.connect(self.notes_panel.refresh)  # notes added there
        self.outside_changes.start()
        self.refresh_library()
        self.search_pane.status.setText("")
        self.search_pane.search.setFocus()
        if remembered is not None:
            self._restore_state(remembered)

    def _menus(self) -> None:
        menu = self.menuBar().addMenu("&File")
        menu.addAction("Add &files…", QKeySequence.StandardKey.Open, self._add_files)
        menu.addAction("Add f&older…", self._add_folder)
        menu.addAction("Add from &URL…", self.add_from_url)
        menu.addAction("Follow course &folders…", self.follow_folders)
        menu.addAction("Import course &pack…", self.pack_import.choose)
        menu.addAction("&Export course pack…", lambda: self.pack_export.choose())
        menu.addSeparator()
        settings = menu.addAction("&Settings…", self.open_settings)
        settings.setShortcut(QKeySequence.StandardKey.Preferences)
        settings.setEnabled(self.registry is not None)
        menu.addSeparator()
        menu.addAction("&Quit", QKeySequence.StandardKey.Quit, self.close)
        self._go_menu()
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction("&Keyboard shortcuts", self.show_shortcuts)
        help_menu.addAction("&About Coursedex", self.show_about)

    def _go_menu(self) -> None:
        """A key to each part of the window, in the Tab order (tests/app/
        test_accessibility.py): the menu shows them, and a screen reader reads the menu."""
        menu = self.menuBar().addMenu("&Go")
        pane = self.search_pane
        search = menu.addAction("&Search box", pane.focus_search)
        search.setShortcuts([QKeySequence(keys) for keys in SEARCH_SHORTCUTS])
        for text, keys, part, tooltip in (
            ("&Course filter", "Ctrl+1", pane.course_box, True),
            ("&Kind filter", "Ctrl+2", pane.kind_box, True),
            ("&Results", "Ctrl+3", pane.results, False),
            ("&Preview", "Ctrl+4", self.preview_pane, False),
            ("&Library", "Ctrl+5", self.panel, False),
            ("&Notes", "Ctrl+6", self.notes_panel.tree, False),
        ):
            action = menu.addAction(text, QKeySequence(keys), lambda p=part: focus_into(p))
            mention_key(part, action.shortcut(), tooltip=tooltip)

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

    def show_shortcuts(self) -> None:
        from app.player.keys import ShortcutsDialog, menu_keys
        from app.search.result_list import PANE_KEYS

        dialog = ShortcutsDialog(self, [*menu_keys(self.menuBar()), *PANE_KEYS])
        dialog.exec()
        dialog.deleteLater()

    def show_about(self) -> None:
        from app.dialogs.about import (
            AboutDialog,  # imports the model libraries to read their versions
        )

        dialog = AboutDialog(self.library.folder, self.registry or self.library.models, self)
        dialog.exec()
        dialog.deleteLater()

    # --- the library panel -----------------------------------------------------------------

    def refresh_library(self) -> None:
        """Re-read the whole library on a worker; the panel and course filter follow."""
        self.follower.reread()

    def _library_changed(self, change: LibraryChange) -> None:
        gone = isinstance(change, Removed) and change.is_course and change.target
        if gone and self.search_pane.filters().course == gone:
            self.panel.select_course(None)  # a filter on a course that is gone finds nothing
            self.search_pane.pick_course(None)
        if isinstance(change, Removed):  # before its rows go: a course's files are read there
            paths = self.panel.paths_of(change.target) if change.is_course else [change.target]
            self.preview_pane.removed(paths)
        elif isinstance(change, FilesChanged):
            self.preview_pane.restored(change.paths)
        self.follower.apply(change)

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

    # --- the panes' layout, and what the window remembers -------------------------------

    def _lay_out_panes(self) -> None:
        """Each pane keeps a usable width (the results a readable column, the preview room
        for the video and its transcript); the preview takes what a wider window adds."""
        self.splitter.setChildrenCollapsible(False)
        self.panel.setMinimumWidth(120)
        self.search_pane.setMinimumWidth(280)
        self.preview_pane.setMinimumWidth(PREVIEW_LEAST)
        self._preview_wanted = preview_wanted()
        for pane, stretch in enumerate((1, 2, 4)):  # a resized window resizes every pane
            self.splitter.setStretchFactor(pane, stretch)
        self._fit_panes(self.width())

    def _fit_panes(self, width: int) -> None:
        panes = width - 2 * self.splitter.handleWidth()  # what the two handles leave
        self.splitter.setSizes(pane_widths(panes, self.panel.wanted_width(), self._preview_wanted))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self._panes_placed:  # until shown (or restored), fit the panes to the size
            width = self.splitter.width() or self.width()
            self._fit_panes(width)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._panes_placed:
            self._fit_panes(self.splitter.width())
            self._panes_placed = True

    def _load_state(self) -> WindowState | None:
        if self.state_file is None or not self.state_file.exists():
            return None
        return load_state(self.state_file)

    def _restore_state(self, state: WindowState) -> None:
        if not state.geometry.isEmpty():
            place_window(self, state.geometry)
        if not state.splitter.isEmpty() and self.splitter.restoreState(state.splitter):
            self._panes_placed = True
        self.search_pane.restore(state.query, state.history)

    def _save_state(self) -> None:
        if self.state_file is None:
            return
        pane = self.search_pane
        pane.history.add(pane.query)
        expanded, collapsed = self.panel.open_courses()
        state = WindowState(
            self.saveGeometry(),
            self.splitter.saveState(),
            pane.query,
            tuple(pane.history.entries),
            tuple(expanded),
            tuple(collapsed),
            self.file_dialogs.last_folder,
        )
        try:
            self.state_file.parent.mkdir(parents=True, exist_ok=True)
            save_state(self.state_file, state)
        except OSError as e:  # a read-only config folder: nothing is remembered, no harm
            log.warning("cannot save the window's state to %s: %s", self.state_file, e)

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
        from app.dialogs.settings import SettingsDialog, apply_theme

        if self.registry is None or self.settings is None:
            return
        now = self.settings.current
        dialog = SettingsDialog(now, self.registry, self, in_use=self.library.folder)
        accepted = dialog.exec() == QDialog.DialogCode.Accepted
        new = dialog.settings()
        dialog.deleteLater()
        apply_theme(QApplication.instance(), (new if accepted else now).theme)  # type: ignore[arg-type]
        if accepted:
            self.settings.change(new)  # saved; _settings_changed follows

    def _settings_changed(self, before: Settings, new: Settings) -> None:
        from app.settings_model import engine_config

        # The next import, search and re-index use them (an import running keeps its own).
        self.library.configure(engine_config(new, self.library.config))
        self.preview_pane.set_backend(new.player)
        if new.library_dir != before.library_dir:
            self.import_bar.status.setText("The new library folder is used from the next start.")

    # --- import ----------------------------------------------------------------------------

    def _add_files(self) -> None:
        if paths := self.file_dialogs.files_to_import():
            self.import_paths(paths)

    def _add_folder(self) -> None:
        if folder := self.file_dialogs.folder_to_import():
            self.import_paths([folder])

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
        self.library_changed.emit(FileState.of(p, file_state(p)))

    def _import_finished(self, outcome: object) -> None:
        self.panel.clear_live()
        if isinstance(outcome, IngestReport):  # the stored states show again
            self.library_changed.emit(FilesChanged(tuple(f.path for f in outcome.files)))
        else:  # the import failed as a whole
            self.library_changed.emit(Reread())
        self.library_actions.import_ended()
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
        return self.import_bar.quit_question(self.library_actions.stopped_paths)

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
        self.library_actions.remove_pending_now()  # asked for during the import just stopped
        self._save_state()
        self.preview_pane.shutdown()
        self.search_pane.stop()
        if not self.tasks.close(30_000):
            log.warning("a background task was still running when the window closed")
        event.accept()
