"""The player's icons: glyphs drawn in the palette's button text colour, so that they stay
legible on a light and a dark theme alike (the style's own media icons are dark grey pixmaps
whatever the palette: on a dark theme they were all but invisible).

    button.setIcon(media_icon("play", button.palette()))

Each glyph is a function drawing on a 32 px square (scaled by ``s``) with the colour as the
brush; ``ICONS`` names them all.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPalette, QPen, QPixmap, QPolygonF

ICON_PX = 32  # drawn at this size; Qt scales it down for the buttons


def _play(painter: QPainter, _colour: QColor, s: float) -> None:
    painter.drawPolygon(QPolygonF([QPointF(9 * s, 5 * s), QPointF(27 * s, 16 * s),
                                   QPointF(9 * s, 27 * s)]))  # fmt: skip


def _pause(painter: QPainter, _colour: QColor, s: float) -> None:
    painter.drawRect(QRectF(8 * s, 6 * s, 6 * s, 20 * s))
    painter.drawRect(QRectF(18 * s, 6 * s, 6 * s, 20 * s))


def _speaker(painter: QPainter, colour: QColor, s: float, muted: bool) -> None:
    speaker = ((4, 12), (10, 12), (17, 5), (17, 27), (10, 20), (4, 20))
    painter.drawPolygon(QPolygonF([QPointF(x * s, y * s) for x, y in speaker]))
    pen = QPen(colour, 2.5 * s, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    if not muted:
        for r in (5, 10):
            painter.drawArc(QRectF((17 - r) * s, (16 - r) * s, 2 * r * s, 2 * r * s),
                            -50 * 16, 100 * 16)  # fmt: skip
    else:
        painter.drawLine(QPointF(21 * s, 11 * s), QPointF(29 * s, 21 * s))
        painter.drawLine(QPointF(29 * s, 11 * s), QPointF(21 * s, 21 * s))


def _match(painter: QPainter, s: float, previous: bool) -> None:
    """A triangle against a bar: to the previous or the next match."""
    tip, back, bar = (6, 24, 24) if previous else (26, 8, 6)
    painter.drawPolygon(QPolygonF([QPointF(tip * s, 16 * s), QPointF(back * s, 6 * s),
                                   QPointF(back * s, 26 * s)]))  # fmt: skip
    painter.drawRect(QRectF(bar * s, 6 * s, 3 * s, 20 * s))


def _jump(painter: QPainter, s: float, back_in_time: bool) -> None:
    """Two arrowheads: a jump of 10 s."""
    for left in (3, 15):
        tip, back = (left, left + 13) if back_in_time else (left + 13, left)
        painter.drawPolygon(QPolygonF([QPointF(tip * s, 16 * s), QPointF(back * s, 7 * s),
                                       QPointF(back * s, 25 * s)]))  # fmt: skip


def _full_screen(painter: QPainter, colour: QColor, s: float) -> None:
    pen = QPen(colour, 3 * s, Qt.PenStyle.SolidLine, Qt.PenCapStyle.SquareCap)
    painter.setPen(pen)
    for x, y, dx, dy in ((5, 5, 1, 1), (27, 5, -1, 1), (5, 27, 1, -1), (27, 27, -1, -1)):
        corner = QPointF(x * s, y * s)
        painter.drawLine(corner, QPointF((x + 7 * dx) * s, y * s))
        painter.drawLine(corner, QPointF(x * s, (y + 7 * dy) * s))


def _link(painter: QPainter, colour: QColor, s: float) -> None:
    pen = QPen(colour, 3 * s)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.translate(16 * s, 16 * s)
    painter.rotate(-45)
    painter.drawRoundedRect(QRectF(-14 * s, -5 * s, 15 * s, 10 * s), 5 * s, 5 * s)
    painter.drawRoundedRect(QRectF(-1 * s, -5 * s, 15 * s, 10 * s), 5 * s, 5 * s)


def _note(painter: QPainter, _colour: QColor, s: float) -> None:
    """A bookmark's ribbon."""
    ribbon = ((9, 4), (23, 4), (23, 28), (16, 21), (9, 28))
    painter.drawPolygon(QPolygonF([QPointF(x * s, y * s) for x, y in ribbon]))


def _replay(painter: QPainter, colour: QColor, s: float) -> None:
    pen = QPen(colour, 3 * s, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawArc(QRectF(6 * s, 6 * s, 20 * s, 20 * s), 100 * 16, 280 * 16)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    arrow = QPainterPath(QPointF(10 * s, 2 * s))
    arrow.lineTo(QPointF(17 * s, 7 * s))
    arrow.lineTo(QPointF(10 * s, 12 * s))
    arrow.closeSubpath()
    painter.drawPath(arrow)


_GLYPHS: dict[str, Callable[[QPainter, QColor, float], None]] = {
    "play": _play,
    "pause": _pause,
    "volume": lambda painter, colour, s: _speaker(painter, colour, s, muted=False),
    "muted": lambda painter, colour, s: _speaker(painter, colour, s, muted=True),
    "replay": _replay,
    "previous": lambda painter, _colour, s: _match(painter, s, previous=True),
    "next": lambda painter, _colour, s: _match(painter, s, previous=False),
    "full screen": _full_screen,
    "link": _link,
    "note": _note,
    "back": lambda painter, _colour, s: _jump(painter, s, back_in_time=True),
    "forward": lambda painter, _colour, s: _jump(painter, s, back_in_time=False),
}
ICONS = tuple(_GLYPHS)


def media_icon(name: str, palette: QPalette) -> QIcon:
    """The glyph ``name`` (one of ``ICONS``; an unknown name draws nothing) in the
    palette's button text colour."""
    pixmap = QPixmap(ICON_PX, ICON_PX)
    pixmap.fill(Qt.GlobalColor.transparent)
    colour = palette.color(QPalette.ColorRole.ButtonText)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    glyph = _GLYPHS.get(name)
    if glyph is not None:
        glyph(painter, colour, ICON_PX / 32)
    painter.end()
    return QIcon(pixmap)
