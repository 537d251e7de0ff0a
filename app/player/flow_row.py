"""The row of the player's buttons, which wraps: in a narrow preview (a 1024-px window, a
1.5x scale) the buttons go on a second line, each whole, where one line cut them ("+…s", an
empty speed box, a stub of a volume slider: issue 36, item 5)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget

SPACING = 6  # px between two controls, as a box layout has them in Fusion


class FlowRow(QLayout):
    """Widgets left to right, at their size hints, on as many lines as the width needs. On
    one line, the widgets from ``right_from`` on go to its right end (mute and volume)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self.right_from = -1  # none: all on the left

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def add_layout(self, layout: QLayout) -> None:
        """Widgets kept together on one line (a box layout of them)."""
        self.addChildLayout(layout)
        self.addItem(layout)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # type: ignore[override]
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # type: ignore[override]
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:
        """All on one line."""
        shown = self._shown()
        width = sum(i.sizeHint().width() for i in shown) + SPACING * max(0, len(shown) - 1)
        height = max((i.sizeHint().height() for i in shown), default=0)
        margins = self.contentsMargins()
        return QSize(width, height).grownBy(margins)

    def minimumSize(self) -> QSize:
        """As wide as the widest control, a line high."""
        shown = self._shown()
        width = max((i.sizeHint().width() for i in shown), default=0)
        height = max((i.sizeHint().height() for i in shown), default=0)
        return QSize(width, height).grownBy(self.contentsMargins())

    def _shown(self) -> list[QLayoutItem]:
        return [item for item in self._items if not item.isEmpty()]

    def _lines(self, width: int) -> list[list[QLayoutItem]]:
        lines: list[list[QLayoutItem]] = [[]]
        x = 0
        for item in self._shown():
            wide = item.sizeHint().width()
            if lines[-1] and x + wide > width:
                lines.append([])
                x = 0
            lines[-1].append(item)
            x += wide + SPACING
        return lines

    def _place(self, rect: QRect, *, move: bool) -> int:
        """Lay the widgets out in ``rect`` (only measure unless ``move``); the height used."""
        area = rect.marginsRemoved(self.contentsMargins())
        lines = self._lines(area.width())
        right = self._items[self.right_from] if len(lines) == 1 and self.right_from >= 0 else None
        y = area.top()
        for line in lines:
            tall = max((item.sizeHint().height() for item in line), default=0)
            x = area.left()
            for n, item in enumerate(line):
                size = item.sizeHint()
                if item is right:  # the rest of a single line goes to its right end
                    rest = line[n:]
                    x = area.right() + 1 - sum(i.sizeHint().width() + SPACING for i in rest)
                    x += SPACING
                if move:
                    item.setGeometry(QRect(QPoint(x, y + (tall - size.height()) // 2), size))
                x += size.width() + SPACING
            y += tall + SPACING
        margins = self.contentsMargins()
        return y - SPACING - area.top() + margins.top() + margins.bottom()
