"""The player's own controls: a seek bar that jumps to the click and marks the query's matches
and the chapters, the subtitle drawn over the picture, and a ring around the control with the
keyboard focus. Its icons are app/player/icons.py."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QWidget,
)


class SeekBar(QSlider):
    """A horizontal slider over a lecture's milliseconds. A click on the groove jumps to the
    clicked time (a plain QSlider steps a page, 10 s, towards it); dragging the handle works
    as usual. Ticks above the groove mark the current query's matches (highlight colour)
    and the chapters (text colour, shorter)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.matches: list[int] = []
        self.chapters: list[int] = []
        self.setMinimumHeight(24)

    def set_marks(self, matches: Sequence[int], chapters: Sequence[int]) -> None:
        self.matches, self.chapters = list(matches), list(chapters)
        self.update()

    def _groove(self) -> tuple[int, int]:
        """The x of the groove's first and last value, in the slider's coordinates."""
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        style = self.style()
        groove = style.subControlRect(
            QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderGroove, self
        )
        handle = style.subControlRect(
            QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderHandle, self
        )
        first = groove.x() + handle.width() // 2
        return first, first + groove.width() - handle.width()

    def value_at(self, x: float) -> int:
        first, last = self._groove()
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        return QStyle.sliderValueFromPosition(
            self.minimum(), self.maximum(), round(x - first), max(1, last - first)
        )

    def mousePressEvent(self, event: QMouseEvent) -> None:
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        on = self.style().hitTestComplexControl(
            QStyle.ComplexControl.CC_Slider, option, event.position().toPoint(), self
        )
        if event.button() == Qt.MouseButton.LeftButton and on != QStyle.SubControl.SC_SliderHandle:
            # Jump to the click, then let the press go on as a drag of the handle from there.
            self.setSliderPosition(self.value_at(event.position().x()))
            self.triggerAction(QSlider.SliderAction.SliderMove)
        super().mousePressEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.maximum() <= 0 or not (self.matches or self.chapters):
            return
        first, last = self._groove()
        span = max(1, last - first)
        painter = QPainter(self)
        palette = self.palette()
        for times, role, height in (
            (self.chapters, QPalette.ColorRole.WindowText, 4),
            (self.matches, QPalette.ColorRole.Highlight, 7),
        ):
            painter.setPen(QPen(QColor(palette.color(role)), 2))
            for ms in times:
                x = first + span * min(max(ms, 0), self.maximum()) / self.maximum()
                painter.drawLine(QPointF(x, 0), QPointF(x, height))
        painter.end()


class SubtitleLabel(QLabel):
    """The line being spoken, drawn over the bottom of the picture. A native window of its
    own: libVLC and Qt Multimedia draw the video into native windows, which cover any
    plain sibling widget."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_NativeWindow)
        self.setAttribute(Qt.WidgetAttribute.WA_DontCreateNativeAncestors)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setMargin(6)
        self.setAutoFillBackground(True)
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Window, QColor(0, 0, 0))
        palette.setColor(QPalette.ColorRole.WindowText, QColor(255, 255, 255))
        self.setPalette(palette)
        font = self.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        self.setFont(font)
        self.hide()

    def place(self, area: QWidget) -> None:
        """Sit centred at the bottom of ``area`` (a sibling: the video's page)."""
        if not self.text():
            return
        width = max(120, area.width() - 40)
        self.setFixedWidth(width)
        height = self.heightForWidth(width)
        geometry = area.geometry()
        self.move(geometry.x() + (geometry.width() - width) // 2, geometry.bottom() - height - 12)
        self.setFixedHeight(height)
        self.raise_()


class FocusRing(QWidget):
    """A ring in the highlight colour around whatever has the keyboard focus among
    ``targets`` (a focused widget -> the widget to surround). Fusion's own focus frame is a
    thin line inside the control, easy to miss, in the dark theme above all."""

    WIDTH = 2
    MARGIN = 3  # outside the control, so nothing of the control is covered

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._targets: dict[QWidget, QWidget] = {}
        self.around: QWidget | None = None
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)  # a method: gone with the ring
        self.hide()

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        self.follow(new)

    def add(self, focused: QWidget, surround: QWidget | None = None) -> None:
        self._targets[focused] = surround or focused
        (surround or focused).installEventFilter(self)

    def follow(self, focused: QWidget | None) -> None:
        around = self._targets.get(focused) if focused is not None else None
        self.around = around
        parent = self.parentWidget()
        if around is None or parent is None or not around.isVisible():
            self.hide()
            return
        m = self.MARGIN
        corner = QPoint(0, 0) if around is parent else around.mapTo(parent, QPoint(0, 0))
        self.setGeometry(QRect(corner, around.size()).adjusted(-m, -m, m, m) & parent.rect())
        self.show()
        self.raise_()
        self.update()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.around and event.type() in (
            QEvent.Type.Move,
            QEvent.Type.Resize,
            QEvent.Type.Hide,
        ):
            self.follow(QApplication.focusWidget())
        return False

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        colour = self.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.Highlight)
        painter.setPen(QPen(colour, self.WIDTH))
        half = self.WIDTH / 2
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(half, half, -half, -half), 3, 3)
        painter.end()
