"""The search pane: a box focused on start, course and kind filters, a chip naming the
course filter, and results that follow the typing, with a status line under them.

Searches run on a worker (the model loads there on first use); each keystroke restarts a
short debounce timer, and results of an older query than the newest are dropped, so the
window never waits on the engine. Enter searches what is in the box if its results are not
shown yet, then opens the top hit. Up in an empty box recalls earlier queries.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import (
    QGuiApplication,
    QImage,
    QKeySequence,
    QShortcut,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QVBoxLayout,
    QWidget,
)

from app.accessible import label_box
from app.search.examples import EMPTY_LIBRARY, ExampleQuestions
from app.search.filter_chip import FilterChip
from app.search.history import SearchHistory
from app.search.pane_widgets import filter_boxes, search_box, status_line
from app.search.result_list import ResultList
from app.search.results import ResultRow, count_line, grouped, has_thumbnail, thumbnail
from app.tasks import Failure, Tasks
from engine.api import (
    Course,
    Library,
    SearchFilters,
    SearchResult,
    SegmentKind,
    capital,
    plural,
    quote_with_time,
    result_link,
)

log = logging.getLogger(__name__)

DEBOUNCE_MS = 120
RESULT_LIMIT = 20
ALL_COURSES, ALL_KINDS = "all-courses", "all-kinds"  # the empty note's links
SEARCH_SHORTCUTS = ("Ctrl+F", "Ctrl+L")  # the window's Go > Search box: focus_search
SEARCH_KEYS = " or ".join(SEARCH_SHORTCUTS)


@dataclass(frozen=True, slots=True)
class Found:
    """What a search brings back to the pane from the pool (its rows' thumbnails are
    rendered after they are shown)."""

    results: list[SearchResult]
    took_ms: float  # the search's time
    gated: bool  # nothing was close enough: the early exit
    notice: str  # what the user should know of them (keyword matches only, and why)


class SearchPane(QWidget):
    """Search box, filters, results and the status line; asks for a result to be opened."""

    open_requested = Signal(object)  # the SearchResult to show in the preview

    def __init__(self, library: Library, tasks: Tasks, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.tasks = tasks
        self.history = SearchHistory()
        self.search = search_box(SEARCH_KEYS)
        self.search.installEventFilter(self)
        self.course_box, self.kind_box = filter_boxes()
        self.filter_chip = FilterChip()
        self.filter_chip.cleared.connect(lambda: self.pick_course(None))
        self.results = ResultList()
        self.results.open_requested.connect(self._open)
        self.results.link_activated.connect(self._note_link)
        self.results.copy_requested.connect(self.copy_result)
        self.empty_note = self.results.empty_note
        self.examples = ExampleQuestions(self.results.viewport())  # the demo's, to try
        self.examples.asked.connect(self.ask)
        self.status = status_line()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.search)
        filters = QHBoxLayout()
        filters.addWidget(self.course_box, 1)
        filters.addWidget(self.kind_box, 1)
        column.addLayout(filters)
        label_box(self.course_box, self)
        label_box(self.kind_box, self)
        column.addWidget(self.filter_chip)
        column.addWidget(self.results, 1)
        column.addWidget(self.status)

        self._generation = 0
        self.query = ""  # the query of the results shown (or being searched)
        self._shown = ""  # the query whose results the list holds
        self._open_when_shown = 0  # the generation whose top hit Enter asked to open
        self._sources = 0
        self._idle = ""  # the library size last shown in the status line
        self._empty = EMPTY_LIBRARY  # said of a library without files (app/search/examples)
        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(self.start_search)
        self.search.textChanged.connect(self._debounce.start)
        self.course_box.currentIndexChanged.connect(self._filters_changed)
        self.kind_box.currentIndexChanged.connect(self._filters_changed)
        # Esc clears the query only in the box: elsewhere (the player, the results) it must
        # not wipe the query and results (issue 14, item 13).
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self.search)
        escape.setContext(Qt.ShortcutContext.WidgetShortcut)
        escape.activated.connect(self._escape)

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
        self.filter_chip.show_course(self.course_box.currentData())
        self._sources = sources
        if not self.query and self.status.text() in ("", self._idle):
            self.show_idle()  # a refresh must not hide what the window just said ("Opened …")

    def pick_course(self, name: object) -> None:
        index = self.course_box.findData(name)
        self.course_box.setCurrentIndex(max(0, index))

    def show_idle(self) -> None:
        """The library's size, shown while the box is empty."""
        files = plural(self._sources, "file")
        self._idle = self._empty if not self._sources else f"{files} in the library"
        self.status.setText(self._idle)

    def say_when_empty(self, text: str) -> None:
        """What the status line says of a library without files (that an import runs)."""
        self._empty = text
        if not self.query and self.status.text() in ("", self._idle):
            self.show_idle()

    def ask(self, question: str) -> None:
        """Search ``question`` as if typed (an example question clicked)."""
        self.search.setText(question)
        self.search.setFocus()
        self.start_search()

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
        self.filter_chip.show_course(self.course_box.currentData())
        if self.search.text().strip():
            self.start_search()

    def stop(self) -> None:
        """A query typed just now must not start once the library may be closing."""
        self._debounce.stop()

    def restore(self, query: str, history: Iterable[str]) -> None:
        """The last session's searches, and its query searched again, selected: the first key
        typed starts a new question rather than adding to the old one."""
        self.history = SearchHistory(history)
        if query.strip():
            self.search.blockSignals(True)
            self.search.setText(query)
            self.search.selectAll()
            self.search.blockSignals(False)
            self.start_search()

    def start_search(self, *, refresh: bool = False) -> None:
        """Search what the box holds; ``refresh``: the same search again, whose results
        replace those shown in place, without "Searching…"."""
        self._debounce.stop()
        self._generation += 1
        generation = self._generation
        query = self.query = self.search.text().strip()
        self.examples.show_if(not query)
        if not query:
            self.results.clear_results()
            self._shown = ""
            self.results.note_empty("")
            self.show_idle()
            return
        refresh = refresh and query == self._shown
        if not refresh:
            self.status.setText("Searching…")
        library, filters = self.library, self.filters()

        def job() -> Found:
            outcome = library.search(query, limit=RESULT_LIMIT, filters=filters, typing=True)
            took = outcome.took_ms.get("total", 0.0)
            return Found(outcome.results, took, outcome.gated, outcome.notice)

        self.tasks.run(
            job,
            lambda found: self._show(generation, found, refresh),
            lambda f: self._failed(generation, f),
        )

    def refresh(self) -> None:
        """The library changed under the results shown: they must not show what was removed,
        and may find what was added. Quietly: the reader's row stays where it is (during an
        import this comes at most every few seconds: app/library/changes.py)."""
        if self.query:
            self.start_search(refresh=True)

    def _failed(self, generation: int, failed: Failure) -> None:
        if generation == self._generation:
            self.status.setText(failed.message)

    def _show(self, generation: int, found: Found, refresh: bool = False) -> None:
        if generation != self._generation:
            return  # an older query finished after a newer one started
        results = found.results
        self._shown = self.query
        self.results.show_results(results, keep=refresh)
        self._render_thumbnails(generation, results)
        note = ""
        if results:
            self.status.setText(f"{count_line(results)} ({found.took_ms:.0f} ms)")
        else:
            note = self._nothing_found(found.gated)
        if found.notice:  # keyword matches only: the search model cannot load
            self.status.setText(f"{self.status.text()}. {capital(found.notice)}")
        self.results.note_empty(note)
        if self._open_when_shown == generation and results:
            self.results.open_current()

    def _render_thumbnails(self, generation: int, results: list[SearchResult]) -> None:
        """The rows' slide pages and scene frames, made on the pool after the rows are shown
        (a page rendered is not part of the search's time); left once a newer search runs."""
        library = self.library
        best = [group.best for group in grouped(results)]

        def job() -> dict[int, QImage | None]:
            return {
                r.segment_id: thumbnail(r, library)
                for r in best
                if generation == self._generation and has_thumbnail(r)
            }

        def done(thumbs: dict[int, QImage | None]) -> None:
            if generation == self._generation:
                self.results.set_thumbnails(thumbs)

        if any(has_thumbnail(r) for r in best):
            self.tasks.run(job, done)

    def _nothing_found(self, gated: bool) -> str:
        """Say why nothing was found, and offer to search without the filters; the empty
        note's text (rich text, with the offer as a link)."""
        query, course, kind = self.query, self.course_box.currentData(), self.kind_box.currentData()
        if course is not None:
            self.status.setText(f"Nothing in “{course}” matches “{query}”.")
            link = ALL_COURSES, "Search all courses"
        elif kind is not None:
            self.status.setText(f"No {self.kind_box.currentText().lower()} match “{query}”.")
            link = ALL_KINDS, "Search all kinds"
        elif gated:
            # The early exit: nothing is close, rather than the nearest noise.
            self.status.setText(f"Nothing in your library is close to “{query}”.")
            return self.status.text()
        else:
            self.status.setText("No results")
            return self.status.text()
        return f'{html.escape(self.status.text())}<br><br><a href="{link[0]}">{link[1]}</a>'

    def _note_link(self, href: str) -> None:
        if href == ALL_COURSES:
            self.pick_course(None)
        elif href == ALL_KINDS:
            self.kind_box.setCurrentIndex(0)

    def enter(self) -> None:
        """Open the top hit of the text in the box: searched first if its results are not
        the ones shown (the debounce has not run, or its search is still on the worker)."""
        text = self.search.text().strip()
        if not text:
            return
        self.history.add(text)
        if text == self._shown and not self._debounce.isActive():
            self.results.open_current()
            return
        if text != self.query or self._debounce.isActive():
            self.start_search()
        self._open_when_shown = self._generation

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Up/Down in the search box move through the results (Up in an empty box, or on a
        recalled query at the top row, recalls an earlier query); Enter opens the top hit."""
        if watched is self.search and event.type() == QEvent.Type.KeyPress:
            key = event.key()  # type: ignore[attr-defined]
            if key == Qt.Key.Key_Up and self._recall():
                return True
            step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1}.get(key)
            if step is not None and self.results.count():
                self.results.step(step)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.enter()
                return True
        return super().eventFilter(watched, event)

    def _recall(self) -> bool:
        text = self.search.text().strip()
        at_top = self.results.currentRow() <= 0
        if text and not (self.history.recalling(text) and at_top):
            return False
        earlier = self.history.older()
        if earlier is None:
            return bool(text)  # at the oldest: stay there
        self.search.blockSignals(True)
        self.search.setText(earlier)
        self.search.blockSignals(False)
        self.start_search()
        return True

    def _open(self, result: SearchResult) -> None:
        self.history.add(self.query)
        self.open_requested.emit(result)

    def copy_result(self, result: SearchResult, quote: bool) -> None:
        """A result's coursedex:// link (with its file's hash, so it survives a move), or a
        quote with its time and that link, on the clipboard."""
        link = result_link(self.library, result)
        QGuiApplication.clipboard().setText(quote_with_time(result, link) if quote else link)
        self.status.setText("Quote copied" if quote else f"Link copied: {link}")

    @property
    def shown_query(self) -> str:
        """The query whose results the list holds ("" before any)."""
        return self._shown

    def result_at(self, row: int) -> SearchResult | None:
        return self.results.result_at(row)

    def row_widget(self, row: int) -> ResultRow | None:
        return self.results.row_widget(row)

    def open_current(self) -> None:
        self.results.open_current()
