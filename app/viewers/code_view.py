"""The code view: a file at the matched line, coloured by Pygments token types through a
QSyntaxHighlighter. A big file is shown at once as plain text; it is lexed a slice per turn
of the event loop and only the blocks that come into view are coloured, so opening a
20k-line file does not stall the window.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Sequence

from PySide6.QtCore import (
    QEvent,
    QRect,
    QSize,
    Qt,
    QTimer,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QShowEvent,
    QTextCursor,
    QTextFormat,
    QTextOption,
)
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.accessible import describe
from app.notes.editor import note_button
from app.theme import is_dark
from app.viewers.highlight import ASTRAL, Highlighter, Lexing, lexer_for, mix
from app.word_marks import folded_words, word_spans

log = logging.getLogger(__name__)

_SYNC_LEX_LINES = 1000  # bigger files are lexed a slice per event-loop turn, coloured as seen
_LEX_SLICE_S = 0.012
_VISIBLE_MARGIN_BLOCKS = 60  # coloured beyond the view, so scrolling shows colour at once
_MAX_TERM_MARKS = 5000
LIGHT_STYLE, DARK_STYLE = "default", "github-dark"

# --- code view --------------------------------------------------------------------------


def code_font() -> QFont:
    """The system's fixed-width font at the size of the window's text: the fixed font's
    own size does not follow a larger application font, and code would stay small."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    base = QApplication.font()
    if base.pointSizeF() > 0:
        font.setPointSizeF(base.pointSizeF())
    elif base.pixelSize() > 0:
        font.setPixelSize(base.pixelSize())
    return font


class _Gutter(QWidget):
    def __init__(self, editor: _Editor) -> None:
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self.editor.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.editor.paint_gutter(self, event)


class _Editor(QPlainTextEdit):
    """A read-only plain-text editor with line numbers in a gutter on the left."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.marked_line = 0  # 1-based; its number is drawn bold
        self.gutter = _Gutter(self)
        self.blockCountChanged.connect(self._fit_gutter)
        self.updateRequest.connect(self._scroll_gutter)
        self._fit_gutter()

    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return 14 + self.fontMetrics().horizontalAdvance("9") * max(3, digits)

    def _fit_gutter(self) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _scroll_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        box = self.contentsRect()
        self.gutter.setGeometry(QRect(box.left(), box.top(), self.gutter_width(), box.height()))

    def paint_gutter(self, gutter: QWidget, event: QPaintEvent) -> None:
        palette = self.palette()
        painter = QPainter(gutter)
        try:
            painter.fillRect(event.rect(), palette.color(QPalette.ColorRole.Window))
            dim = mix(
                palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text), 0.5
            )
            bold = QFont(self.font())
            bold.setBold(True)
            block = self.firstVisibleBlock()
            top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
            height = self.fontMetrics().height()
            right = gutter.width() - 6
            while block.isValid() and top <= event.rect().bottom():
                bottom = top + round(self.blockBoundingRect(block).height())
                if block.isVisible() and bottom >= event.rect().top():
                    number = block.blockNumber() + 1
                    marked = number == self.marked_line
                    painter.setFont(bold if marked else self.font())
                    painter.setPen(palette.color(QPalette.ColorRole.Text) if marked else dim)
                    painter.drawText(
                        0, top, right, height, int(Qt.AlignmentFlag.AlignRight), str(number)
                    )
                block = block.next()
                top = bottom
        finally:
            painter.end()


class CodeView(QWidget):
    """A file shown read-only with line numbers and Pygments colours, the matched line
    marked and centred with the cursor on it, and the query's words marked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lex_timer = QTimer(self)
        self._lex_timer.setInterval(0)
        self._lex_timer.timeout.connect(self._lex_slice)
        self._line: int | None = None
        self._terms: tuple[str, ...] = ()
        self._text = ""
        self._lazy = False  # colours arrive after the text, block by block as seen
        self._coloured: set[int] = set()
        self._center_pending = False
        self._moving_cursor = False

        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setContentsMargins(6, 4, 6, 4)
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.editor = _Editor()
        self.editor.setReadOnly(True)
        describe(
            self.editor,
            "File",
            "The file of the result, read-only, with the cursor on the line found.",
        )
        self.editor.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        # Long lines and notes' paragraphs wrap to the view: a narrow preview must not hide
        # the end of the matched line behind a horizontal scroll bar.
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.editor.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        font = code_font()
        self.editor.setFont(font)
        self.editor.document().setDefaultFont(font)
        self.editor.setTabStopDistance(4 * self.editor.fontMetrics().horizontalAdvance(" "))
        self.editor.updateRequest.connect(self._colour_visible)
        self.editor.cursorPositionChanged.connect(self._cursor_moved)
        self.editor.verticalScrollBar().actionTriggered.connect(self._user_scrolled)
        self._highlighter = Highlighter(self.editor.document())
        self._highlighter.set_style(self._style_for_palette())

        self.note_button = note_button("Add a note at the cursor's line")
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 6, 0)
        top.addWidget(self.header, 1)
        top.addWidget(self.note_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(top)
        column.addWidget(self.editor, 1)

    @property
    def style_name(self) -> str:
        """The Pygments style in use: a light one on a light palette, else a dark one."""
        return self._highlighter.style_name

    def show_code(
        self, text: str, filename: str, line: int | None = None, terms: Sequence[str] = ()
    ) -> None:
        """Show ``text`` (the file ``filename``) with ``line`` (1-based) marked and centred
        and the words ``terms`` marked (case-insensitive, whole words)."""
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        self._text = text
        self.note_button.setEnabled(True)
        self._terms = tuple(t for t in terms if t.strip())
        lexing = Lexing(text, lexer_for(filename, text))
        self._lazy = len(lexing.lines) > _SYNC_LEX_LINES
        self._coloured.clear()
        if not self._lazy:
            lexing.run()
        self._highlighter.lexing = lexing
        self.editor.setPlainText(text)  # the highlighter colours every lexed block here
        self._line = None if line is None else max(1, min(line, self.editor.blockCount()))
        self.header.setText(filename if self._line is None else f"{filename}:{self._line}")
        self.editor.marked_line = self._line or 0
        self._mark()
        self._move_cursor()
        if self._lazy:
            self._lex_timer.start()
        else:
            self._lex_timer.stop()

    def show_error(self, message: str) -> None:
        """Show one line saying why a file cannot be shown."""
        self._lex_timer.stop()
        self._line = None
        self._text = ""
        self._highlighter.lexing = None
        self.editor.marked_line = 0
        self.editor.setPlainText("")
        self.editor.setExtraSelections([])
        self.note_button.setEnabled(False)
        self.header.setText(message.splitlines()[0] if message.strip() else "cannot show this file")

    def _lex_slice(self) -> None:
        lexing = self._highlighter.lexing
        if lexing is None or lexing.run(_LEX_SLICE_S):
            self._lex_timer.stop()
        self._colour_visible()

    def _colour_visible(self) -> None:
        """Colour the blocks in view (and a margin) that are not coloured yet."""
        lexing = self._highlighter.lexing
        if not self._lazy or lexing is None:
            return
        known = lexing.complete_lines
        editor = self.editor
        block = editor.firstVisibleBlock()
        for _ in range(_VISIBLE_MARGIN_BLOCKS):
            if not block.previous().isValid():
                break
            block = block.previous()
        top = editor.blockBoundingGeometry(block).translated(editor.contentOffset()).top()
        limit = editor.viewport().height() + _VISIBLE_MARGIN_BLOCKS * editor.fontMetrics().height()
        while block.isValid() and top <= limit:
            number = block.blockNumber()
            if number >= known:
                break
            if number not in self._coloured:
                self._coloured.add(number)
                self._highlighter.rehighlightBlock(block)
            top += editor.blockBoundingRect(block).height()
            block = block.next()

    def _mark(self) -> None:
        """The matched line across the full width, then every whole-word match of a term."""
        palette = self.palette()
        base = palette.color(QPalette.ColorRole.Base)
        dark = is_dark(palette)
        marks: list[QTextEdit.ExtraSelection] = []
        document = self.editor.document()
        if self._line is not None:
            mark = QTextEdit.ExtraSelection()
            mark.format.setBackground(
                mix(base, palette.color(QPalette.ColorRole.Highlight), 0.35 if dark else 0.22)
            )
            mark.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            mark.cursor = QTextCursor(document.findBlockByNumber(self._line - 1))
            marks.append(mark)
        if self._terms:
            words = folded_words(self._terms)  # the engine's: "dioxido" marks "dióxido"
            pattern = re.compile(
                r"(?<!\w)(?:" + "|".join(map(re.escape, words)) + r")(?!\w)", re.IGNORECASE
            )
            term_colour = mix(base, QColor("#ffd400"), 0.45 if dark else 0.6)
            astral = [m.start() for m in ASTRAL.finditer(self._text)]
            for n, (start, end) in enumerate(word_spans(self._text, pattern)):
                if n >= _MAX_TERM_MARKS:
                    break
                if astral:  # Qt counts an astral character as two positions
                    start += bisect.bisect_left(astral, start)
                    end += bisect.bisect_left(astral, end)
                mark = QTextEdit.ExtraSelection()
                mark.format.setBackground(term_colour)
                cursor = QTextCursor(document)
                cursor.setPosition(start)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                mark.cursor = cursor
                marks.append(mark)
        self.editor.setExtraSelections(marks)

    def _move_cursor(self) -> None:
        block = self.editor.document().findBlockByNumber((self._line or 1) - 1)
        self._moving_cursor = True
        try:
            self.editor.setTextCursor(QTextCursor(block))
        finally:
            self._moving_cursor = False
        self._center_pending = self._line is not None
        self._center()

    def _center(self) -> None:
        if self._center_pending and self._line is not None:
            self.editor.centerCursor()
            self._colour_visible()

    def _cursor_moved(self) -> None:
        if not self._moving_cursor:
            self._center_pending = False  # the user moved: leave the view where they put it

    def _user_scrolled(self, _action: int) -> None:
        self._center_pending = False

    def _style_for_palette(self) -> str:
        # our own palette: a palette change reaches this widget before its children
        return DARK_STYLE if is_dark(self.palette()) else LIGHT_STYLE

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            self._follow_palette()

    def _follow_palette(self) -> None:
        name = self._style_for_palette()
        if name == self._highlighter.style_name:
            return
        self._highlighter.set_style(name)
        if self._lazy:
            self._coloured.clear()
            self._colour_visible()
        else:
            self._highlighter.rehighlight()
        self._mark()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._center()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._center()
