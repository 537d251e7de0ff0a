"""A chip above the results while a course filter is on: "Only in “Zoology”", with a button
that searches every course again (so a filter picked in the library panel is never silent)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget


class FilterChip(QFrame):
    cleared = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.clear_button = QToolButton()
        self.clear_button.setText("Search &all courses")  # Alt+A
        self.clear_button.setToolTip("Clear the course filter (Alt+A)")
        self.clear_button.setAutoRaise(True)
        self.clear_button.clicked.connect(self.cleared)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 2, 2, 2)
        row.addWidget(self.label, 1)
        row.addWidget(self.clear_button)
        self.hide()

    def show_course(self, course: str | None) -> None:
        """Show the chip for ``course``, or hide it when every course is searched."""
        if course is None:
            self.hide()
            return
        self.label.setText(f"Only in “{course}”")
        self.label.setToolTip(f"Results come from the course “{course}” only.")
        self.show()
