"""The window's left side: the library panel and the Notes panel as two tabs (Ctrl+5 and
Ctrl+6 in the Go menu reach them, switching the tab: app/focus.py)."""

from __future__ import annotations

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QTabWidget, QWidget

from app.accessible import describe
from app.library.changes import FileState
from app.library.panel import LibraryPanel
from app.notes.panel import NotesPanel
from app.search.pane import SearchPane
from app.viewers.preview import PreviewPane
from engine.api import Note


class SideTabs(QTabWidget):
    """Library | Notes; the Notes tab reads the notes again each time it is shown."""

    def __init__(
        self, panel: LibraryPanel, notes: NotesPanel, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.panel = panel
        self.notes = notes
        self.setDocumentMode(True)
        self.addTab(panel, "Library")
        self.addTab(notes, "Notes")
        if not panel.accessibleName():  # the panel may name itself; else the side does
            describe(
                panel,
                "Library",
                "Your courses and their files; picking a course searches only it. The menu "
                "key offers a row's actions.",
            )
        describe(
            self.tabBar(),
            "Library or notes",
            "Library: your courses and their files. Notes: your notes on moments, pages "
            "and lines. Left and Right switch.",
        )

    def connect_notes(
        self, preview: PreviewPane, search: SearchPane, library_changed: SignalInstance
    ) -> None:
        """A note opened in the panel opens in ``preview``; one added there (the player, a
        slide, a file, a result's menu) shows in the panel. A note added, edited or removed
        runs the search again (notes are found as bookmarks), and a file gone or back
        changes what its notes show (``library_changed``, the window's one notice)."""
        notes = self.notes

        def added(note: Note) -> None:
            notes.refresh(note.id)
            search.refresh()

        notes.open_requested.connect(preview.open_note)
        notes.changed.connect(search.refresh)
        search.results.note_requested.connect(preview.note_at_result)

        preview.notes.added.connect(added)
        library_changed.connect(lambda change: isinstance(change, FileState) or notes.refresh())
