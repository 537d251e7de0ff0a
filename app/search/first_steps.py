"""First steps: while the demo course imports, the preview and the status line say so (they
said "Nothing indexed yet. Drop…" under a bar saying "Importing 1/6"); once it is in, the
empty results list offers three of its example questions (:mod:`app.search.examples`)."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel

from app.library.import_bar import ImportBar
from app.library.panel import LibraryPanel
from app.search.examples import DEMO_IMPORTING, EMPTY_LIBRARY, EXAMPLES, IMPORTING, SETTLED
from app.search.pane import SearchPane
from app.search.results import OPEN_HINT
from engine.api import DEMO_COURSE, Course, demo_queries


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
        waiting = any(self.panel.state_of(path) not in SETTLED for path in demo)
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
