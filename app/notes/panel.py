"""The Notes panel: the notes of every course, course by course in lecture order (file, then
time, page or line), each as its place and its text. A click or Enter opens the place; F2
edits a note and Delete removes it (after asking). It reads the library on the task pool,
whole, each time notes or files change (a course's notes are a few dozen rows).

The engine has no "edit": an edited note is added again at the same place with the new
text, then the old one is removed (so a failure loses nothing).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QFont, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.accessible import describe
from app.dialogs.confirm import confirmed
from app.notes.editor import ask_note
from app.notes.places import note_place
from app.notes.tree import NOTE_ID, NotesTree
from app.tasks import Failure, Tasks
from engine.api import AddedNote, Changes, Library, Note, plural

EMPTY = (
    "No notes yet. Press B in the player for a note at the moment playing; a result's "
    "menu, a slide and a file have “Add note” too."
)
EDIT_KEY, REMOVE_KEY = "F2", "Delete"


class NotesPanel(QWidget):
    """Every course's notes; ``open_requested`` asks the window to open a note's place."""

    open_requested = Signal(object)  # a Note
    changed = Signal(object)  # the Changes of a note edited or removed here

    def __init__(self, library: Library, tasks: Tasks, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.tasks = tasks
        self._notes: dict[int, Note] = {}
        self._wanted: int | None = None  # the note to make current at the next fill
        self._stale = True  # notes changed while the panel was hidden: read when shown
        self._filled = False  # the tree shows what the library said at least once
        self.tree = NotesTree()
        # One column, a note as its place over its text (app/notes/tree.py): beside a
        # column of places the text had the panel's last few letters.
        describe(
            self.tree,
            "Notes",
            "Your notes, course by course in lecture order. Enter opens a note's place, "
            f"{EDIT_KEY} edits it, {REMOVE_KEY} removes it; the menu key offers the same.",
        )
        self.tree.itemClicked.connect(self._activated)
        self.tree.itemActivated.connect(self._activated)
        self.tree.currentItemChanged.connect(lambda *_: self._update_buttons())
        self.tree.menu_wanted.connect(self._menu)
        for key, act in ((EDIT_KEY, self.edit_current), (REMOVE_KEY, self.remove_current)):
            shortcut = QShortcut(QKeySequence(key), self.tree)
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(act)
        self.empty = self.tree.empty  # "No notes yet…", inside the list
        self.empty.setText(EMPTY)
        self.status = QLabel()  # what failed
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #d9534f;")  # readable on the light and the dark theme
        self.status.hide()
        self.open_button = QPushButton("Open")
        self.edit_button = QPushButton("Edit…")
        self.remove_button = QPushButton("Remove")
        for button, tip, act in (
            (self.open_button, "Open the note's place (Enter)", self.open_current),
            (self.edit_button, f"Change the note's text ({EDIT_KEY})", self.edit_current),
            (self.remove_button, f"Remove the note ({REMOVE_KEY})", self.remove_current),
        ):
            button.setToolTip(tip)
            button.clicked.connect(act)
            button.setMinimumWidth(24)  # a narrow panel clips them rather than widen the window
        self._lay_out()
        self._update_buttons()

    def _lay_out(self) -> None:
        buttons = QHBoxLayout()
        buttons.setContentsMargins(4, 0, 4, 4)
        for button in (self.open_button, self.edit_button, self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.tree, 1)
        column.addWidget(self.status)
        column.addLayout(buttons)
        self.setFocusProxy(self.tree)

    # --- reading the library ---------------------------------------------------------------

    def refresh(self, current: int | None = None) -> None:
        """Read the notes again on a worker (once shown, if hidden now); ``current`` (a
        note's id) is made current."""
        if current is not None:
            self._wanted = current
        self._stale = not self.isVisible()
        if self._stale:
            return
        library = self.library
        self.tasks.run(library.notes, self.show_notes, self._read_failed)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def _read_failed(self, failure: Failure) -> None:
        self.say(f"Cannot read the notes: {failure.message}")

    def show_notes(self, notes: Sequence[Note]) -> None:
        """Fill the tree with ``notes`` (in lecture order already), keeping the current note;
        the same notes again leave the rows as they are (and where they are scrolled)."""
        if self._filled and list(notes) == self.notes() and self._wanted is None:
            return
        self._filled = True
        current = self._wanted if self._wanted is not None else self.current_note_id()
        self._wanted = None
        self._notes = {note.id: note for note in notes}
        self.tree.clear()
        course_item: QTreeWidgetItem | None = None
        bold = QFont(self.tree.font())
        bold.setBold(True)
        for note in notes:
            if course_item is None or course_item.text(0) != note.course:
                course_item = QTreeWidgetItem(self.tree, [note.course])
                course_item.setFont(0, bold)
                course_item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                course_item.setExpanded(True)
            place = note_place(note)
            item = QTreeWidgetItem(course_item, [f"{place}\n{note.text}"])
            item.setData(0, NOTE_ID, note.id)
            item.setData(0, Qt.ItemDataRole.AccessibleTextRole, f"{place}: {note.text}")
            item.setToolTip(0, note.text)
            if note.id == current:
                self.tree.setCurrentItem(item)
        for course in self._courses():
            said = f"{course.text(0)}, {plural(course.childCount(), 'note')}"
            course.setData(0, Qt.ItemDataRole.AccessibleTextRole, said)
        self.tree.expandAll()
        self.empty.setText(EMPTY)
        self.empty.setVisible(not notes)
        self._update_buttons()

    # --- the current note ------------------------------------------------------------------

    def notes(self) -> list[Note]:
        """The notes shown, in their order."""
        return list(self._notes.values())

    def current_note_id(self) -> int | None:
        item = self.tree.currentItem()
        return None if item is None else item.data(0, NOTE_ID)

    def current_note(self) -> Note | None:
        note_id = self.current_note_id()
        return None if note_id is None else self._notes.get(note_id)

    def select(self, note_id: int) -> bool:
        """Make the note ``note_id`` current (False: it is not shown)."""
        for item in self.note_rows():
            if item.data(0, NOTE_ID) == note_id:
                self.tree.setCurrentItem(item)
                return True
        return False

    def _courses(self) -> list[QTreeWidgetItem]:
        tree = self.tree
        rows = (tree.topLevelItem(n) for n in range(tree.topLevelItemCount()))
        return [row for row in rows if row is not None]

    def note_rows(self) -> list[QTreeWidgetItem]:
        """The notes' rows, in order."""
        rows = (course.child(n) for course in self._courses() for n in range(course.childCount()))
        return [row for row in rows if row is not None]

    def _update_buttons(self) -> None:
        note = self.current_note()
        here = note is not None and note.source_path is not None
        self.open_button.setEnabled(here)
        self.edit_button.setEnabled(here)
        self.remove_button.setEnabled(note is not None)

    def _activated(self, item: QTreeWidgetItem) -> None:
        note = self._notes.get(item.data(0, NOTE_ID))
        if note is not None and note.source_path is not None:
            self.open_requested.emit(note)

    def open_current(self) -> None:
        item = self.tree.currentItem()
        if item is not None:
            self._activated(item)

    def _menu(self, at: QPoint) -> None:
        menu = QMenu(self.tree)
        for text, keys, act, button in (
            ("Open", "Return", self.open_current, self.open_button),
            ("Edit…", EDIT_KEY, self.edit_current, self.edit_button),
            ("Remove", REMOVE_KEY, self.remove_current, self.remove_button),
        ):
            action = menu.addAction(text, act)
            action.setShortcut(QKeySequence(keys))  # shown in the menu; the tree's keys do it
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            action.setEnabled(button.isEnabled())
        menu.exec(self.tree.viewport().mapToGlobal(at))
        menu.deleteLater()

    # --- edit and remove -------------------------------------------------------------------

    def edit_current(self, error: str = "", text: str | None = None) -> None:
        """Ask for the note's new text; it replaces the note (added again, the old removed)."""
        note = self.current_note()
        if note is None or note.source_path is None:
            return
        typed = ask_note(
            self.window(),
            note_place(note),
            note.text if text is None else text,
            error=error,
            editing=True,
        )
        if typed is None or typed == note.text:
            return
        library, place, source = self.library, note.place, note.source_path

        def replace() -> tuple[AddedNote, Changes]:
            new = library.add_note(
                source,
                typed,
                at_ms=place.at_ms,
                page=place.page,
                line=place.line,
                path_in_archive=place.path_in_archive,
            )
            return new, new.changes | library.remove_note(note.id)

        def failed(failure: Failure) -> None:
            if self.select(note.id):
                self.edit_current(f"Not saved: {failure.message}", typed)

        self.tasks.run(replace, lambda done: self._done(done[0].id, done[1]), failed)

    def remove_current(self) -> None:
        """Remove the current note, once the user says yes."""
        note = self.current_note()
        if note is None:
            return
        asked = f"Remove the note at {note_place(note)}?\n\n“{note.text}”"
        if not confirmed(self.window(), "Remove note", asked):
            return
        items = self.note_rows()
        at = next(n for n, item in enumerate(items) if item.data(0, NOTE_ID) == note.id)
        after = [item.data(0, NOTE_ID) for item in (items[at + 1 :] + items[:at][::-1])]
        library = self.library
        self.tasks.run(
            lambda: library.remove_note(note.id),
            lambda removed: self._done(after[0] if after else None, removed),
            lambda failure: self.say(f"Cannot remove the note: {failure.message}"),
        )

    def _done(self, current: int | None, changes: Changes) -> None:
        """A note edited or removed: the next one (``current``) is current after the read
        that follows its ``changes`` (relayed by the window: :meth:`apply`)."""
        self.say("")
        self.made_current(current)
        self.changed.emit(changes)

    def made_current(self, note_id: int | None) -> None:
        """Make ``note_id`` current at the next read of the notes (None: keep the current)."""
        if note_id is not None:
            self._wanted = note_id

    def apply(self, changes: Changes) -> None:
        """A change to the library: the notes are read again only when it names them."""
        if changes.notes:
            self.refresh()

    def say(self, text: str) -> None:
        self.status.setText(text)
        self.status.setVisible(bool(text))
