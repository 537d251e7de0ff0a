"""The main window's three panes side by side (library, results, preview) and what the
window remembers between starts (app/window_state.py): each pane keeps a usable width, the
preview takes what a wider window adds, and the size, the splitter, the query, the history,
the courses open in the panel and the last folder come back at the next start."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtWidgets import QMainWindow, QSplitter, QWidget

from app.library.file_dialogs import FileDialogs
from app.library.panel import LibraryPanel
from app.panes import PREVIEW_LEAST, pane_widths, preview_wanted
from app.search.pane import SearchPane
from app.window_state import WindowState, load_state, place_window, save_state

log = logging.getLogger(__name__)


class PaneLayout:
    """The splitter's panes of ``window``, and its state kept in ``state_file`` (None:
    nothing is remembered)."""

    def __init__(
        self,
        window: QMainWindow,
        splitter: QSplitter,
        panel: LibraryPanel,
        search_pane: SearchPane,
        preview: QWidget,
        file_dialogs: FileDialogs,
        state_file: Path | None,
    ) -> None:
        self.window = window
        self.splitter = splitter
        self.panel = panel
        self.search_pane = search_pane
        self.preview = preview
        self.file_dialogs = file_dialogs
        self.state_file = state_file
        self.placed = False  # the splitter's sizes set for the shown window
        self._preview_wanted = 0

    def lay_out(self) -> None:
        """Each pane keeps a usable width (the results a readable column, the preview room
        for the video and its transcript); the preview takes what a wider window adds."""
        self.splitter.setChildrenCollapsible(False)
        self.panel.setMinimumWidth(120)
        self.search_pane.setMinimumWidth(280)
        self.preview.setMinimumWidth(PREVIEW_LEAST)
        self._preview_wanted = preview_wanted()
        for pane, stretch in enumerate((1, 2, 4)):  # a resized window resizes every pane
            self.splitter.setStretchFactor(pane, stretch)
        self.fit(self.window.width())

    def fit(self, width: int) -> None:
        panes = width - 2 * self.splitter.handleWidth()  # what the two handles leave
        self.splitter.setSizes(pane_widths(panes, self.panel.wanted_width(), self._preview_wanted))

    def resized(self) -> None:
        if not self.placed:  # until shown (or restored), fit the panes to the size
            self.fit(self.splitter.width() or self.window.width())

    def shown(self) -> None:
        if not self.placed:
            self.fit(self.splitter.width())
            self.placed = True

    def load(self) -> WindowState | None:
        if self.state_file is None or not self.state_file.exists():
            return None
        return load_state(self.state_file)

    def restore(self, state: WindowState) -> None:
        if not state.geometry.isEmpty():
            place_window(self.window, state.geometry)
        if not state.splitter.isEmpty() and self.splitter.restoreState(state.splitter):
            self.placed = True
        self.search_pane.restore(state.query, state.history)

    def save(self) -> None:
        if self.state_file is None:
            return
        pane = self.search_pane
        pane.history.add(pane.query)
        expanded, collapsed = self.panel.open_courses()
        state = WindowState(
            self.window.saveGeometry(),
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
