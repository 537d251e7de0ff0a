"""The note editor: one line for a note's text under the place it goes ("Note at
lecture-01 · 12:34"), empty to start; Enter saves, Esc cancels. A note that could not be
saved comes back with its text and the reason, so nothing typed is lost."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.accessible import describe
from app.player.keys import NOTE_KEY

MAX_NOTE_CHARS = 2_000  # a note is a line or two; the box stops there


class NoteEditor(QDialog):
    """Asks for a note's text; Save (the default button: Enter) is off while it is blank."""

    def __init__(
        self,
        where: str,
        text: str = "",
        *,
        error: str = "",
        editing: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit note" if editing else "Add note")
        self.place = QLabel(f"Note at {where}")
        self.place.setWordWrap(True)
        self.box = QLineEdit(text)
        self.box.setMaxLength(MAX_NOTE_CHARS)
        self.box.setPlaceholderText("What to remember here")
        describe(
            self.box,
            "Note",
            f"The note's text, kept at {where}. Enter saves it, Esc cancels.",
        )
        self.place.setBuddy(self.box)
        self.error = QLabel(error)
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #d9534f;")  # readable on the light and the dark theme
        self.error.setVisible(bool(error))
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.box.textChanged.connect(self._text_changed)
        self._text_changed(text)
        layout = QVBoxLayout(self)
        layout.addWidget(self.place)
        layout.addWidget(self.box)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.resize(440, self.sizeHint().height())

    def _text_changed(self, text: str) -> None:
        self.save_button.setEnabled(bool(text.strip()))

    def text(self) -> str:
        return self.box.text().strip()


def ask_note(
    parent: QWidget | None,
    where: str,
    text: str = "",
    *,
    error: str = "",
    editing: bool = False,
) -> str | None:
    """The text typed for a note at ``where``, or None when the user cancelled."""
    editor = NoteEditor(where, text, error=error, editing=editing, parent=parent)
    try:
        accepted = editor.exec() == QDialog.DialogCode.Accepted
        return editor.text() if accepted and editor.text() else None
    finally:
        editor.deleteLater()


def note_button(description: str) -> QPushButton:
    """The "Add note…" button of a viewer (a slide, a file): B does the same. Off until the
    viewer shows a page or a file (an empty viewer has no place for a note)."""
    button = QPushButton("Add note…")
    describe(button, "Add note", description, f"{description} ({NOTE_KEY})")
    button.setEnabled(False)
    return button
