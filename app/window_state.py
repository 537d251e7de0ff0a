"""What the window remembers between starts: its size and place, the splitter's panes, the
last query (searched again on start, so the last session's results come back), the search
history, which courses of the library panel were open or closed, and the folder a file
dialog was last used in. Kept in an INI file beside the settings (QSettings), read and
written only by the window."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

GEOMETRY, SPLITTER, QUERY, HISTORY = (
    "window/geometry",
    "window/splitter",
    "search/query",
    "search/history",
)
EXPANDED, COLLAPSED = "library/open", "library/closed"
FOLDER = "dialogs/folder"  # the last folder a file dialog was used in


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
