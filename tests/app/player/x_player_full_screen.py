"""Full screen on a real X server with a window manager (run by test_player_full_screen.py
through the x_server fixture): F then Esc, pressed as real keys, leave one window with the
player back in its place, its picture and transcript still following playback. F works from
the search box right after Enter played a hit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.player.view import PlayerView
from app.window import MainWindow
from engine.library import Library
from tests.app.media import SLOT_MS
from tests.app.x_server import ON_X_SERVER, press, type_text, x_window

pytestmark = ON_X_SERVER

PLAYING_TIMEOUT_MS = 15_000
SETTLE_MS = 1_000  # for the window manager's answers to arrive before counting windows
# Full screen left this long after it came: the window manager lost the race for some of them
GAPS_MS = (150, 250, 100, 200, 150, 250, 100, 200, 400, 1_000)


@pytest.fixture
def window(qtbot: QtBot, lecture_library: Library) -> Iterator[MainWindow]:
    """The window as a user starts it: the default player (libVLC drawing on the X server)."""
    win = MainWindow(lecture_library, vlc_args=("--aout=dummy",))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=10_000)
    yield win
    win.preview_pane.shutdown()
    win.close()


def spoken_row(player: PlayerView) -> int:
    rows = [i.row() for i in player.transcript_list.selectedIndexes()]
    return rows[0] if len(rows) == 1 else -1


def colours_shown(widget: QWidget) -> int:
    """How many colours the screen shows where ``widget`` is: libVLC draws on the screen, not
    in Qt's own picture of the widget. The test pattern has dozens; black has one."""
    image = widget.screen().grabWindow(0, *widget.mapToGlobal(QPoint(0, 0)).toTuple(),
                                       widget.width(), widget.height()).toImage()  # fmt: skip
    step = max(1, min(image.width(), image.height()) // 40)
    return len({image.pixel(x, y) for x in range(0, image.width(), step)
                for y in range(0, image.height(), step)})  # fmt: skip


def shown_in_place(qtbot: QtBot, window: MainWindow, player: PlayerView) -> None:
    """One window on the screen, the player inside it as Qt and the X server both see it,
    its picture drawn there and its transcript following."""
    assert [w for w in QApplication.topLevelWidgets() if w.isVisible()] == [window]
    assert player.window() is window and player.isVisible()
    assert window.preview_pane.stack.currentWidget() is player
    video = player.video_stack.currentWidget()
    assert video is not None
    main, surface = x_window(int(window.winId())), x_window(int(video.winId()))
    assert surface.viewable, "the picture's X window is not on the screen"
    assert surface.top_level == main.top_level, "the picture is in another top-level window"
    assert main.x <= surface.x and surface.x + surface.width <= main.x + main.width
    assert main.y <= surface.y and surface.y + surface.height <= main.y + main.height
    qtbot.waitUntil(lambda: colours_shown(video) > 8)
    qtbot.waitUntil(lambda: spoken_row(player) == player.position_ms() // SLOT_MS)


def test_f_then_esc_leaves_one_window_with_the_player_back_in_place(
    qtbot: QtBot, window: MainWindow
) -> None:
    press("ctrl+l")
    type_text("merge sort halves")
    qtbot.waitUntil(lambda: window.result_at(0) is not None, timeout=10_000)
    press("Return")
    pane = window.preview_pane
    qtbot.waitUntil(
        lambda: pane.has_player and pane.player.is_playing(), timeout=PLAYING_TIMEOUT_MS
    )
    player = pane.player
    assert player.backend_name == "vlc"
    # Right after Enter, F in the search box is the player's (issue 36, item 3).
    press("f")
    qtbot.waitUntil(player.full_screen.is_on)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is player.window(), timeout=10_000)
    press("Escape")
    qtbot.waitUntil(lambda: not player.full_screen.is_on())
    qtbot.waitUntil(window.search_pane.search.hasFocus, timeout=10_000)
    assert window.search_pane.search.text() == "merge sort halves"
    window.search_pane.results.setFocus()  # and from the results, round after round
    qtbot.waitUntil(window.search_pane.results.hasFocus)
    for gap_ms in GAPS_MS:
        player.seek(SLOT_MS)  # the lecture (27 s) would end before the last round
        press("f")
        qtbot.waitUntil(player.full_screen.is_on)
        qtbot.waitUntil(lambda: QApplication.activeWindow() is player.window(), timeout=10_000)
        assert player.window() is not window
        qtbot.wait(gap_ms)  # the window manager may still be busy with full screen
        press("Escape")
        qtbot.waitUntil(lambda: not player.full_screen.is_on())
        qtbot.wait(SETTLE_MS)  # for the window manager's answers to arrive
        shown_in_place(qtbot, window, player)
