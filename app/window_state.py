"""What the window remembers between starts: its size and place, the splitter's panes, the
last query (searched again on start, so the last session's results come back), the search
history, which courses of the library panel were open or closed, and the folder a file
dialog was last used in. Kept in an INI file beside the settings (QSettings), read and
written only by the window.

The window is kept on its screen: a size remembered on a larger screen, or at a smaller
scale (QT_SCALE_FACTOR=1.5 makes a 1600x1000 screen 1066x666), came back larger than the
screen, the import bar and the player's controls below its edge (issue 36, item 4); Qt's
restoreGeometry did not shrink it. So did the first start's 1280x800."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QByteArray, QMargins, QRect, QSettings, QSize
from PySide6.QtWidgets import QStyle, QWidget

GEOMETRY, SPLITTER, QUERY, HISTORY = (
    "window/geometry",
    "window/splitter",
    "search/query",
    "search/history",
)
EXPANDED, COLLAPSED = "library/open", "library/closed"
FOLDER = "dialogs/folder"  # the last folder a file dialog was used in
DEFAULT_SIZE = QSize(1280, 800)  # at the first start, on a screen with room for it


def state_path(settings_path: Path | None) -> Path | None:
    """The window's file beside the settings file (none: nothing is remembered)."""
    return None if settings_path is None else settings_path.with_name("window.ini")


@dataclass(frozen=True, slots=True)
class WindowState:
    geometry: QByteArray = field(default_factory=QByteArray)
    splitter: QByteArray = field(default_factory=QByteArray)
    query: str = ""
    history: tuple[str, ...] = ()
    expanded: tuple[str, ...] = ()  # course names
    collapsed: tuple[str, ...] = ()
    folder: str = ""  # the last folder a file dialog was used in


def load_state(path: Path) -> WindowState:
    """What ``path`` holds; empty values where it holds nothing usable."""
    stored = QSettings(str(path), QSettings.Format.IniFormat)

    def data(key: str) -> QByteArray:
        value = stored.value(key)
        return value if isinstance(value, QByteArray) else QByteArray()

    def names(key: str) -> tuple[str, ...]:
        value = stored.value(key, [])
        if isinstance(value, str):  # QSettings reads a one-item list back as its item
            value = [value]
        return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()

    query, folder = stored.value(QUERY, ""), stored.value(FOLDER, "")
    return WindowState(
        data(GEOMETRY),
        data(SPLITTER),
        query if isinstance(query, str) else "",
        names(HISTORY),
        names(EXPANDED),
        names(COLLAPSED),
        folder if isinstance(folder, str) else "",
    )


def save_state(path: Path, state: WindowState) -> None:
    stored = QSettings(str(path), QSettings.Format.IniFormat)
    stored.setValue(GEOMETRY, state.geometry)
    stored.setValue(SPLITTER, state.splitter)
    stored.setValue(QUERY, state.query)
    stored.setValue(HISTORY, list(state.history))
    stored.setValue(EXPANDED, list(state.expanded))
    stored.setValue(COLLAPSED, list(state.collapsed))
    stored.setValue(FOLDER, state.folder)
    stored.sync()


def place_window(window: QWidget, geometry: QByteArray | None = None) -> None:
    """``window`` where it was (``geometry``: its saveGeometry()), else DEFAULT_SIZE large,
    kept on the screen (fit_on_screen)."""
    if geometry is None or geometry.isEmpty() or not window.restoreGeometry(geometry):
        window.resize(DEFAULT_SIZE)
    fit_on_screen(window)


def fit_on_screen(window: QWidget) -> None:
    """``window`` no larger than its screen's free area (the taskbars and panels left out)
    and inside it, its title bar included; a maximized or full-screen window is left as it
    is. Before it is shown no one knows the window manager's frame: a title bar's height
    and a few pixels a side are left for it."""
    if window.isMaximized() or window.isFullScreen():
        return
    area = window.screen().availableGeometry()
    inner, frame = window.geometry(), window.frameGeometry()
    style = window.style()
    top = max(inner.top() - frame.top(), style.pixelMetric(QStyle.PixelMetric.PM_TitleBarHeight))
    side = max(inner.left() - frame.left(), 2)
    width = min(inner.width(), area.width() - 2 * side)
    height = min(inner.height(), area.height() - top - side)
    if (width, height) != (inner.width(), inner.height()):
        window.resize(width, height)
    outer = QRect(frame.topLeft(), window.size().grownBy(QMargins(side, top, side, side)))
    x = max(area.left(), min(outer.left(), area.right() + 1 - outer.width()))
    y = max(area.top(), min(outer.top(), area.bottom() + 1 - outer.height()))
    if (x, y) != (frame.left(), frame.top()):
        window.move(x, y)  # a window's pos is its frame's
