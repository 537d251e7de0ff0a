"""The Notes panel's tree: course rows, and under each its notes, a note drawn as its place
(bold) over its text, wrapped to the panel's width (laid out again when the width changes);
the menu key asks for a note's menu."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QContextMenuEvent, QFont, QFontMetrics, QPainter, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QLabel,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QWidget,
)

NOTE_ID = Qt.ItemDataRole.UserRole  # on a note's row: the note's id
PAD = 3  # pixels around and between the two parts of a note
Index = QModelIndex | QPersistentModelIndex


class NoteDelegate(QStyledItemDelegate):
    """A note's row ("place\\ntext") as the place in bold over the text; other rows as usual."""

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self.tree = tree

    def _width(self) -> int:
        """The room for a note's text: the column, less a course's and a note's indent."""
        return max(40, self.tree.viewport().width() - 2 * self.tree.indentation() - 2 * PAD)

    def _parts(self, index: Index) -> tuple[str, str] | None:
        text = index.data()
        if index.data(NOTE_ID) is None or not isinstance(text, str) or "\n" not in text:
            return None
        place, note = text.split("\n", 1)
        return place, note

    def _heights(self, font: QFont, place: str, note: str, width: int) -> tuple[int, int]:
        bold = QFont(font)
        bold.setBold(True)
        box, wrap = QRect(0, 0, width, 100_000), int(Qt.TextFlag.TextWordWrap)
        return (
            QFontMetrics(bold).boundingRect(box, wrap, place).height(),
            QFontMetrics(font).boundingRect(box, wrap, note).height(),
        )

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        parts = self._parts(index)
        if parts is None:
            return super().sizeHint(option, index)
        width = self._width()
        top, bottom = self._heights(option.font, *parts, width)
        return QSize(width, top + bottom + 3 * PAD)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        parts = self._parts(index)
        if parts is None:
            super().paint(painter, option, index)
            return
        shown = QStyleOptionViewItem(option)
        self.initStyleOption(shown, index)
        shown.text = ""
        widget = shown.widget
        style = widget.style() if isinstance(widget, QWidget) else self.tree.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, shown, painter, widget)
        selected = bool(shown.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        place, note = parts
        font: QFont = shown.font
        rect: QRect = shown.rect
        top, _ = self._heights(font, place, note, rect.width() - 2 * PAD)
        bold = QFont(font)
        bold.setBold(True)
        wrap = int(Qt.TextFlag.TextWordWrap)
        painter.save()
        try:
            painter.setPen(shown.palette.color(role))
            painter.setFont(bold)
            inner = rect.adjusted(PAD, PAD, -PAD, -PAD)
            painter.drawText(inner, wrap, place)
            painter.setFont(font)
            painter.drawText(inner.adjusted(0, top + PAD, 0, 0), wrap, note)
        finally:
            painter.restore()


class NotesTree(QTreeWidget):
    """Course rows, and under each its notes; ``menu_wanted`` asks for a note's menu."""

    menu_wanted = Signal(QPoint)  # where, in the viewport

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setIndentation(14)
        self.setWordWrap(True)
        self.setUniformRowHeights(False)
        self.setAlternatingRowColors(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setItemDelegate(NoteDelegate(self))
        # Said inside the list when it is empty: the list stays, so Ctrl+6 and Tab still
        # reach it (a hidden list left the focus where it was).
        self.empty = QLabel(self.viewport())
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.empty.setMargin(12)
        self.empty.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.empty.hide()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.empty.setGeometry(self.viewport().rect())
        if event.size().width() != event.oldSize().width():
            self.doItemsLayout()  # the notes wrap to the new width: their heights change

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        if event.reason() == QContextMenuEvent.Reason.Keyboard:
            item = self.currentItem()
            at = self.visualItemRect(item).center() if item is not None else QPoint(0, 0)
        else:
            at = event.pos()
            item = self.itemAt(at)
            if item is not None:
                self.setCurrentItem(item)
        if item is not None and item.data(0, NOTE_ID) is not None:
            self.menu_wanted.emit(at)
