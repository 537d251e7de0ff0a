"""The window on a small screen, with a window manager (run at QT_SCALE_FACTOR=1.5 by
test_small_screen.py through the x_server fixture: its 1600x1000 screen is 1066x666 to Qt).
A window remembered larger than the screen comes back on it, whole; and the player's
controls and transcript fit the window a student has at 1.5x (issue 36, items 4 and 5)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.window import MainWindow
from engine.library import Library
from tests.app.player_fit import broken_words, cut_controls, narrowest_preview
from tests.app.x_server import ON_X_SERVER, x_window

pytestmark = ON_X_SERVER

PLAYING_TIMEOUT_MS = 15_000
SETTLE_MS = 1_000  # for the window manager to frame and place the window


def test_a_window_remembered_larger_than_the_screen_comes_back_on_it(
    qtbot: QtBot, lecture_library: Library, tmp_path: Path
) -> None:
    state = tmp_path / "window.ini"
    assert QApplication.primaryScreen().devicePixelRatio() == 1.5
    before = MainWindow(lecture_library, player_backend="qt", window_state=state)
    before.resize(1280, 800)  # as a 1280 x 800 window at a scale of 1 was saved
    before.move(40, 30)
    before.close()
    assert state.exists()

    window = MainWindow(lecture_library, player_backend="qt", window_state=state)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=10_000)
    qtbot.wait(SETTLE_MS)
    area = window.screen().availableGeometry()
    assert area.contains(window.frameGeometry()), (window.frameGeometry(), area)
    frame = x_window(x_window(int(window.winId())).top_level)  # the window manager's frame
    assert frame.x >= 0 and frame.y >= 0, frame
    assert frame.x + frame.width <= 1600 and frame.y + frame.height <= 1000, frame
    bar = window.import_bar
    bottom = bar.mapToGlobal(QPoint(0, bar.height())).y()
    assert bottom <= area.bottom() + 1, (bottom, area)
    window.close()


def test_the_players_controls_and_transcript_fit_the_window_at_1_5x(
    qtbot: QtBot, lecture_library: Library
) -> None:
    window = MainWindow(lecture_library, player_backend="qt")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=10_000)
    qtbot.keyClicks(window.search_pane.search, "merge sort halves")
    qtbot.waitUntil(lambda: window.result_at(0) is not None, timeout=10_000)
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Return)
    pane = window.preview_pane
    qtbot.waitUntil(
        lambda: pane.has_player and pane.player.is_playing(), timeout=PLAYING_TIMEOUT_MS
    )
    qtbot.wait(SETTLE_MS)
    assert window.screen().availableGeometry().contains(window.frameGeometry())
    assert cut_controls(pane.player) == []
    assert broken_words(pane.player) == []
    narrowest_preview(window, pane.player)
    qtbot.wait(SETTLE_MS)
    assert cut_controls(pane.player) == []
    assert broken_words(pane.player) == []
    pane.shutdown()
    window.close()
