"""The list of results: a row per lecture or file, a "Weaker matches" divider above the
first weak hit, and a note inside the list when it is empty (with a link to act on it).
A row's menu (app/search/row_menu.py) opens it or copies a coursedex:// link to its moment,
or a quote with its time.

Rows are added a few per turn of the event loop (a row costs about 1.5 ms of layout), and the
list is painted once they are all there: a frame shows a whole result set, never its first
rows. The same search again (the library changed under it) keeps the row being read where
it is on screen. Rows wrap to the list's width, so a resize lays them out again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QEvent, QObject, QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QFocusEvent,
    QFont,
    QImage,
    QKeySequence,
    QPalette,
    QShortcut,
)
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QMenu, QWidget

from app.accessible import describe
from app.search.results import (
    ResultGroup,
    ResultRow,
    grouped,
    has_thumbnail,
    row_key,
    spoken,
)
from app.search.row_menu import COPY_LINK, kind_icons, result_menu
from engine.api import SearchResult

ROW_BATCH = 4  # result rows added per turn of the event loop
WEAKER = "Weaker matches"
# Help > Keyboard shortcuts lists these beside the player's and the menus' keys
PANE_KEYS = (
    ((COPY_LINK,), "In the results: copy the row's link"),
    (("Menu", "Shift+F10"), "In the results or the library: the row's menu"),
    (("Alt+A",), "With a course chosen: search all courses again"),
)
OPEN_ROW = (
    "Enter plays it or shows it in the preview; Ctrl+C copies its link; the menu key "
    "offers a quote too."
)
_DIVIDER = Qt.ItemDataRole.UserRole + 1  # set on the divider's item
# The current row's result, its row, its top on screen and the list's scroll; None: the first
Place = tuple[SearchResult, int, int, int] | None


class ResultList(QListWidget):
    """Result rows (the item's UserRole holds the row's best SearchResult) and a divider."""

    open_requested = Signal(object)  # a SearchResult: a row or one of its moments
    link_activated = Signal(str)  # a link in the empty note
    copy_requested = Signal(object, bool)  # a SearchResult; True: a quote, False: its link
    note_requested = Signal(object)  # a SearchResult: a note at its place

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        describe(
            self,
            "Results",
            "The results of the search, best first. Enter opens one, Ctrl+C copies its "
            "link; the menu key shows what else it offers.",
        )
        self.setWordWrap(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
        # A scroll bar that comes and goes would change the width rows were wrapped for.
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.viewport().installEventFilter(self)
        self.itemActivated.connect(self._activated)
        self.itemClicked.connect(self._activated)
        self.currentRowChanged.connect(self._current_changed)
        copy = QShortcut(QKeySequence(COPY_LINK), self, context=Qt.ShortcutContext.WidgetShortcut)
        copy.activated.connect(self._copy_current)
        # Shift+F10 makes no menu event on X11: the menu of the current row all the same.
        menu_key = QShortcut(QKeySequence("Shift+F10"), self)
        menu_key.setContext(Qt.ShortcutContext.WidgetShortcut)
        menu_key.activated.connect(self._menu_of_current)
        self._current = -1
        # Why the list is empty, said inside it ("Nothing in your library is close to …").
        self.empty_note = QLabel(self.viewport())
        self.empty_note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_note.setWordWrap(True)
        self.empty_note.setMargin(24)
        self.empty_note.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.empty_note.linkActivated.connect(self.link_activated)
        self.empty_note.hide()
        self._icons = kind_icons(self)
        self._relayout = QTimer(self, singleShot=True, interval=60)
        self._relayout.timeout.connect(self._relayout_rows)
        self._shown = 0  # counts the result sets shown: a batch of an older one stops
        self._pending: list[ResultGroup | None] = []  # rows still to add; None: the divider
        self._thumbs: dict[int, QImage | None] = {}  # the rows' pictures, by segment id
        self._keep: Place = None  # where the reader was, for the set being made

    # --- rows ------------------------------------------------------------------------------

    def show_results(self, results: Sequence[SearchResult], *, keep: bool = False) -> None:
        """Replace the rows: a lecture's hits as one row, and the divider before the first
        group whose best hit is weak (none when every hit is weak: nothing is above it).
        ``keep`` (the same search again, the library changed under it): the current row's
        result stays current at the same height on screen, or else the same row does, and
        the thumbnails shown stay until :meth:`set_thumbnails` brings the new ones."""
        place = self._place() if keep else None
        self._clear()
        if not keep:
            self._thumbs = {}
        groups = grouped(results)
        rows: list[ResultGroup | None] = []
        for group in groups:
            if not group.best.strong and rows and all(g is not None for g in rows):
                rows.append(None)
            rows.append(group)
        self._pending = rows
        self._keep = place
        self._add_rows(self._shown)

    def set_thumbnails(self, thumbs: Mapping[int, QImage | None]) -> None:
        """The pictures of the rows, by segment id, rendered after the rows were shown:
        each fills its row's place (a row still to be added gets it as it is)."""
        self._thumbs = dict(thumbs)
        width = self.row_width()
        for i in range(self.count()):
            row, item = self.row_widget(i), self.item(i)
            if row is not None and item is not None and row.result.segment_id in thumbs:
                row.set_thumbnail(thumbs[row.result.segment_id])
                item.setSizeHint(QSize(width, row.height_for(width)))

    @property
    def filling(self) -> bool:
        """Whether rows of the result set are still being made (none of them is seen)."""
        return bool(self._pending)

    def clear_results(self) -> None:
        self._clear()
        self.setUpdatesEnabled(True)

    def _clear(self) -> None:
        """No rows; the list is not painted until the next set is whole (a frame with 4 of
        its 20 rows, or none, showed the results flicker at each search)."""
        self._shown += 1
        self._pending = []
        self.setUpdatesEnabled(False)
        self.clear()
        self._current = -1

    def _place(self) -> Place:
        """The current row: its result, its row, its top on screen, and the scroll."""
        row = self.currentRow()
        result, item = self.result_at(row), self.item(row)
        if result is None or item is None:
            return None
        top = self.visualItemRect(item).top()
        return result, row, top, self.verticalScrollBar().value()

    def _add_rows(self, shown: int) -> None:
        if shown != self._shown:
            return
        width = self.row_width()
        batch, self._pending = self._pending[:ROW_BATCH], self._pending[ROW_BATCH:]
        for group in batch:
            if group is None:
                self._add_divider(width)
                continue
            item = QListWidgetItem(self)
            item.setData(Qt.ItemDataRole.UserRole, group.best)
            # The row is a widget over an item without text: this is what is read out.
            item.setData(Qt.ItemDataRole.AccessibleTextRole, spoken(group))
            item.setData(Qt.ItemDataRole.AccessibleDescriptionRole, OPEN_ROW)
            row = ResultRow(group, self._icons[group.best.kind])
            if group.best.segment_id in self._thumbs:
                row.set_thumbnail(self._thumbs[group.best.segment_id])
            elif has_thumbnail(group.best):
                row.expect_thumbnail()
            row.moment_chosen.connect(self.open_requested)
            item.setSizeHint(QSize(width, row.height_for(width)))
            self.setItemWidget(item, row)
        if batch and self.currentRow() < 0 and self._keep is None:
            self.setCurrentRow(0)  # a new search: Enter opens its top hit at once
        if self._pending:
            QTimer.singleShot(0, self, lambda: self._add_rows(shown))  # none once it is gone
            return
        self._restore_place()
        self.setUpdatesEnabled(True)  # the whole set, painted at once

    def _restore_place(self) -> None:
        """Where the reader was, once the set made again is whole (the same search again):
        their result at the same height on screen, else the row at their row's place, the
        list scrolled as it was. (A new search's first row is current from its first rows.)"""
        place, self._keep = self._keep, None
        if place is None or not self.count() or self.currentRow() >= 0:  # picked meanwhile
            return
        read, row, top, scrolled = place
        results = {i: r for i in range(self.count()) if (r := self.result_at(i)) is not None}
        found = [i for i, result in results.items() if row_key(result) == row_key(read)]
        self.setCurrentRow(found[0] if found else min(results, key=lambda i: abs(i - row)))
        bar = self.verticalScrollBar()
        item = self.item(self.currentRow())
        if found and item is not None:
            bar.setValue(bar.value() + self.visualItemRect(item).top() - top)
        else:
            bar.setValue(scrolled)

    def _add_divider(self, width: int) -> None:
        item = QListWidgetItem(WEAKER, self)
        item.setData(_DIVIDER, True)
        item.setFlags(Qt.ItemFlag.NoItemFlags)  # not selectable: Up/Down step over it
        font = QFont(self.font())
        font.setItalic(True)
        font.setBold(True)
        item.setFont(font)
        self._colour_divider(item)
        item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        item.setToolTip("Below here the results only share some words or the topic.")
        item.setSizeHint(QSize(width, self.fontMetrics().height() + 12))

    def _current_changed(self, row: int) -> None:
        for at, current in ((self._current, False), (row, True)):
            widget = self.row_widget(at)
            if widget is not None:
                widget.set_current(current)
        self._current = row
        self._ring()

    def _ring(self) -> None:
        """The focus ring on the current row while the list has the keyboard focus."""
        for row in range(self.count()):
            widget = self.row_widget(row)
            if widget is not None:
                widget.set_focus_ring(self.hasFocus() and row == self.currentRow())

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self._ring()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self._ring()

    def _colour_divider(self, item: QListWidgetItem) -> None:
        """Not the disabled grey a flagless item gets: the divider must be seen."""
        item.setForeground(self.palette().color(QPalette.ColorRole.Text))
        item.setBackground(self.palette().color(QPalette.ColorRole.AlternateBase))

    def divider_row(self) -> int | None:
        """The row of the "Weaker matches" divider, if the list has one."""
        for row in range(self.count()):
            item = self.item(row)
            if item is not None and item.data(_DIVIDER):
                return row
        return None

    def result_at(self, row: int) -> SearchResult | None:
        item = self.item(row)
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)

    def row_widget(self, row: int) -> ResultRow | None:
        item = self.item(row)
        widget = None if item is None else self.itemWidget(item)
        return widget if isinstance(widget, ResultRow) else None

    def step(self, delta: int) -> None:
        """Move the current row by one result, over the divider."""
        row = self.currentRow()
        while 0 <= row + delta < self.count():
            row += delta
            if self.result_at(row) is not None:
                self.setCurrentRow(row)
                return

    def open_current(self) -> None:
        """Open the current row's result; while a refresh makes its rows, the one shown."""
        result = self.result_at(self.currentRow())
        if result is None and self._keep is not None:
            result = self._keep[0]
        if result is not None:
            self.open_requested.emit(result)

    def _activated(self, item: QListWidgetItem) -> None:
        result = item.data(Qt.ItemDataRole.UserRole)
        if result is not None:
            self.open_requested.emit(result)

    def row_menu(self, row: int) -> QMenu | None:
        """The menu of a result row: Open, Copy link, Copy quote with time, Add note here."""
        result = self.result_at(row)
        if result is None:
            return None
        return result_menu(
            self,
            result,
            lambda: self.open_requested.emit(result),
            lambda quote: self.copy_requested.emit(result, quote),
            lambda: self.note_requested.emit(result),
        )

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """The menu of the row under the pointer; from the Menu key (or Shift+F10) the
        current row's, at that row."""
        if event.reason() == QContextMenuEvent.Reason.Keyboard:
            self._menu_of_current()
            return
        item = self.itemAt(event.pos())  # the scroll area gives the viewport's point
        if item is not None:
            self._open_menu(self.row(item), event.pos())

    def _menu_of_current(self) -> None:
        item = self.currentItem()
        if item is not None:
            self._open_menu(self.row(item), self.visualItemRect(item).center())

    def _open_menu(self, row: int, at: QPoint) -> None:
        menu = self.row_menu(row)
        if menu is not None:
            menu.exec(self.viewport().mapToGlobal(at))
            menu.deleteLater()

    def _copy_current(self) -> None:
        result = self.result_at(self.currentRow())
        if result is not None:
            self.copy_requested.emit(result, False)

    # --- the empty note --------------------------------------------------------------------

    def note_empty(self, text: str) -> None:
        """Say why the list is empty (rich text: it may hold a link), or hide the note."""
        self.empty_note.setText(text)
        self.empty_note.setGeometry(self.viewport().rect())
        self.empty_note.setVisible(bool(text))

    # --- layout and colours ----------------------------------------------------------------

    def row_width(self) -> int:
        return max(240, self.viewport().width() - 2)

    def _relayout_rows(self) -> None:
        """Rows wrap to the list's width: after a resize their heights change."""
        self.empty_note.setGeometry(self.viewport().rect())
        width = self.row_width()
        for row in range(self.count()):
            item, widget = self.item(row), self.row_widget(row)
            if item is not None and widget is not None:
                item.setSizeHint(QSize(width, widget.height_for(width)))
            elif item is not None:
                item.setSizeHint(QSize(width, item.sizeHint().height()))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.viewport() and event.type() == QEvent.Type.Resize:
            self._relayout.start()
        return super().eventFilter(watched, event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._icons = kind_icons(self)
            for row in range(self.count()):
                widget = self.row_widget(row)
                if widget is not None:
                    size = widget.icon_size
                    widget.icon.setPixmap(self._icons[widget.result.kind].pixmap(size, size))
                    widget.set_current(row == self.currentRow())
            divider = self.divider_row()
            if divider is not None:
                self._colour_divider(self.item(divider))
        super().changeEvent(event)
