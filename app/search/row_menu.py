"""A result row's menu (Open, Copy link, Copy quote, Add note here…) with the keys that do
the same from the list, and the kind glyphs drawn as the rows' icons."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QIcon, QKeySequence, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QMenu, QWidget

from app.search.results import KIND_GLYPHS
from engine.api import AtMoment, SearchResult, SegmentKind

# A row's keys (Ctrl is Cmd on macOS), shown in its menu; a quote has none: the player's
# Ctrl+Shift+C (its moment's link) works from the whole window
OPEN, COPY_LINK = "Return", "Ctrl+C"


def result_menu(
    parent: QWidget,
    result: SearchResult,
    opened: Callable[[], None],
    copied: Callable[[bool], None],
    noted: Callable[[], None],
) -> QMenu:
    """Open, Copy link, Copy quote (with time for a lecture's moment), Add note here…:
    ``copied(True)`` copies a quote, ``copied(False)`` the link."""
    menu = QMenu(parent)
    quote = "Copy quote with time" if isinstance(result.place, AtMoment) else "Copy quote"
    for text, keys, act in (
        ("Open", OPEN, opened),
        ("Copy link", COPY_LINK, lambda: copied(False)),
        (quote, "", lambda: copied(True)),
        ("Add note here…", "", noted),
    ):
        action = menu.addAction(text, act)
        action.setShortcut(QKeySequence(keys))  # shown in the menu; the list's keys do it
        action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        if text in ("Open", quote):
            menu.addSeparator()
    return menu


def kind_icons(widget: QWidget) -> dict[SegmentKind, QIcon]:
    """A glyph per kind, drawn in ``widget``'s text colour (legible light and dark), at
    twice the size a row shows it (a line of text high), so it stays sharp."""
    colour = widget.palette().color(QPalette.ColorRole.WindowText)
    side = 2 * (widget.fontMetrics().height() + 4)
    icons: dict[SegmentKind, QIcon] = {}
    for kind, glyph in KIND_GLYPHS.items():
        pixmap = QPixmap(side, side)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        font = QFont(widget.font())
        font.setPixelSize(round(side * (0.75 if len(glyph) == 1 else 0.5)))  # of the icon
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(colour)
        painter.drawText(pixmap.rect(), Qt.AlignmentFlag.AlignCenter, glyph)
        painter.end()
        icons[kind] = QIcon(pixmap)
    return icons
