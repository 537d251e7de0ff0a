"""The search pane: a box focused on start, course and kind filters, and results that follow
the typing, with a status line under them.

Searches run on a worker (the model loads there on first use); each keystroke restarts a
short debounce timer, and results of an older query than the newest are dropped, so the
window never waits on the engine.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QIcon, QImage, QKeySequence, QPainter, QPalette, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.results import KIND_GLYPHS, KIND_NAMES, ResultRow, thumbnail
from app.tasks import Failure, Tasks
from engine.api import Course, Library, SearchFilters, SearchResult, SegmentKind

log = logging.getLogger(__name__)

DEBOUNCE_MS = 120
RESULT_LIMIT = 20
ROW_BATCH = 4  # result rows added per turn of the event loop
EMPTY_LIBRARY = (
    "Nothing indexed yet. Drop lecture videos, slide decks, code archives or notes here."
)

# results, their thumbnails by segment id, the search's time in ms, and whether it was gated
Found = tuple[list[SearchResult], dict[int, QImage | None], float, bool]


class SearchPane(QWidget):
    """Search box, filters, results and the status line; asks for a result to be opened."""

    open_requested = Signal(object)  # the SearchResult to show in the preview

    def __init__(self, library: Library, tasks: Tasks, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.tasks = tasks
        self._icons = self._kind_icons()
        self.search = QLineEdit(placeholderText="Search your courses")
        self.search.setClearButtonEnabled(True)
        self.search.installEventFilter(self)
        self.course_box = QComboBox()
        self.course_box.addItem("All courses", None)
        self.kind_box = QComboBox()
        self.kind_box.addItem("All kinds", None)
        for kind in SegmentKind:
            self.kind_box.addItem(KIND_NAMES[kind], kind.value)  # Qt keeps enums as plain str
        self.results = self._result_list()
        # Why the list is empty, said inside it ("Nothing in your library is close to …").
        self.empty_note = QLabel(self.results.viewport())
        self.empty_note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_note.setWordWrap(True)
        self.empty_note.setMargin(24)
        self.empty_note.hide()
        self.status = QLabel()
        self.status.setWordWrap(True)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.search)
        filters = QHBoxLayout()
        filters.addWidget(self.course_box, 1)
        filters.addWidget(self.kind_box, 1)
        column.addLayout(filters)
        column.addWidget(self.results, 1)
        column.addWidget(self.status)

        self._relayout = QTimer(self, singleShot=True, interval=60)
        self._relayout.timeout.connect(self._relayout_rows)
        self._generation = 0
        self.query = ""  # the query of the results shown (or being searched)
        self._sources = 0
        self._rows: list[tuple[SearchResult, QImage | None]] = []  # rows still to add
        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(self.start_search)
        self.search.textChanged.connect(self._debounce.start)
        self.course_box.currentIndexChanged.connect(self._filters_changed)
        self.kind_box.currentIndexChanged.connect(self._filters_changed)
        for keys in ("Ctrl+F", "Ctrl+L"):
            QShortcut(QKeySequence(keys), self).activated.connect(self.focus_search)
        # Esc clears the query only in the box: elsewhere (the player, the results) it must
        # not wipe the query and results (issue 14, item 13).
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self.search)
        escape.setContext(Qt.ShortcutContext.WidgetShortcut)
        escape.activated.connect(self._escape)

    def _result_list(self) -> QListWidget:
        results = QListWidget()
        results.setWordWrap(True)
        results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        results.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
        # A scroll bar that comes and goes would change the width rows were wrapped for.
        results.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        results.viewport().installEventFilter(self)
        results.itemActivated.connect(self._activated)
        results.itemClicked.connect(self._activated)
        return results

    def _kind_icons(self) -> dict[SegmentKind, QIcon]:
        """A glyph per kind, drawn in the palette's text colour (legible light and dark)."""
        colour = self.palette().color(QPalette.ColorRole.WindowText)
        icons: dict[SegmentKind, QIcon] = {}
        for kind, glyph in KIND_GLYPHS.items():
            pixmap = QPixmap(40, 40)
            pixmap.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pixmap)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            font = QFont(self.font())
            font.setPixelSize(30 if len(glyph) == 1 else 20)
            font.setBold(True)
            painter.setFont(font)
            painter.setPen(colour)
            painter.drawText(pixmap.rect(), Qt.AlignmentFlag.AlignCenter, glyph)
            painter.end()
            icons[kind] = QIcon(pixmap)
        return icons

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._icons = self._kind_icons()
            for row in range(self.results.count()):
                widget = self.row_widget(row)
                if widget is not None:
                    widget.icon.setPixmap(self._icons[widget.result.kind].pixmap(20, 20))
        super().changeEvent(event)

    def _row_width(self) -> int:
        return max(240, self.results.viewport().width() - 2)

    def _relayout_rows(self) -> None:
        """Rows wrap to the list's width: after a resize their heights change."""
        self.empty_note.setGeometry(self.results.viewport().rect())
        width = self._row_width()
        for row in range(self.results.count()):
            item, widget = self.results.item(row), self.row_widget(row)
            if item is not None and widget is not None:
                item.setSizeHint(QSize(width, widget.height_for(width)))

    # --- what the library holds -----------------------------------------------------------

    def set_courses(self, courses: Sequence[Course], sources: int) -> None:
        """The course filter follows the library, keeping the course picked."""
        current = self.course_box.currentData()
        self.course_box.blockSignals(True)
        self.course_box.clear()
        self.course_box.addItem("All courses", None)
        for course in sorted(courses, key=lambda c: c.name.casefold()):
            self.course_box.addItem(course.name, course.name)
        index = self.course_box.findData(current)
        self.course_box.setCurrentIndex(max(0, index))
        self.course_box.blockSignals(False)
        self._sources = sources
        if not self.query:
            self.show_idle()

    def pick_course(self, name: object) -> None:
        index = self.course_box.findData(name)
        self.course_box.setCurrentIndex(max(0, index))

    def show_idle(self) -> None:
        self.status.setText(
            EMPTY_LIBRARY if not self._sources else f"{self._sources} files in the library"
        )

    # --- search ------------------------------------------------------------------------------

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def _escape(self) -> None:
        self.search.clear()
        self.search.setFocus()

    def filters(self) -> SearchFilters:
        kind = self.kind_box.currentData()
        return SearchFilters(
            kinds=(SegmentKind(kind),) if kind else (), course=self.course_box.currentData()
        )

    def _filters_changed(self) -> None:
        if self.search.text().strip():
            self.start_search()

    def stop(self) -> None:
        """A query typed just now must not start once the library may be closing."""
        self._debounce.stop()

    def start_search(self) -> None:
        self._generation += 1
        generation = self._generation
        query = self.query = self.search.text().strip()
        if not query:
            self.results.clear()
            self._note_empty("")
            self.show_idle()
            return
        self.status.setText("Searching…")
        library, filters = self.library, self.filters()

        def job() -> Found:
            outcome = library.search(query, limit=RESULT_LIMIT, filters=filters, typing=True)
            thumbs = {r.segment_id: thumbnail(r) for r in outcome.results}
            return outcome.results, thumbs, outcome.took_ms.get("total", 0.0), outcome.gated

        self.tasks.run(
            job, lambda found: self._show(generation, found), lambda f: self._failed(generation, f)
        )

    def _failed(self, generation: int, failed: Failure) -> None:
        if generation == self._generation:
            self.status.setText(failed.message)

    def _show(self, generation: int, found: Found) -> None:
        if generation != self._generation:
            return  # an older query finished after a newer one started
        results, thumbs, took, gated = found
        self.results.clear()
        self._rows = [(result, thumbs.get(result.segment_id)) for result in results]
        self._add_rows(generation)
        count = len(results)
        if results:
            self.status.setText(f"{count} result{'s' if count != 1 else ''} ({took:.0f} ms)")
        elif gated:
            # The early exit: nothing is close, rather than the nearest noise.
            self.status.setText(f"Nothing in your library is close to “{self.query}”.")
        else:
            self.status.setText("No results")
        self._note_empty("" if results else self.status.text())

    def _note_empty(self, text: str) -> None:
        self.empty_note.setText(text)
        self.empty_note.setGeometry(self.results.viewport().rect())
        self.empty_note.setVisible(bool(text))

    def _add_rows(self, generation: int) -> None:
        """Add a few rows, and the rest on later turns of the event loop: a row costs about
        1.5 ms of layout, so 20 at once would hold the UI thread for 30 ms or more."""
        if generation != self._generation:
            return
        width = self._row_width()
        batch, self._rows = self._rows[:ROW_BATCH], self._rows[ROW_BATCH:]
        for result, thumb in batch:
            item = QListWidgetItem(self.results)
            item.setData(Qt.ItemDataRole.UserRole, result)
            row = ResultRow(result, self._icons[result.kind])
            row.set_thumbnail(thumb)
            item.setSizeHint(QSize(width, row.height_for(width)))
            self.results.setItemWidget(item, row)
        if batch and self.results.currentRow() < 0:
            self.results.setCurrentRow(0)
        if self._rows:
            QTimer.singleShot(0, lambda: self._add_rows(generation))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Up/Down in the search box move through the results; Enter opens the current one."""
        if watched is self.results.viewport() and event.type() == QEvent.Type.Resize:
            self._relayout.start()
        if watched is self.search and event.type() == QEvent.Type.KeyPress:
            key = event.key()  # type: ignore[attr-defined]
            step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1}.get(key)
            if step is not None and self.results.count():
                row = min(max(0, self.results.currentRow() + step), self.results.count() - 1)
                self.results.setCurrentRow(row)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.open_current()
                return True
        return super().eventFilter(watched, event)

    def result_at(self, row: int) -> SearchResult | None:
        item = self.results.item(row)
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)

    def row_widget(self, row: int) -> ResultRow | None:
        item = self.results.item(row)
        widget = None if item is None else self.results.itemWidget(item)
        return widget if isinstance(widget, ResultRow) else None

    def open_current(self) -> None:
        result = self.result_at(self.results.currentRow())
        if result is not None:
            self.open_requested.emit(result)

    def _activated(self, item: QListWidgetItem) -> None:
        result = item.data(Qt.ItemDataRole.UserRole)
        if result is not None:
            self.open_requested.emit(result)
