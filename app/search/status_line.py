"""The search pane's status line: two lines high whatever it says (the count of results
and their time, what is going on, why nothing was found)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QResizeEvent, QTextLayout
from PySide6.QtWidgets import QLabel


class StatusLine(QLabel):
    """Two lines high whatever it says: a longer message ends in "…" on its second line (a
    third line's top showed under it) and is whole in its tooltip (only then) and in
    ``text()``."""

    LINES = 2

    def __init__(self) -> None:
        super().__init__()
        self._full = ""

    def setText(self, text: str) -> None:
        self._full = text
        self._fit()

    def text(self) -> str:
        return self._full

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # a larger system font: taller lines
            self.fit_height()

    def fit_height(self) -> None:
        self.setFixedHeight(self.fontMetrics().lineSpacing() * self.LINES + 4)
        self._fit()

    def _fit(self) -> None:
        """The whole text if it wraps into two lines at this width, else its first line and
        the rest elided into the second."""
        text, width = self._full, max(1, self.contentsRect().width())
        layout = QTextLayout(text, self.font())
        layout.beginLayout()
        starts: list[int] = []
        while len(starts) <= self.LINES:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(width)
            starts.append(line.textStart())
        layout.endLayout()
        if len(starts) > self.LINES:
            metrics = self.fontMetrics()
            last = text[starts[self.LINES - 1] :]
            elided = metrics.elidedText(last, Qt.TextElideMode.ElideRight, width)
            text = text[: starts[self.LINES - 1]].rstrip() + "\n" + elided
        self.setToolTip(self._full if text != self._full else "")  # only what is cut
        super().setText(text)
