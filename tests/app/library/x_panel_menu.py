"""The library panel's context menu on a real X server (run by test_panel_menu_x.py through
the x_server fixture), with keys and clicks typed by xdotool as a keyboard and mouse send
them: code.zip picked with the arrow keys, the Menu key, then Shift+F10, each open code.zip's
menu at its row (the Menu key offered "Remove 'lecture-01-sorting.srt'", the next row, and
Shift+F10 nothing); a right-click on notes.md opens its menu under the pointer."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QPoint, QTimer
from PySide6.QtWidgets import QApplication, QMenu, QTreeWidgetItem
from pytestqt.qtbot import QtBot

from app.window import MainWindow
from engine.api import Library
from tests.app.library.test_panel_menu import algorithms
from tests.app.x_server import ON_X_SERVER, press

pytestmark = ON_X_SERVER


def click(button: str, at: QPoint) -> None:
    subprocess.run(["xdotool", "mousemove", str(at.x()), str(at.y()), "click", button],
                   check=True, timeout=30)  # fmt: skip


def menu_from(qtbot: QtBot, act: Callable[[], None]) -> tuple[str, QPoint]:
    """The last action of the menu ``act`` opens (its "Remove ..."), and where it opened;
    the menu is closed with a real Escape."""
    seen: list[tuple[str, QPoint]] = []

    def poll() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, poll)
            return
        seen.append(([a.text() for a in menu.actions() if a.text()][-1], menu.pos()))
        press("Escape")

    QTimer.singleShot(0, poll)
    act()
    qtbot.waitUntil(lambda: bool(seen) and QApplication.activePopupWidget() is None)
    return seen[0]


def test_menu_key_shift_f10_and_right_click(qtbot: QtBot, library: Library, tmp_path: Path) -> None:
    algorithms(tmp_path / "Algorithms")
    library.ingest([tmp_path / "Algorithms"])
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=10_000)
    panel = window.panel
    qtbot.waitUntil(lambda: panel.item_of(str(tmp_path / "Algorithms" / "notes.md")) is not None)

    def screen_rect(target: str | Path) -> tuple[QTreeWidgetItem, QPoint, QPoint]:
        item = panel.item_of(str(target))
        assert item is not None
        rect = panel.visualItemRect(item)
        viewport = panel.viewport()
        return item, viewport.mapToGlobal(rect.topLeft()), viewport.mapToGlobal(rect.bottomRight())

    course, top, bottom = screen_rect("Algorithms")
    click("1", QPoint((top.x() + bottom.x()) // 2, (top.y() + bottom.y()) // 2))
    qtbot.waitUntil(lambda: panel.currentItem() is course)
    press("Down")
    code, top, bottom = screen_rect(tmp_path / "Algorithms" / "code.zip")
    qtbot.waitUntil(lambda: panel.currentItem() is code)
    for keys in ("Menu", "shift+F10"):
        remove, at = menu_from(qtbot, lambda keys=keys: press(keys))
        assert remove == "Remove “code.zip” from the library…", keys
        assert top.y() <= at.y() <= bottom.y() + 2 and top.x() <= at.x() <= bottom.x(), at
    _notes, top, bottom = screen_rect(tmp_path / "Algorithms" / "notes.md")
    pointer = QPoint(top.x() + 30, (top.y() + bottom.y()) // 2)
    remove, at = menu_from(qtbot, lambda: click("3", pointer))
    assert remove == "Remove “notes.md” from the library…"
    assert abs(at.x() - pointer.x()) <= 2 and abs(at.y() - pointer.y()) <= 2, (at, pointer)
    window.close()
