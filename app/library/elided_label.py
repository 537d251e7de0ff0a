"""The import bar's line of text: one line whose file name is cut in its middle, never
the stage or the time left that follow it."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget


class ElidedLabel(QLabel):
    """One line of text; when it does not fit, the part given to squeeze (a file's name) is
    cut in its middle, so that what follows it (the stage, the time left) is whole, or else
    the line is cut at its end. ``text()`` is all of it and so is the tooltip. Its height
    never changes with the text. The line is fitted when the text or the width changes and
    Qt paints it (a paint in Python waited for the import's thread to let go of Python)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(False)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._full = ""
        self._squeeze = ""

    def setText(self, text: str, squeeze: str = "") -> None:
        self._full, self._squeeze = text, squeeze
        self.setToolTip(text if "\n" in text or len(text) > 60 else "")
        super().setText(self.shown())

    def text(self) -> str:
        return self._full

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        super().setText(self.shown())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self.fontMetrics().height())

    def sizeHint(self) -> QSize:
        line = " ".join(self.text().split())
        return QSize(self.fontMetrics().horizontalAdvance(line), self.fontMetrics().height())

    def shown(self) -> str:
        """The line as painted at the label's width."""
        line = " · ".join(part for part in self.text().splitlines() if part.strip())
        metrics, width, squeeze = self.fontMetrics(), self.width(), self._squeeze
        if metrics.horizontalAdvance(line) > width and squeeze and squeeze in line:
            rest = metrics.horizontalAdvance(line.replace(squeeze, "", 1))
            room = width - rest - metrics.averageCharWidth()  # the painter's rounding
            if room >= metrics.horizontalAdvance("ab…yz"):
                cut = metrics.elidedText(squeeze, Qt.TextElideMode.ElideMiddle, room)
                line = line.replace(squeeze, cut, 1)
        return metrics.elidedText(line, Qt.TextElideMode.ElideRight, width)
