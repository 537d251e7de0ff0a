"""The column beside the picture: a search inside the open transcript (the query's words to
begin with, highlighted in every line), the lecture's chapters, and the transcript.
A right click on a line copies a timestamp link to it or a quote with its time."""

from __future__ import annotations

import html
import re
import time
from bisect import bisect_right
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QContextMenuEvent,
    QGuiApplication,
    QKeyEvent,
    QPainter,
    QPalette,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from app.accessible import describe
from app.player.controls import FocusRing
from app.theme import is_dark
from app.word_marks import folded_words, word_spans
from engine.api import Chapter, Timing, clock, fold, make_link

MARKS = {False: ("#ffe58a", "#000000"), True: ("#806a00", "#ffffff")}  # light, dark: mark, ink
CHAPTER_ROWS = 5  # the chapter list shows this many before it scrolls
LEAST_CHARACTERS = 16  # the column's least width, in average characters
FIND_HELP = (
    "Marks the transcript's lines with these words (the words searched to begin with). "
    "Enter goes to the next line found, Shift+Enter to the previous one"
)
CHAPTERS_HELP = "Chapters: where the slide changes. Click, or Enter, to go there"
TRANSCRIPT_HELP = (
    "What is said, a line a row; the line being spoken is selected. Enter or a click plays "
    "from a line; the Menu key or a right click copies a link or a quote"
)


def timestamp_link(path: str, ms: int, sha256: str | None = None) -> str:
    """``coursedex://open?source=<path>&t=<seconds>`` (engine/integrations/links.py, issue 16)."""
    return make_link(path, start_ms=max(0, ms), sha256=sha256)


def line_quote(path: str, line: Timing, title: str = "", sha256: str | None = None) -> str:
    """“What was said” (lecture title, mm:ss) and the link to the moment."""
    words = " ".join(line.text.split())
    cite = f"{title or Path(path).stem}, {clock(line.start_ms)}"
    return f"\u201c{words}\u201d ({cite}) {timestamp_link(path, line.start_ms, sha256)}"


def words_pattern(text: str) -> re.Pattern[str] | None:
    """Words starting with any word of ``text`` ("sort" finds "sorting"), any case and any
    accents ("energia" finds "energía"): search it with word_marks.word_spans."""
    words = folded_words(w for w in re.findall(r"\w+", text) if len(fold(w)) > 1)
    if not words:
        return None
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\w*", re.I)


def marked_html(text: str, pattern: re.Pattern[str] | None, mark: str, ink: str) -> str:
    """``text`` escaped, the pattern's words on ``mark`` in ``ink`` (its own text colour:
    the selected row's white would not read on a light mark)."""
    if pattern is None:
        return html.escape(text)
    out, last = [], 0
    style = f"background-color: {mark}; color: {ink}"
    for start, end in word_spans(text, pattern):
        out.append(html.escape(text[last:start]))
        out.append(f'<span style="{style}">{html.escape(text[start:end])}</span>')
        last = end
    out.append(html.escape(text[last:]))
    return "".join(out)


class _MarkedLines(QStyledItemDelegate):
    """Draws each transcript line with the searched words on a highlight, wrapped to the
    list's width (and sized the same way, so nothing is clipped)."""

    MARGIN = 4

    def __init__(self, listing: QListWidget) -> None:
        super().__init__(listing)
        self.listing = listing
        self.pattern: re.Pattern[str] | None = None

    def document(self, text: str, width: int, colour: str) -> QTextDocument:
        document = QTextDocument()
        document.setDocumentMargin(0)
        document.setDefaultFont(self.listing.font())
        wrap = QTextOption()
        wrap.setWrapMode(QTextOption.WrapMode.WordWrap)  # between words only: not "proble m"
        document.setDefaultTextOption(wrap)
        mark, ink = MARKS[is_dark(self.listing.palette())]
        marked = marked_html(text, self.pattern, mark, ink)
        document.setHtml(f'<span style="color: {colour}">{marked}</span>')
        document.setTextWidth(max(40, width))
        return document

    def _width(self) -> int:
        return self.listing.viewport().width() - 2 * self.MARGIN

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        document = self.document(text, self._width(), "black")
        return QSize(self._width(), round(document.size().height()) + 2 * self.MARGIN)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        item = QStyleOptionViewItem(option)
        self.initStyleOption(item, index)
        text, item.text = item.text, ""
        style = item.widget.style() if item.widget is not None else self.listing.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, item, painter, item.widget)
        selected = bool(item.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        colour = item.palette.color(role).name()
        rect = item.rect.adjusted(self.MARGIN, self.MARGIN, -self.MARGIN, -self.MARGIN)
        document = self.document(text, rect.width(), colour)
        painter.save()
        painter.translate(rect.topLeft())
        painter.setClipRect(0, 0, rect.width(), rect.height())
        context = QAbstractTextDocumentLayout.PaintContext()
        document.documentLayout().draw(painter, context)
        painter.restore()


class TranscriptColumn(QWidget):
    """Find box, chapters and transcript; asks the player to seek with ``seek_requested``.

    The line being spoken (``follow``) is selected and kept in view, except for a few seconds
    after the user scrolls the transcript; clicking a line, or Enter on it, seeks to it.
    """

    seek_requested = Signal(int)
    matches_changed = Signal(list)  # start times (ms) of the lines the find box matches
    match_requested = Signal(int)  # Enter in the find box: 1, the next match; -1, the previous
    copied = Signal(str)  # what was put on the clipboard, said in a few words

    USER_SCROLL_HOLD_S = 5.0  # how long a user's scroll of the transcript is left alone

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = ""
        self.sha256: str | None = None  # in links, so they survive a moved file
        self.title = ""  # the lecture's, in quotes
        self.lines: list[Timing] = []
        self.chapters: list[Chapter] = []
        self.matches: list[int] = []
        self.line = -1  # the row being spoken
        self._starts: list[int] = []  # the rows' start times, ascending
        self._user_scrolled_at = float("-inf")
        self.find_box = QLineEdit(placeholderText="Find in the transcript")
        self.find_box.setClearButtonEnabled(True)
        self.find_box.textChanged.connect(self._find)
        self._build_chapter_list()
        self._build_transcript_list()
        self.chapter_list.installEventFilter(self)
        self.transcript_list.installEventFilter(self)  # the Menu key
        self.find_box.installEventFilter(self)  # Enter: the next match, Shift+Enter the previous
        self._describe()
        self._lay_out()

    def _build_chapter_list(self) -> None:
        self.chapter_list = QListWidget()
        # It scrolls to the chapter playing only while the pointer is elsewhere: under the
        # pointer a scroll made a click land on another chapter.
        self.chapter_list.setAutoScroll(False)
        self.chapter_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.chapter_list.setTextElideMode(Qt.TextElideMode.ElideRight)  # the tooltip has it all
        self.chapter_list.itemClicked.connect(self._chapter_chosen)
        self.chapter_list.itemActivated.connect(self._chapter_chosen)
        self.chapter_list.hide()

    def _build_transcript_list(self) -> None:
        self.transcript_list = QListWidget()
        self.transcript_list.setWordWrap(True)
        self.transcript_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.transcript_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.transcript_list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.transcript_list.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.delegate = _MarkedLines(self.transcript_list)
        self.transcript_list.setItemDelegate(self.delegate)
        palette = self.transcript_list.palette()  # the spoken row stays visible unfocused
        for role in (QPalette.ColorRole.Highlight, QPalette.ColorRole.HighlightedText):
            color = palette.color(QPalette.ColorGroup.Active, role)
            palette.setColor(QPalette.ColorGroup.Inactive, role, color)
        self.transcript_list.setPalette(palette)
        self.transcript_list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.transcript_list.customContextMenuRequested.connect(self._menu)
        self.transcript_list.itemClicked.connect(self._row_chosen)
        self.transcript_list.itemActivated.connect(self._row_chosen)
        scroll = self.transcript_list.verticalScrollBar()
        scroll.actionTriggered.connect(self._user_scrolled)  # wheel, drag, page clicks
        # Resized (full screen, the splitter) the rows wrap anew and the same scroll offset
        # shows another stretch: the spoken line goes back in view once they are laid out,
        # playing or paused, not at the next line.
        scroll.rangeChanged.connect(lambda _low, _high: self.show_spoken_line())
        self.transcript_list.viewport().installEventFilter(self)

    def _lay_out(self) -> None:
        # narrower, a line held a word or two: too little to read, and words were split
        self.setMinimumWidth(LEAST_CHARACTERS * self.fontMetrics().averageCharWidth())
        column = QVBoxLayout(self)
        margin = FocusRing.MARGIN  # room for the ring round the box and the lists
        column.setContentsMargins(margin, margin, margin, margin)
        column.addWidget(self.find_box)
        column.addWidget(self.chapter_list)
        column.addWidget(self.transcript_list, 1)
        # Fusion shows a focused list by a dotted line round its current row, if at all:
        # the ring shows where Tab went, as on the player's controls (issue 36, item 6).
        self.focus_ring = FocusRing(self)
        for stop in self.focus_order():
            self.focus_ring.add(stop)

    def _describe(self) -> None:
        describe(self.find_box, "Find in the transcript", FIND_HELP, FIND_HELP)
        describe(self.chapter_list, "Chapters", CHAPTERS_HELP, CHAPTERS_HELP)
        describe(self.transcript_list, "Transcript", TRANSCRIPT_HELP)

    def focus_order(self) -> list[QWidget]:
        return [self.find_box, self.chapter_list, self.transcript_list]

    def set_lecture(
        self, path: str, lines: Sequence[Timing], chapters: Sequence[Chapter], terms: str
    ) -> None:
        self.path, self.lines, self.chapters = path, list(lines), list(chapters)
        self._starts = [line.start_ms for line in self.lines]
        self.line = -1
        self._user_scrolled_at = float("-inf")
        self.transcript_list.clear()
        for line in self.lines:
            item = QListWidgetItem(f"{clock(line.start_ms)}  {line.text}")
            item.setData(Qt.ItemDataRole.UserRole, line.start_ms)
            self.transcript_list.addItem(item)
        self.chapter_list.clear()
        for chapter in self.chapters:
            item = QListWidgetItem(f"{clock(chapter.start_ms)}  {chapter.title}")
            item.setData(Qt.ItemDataRole.UserRole, chapter.start_ms)
            item.setToolTip(chapter.title)
            self.chapter_list.addItem(item)
        if self.chapters:
            row = self.chapter_list.sizeHintForRow(0)
            self.chapter_list.setFixedHeight(
                row * min(CHAPTER_ROWS, len(self.chapters)) + 2 * self.chapter_list.frameWidth()
            )
        self.chapter_list.setVisible(bool(self.chapters))
        blocked = self.find_box.blockSignals(True)
        self.find_box.setText(terms)
        self.find_box.blockSignals(blocked)
        self._find(terms)

    def _find(self, text: str) -> None:
        pattern = words_pattern(text)
        self.delegate.pattern = pattern
        self.matches = [t.start_ms for t in self.lines if word_spans(t.text, pattern)]
        self.transcript_list.viewport().update()
        self.matches_changed.emit(self.matches)

    def follow(self, position: int) -> bool:
        """Select the line spoken at ``position`` and keep it in view; True when it changed."""
        self.follow_chapter(position)
        line = bisect_right(self._starts, position) - 1
        if line == self.line:
            return False
        self.line = line
        listing = self.transcript_list
        if line < 0:
            listing.clearSelection()
            return True
        listing.selectionModel().select(
            listing.model().index(line, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        self.show_spoken_line()
        return True

    def show_spoken_line(self) -> None:
        """The spoken line in the middle of the list, unless the user just scrolled it."""
        item = self.transcript_list.item(self.line)
        if item is not None and time.monotonic() - self._user_scrolled_at > self.USER_SCROLL_HOLD_S:
            self.transcript_list.scrollToItem(item, QAbstractItemView.ScrollHint.PositionAtCenter)

    def _row_chosen(self, item: QListWidgetItem) -> None:
        self._user_scrolled_at = float("-inf")  # a chosen row may be scrolled into view again
        self.seek_requested.emit(int(item.data(Qt.ItemDataRole.UserRole)))

    def _user_scrolled(self, _action: int) -> None:
        self._user_scrolled_at = time.monotonic()

    def follow_chapter(self, position: int) -> None:
        current = -1
        for row, chapter in enumerate(self.chapters):
            if chapter.start_ms <= position:
                current = row
        listing = self.chapter_list
        if current >= 0 and current != listing.currentRow():
            listing.setCurrentRow(current)
            if not listing.underMouse():
                listing.scrollToItem(listing.item(current))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if watched is self.find_box and kind == QEvent.Type.KeyPress:
            if isinstance(event, QKeyEvent) and event.key() in (Qt.Key.Key_Return,
                                                                Qt.Key.Key_Enter):  # fmt: skip
                back = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
                self.match_requested.emit(-1 if back else 1)
                return True
        elif (
            watched is self.transcript_list
            and isinstance(event, QContextMenuEvent)
            and event.reason() == QContextMenuEvent.Reason.Keyboard
        ):
            self._keyboard_menu()
            return True
        elif watched is self.chapter_list and kind == QEvent.Type.Leave:
            current = self.chapter_list.currentItem()
            if current is not None:
                self.chapter_list.scrollToItem(current)
        elif watched is self.transcript_list.viewport() and kind == QEvent.Type.Resize:
            QTimer.singleShot(0, self, self.show_spoken_line)
        return super().eventFilter(watched, event)

    def _chapter_chosen(self, item: QListWidgetItem) -> None:
        self._user_scrolled_at = float("-inf")
        self.seek_requested.emit(int(item.data(Qt.ItemDataRole.UserRole)))

    def line_at(self, row: int) -> Timing | None:
        return self.lines[row] if 0 <= row < len(self.lines) else None

    def _keyboard_menu(self) -> None:
        """The Menu key: the menu of the selected line (the one spoken, or the one the arrows
        went to), not of the line at wherever Qt puts a keyboard menu."""
        listing = self.transcript_list
        rows = [index.row() for index in listing.selectedIndexes()] or [listing.currentRow()]
        item = listing.item(rows[0])
        if item is not None:
            self._menu(listing.visualItemRect(item).center())

    def _menu(self, point: QPoint) -> None:
        line = self.line_at(self.transcript_list.indexAt(point).row())
        if line is None:
            return
        menu = QMenu(self)
        menu.addAction("Copy link to this moment", lambda: self.copy_link(line.start_ms))
        menu.addAction("Copy quote with its time", lambda: self.copy_quote(line))
        menu.exec(self.transcript_list.viewport().mapToGlobal(point))
        menu.deleteLater()

    def copy_link(self, ms: int) -> None:
        if self.path:
            QGuiApplication.clipboard().setText(timestamp_link(self.path, ms, self.sha256))
            self.copied.emit(f"Link to {clock(max(0, ms))} copied")

    def copy_quote(self, line: Timing) -> None:
        if self.path:
            QGuiApplication.clipboard().setText(
                line_quote(self.path, line, self.title, self.sha256)
            )
            self.copied.emit(f"Quote at {clock(line.start_ms)} copied")
