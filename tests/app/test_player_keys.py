"""The player's keys in the whole window, as a student uses them: after Enter opens a lecture
Space, Left and Right reach the player though the search box has the focus; typing in the
box types (Space included); J/K/L, M, F and Esc work from anywhere; Esc never wipes the query
unless it is pressed in the search box; Help lists the keys."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QDialog, QMenu
from pytestqt.qtbot import QtBot

from app.window import SearchWindow
from engine.api import parse_link
from engine.library import Library
from tests.app.media import PlayerMedia
from tools.factories import make_srt

PLAYING_TIMEOUT_MS = 10_000


@pytest.fixture
def lecture_library(quick_library: Library, tmp_path: Path, media: PlayerMedia) -> Library:
    """A library of one course: the test lecture with its subtitles beside it."""
    course = tmp_path / "Algorithms"
    course.mkdir()
    shutil.copy(media.video, course / "lecture.mp4")
    make_srt(course / "lecture.srt", [(t.start_ms, t.end_ms, t.text) for t in media.transcript])
    quick_library.ingest([course])
    return quick_library


@pytest.fixture
def window(qtbot: QtBot, lecture_library: Library) -> Iterator[SearchWindow]:
    win = SearchWindow(lecture_library, player_backend="qt")
    qtbot.addWidget(win)
    win.show()
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)
    yield win
    win.close()


def open_first_hit(qtbot: QtBot, window: SearchWindow, query: str) -> None:
    qtbot.keyClicks(window.search_pane.search, query)
    qtbot.waitUntil(lambda: window.result_at(0) is not None and window.search_pane.query == query)
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: window.preview_pane.has_player and window.preview_pane.player.is_playing(),
        timeout=PLAYING_TIMEOUT_MS,
    )


def test_space_and_arrows_reach_the_player_from_the_search_box_until_the_user_types(
    qtbot: QtBot, window: SearchWindow
) -> None:
    open_first_hit(qtbot, window, "merge sort halves")
    player = window.preview_pane.player
    assert window.focusWidget() is window.search_pane.search
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not player.is_playing())
    assert window.search_pane.search.text() == "merge sort halves"
    before = player.position_ms()
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Right)
    assert abs(player.position_ms() - (before + 10_000)) <= 500, player.position_ms()
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Left)
    assert abs(player.position_ms() - before) <= 500, player.position_ms()
    assert window.search_pane.search.text() == "merge sort halves"

    # Typing again edits the query: Space is a space and the arrows move the cursor.
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_S)
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Space)
    assert window.search_pane.search.text() == "merge sort halvess "
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Left)
    assert window.search_pane.search.cursorPosition() == len("merge sort halvess")
    assert not player.is_playing()
    assert abs(player.position_ms() - before) <= 500, player.position_ms()


def test_j_k_l_m_f_work_from_the_results_and_esc_leaves_full_screen_keeping_the_query(
    qtbot: QtBot, window: SearchWindow
) -> None:
    open_first_hit(qtbot, window, "binary search")
    player = window.preview_pane.player
    rows = window.search_pane.results.count()
    window.search_pane.results.setFocus()
    qtbot.waitUntil(window.search_pane.results.hasFocus)
    qtbot.keyClick(window.search_pane.results, Qt.Key.Key_K)
    qtbot.waitUntil(lambda: not player.is_playing())
    before = player.position_ms()
    qtbot.keyClick(window.search_pane.results, Qt.Key.Key_J)
    assert abs(player.position_ms() - max(0, before - 10_000)) <= 500, player.position_ms()
    qtbot.keyClick(window.search_pane.results, Qt.Key.Key_L)
    assert abs(player.position_ms() - before) <= 500, player.position_ms()
    qtbot.keyClick(window.search_pane.results, Qt.Key.Key_M)
    assert player.is_muted()
    qtbot.keyClick(window.search_pane.results, Qt.Key.Key_M)
    assert not player.is_muted()

    # Esc in the results (or on the player) wipes nothing.
    qtbot.keyClick(window.search_pane.results, Qt.Key.Key_Escape)
    assert (
        window.search_pane.search.text() == "binary search"
        and window.search_pane.results.count() == rows
    )

    qtbot.keyClick(window.search_pane.results, Qt.Key.Key_F)
    qtbot.waitUntil(player.full_screen.is_on)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is player.window())
    assert player.window() is not window and player.window().isFullScreen()
    focus = QApplication.focusWidget()
    assert focus is not None
    qtbot.keyClick(focus, Qt.Key.Key_Space)  # wherever the focus is in full screen
    qtbot.waitUntil(player.is_playing, timeout=PLAYING_TIMEOUT_MS)
    assert player.transcript.find_box.text() == "binary search"
    qtbot.keyClick(focus, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not player.full_screen.is_on())
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.search_pane.results)
    assert player.window() is window and player.isVisible()
    assert (
        window.search_pane.search.text() == "binary search"
        and window.search_pane.results.count() == rows
    )
    assert player.is_playing()  # leaving full screen stops nothing

    # Esc in the search box still clears it.
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.search_pane.search.setFocus()
    qtbot.waitUntil(window.search_pane.search.hasFocus)
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Escape)
    assert window.search_pane.search.text() == ""


def test_help_lists_the_keyboard_shortcuts(qtbot: QtBot, window: SearchWindow) -> None:
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    assert isinstance(menu, QMenu)
    action = next(a for a in menu.actions() if "shortcuts" in a.text().lower())
    dialogs: list[QDialog] = []

    def close_it() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, QDialog)
        dialogs.append(dialog)
        dialog.accept()

    QTimer.singleShot(200, close_it)
    action.trigger()
    assert dialogs
    text = getattr(dialogs[0], "text", None)
    assert isinstance(text, str), dialogs[0]
    for key in ("Space", "J", "K", "L", "F", "M", "Esc", "N", "P"):
        assert f"<b>{key}</b>" in text, key
    assert "search box" in text


def test_links_copied_from_the_player_carry_the_files_hash_and_title(
    qtbot: QtBot, window: SearchWindow, lecture_library: Library
) -> None:
    open_first_hit(qtbot, window, "heaps largest item")
    player = window.preview_pane.player
    player.pause()
    source = lecture_library.source(player.transcript.path)
    assert source is not None and source.sha256
    qtbot.mouseClick(player.controls.copy_link_button, Qt.MouseButton.LeftButton)
    link = parse_link(QGuiApplication.clipboard().text())
    assert link.source == source.path and link.sha256 == source.sha256
    assert link.start_ms is not None and abs(link.start_ms - player.position_ms()) <= 1_000
    line = player.transcript.lines[4]
    player.transcript.copy_quote(line)
    quote = QGuiApplication.clipboard().text()
    assert quote.startswith(f"\u201c{line.text}\u201d ({source.title}, 00:12) coursedex://")
