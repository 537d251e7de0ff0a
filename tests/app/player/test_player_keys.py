"""The player's keys in the whole window, as a student uses them: after Enter opens a lecture
Space, Left and Right reach the player though the search box has the focus; typing in the
box types (Space included); J/K/L, M, F and Esc work from anywhere; Esc never wipes the query
unless it is pressed in the search box; Help lists the keys. And the whole round without a
mouse: search, play, speed up, copy a link, Tab through every control."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QDialog, QMenu, QWidget
from pytestqt.qtbot import QtBot

from app.player.view import PlayerView
from app.window import MainWindow
from engine.api import parse_link
from engine.library import Library
from tests.app.player_fit import broken_words, cut_controls, narrowest_preview

PLAYING_TIMEOUT_MS = 10_000
NO_MODIFIER = Qt.KeyboardModifier.NoModifier
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def window(qtbot: QtBot, lecture_library: Library) -> Iterator[MainWindow]:
    win = MainWindow(lecture_library, player_backend="qt")
    qtbot.addWidget(win)
    win.show()
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)
    yield win
    win.close()


def muted(player: PlayerView) -> bool:
    """The sound is off: the mute button offers to turn it on again."""
    return player.controls.mute_button.accessibleName() == "Unmute"


def open_first_hit(qtbot: QtBot, window: MainWindow, query: str) -> None:
    qtbot.keyClicks(window.search_pane.search, query)
    qtbot.waitUntil(lambda: window.result_at(0) is not None and window.search_pane.query == query)
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: window.preview_pane.has_player and window.preview_pane.player.is_playing(),
        timeout=PLAYING_TIMEOUT_MS,
    )


def test_space_and_arrows_reach_the_player_from_the_search_box_until_the_user_types(
    qtbot: QtBot, window: MainWindow
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


def test_after_enter_the_players_keys_act_from_the_search_box_and_a_question_loses_no_letter(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Issue 36, item 3: after Enter plays a hit, F, ], [, M, C, N and P act on the player
    though the search box has the focus, and leave the query alone; once the user goes back
    to the box (Esc clears it, Ctrl+L selects it, a letter the player has no use for edits
    it), every letter of a question types, F, M, N and P included."""
    box = window.search_pane.search
    open_first_hit(qtbot, window, "merge sort halves")
    player = window.preview_pane.player
    qtbot.keyClick(box, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not player.is_playing())
    qtbot.keyClick(box, Qt.Key.Key_F)
    qtbot.waitUntil(player.full_screen.is_on)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is player.window())
    assert box.text() == "merge sort halves"
    focus = QApplication.focusWidget()
    assert focus is not None
    qtbot.keyClick(focus, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not player.full_screen.is_on())
    qtbot.waitUntil(lambda: QApplication.focusWidget() is box)
    assert box.text() == "merge sort halves"

    qtbot.keyClick(box, Qt.Key.Key_BracketRight)
    assert player.rate() == 1.25
    qtbot.keyClick(box, Qt.Key.Key_BracketLeft)
    assert player.rate() == 1.0
    qtbot.keyClick(box, Qt.Key.Key_M)
    assert muted(player)
    qtbot.keyClick(box, Qt.Key.Key_M)
    assert not muted(player)
    qtbot.keyClick(box, Qt.Key.Key_C)
    assert player.controls.subtitles_on()
    qtbot.keyClick(box, Qt.Key.Key_C)
    assert not player.controls.subtitles_on()
    player.seek(0)
    qtbot.keyClick(box, Qt.Key.Key_N)
    first = player.position_ms()
    assert first in player.matches(), (first, player.matches())
    qtbot.keyClick(box, Qt.Key.Key_N)
    assert player.position_ms() in player.matches() and player.position_ms() > first
    qtbot.keyClick(box, Qt.Key.Key_P)
    assert player.position_ms() == first
    assert box.text() == "merge sort halves"

    # Esc clears the box: a new question types whole.
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    qtbot.keyClicks(box, "fast pivot merge")
    assert box.text() == "fast pivot merge"
    # Ctrl+L selects the query: the next question replaces it, letter by letter.
    qtbot.waitUntil(lambda: window.search_pane.query == "fast pivot merge")
    qtbot.waitUntil(lambda: window.result_at(0) is not None)
    qtbot.keyClick(box, Qt.Key.Key_Return)  # the player was paused: it plays the hit
    qtbot.waitUntil(player.is_playing, timeout=PLAYING_TIMEOUT_MS)
    qtbot.keySequence(box, "Ctrl+L")  # type: ignore[attr-defined]
    qtbot.keyClicks(box, "fmnp quick sort")
    assert box.text() == "fmnp quick sort"
    # A letter the player has no use for edits the query: the ones after it type too.
    qtbot.waitUntil(lambda: window.search_pane.query == "fmnp quick sort")
    qtbot.waitUntil(lambda: window.result_at(0) is not None)
    player.pause()
    qtbot.keyClick(box, Qt.Key.Key_Return)
    qtbot.waitUntil(player.is_playing, timeout=PLAYING_TIMEOUT_MS)
    qtbot.keyClicks(box, "sfmnp")
    assert box.text() == "fmnp quick sortsfmnp"
    assert not player.full_screen.is_on() and not muted(player)


def test_j_k_l_m_f_work_from_the_results_and_esc_leaves_full_screen_keeping_the_query(
    qtbot: QtBot, window: MainWindow
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
    assert muted(player)
    qtbot.keyClick(window.search_pane.results, Qt.Key.Key_M)
    assert not muted(player)

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


def test_at_1024_by_700_the_players_controls_are_whole_and_its_transcript_splits_no_word(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Issue 36, item 5 (1.5x: test_small_screen): "+10 s" read "+…s", the speed box was
    empty and the volume slider a stub; with the preview at its narrowest the buttons go on
    two lines, each whole, and the transcript wraps between words."""
    window.resize(1024, 700)
    open_first_hit(qtbot, window, "merge sort halves")
    player = window.preview_pane.player
    qtbot.waitUntil(lambda: player.controls.width() > 0)
    assert cut_controls(player) == []
    narrowest_preview(window, player)
    qtbot.waitUntil(lambda: player.transcript_list.width() < 200)
    qtbot.wait(100)  # the rows laid out again at the new width
    assert cut_controls(player) == []
    assert broken_words(player) == []
    # and at its narrowest, a line of the transcript still holds a dozen characters
    listing = player.transcript_list
    assert listing.viewport().width() >= 12 * listing.fontMetrics().averageCharWidth()


def test_help_lists_the_keyboard_shortcuts(qtbot: QtBot, window: MainWindow) -> None:
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
    # the window's own keys too, read from its menus: the Go menu, File's, the results'
    for key in ("Ctrl+1", "Ctrl+2", "Ctrl+3", "Ctrl+4", "Ctrl+5", "Ctrl+O"):
        assert f"<b>{key}</b>" in text, key
    for key in ("Ctrl+C", "Shift+F10", "Alt+A"):
        assert f"<b>{key}</b>" in text, key
    assert "Go &gt; Library" in text and "File &gt; Add files" in text


def test_links_copied_from_the_player_carry_the_files_hash_and_title(
    qtbot: QtBot, window: MainWindow, lecture_library: Library
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


def press(qtbot: QtBot, key: Qt.Key, modifiers: Qt.KeyboardModifier = NO_MODIFIER) -> QWidget:
    """``key`` pressed where the keyboard focus is, as a keyboard would; the new focus."""
    focus = QApplication.focusWidget()
    assert focus is not None, "nothing has the keyboard focus"
    qtbot.keyClick(focus, key, modifiers)
    after = QApplication.focusWidget()
    assert after is not None
    return after


def tab_to(qtbot: QtBot, name: str) -> QWidget:
    """Tab until the widget named ``name`` (as a screen reader reads it) has the focus."""
    for _ in range(40):
        focus = press(qtbot, Qt.Key.Key_Tab)
        if focus.accessibleName() == name:
            return focus
    raise AssertionError(f"Tab never reaches {name!r}")


PLAYER_TAB_ORDER = (
    "Lecture player", "Position", "Back 10 seconds", "Pause", "Forward 10 seconds", "Replay",
    "Speed", "Previous match", "Next match", "Subtitles", "Full screen", "Copy link",
    "Add note", "Mute", "Volume", "Find in the transcript", "Transcript",
)  # fmt: skip


def test_keyboard_only_search_play_speed_up_copy_a_link_and_tab_through_the_controls(
    qtbot: QtBot, window: MainWindow, lecture_library: Library
) -> None:
    """From the search box, keys only: no mouse, no call on a widget."""
    box = QApplication.focusWidget()
    assert box is window.search_pane.search
    qtbot.keyClicks(box, "merge sort halves")
    qtbot.waitUntil(lambda: window.result_at(0) is not None)
    press(qtbot, Qt.Key.Key_Return)
    pane = window.preview_pane
    qtbot.waitUntil(
        lambda: pane.has_player and pane.player.is_playing(), timeout=PLAYING_TIMEOUT_MS
    )
    player = pane.player

    assert tab_to(qtbot, "Lecture player") is player
    press(qtbot, Qt.Key.Key_BracketRight)  # faster
    assert player.rate() == 1.25
    speed = tab_to(qtbot, "Speed")
    assert player.controls.focus_ring.around is speed  # the focus shows
    press(qtbot, Qt.Key.Key_Down)  # the list box's next speed
    assert player.rate() == 1.5 and speed.accessibleName() == "Speed"

    QGuiApplication.clipboard().clear()
    press(qtbot, Qt.Key.Key_C, CTRL_SHIFT)
    link = parse_link(QGuiApplication.clipboard().text())
    source = lecture_library.source(player.transcript.path)
    assert source is not None and link.source == source.path
    assert link.start_ms is not None and abs(link.start_ms - player.position_ms()) <= 1_500
    QGuiApplication.clipboard().clear()
    tab_to(qtbot, "Copy link")
    press(qtbot, Qt.Key.Key_Space)  # presses the focused button; the lecture plays on
    assert QGuiApplication.clipboard().text().startswith("coursedex://open?")
    assert player.is_playing()

    # Tab goes through every control of the player in order, Shift+Tab back.
    qtbot.waitUntil(lambda: player.controls.play_button.accessibleName() == "Pause")
    tab_to(qtbot, "Lecture player")
    reached = [QApplication.focusWidget()]
    for _ in PLAYER_TAB_ORDER[1:]:
        reached.append(press(qtbot, Qt.Key.Key_Tab))
    assert tuple(w.accessibleName() for w in reached if w is not None) == PLAYER_TAB_ORDER
    for widget in reversed(reached[:-1]):
        assert press(qtbot, Qt.Key.Key_Tab, Qt.KeyboardModifier.ShiftModifier) is widget
