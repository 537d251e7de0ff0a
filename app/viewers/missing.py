"""A file the library knows that is not on this computer: a course pack's lecture whose video
was not found when the pack was imported, or a file moved or deleted since. The preview
says so, where it was expected, and offers "Locate…": a file dialog; the file chosen is
linked only when its content is that file's (sha256), then opened where the hit was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from app.accessible import describe
from app.tasks import Failure, Tasks
from engine.api import Library, Located, locate_file, printable


class MissingFile(QWidget):
    """The page the preview shows for a file that is not here, with its Locate… button."""

    linked = Signal(object)  # the Changes of linking the file chosen in place of the path

    def __init__(self, library: Library, tasks: Tasks, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.tasks = tasks
        self.path = ""
        self._reopen: Callable[[str], None] = lambda _path: None
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.locate_button = QPushButton("Locate…")
        self.locate_button.clicked.connect(self.locate)
        describe(
            self.locate_button,
            "Locate the file",
            "Choose your copy of this file; it is checked by its content, then opened here.",
        )
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setAlignment(Qt.AlignmentFlag.AlignCenter)
        column = QVBoxLayout(self)
        column.addStretch(1)
        column.addWidget(self.message)
        column.addWidget(self.locate_button, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addWidget(self.status)
        column.addStretch(1)

    def show_for(self, path: str, reopen: Callable[[str], None]) -> None:
        """Say that ``path`` is not here; ``reopen(new_path)`` shows it once located."""
        self.path, self._reopen = path, reopen
        where = Path(path)
        self.message.setText(
            f"“{printable(where.name)}” is not on this computer.\n"
            f"It was expected in {printable(str(where.parent))}.\n\n"
            "Its text is searchable all the same. Locate your copy to play or open it: "
            "it is checked by its content, so a renamed copy is found."
        )
        self.status.setText("")
        self.locate_button.setEnabled(True)

    def locate(self) -> None:
        chosen = self._choose()
        if chosen is None:
            return
        library, path = self.library, self.path
        self.locate_button.setEnabled(False)
        self.status.setText(f"Checking {printable(chosen.name)}…")

        def done(located: Located) -> None:
            self.status.setText("")
            self.locate_button.setEnabled(True)
            self.linked.emit(located.changes)
            self._reopen(located.source.path)

        def failed(failure: Failure) -> None:
            self.locate_button.setEnabled(True)
            self.status.setText(failure.message)

        self.tasks.run(lambda: locate_file(library, path, chosen), done, failed)

    def _choose(self) -> Path | None:
        name = Path(self.path).name
        suffix = Path(name).suffix
        dialog = QFileDialog(self, f"Locate “{name}”", str(Path.home()))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        if suffix:
            dialog.setNameFilters([f"{name} and others like it (*{suffix})", "All files (*)"])
        try:
            if not dialog.exec() or not dialog.selectedFiles():
                return None
            return Path(dialog.selectedFiles()[0])
        finally:
            dialog.deleteLater()
