"""First steps: while the demo course imports, the preview and the status line say so (they
said "Nothing indexed yet. Drop…" under a bar saying "Importing 1/6"); once it is in, the
empty results list offers three of its example questions (resources/demo/queries.txt), each
a button that searches it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from app.accessible import describe
from app.library.import_bar import ImportBar
from app.library.panel import LibraryPanel
from app.search.results import OPEN_HINT
from engine.api import DEMO_COURSE, Course, demo_queries

if TYPE_CHECKING:
    from app.search.pane import SearchPane

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
_SETTLED = ("indexed", "error")  # a demo file no longer waiting for the import


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


class FirstSteps(QObject):
    """Says what the library holds while it is empty or the demo imports, and offers the
    demo's questions once it is in: the preview's hint, the status line, the examples."""

    def __init__(
        self, pane: SearchPane, placeholder: QLabel, panel: LibraryPanel, bar: ImportBar
    ) -> None:
        super().__init__(pane)
        self.pane = pane
        self.placeholder = placeholder
        self.panel = panel
        self.bar = bar
        bar.started.connect(self.refresh)

    def courses_read(self, courses: list[Course], files: int) -> None:
        """The panel read the library (app/library/changes.py): the search's course filter
        and what is said of the library follow."""
        self.pane.set_courses(courses, files)
        self.refresh()

    def refresh(self) -> None:
        pane, running, files = self.pane, self.bar.running, self.panel.file_count()
        demo = self.panel.paths_of(DEMO_COURSE)
        waiting = any(self.panel.state_of(path) not in _SETTLED for path in demo)
        demo_running = running and (self.bar.course == DEMO_COURSE or waiting)
        if demo_running:
            hint, line = DEMO_IMPORTING, f"Importing the demo course, “{DEMO_COURSE}”…"
        elif running:
            hint = line = IMPORTING
        else:
            hint = line = EMPTY_LIBRARY
        pane.say_when_empty(line)
        if not pane.query:  # else the preview shows a result, or says why it cannot
            self.placeholder.setText(hint if demo_running or not files else OPEN_HINT)
        pane.examples.offer(demo_queries()[:EXAMPLES] if demo and not demo_running else [])
        pane.examples.show_if(not pane.search.text().strip())
