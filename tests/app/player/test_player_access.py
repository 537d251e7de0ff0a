"""The player without a mouse or without sight: every interactive widget has a name and a
description a screen reader reads (QAccessible, as the reader asks), Tab reaches each control
in the order they are seen and shows a ring in the highlight colour (light and dark), a
focused control keeps the keys it works with, and speed,
volume, a point of the lecture, a typed time and Copy link each have a key."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import (
    QAccessible,
    QAccessibleInterface,
    QColor,
    QGuiApplication,
    QImage,
    QPalette,
)
from PySide6.QtWidgets import QApplication, QInputDialog, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from app.dialogs.settings import dark_palette
from app.player.keys import SHORTCUTS
from app.player.view import PlayerView
from engine.api import Chapter, parse_link
from tests.app.media import PlayerMedia
from tests.app.ui import on_next_modal

INTERACTIVE = {
    QAccessible.Role.Button,
    QAccessible.Role.CheckBox,
    QAccessible.Role.ComboBox,
    QAccessible.Role.EditableText,
    QAccessible.Role.List,
    QAccessible.Role.Slider,
    QAccessible.Role.ScrollBar,
}
PLAYING_TIMEOUT_MS = 10_000


@pytest.fixture
def playing(qtbot: QtBot, player: PlayerView, media: PlayerMedia) -> PlayerView:
    player.open(str(media.video), 3_000, media.transcript, terms=["sort"])
    qtbot.waitUntil(player.is_playing, timeout=PLAYING_TIMEOUT_MS)
    qtbot.waitUntil(lambda: player.duration_ms() > 20_000)
    player.setFocus()
    qtbot.waitUntil(player.hasFocus)
    return player


def walk(interface: QAccessibleInterface) -> Iterator[QAccessibleInterface]:
    yield interface
    for i in range(interface.childCount()):
        child = interface.child(i)
        if child is not None and not child.state().invisible:
            yield from walk(child)


def test_every_interactive_widget_of_the_player_has_a_name_and_a_description(
    qtbot: QtBot, playing: PlayerView
) -> None:
    root = QAccessible.queryAccessibleInterface(playing)
    assert root is not None
    seen: list[tuple[str, str]] = []
    for node in walk(root):
        widget = node.object()
        if not isinstance(widget, QWidget) or node.role() == QAccessible.Role.ScrollBar:
            continue  # a list's own scroll bar is read with the list
        takes_focus = widget.focusPolicy() != Qt.FocusPolicy.NoFocus
        if node.role() not in INTERACTIVE and not takes_focus:
            continue
        name = node.text(QAccessible.Text.Name)
        description = node.text(QAccessible.Text.Description)
        seen.append((node.role().name, name))
        assert name.strip(), f"{type(widget).__name__} ({node.role().name}) has no name"
        assert description.strip(), f"{name} has no description"
    names = {name for _role, name in seen}
    for expected in ("Lecture player", "Play", "Mute", "Position", "Volume", "1x speed",
                     "Copy link", "Find in the transcript", "Transcript"):  # fmt: skip
        assert expected in names, (expected, seen)

    # The icon-only buttons say what they do now, as their icons change.
    qtbot.keyClick(playing, Qt.Key.Key_M)
    assert playing.controls.mute_button.accessibleName() == "Unmute"
    qtbot.keyClick(playing, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: playing.controls.play_button.accessibleName() == "Play")


def test_tab_reaches_each_control_in_order_and_a_focused_control_keeps_its_keys(
    qtbot: QtBot, playing: PlayerView
) -> None:
    bar = playing.controls
    reached: list[QWidget] = []
    for _ in range(len(bar.focus_order())):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        focus = QApplication.focusWidget()
        assert focus is not None
        reached.append(focus)
    assert reached == bar.focus_order()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is playing.transcript.find_box
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab, Qt.KeyboardModifier.ShiftModifier)
    assert QApplication.focusWidget() is bar.volume_slider

    # The volume slider takes the arrows (the player's skip keys elsewhere).
    position = playing.position_ms()
    qtbot.keyClick(bar.volume_slider, Qt.Key.Key_Left)
    assert bar.volume() == 90
    assert abs(playing.position_ms() - position) < 5_000 and playing.is_playing()

    # Space presses a focused button instead of pausing.
    bar.copy_link_button.setFocus(Qt.FocusReason.TabFocusReason)
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(bar.copy_link_button, Qt.Key.Key_Space)
    assert QGuiApplication.clipboard().text().startswith("coursedex://")
    assert playing.is_playing()


def test_keys_for_speed_volume_a_point_a_typed_time_and_a_link(
    qtbot: QtBot, playing: PlayerView
) -> None:
    keys = {key for row, _what in SHORTCUTS for key in row}
    for key in ("]", "[", "+", "-", "G", "Ctrl+Shift+C", "0 to 9"):
        assert key in keys, key  # Help > Keyboard shortcuts lists it
    bar = playing.controls
    qtbot.keyClick(playing, Qt.Key.Key_BracketRight)
    qtbot.keyClick(playing, Qt.Key.Key_BracketRight)
    assert playing.rate() == 1.5 and bar.chosen_rate() == 1.5
    qtbot.keyClick(playing, Qt.Key.Key_BracketLeft)
    assert playing.rate() == 1.25
    qtbot.keyClick(playing, Qt.Key.Key_Minus)
    qtbot.keyClick(playing, Qt.Key.Key_Minus)
    assert bar.volume() == 80
    qtbot.keyClick(playing, Qt.Key.Key_Plus)
    assert bar.volume() == 90

    qtbot.keyClick(playing, Qt.Key.Key_5)
    half = playing.duration_ms() // 2
    assert abs(playing.position_ms() - half) <= 1_000, (playing.position_ms(), half)
    qtbot.keyClick(playing, Qt.Key.Key_0)
    assert playing.position_ms() <= 1_000

    def type_time(dialog: QInputDialog) -> None:
        line = dialog.findChild(QLineEdit)  # the dialog's box, where a user types
        try:
            assert line is not None
            qtbot.keyClick(line, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            qtbot.keyClicks(line, "0:21")
            qtbot.keyClick(line, Qt.Key.Key_Return)
        finally:
            if dialog.isVisible():  # never left open, whatever failed
                dialog.reject()

    on_next_modal(QInputDialog, type_time)
    qtbot.keyClick(playing, Qt.Key.Key_G)
    assert abs(playing.position_ms() - 21_000) <= 1_000, playing.position_ms()
    playing.activateWindow()  # offscreen, no window manager gives it back after the dialog
    qtbot.waitUntil(lambda: QApplication.activeWindow() is playing)

    QGuiApplication.clipboard().clear()
    qtbot.keyClick(
        playing,
        Qt.Key.Key_C,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    link = parse_link(QGuiApplication.clipboard().text())
    assert link.start_ms is not None and abs(link.start_ms - playing.position_ms()) <= 1_500


def near(colour: QColor, highlight: QColor) -> bool:
    return max(abs(colour.red() - highlight.red()), abs(colour.green() - highlight.green()),
               abs(colour.blue() - highlight.blue())) <= 60  # fmt: skip


def sides_without_a_ring(image: QImage, box: QRect, highlight: QColor, outside: bool) -> list[str]:
    """The sides of ``box`` in ``image`` with no pixel near ``highlight`` at their middle,
    looking just outside the side (``outside``) or on it."""
    x, y = box.center().x(), box.center().y()
    sides = {
        "left": (box.left(), y, 1, 0),
        "right": (box.right(), y, -1, 0),
        "top": (x, box.top(), 0, 1),
        "bottom": (x, box.bottom(), 0, -1),
    }
    steps = range(-4, 0) if outside else range(0, 3)  # inward is + (dx, dy)
    return [
        side
        for side, (sx, sy, dx, dy) in sides.items()
        if not any(near(image.pixelColor(sx + n * dx, sy + n * dy), highlight) for n in steps)
    ]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_tab_stop_of_the_player_shows_a_ring_in_the_highlight_colour(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia, theme: str
) -> None:
    """Tab from the player to its last stop: each one, the chapters and the transcript lists
    too (issue 36, item 6), has a ring in the highlight colour just round it, seen by grabbing
    the player; around the others, nothing."""
    if theme == "dark":
        player.setPalette(dark_palette())
    chapters = [Chapter(0, "Opening"), Chapter(9_000, "Merge sort"), Chapter(18_000, "Graphs")]
    player.open(str(media.video), 3_000, media.transcript, chapters=chapters)
    player.pause()
    qtbot.waitUntil(player.transcript.chapter_list.isVisible)
    highlight = player.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.Highlight)
    player.setFocus()
    qtbot.waitUntil(player.hasFocus)
    for stop in [player, *player.controls.focus_order(), *player.transcript.focus_order()]:
        name = stop.accessibleName()
        assert QApplication.focusWidget() is stop, (name, QApplication.focusWidget())
        # the player's own stop rings its controls, on the bar's edges (the player's own)
        ringed = player.controls if stop is player else stop
        box = ringed.rect().translated(ringed.mapTo(player, QPoint(0, 0)))
        image = player.grab().toImage()
        assert not sides_without_a_ring(image, box, highlight, stop is not player), (theme, name)
        qtbot.keyClick(stop, Qt.Key.Key_Tab)
    replay = player.controls.replay_button
    other = replay.rect().translated(replay.mapTo(player, QPoint(0, 0)))
    image = player.grab().toImage()
    assert not near(image.pixelColor(other.left() - 2, other.center().y()), highlight)
