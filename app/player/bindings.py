"""What the player's controls and keys do: the control bar's signals and the window-wide
shortcuts, each connected to the player's action, and the Tab order through them.

Which keys they are, the rule for text boxes and Help > Keyboard shortcuts are
app/player/keys.py; the actions are PlayerView's (app/player/view.py), seen here through
``Player`` so that this module need not import the view.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QComboBox, QWidget

from app.player.control_bar import SKIP_MS, ControlBar
from app.player.full_screen import FullScreen
from app.player.keys import (
    COPY_LINK_KEY,
    FASTER_KEY,
    GO_TO_KEY,
    NOTE_KEY,
    SLOWER_KEY,
    VOLUME_DOWN_KEY,
    VOLUME_STEP,
    VOLUME_UP_KEY,
    ControlKeys,
    add_shortcuts,
)
from app.player.transcript import TranscriptColumn


class Player(Protocol):
    """The player's parts and actions the controls and keys are bound to."""

    @property
    def controls(self) -> ControlBar: ...
    @property
    def full_screen(self) -> FullScreen: ...
    @property
    def transcript(self) -> TranscriptColumn: ...

    def seek(self, ms: int) -> None: ...
    def skip(self, delta_ms: int) -> None: ...
    def toggle_pause(self) -> None: ...
    def replay(self) -> None: ...
    def next_match(self) -> None: ...
    def previous_match(self) -> None: ...
    def set_rate(self, rate: float) -> None: ...
    def toggle_mute(self) -> None: ...
    def copy_link(self) -> None: ...
    def go_to_tenth(self, tenths: int) -> None: ...
    def ask_time(self) -> None: ...


def connect_controls(player: Player) -> None:
    """The control bar's buttons, speed and seek bar to the player's actions, and what the
    bar shows back of full screen and of a copy."""
    bar = player.controls
    bar.play_pause_clicked.connect(player.toggle_pause)
    bar.skip_requested.connect(player.skip)
    bar.seek_requested.connect(player.seek)
    bar.replay_clicked.connect(player.replay)
    bar.next_match_clicked.connect(player.next_match)
    bar.previous_match_clicked.connect(player.previous_match)
    bar.full_screen_clicked.connect(player.full_screen.toggle)
    bar.copy_link_clicked.connect(player.copy_link)
    bar.rate_chosen.connect(player.set_rate)
    bar.mute_clicked.connect(player.toggle_mute)
    player.full_screen.changed.connect(bar.show_full_screen)
    player.transcript.copied.connect(bar.show_notice)


def add_keys(player: Player, widget: QWidget, showing: Callable[[], bool]) -> frozenset[Qt.Key]:
    """Window-wide shortcuts on ``widget`` (the player), working while ``showing``: text
    boxes keep the keys they type with, a focused control the keys it works with (keys.py).
    Tab goes from the player round its controls, then the transcript's. Returns the single
    keys among them, for the search box to let through (keys.SearchBoxKeys)."""
    bar = player.controls
    single_keys = add_shortcuts(widget, (
        (("Space", "K"), player.toggle_pause),
        (("Left", "J"), lambda: player.skip(-SKIP_MS)),
        (("Right", "L"), lambda: player.skip(SKIP_MS)),
        (("N",), player.next_match),
        (("P",), player.previous_match),
        (("R",), player.replay),
        (("F",), player.full_screen.toggle),
        (("M",), player.toggle_mute),
        (("C",), bar.subtitles_button.toggle),
        ((FASTER_KEY,), lambda: bar.step_speed(1)),
        ((SLOWER_KEY,), lambda: bar.step_speed(-1)),
        ((VOLUME_UP_KEY, "="), lambda: bar.step_volume(VOLUME_STEP)),
        ((VOLUME_DOWN_KEY,), lambda: bar.step_volume(-VOLUME_STEP)),
        ((COPY_LINK_KEY,), player.copy_link),
        ((GO_TO_KEY,), player.ask_time),
        ((NOTE_KEY,), bar.note_button.click),  # the window adds it (app/notes/)
        *(((str(n),), lambda n=n: player.go_to_tenth(n)) for n in range(10)),
    ), showing)  # fmt: skip
    keep = ControlKeys(widget)
    press = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)
    for control in bar.focus_order():
        if isinstance(control, QAbstractButton | QComboBox):
            keep.watch(control, press)
    arrows = (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down)
    keep.watch(bar.volume_slider, arrows)
    keep.watch(player.transcript.chapter_list, (Qt.Key.Key_Space,))
    bar.focus_ring.add(widget, bar)  # the player itself: the ring goes round its controls
    order = [widget, *bar.focus_order(), *player.transcript.focus_order()]
    for first, then in itertools.pairwise(order):
        QWidget.setTabOrder(first, then)
    return single_keys
