"""The library panel's context menu is for the row the student means (issue 24, item 3):
picked with the arrow keys, the Menu key (or Shift+F10) opens the current row's menu at that
row; a right-click opens the menu of the row under the pointer. It offered "Remove" of the
next row: the key's menu event carries the row's place in the panel's coordinates, which
the panel read as its viewport's, a header's height higher.

Keys go through the window as the platform delivers them; the Menu key's menu event is the
one Qt builds for the focused widget (what xcb and Windows send for that key). The same
under a real X server, keys typed by xdotool: tests/app/library/test_panel_menu_x.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu, QTreeWidgetItem
from pytestqt.qtbot import QtBot

from app.window import MainWindow
from engine.api import Library
from tests.conftest import LECTURE_CUES
from tools.factories import make_code_zip, make_srt


def algorithms(folder: Path) -> list[Path]:
    """A course whose rows read, in order: code.zip, lecture-01-sorting.srt, notes.md."""
    folder.mkdir(parents=True)
    code = make_code_zip(folder / "code.zip", {"sort.py": "def sort(xs):\n    return xs\n"})
    lecture = make_srt(folder / "lecture-01-sorting.srt", LECTURE_CUES)
    notes = folder / "notes.md"
    notes.write_text("# Notes\n\nMerge sort is stable.\n", encoding="utf-8")
    return [code, lecture, notes]


@pytest.fixture
def window(qtbot: QtBot, library: Library, tmp_path: Path) -> MainWindow:
    files = algorithms(tmp_path / "Algorithms")
    library.ingest([tmp_path / "Algorithms"])
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.panel.state_of(str(files[-1])) == "indexed")
    return window


def next_menu(seen: list[tuple[list[str], QPoint]]) -> None:
    """Keep the next context menu's actions and where it opened, then close it."""

    def poll() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, poll)
            return
        seen.append(([a.text() for a in menu.actions() if a.text()], menu.pos()))
        menu.close()

    QTimer.singleShot(0, poll)


def menu_from(qtbot: QtBot, open_it: Callable[[], None]) -> tuple[list[str], QPoint]:
    seen: list[tuple[list[str], QPoint]] = []
    next_menu(seen)
    open_it()
    qtbot.waitUntil(lambda: bool(seen))
    return seen[0]


def press_menu_key(window: MainWindow) -> None:
    """The Menu key as the platform delivers it: the key to the window, and the menu event
    Qt's window makes of it for its focused widget (a keyboard event, no point given)."""
    handle = window.windowHandle()
    QTest.keyClick(handle, Qt.Key.Key_Menu)
    cursor = window.mapFromGlobal(window.cursor().pos())
    event = QContextMenuEvent(QContextMenuEvent.Reason.Keyboard, cursor, window.cursor().pos())
    QGuiApplication.sendEvent(handle, event)


def row_of(window: MainWindow, target: str | Path) -> QTreeWidgetItem:
    item = window.panel.item_of(str(target))
    assert item is not None, target
    return item


def row_rect(window: MainWindow, item: QTreeWidgetItem) -> tuple[QPoint, QPoint]:
    """The row's top-left and bottom-right on the screen."""
    rect = window.panel.visualItemRect(item)
    viewport = window.panel.viewport()
    return viewport.mapToGlobal(rect.topLeft()), viewport.mapToGlobal(rect.bottomRight())


def test_the_menu_key_opens_the_menu_of_the_row_picked_with_the_arrows(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    panel = window.panel
    panel.setFocus()
    panel.setCurrentItem(row_of(window, "Algorithms"))
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_Down)  # to code.zip, by a real key
    row = row_of(window, tmp_path / "Algorithms" / "code.zip")
    assert panel.currentItem() is row
    top, bottom = row_rect(window, row)

    actions, at = menu_from(qtbot, lambda: press_menu_key(window))
    assert actions[-1] == "Remove “code.zip” from the library…", actions
    assert top.y() <= at.y() <= bottom.y() + 2 and top.x() <= at.x() <= bottom.x(), (at, top)

    actions, at = menu_from(
        qtbot,
        lambda: QTest.keyClick(
            window.windowHandle(), Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier
        ),
    )
    assert actions[-1] == "Remove “code.zip” from the library…", actions
    assert top.y() <= at.y() <= bottom.y() + 2, (at, top)


def test_the_menu_key_follows_the_current_row_and_the_course_has_its_own(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    panel = window.panel
    panel.setFocus()
    panel.setCurrentItem(row_of(window, "Algorithms"))
    for _ in range(3):  # code.zip, the lecture, notes.md: the last row
        QTest.keyClick(window.windowHandle(), Qt.Key.Key_Down)
    actions, _at = menu_from(qtbot, lambda: press_menu_key(window))
    assert actions[-1] == "Remove “notes.md” from the library…", actions
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_Home)  # back to the course
    actions, _at = menu_from(qtbot, lambda: press_menu_key(window))
    assert actions[-1] == "Remove course “Algorithms” from the library…", actions


def test_a_right_click_opens_the_menu_of_the_row_under_the_pointer(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    panel = window.panel
    panel.setCurrentItem(row_of(window, "Algorithms"))  # the current row is another one
    lecture = row_of(window, tmp_path / "Algorithms" / "lecture-01-sorting.srt")
    point = panel.viewport().mapTo(window, panel.visualItemRect(lecture).center())
    actions, at = menu_from(  # through the window, as the platform delivers a click
        qtbot,
        lambda: QTest.mouseClick(window.windowHandle(), Qt.MouseButton.RightButton, pos=point),
    )
    assert actions[-1] == "Remove “lecture-01-sorting.srt” from the library…", actions
    assert at == window.mapToGlobal(point)
