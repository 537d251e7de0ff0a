"""A result row's actions without the mouse: the Menu key opens the current row's menu at
that row (the menu shows the keys), Ctrl+C copies the current row's link while the results
have the focus (Ctrl+Shift+C is the player's, from the whole window:
test_accessibility.py::test_the_results_keys_do_not_clash_with_the_players)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from app.window import MainWindow
from engine.api import SearchResult, parse_link
from engine.library import Library


def window_with_results(qtbot: QtBot, library: Library) -> MainWindow:
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitExposed(window)
    qtbot.keyClicks(window.search_pane.search, "merge sort")
    results = window.search_pane.results
    qtbot.waitUntil(lambda: results.count() > 3 and not results._pending)
    results.setFocus()
    qtbot.waitUntil(results.hasFocus)
    return window


def third_hit(window: MainWindow) -> SearchResult:
    """Make the third row current (with the keys) and return its result."""
    results = window.search_pane.results
    QTest.keyClick(results, Qt.Key.Key_Home)
    QTest.keyClick(results, Qt.Key.Key_Down)
    QTest.keyClick(results, Qt.Key.Key_Down)
    hit = window.result_at(results.currentRow())
    assert hit is not None and hit != window.result_at(0)
    return hit


def press_menu_key(window: MainWindow) -> None:
    """The Menu key as the platform delivers it: the key, then the menu event Qt's window
    makes of it for the focused widget (a keyboard event; the pointer is elsewhere)."""
    handle = window.windowHandle()
    QTest.keyClick(handle, Qt.Key.Key_Menu)
    away = QPoint(2, 2)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Keyboard, away, window.mapToGlobal(away))
    QGuiApplication.sendEvent(handle, event)


def test_the_menu_key_opens_the_current_rows_menu_at_it_and_names_the_keys(
    qtbot: QtBot, demo_text_library: Library
) -> None:
    window = window_with_results(qtbot, demo_text_library)
    hit = third_hit(window)
    results = window.search_pane.results
    seen: list[tuple[dict[str, str], QPoint]] = []

    def take_menu() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, take_menu)
            return
        keys = {a.text(): a.shortcut().toString() for a in menu.actions() if a.text()}
        seen.append((keys, menu.pos()))
        next(a for a in menu.actions() if a.text() == "Copy link").trigger()
        menu.close()

    QTimer.singleShot(0, take_menu)
    press_menu_key(window)
    qtbot.waitUntil(lambda: bool(seen))
    keys, at = seen[0]
    assert keys == {"Open": "Return", "Copy link": "Ctrl+C", "Copy quote": "", "Add note here…": ""}
    assert parse_link(QApplication.clipboard().text()).source == hit.source
    row = results.visualItemRect(results.currentItem())
    top_left = results.viewport().mapToGlobal(row.topLeft())
    assert top_left.y() <= at.y() <= top_left.y() + row.height(), (at, row)


def test_ctrl_c_copies_the_current_rows_link(qtbot: QtBot, demo_text_library: Library) -> None:
    window = window_with_results(qtbot, demo_text_library)
    hit = third_hit(window)
    results = window.search_pane.results
    QApplication.clipboard().clear()
    QTest.keyClick(results, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    link = QApplication.clipboard().text()
    assert parse_link(link).source == hit.source
    assert window.search_pane.status.text() == f"Link copied: {link}"
