"""The demo's example questions (resources/demo/queries.txt) offered in the empty results
list, each a button that searches it; and what the empty list says. When they are offered:
:mod:`app.search.first_steps`."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from app.accessible import describe
from engine.api import DEMO_COURSE

EMPTY_LIBRARY = (
    "Nothing indexed yet. Drop lecture videos, slide decks, code archives or notes here."
)
EXAMPLES = 3  # the first three of queries.txt: the lecture, the code, the slides
DEMO_IMPORTING = (
    f"The demo course, “{DEMO_COURSE}”, is being imported: its notes, slides and code are "
    "searchable in a moment, its lecture once it is transcribed. Meanwhile, drop your own "
    "lecture videos, slide decks, code or notes here."
)
IMPORTING = "Importing: each file is searchable as soon as it is indexed."
SETTLED = ("indexed", "error")  # a demo file no longer waiting for the import


class ExampleQuestions(QWidget):
    """Questions to try, shown over an empty results list (a child of its viewport, sized
    with it); ``asked`` says which was clicked."""

    asked = Signal(str)

    def __init__(self, viewport: QWidget) -> None:
        super().__init__(viewport)
        self.title = QLabel("Try a question on the demo course:")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title.setWordWrap(True)
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(24, 24, 24, 24)
        self._column.addStretch(1)
        self._column.addWidget(self.title)
        self._column.addStretch(1)
        self.buttons: list[QPushButton] = []
        viewport.installEventFilter(self)
        self.hide()

    def offer(self, questions: Sequence[str]) -> None:
        if [b.text() for b in self.buttons] == list(questions):
            return
        for button in self.buttons:
            button.deleteLater()
        self.buttons = []
        for question in questions:
            button = QPushButton(question)
            describe(button, question, "Search the demo course for this question.")
            button.clicked.connect(lambda _=False, q=question: self.asked.emit(q))
            self._column.insertWidget(self._column.count() - 1, button)
            self.buttons.append(button)

    def show_if(self, wanted: bool) -> None:
        """Shown when ``wanted`` and there is something to offer."""
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(parent.rect())
        self.setVisible(wanted and bool(self.buttons))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize:
            self.setGeometry(watched.rect())  # type: ignore[attr-defined]
        return super().eventFilter(watched, event)
