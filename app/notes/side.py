"""The window's left side: the library panel and the Notes panel as two tabs (Ctrl+5 and
Ctrl+6 in the Go menu reach them, switching the tab: app/focus.py)."""

from __future__ import annotations

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QTabWidget, QWidget

from app.accessible import describe
from app.library.panel import LibraryPanel
from app.notes.panel import NotesPanel
from app.search.pane import SearchPane
from app.viewers.preview import PreviewPane
from engine.api import AddedNote


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
        slide, a file, a result's menu) shows in the panel, made current. What adding,
        editing or removing one changed goes out on ``library_changed``, the window's one
        notice, as every change to the library does: the panel reads its notes again when a
        change names them (a file gone or back changes what its notes show too), and the
        window's results follow (notes are found as bookmarks)."""
        notes = self.notes

        def added(note: AddedNote) -> None:
            notes.made_current(note.id)
            library_changed.emit(note.changes)

        notes.open_requested.connect(preview.open_note)
        notes.changed.connect(library_changed.emit)
        search.results.note_requested.connect(preview.note_at_result)

        preview.notes.added.connect(added)
        library_changed.connect(notes.apply)
