"""The files an import could not read, each with its reason: what the import bar's "Show the
errors" opens. The text can be selected and copied whole (to ask for help, or to search for a
reason), and nothing in it is cut: the status line elides, this list does not."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.accessible import describe
from engine.api import FileResult, member_place, plural, printable, shown_name


def errors_text(errors: Sequence[FileResult]) -> str:
    """Each file's name, its reason on the next line, then where it is (a zip's file: its
    place in the zip, and the zip)."""
    return "\n\n".join(
        f"{printable(shown_name(f.path))}\n    {f.detail or 'unknown error'}\n"
        f"    in {printable(_where(f.path))}"
        for f in errors
    )


def _where(path: str) -> str:
    member = member_place(path)
    return str(Path(path).parent) if member is None else f"the archive {member[0]}"


class ImportErrorsDialog(QDialog):
    """The list, selectable, with Copy (all of it) and Close."""

    def __init__(self, errors: Sequence[FileResult], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Files not imported")
        count = plural(len(errors), "file")
        heading = QLabel(f"{count} could not be imported:")
        self.text = QPlainTextEdit(errors_text(errors))
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        describe(
            self.text,
            "Files not imported, with their reasons",
            "One file a line with why it was not imported.",
        )
        heading.setBuddy(self.text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = QPushButton("&Copy")
        self.copy_button.setToolTip("Copy the whole list")
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self.resize(640, 360)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.text.toPlainText())
        self.copy_button.setText("Copied")
