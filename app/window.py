"""The main window: a search box focused on start, results that follow the typing.

Searches run on a worker thread (the model loads there on first use); each keystroke
restarts a short debounce timer, and results of an older query than the newest are dropped,
so the window never waits on the engine.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Sequence

from PySide6.QtCore import QObject, QRunnable, QSize, Qt, QThreadPool, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QVBoxLayout,
    QWidget,
)

from engine.errors import CoursedexError
from engine.library import Library
from engine.search import SearchResult

log = logging.getLogger(__name__)

DEBOUNCE_MS = 120
RESULT_LIMIT = 20
EMPTY_LIBRARY = (
    "Nothing indexed yet. Drop lecture videos, slide decks, code archives or notes here."
)


def location(result: SearchResult) -> str:
    """Where in its file a hit is: mm:ss, page N, or path:line."""
    if result.start_ms is not None:
        seconds = result.start_ms // 1000
        h, rest = divmod(seconds, 3600)
        m, s = divmod(rest, 60)
        return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"
    if result.page is not None:
        return f"page {result.page}"
    if result.path_in_archive is not None:
        line = result.line or result.line_start
        return f"{result.path_in_archive}:{line}" if line else result.path_in_archive
    return ""


def snippet_html(result: SearchResult) -> str:
    """The snippet with the query words in bold, escaped for a rich-text label."""
    out: list[str] = []
    last = 0
    for a, b in result.highlights:
        out.append(html.escape(result.snippet[last:a]))
        out.append(f"<b>{html.escape(result.snippet[a:b])}</b>")
        last = b
    out.append(html.escape(result.snippet[last:]))
    return "".join(out)


class _Signals(QObject):
    done = Signal(int, object)  # generation, list[SearchResult] or an error message


class _SearchJob(QRunnable):
    def __init__(self, library: Library, query: str, generation: int, signals: _Signals) -> None:
        super().__init__()
        self.library = library
        self.query = query
        self.generation = generation
        self.signals = signals

    def run(self) -> None:
        try:
            outcome = self.library.search(self.query, limit=RESULT_LIMIT, typing=True)
            self.signals.done.emit(self.generation, outcome.results)
        except CoursedexError as e:
            self.signals.done.emit(self.generation, str(e))


class SearchWindow(QMainWindow):
    """Search box, result list, status line."""

    def __init__(self, library: Library) -> None:
        super().__init__()
        self.library = library
        self.setWindowTitle("Coursedex")
        self.resize(960, 640)
        self.search = QLineEdit(placeholderText="Search your courses")
        self.search.setClearButtonEnabled(True)
        self.results = QListWidget()
        self.results.setWordWrap(True)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.status = QLabel()
        self.status.setWordWrap(True)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(self.search)
        layout.addWidget(self.results, 1)
        layout.addWidget(self.status)
        self.setCentralWidget(body)

        self._generation = 0
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._signals = _Signals(self)
        self._signals.done.connect(self._show)
        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(self._start_search)
        self.search.textChanged.connect(self._debounce.start)
        for keys in ("Ctrl+F", "Ctrl+L"):
            QShortcut(QKeySequence(keys), self).activated.connect(self.focus_search)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self).activated.connect(self.search.clear)
        self._show_idle()
        self.search.setFocus()

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def _show_idle(self) -> None:
        sources = self.library.sources()
        self.status.setText(
            EMPTY_LIBRARY if not sources else f"{len(sources)} files in the library"
        )

    def _start_search(self) -> None:
        self._generation += 1
        query = self.search.text().strip()
        if not query:
            self.results.clear()
            self._show_idle()
            return
        self.status.setText("Searching…")
        self._pool.start(_SearchJob(self.library, query, self._generation, self._signals))

    def _show(self, generation: int, payload: object) -> None:
        if generation != self._generation:
            return  # an older query finished after a newer one started
        if isinstance(payload, str):
            self.status.setText(payload)
            return
        results: Sequence[SearchResult] = payload  # type: ignore[assignment]
        self.results.clear()
        for result in results:
            item = QListWidgetItem(self.results)
            item.setData(Qt.ItemDataRole.UserRole, result)
            label = QLabel(
                f"<small>{html.escape(result.kind.value)} · {html.escape(result.course)}</small> "
                f"<b>{html.escape(result.title)}</b> {html.escape(location(result))}<br>"
                f"{snippet_html(result)}"
            )
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            width = max(200, self.results.viewport().width() - 12)
            item.setSizeHint(QSize(width, label.heightForWidth(width) + 10))
            self.results.setItemWidget(item, label)
        if results:
            self.results.setCurrentRow(0)
        self.status.setText(f"{len(results)} results" if results else "No results")

    def result_at(self, row: int) -> SearchResult | None:
        item = self.results.item(row)
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)
