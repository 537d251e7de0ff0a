"""The player's chrome: its buttons, speed and volume, its window-wide keys and full screen.
PlayerView (app/player/view.py) builds on it and does the playing; the actions are its."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractSlider,
    QApplication,
    QComboBox,
    QLabel,
    QSlider,
    QStackedWidget,
    QToolButton,
    QWidget,
)

from app.player.controls import SeekBar, media_icon
from engine.api import clock

SKIP_MS = 10_000
SPEEDS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)


class PlayerChrome(QWidget):
    """Controls and keys; the methods at the end are the player's actions."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._muted = False
        self._was_playing: bool | None = None
        self._home: QWidget | None = None  # the parent to go back to after full screen
        self._focus_before: QWidget | None = None  # and the focus to give back

    def _keys(self) -> None:
        """Window-wide shortcuts: text boxes keep the keys they type with (player_keys.py)."""
        for keys, slot in (
            (("Space", "K"), self.toggle_pause),
            (("Left", "J"), lambda: self.skip(-SKIP_MS)),
            (("Right", "L"), lambda: self.skip(SKIP_MS)),
            (("N",), self.next_match),
            (("P",), self.previous_match),
            (("R",), self.replay),
            (("F",), self.toggle_full_screen),
            (("M",), self.toggle_mute),
            (("C",), self.subtitles_button.toggle),
        ):
            for key in keys:
                shortcut = QShortcut(QKeySequence(key), self)
                shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
                shortcut.activated.connect(lambda slot=slot: self._showing() and slot())
        self._escape = QShortcut(QKeySequence("Esc"), self)
        self._escape.setContext(Qt.ShortcutContext.WindowShortcut)
        self._escape.setEnabled(False)  # only in full screen: Esc elsewhere is not the player's
        self._escape.activated.connect(lambda: self.set_full_screen(False))

    def _tool_button(self, text: str, tip: str, slot: Callable[[], object] | None) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        if slot is not None:
            button.clicked.connect(slot)
        return button

    def _build_controls(self) -> None:
        """The seek bar, the buttons, speed and volume."""
        self.seek_slider = SeekBar()
        self.seek_slider.setRange(0, 0)
        self.seek_slider.setSingleStep(5_000)
        self.seek_slider.setPageStep(SKIP_MS)
        self.seek_slider.actionTriggered.connect(self._slider_action)
        self.seek_slider.sliderReleased.connect(self._slider_released)
        self.seek_slider.sliderMoved.connect(self._slider_moved)
        self.time_label = QLabel("00:00 / 00:00")

        self.play_button = self._tool_button("", "Play (Space)", self.toggle_pause)
        self.back_button = self._tool_button(
            "-10 s", "Back 10 seconds (Left, J)", lambda: self.skip(-SKIP_MS)
        )
        self.forward_button = self._tool_button(
            "+10 s", "Forward 10 seconds (Right, L)", lambda: self.skip(SKIP_MS)
        )
        self.replay_button = self._tool_button(
            "Replay", "Replay from the start of the passage found (R)", self.replay
        )
        self.previous_match_button = self._tool_button(
            "Previous match", "Previous match of the search (P)", self.previous_match
        )
        self.next_match_button = self._tool_button(
            "Next match", "Next match of the search (N)", self.next_match
        )
        self.subtitles_button = self._tool_button("CC", "Subtitles on the picture (C)", None)
        self.subtitles_button.setCheckable(True)
        self.subtitles_button.toggled.connect(lambda _on: self._show_subtitle(None))
        self.full_screen_button = self._tool_button(
            "Full screen", "Full screen (F; Esc leaves it)", self.toggle_full_screen
        )
        self.copy_link_button = self._tool_button(
            "Copy link", "Copy a link to this moment (right-click a line: a quote)", self.copy_link
        )
        self.speed_box = QComboBox()
        self.speed_box.setToolTip("Speed")
        for speed in SPEEDS:
            self.speed_box.addItem(f"{speed:g}x", speed)
        self.speed_box.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_box.currentIndexChanged.connect(
            lambda i: self.set_rate(float(self.speed_box.itemData(i)))
        )
        self.mute_button = self._tool_button("", "Mute (M)", self.toggle_mute)
        self.volume_slider = QSlider(Qt.Orientation.Horizontal)
        self.volume_slider.setRange(0, 100)
        self.volume_slider.setValue(100)
        self.volume_slider.setMaximumWidth(100)
        self.volume_slider.setMinimumWidth(40)
        self.volume_slider.setToolTip("Volume")
        self.volume_slider.valueChanged.connect(self._volume_moved)
        # Controls never take focus, so the keys always reach the player.
        for control in (self.play_button, self.back_button, self.forward_button,
                        self.replay_button, self.previous_match_button, self.next_match_button,
                        self.subtitles_button, self.full_screen_button, self.copy_link_button,
                        self.speed_box, self.mute_button, self.volume_slider,
                        self.seek_slider):  # fmt: skip
            control.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._show_playing(False)
        self._paint_icons()

    def _paint_icons(self) -> None:
        """Icons in the palette's colours; again whenever the palette changes."""
        palette = self.palette()
        self.play_button.setIcon(media_icon("pause" if self._was_playing else "play", palette))
        self.mute_button.setIcon(media_icon("muted" if self._muted else "volume", palette))
        for button, name in (
            (self.replay_button, "replay"),
            (self.previous_match_button, "previous"),
            (self.next_match_button, "next"),
            (self.full_screen_button, "full screen"),
            (self.copy_link_button, "link"),
        ):
            button.setIcon(media_icon(name, palette))  # icon only: the row fits at 1024 px

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._paint_icons()
        super().changeEvent(event)

    # --- full screen ---------------------------------------------------------------------------

    def is_full_screen(self) -> bool:
        return self.isWindow() and self.isFullScreen()

    def toggle_full_screen(self) -> None:
        self.set_full_screen(not self.is_full_screen())

    def set_full_screen(self, on: bool) -> None:
        """The player alone on the screen (its own window), and back where it was."""
        if on == self.is_full_screen():
            return
        if on:
            self._home = self.parentWidget()
            screen = self.screen()
            if self._home is not None:
                self.setParent(None, Qt.WindowType.Window)
            # Without a window manager (a bare X server) full screen alone keeps the size.
            self.setGeometry(screen.geometry())
            self._focus_before = QApplication.focusWidget()
            self.showFullScreen()
            self.setFocus()  # not the transcript's find box: Space would type there
        else:
            self.showNormal()
            home, self._home = self._home, None
            if isinstance(home, QStackedWidget):
                home.addWidget(self)
                home.setCurrentWidget(self)
            elif home is not None:
                self.setParent(home)
                layout = home.layout()
                if layout is not None:
                    layout.addWidget(self)
            self.show()
            if home is not None:
                home.window().activateWindow()
            self._give_focus_back()
        self._escape.setEnabled(on)
        self.full_screen_button.setToolTip(
            "Leave full screen (Esc, F)" if on else "Full screen (F; Esc leaves it)"
        )
        self.activateWindow()

    def _give_focus_back(self) -> bool:
        """Focus where it was before full screen (the window takes it back when it is
        activated again, so this runs then too); False when there is nowhere to go."""
        before = self._focus_before
        if before is None or not before.isVisible() or before.window() is not self.window():
            return False
        before.setFocus(Qt.FocusReason.OtherFocusReason)
        return True

    # --- seek bar ----------------------------------------------------------------------------

    def _slider_action(self, action: int) -> None:
        # Clicks on the groove, the wheel and keys seek at once; a drag seeks on release.
        if action != QAbstractSlider.SliderAction.SliderMove.value or not (
            self.seek_slider.isSliderDown()
        ):
            self.seek(self.seek_slider.sliderPosition())

    def _slider_moved(self, value: int) -> None:
        self.time_label.setText(f"{clock(value)} / {clock(self.seek_slider.maximum())}")

    def _slider_released(self) -> None:
        self.seek(self.seek_slider.sliderPosition())

    # --- the player's actions -----------------------------------------------------------------

    def _showing(self) -> bool:
        raise NotImplementedError

    def toggle_pause(self) -> None:
        raise NotImplementedError

    def skip(self, delta_ms: int) -> None:
        raise NotImplementedError

    def seek(self, ms: int) -> None:
        raise NotImplementedError

    def replay(self) -> None:
        raise NotImplementedError

    def next_match(self) -> None:
        raise NotImplementedError

    def previous_match(self) -> None:
        raise NotImplementedError

    def toggle_mute(self) -> None:
        raise NotImplementedError

    def copy_link(self) -> None:
        raise NotImplementedError

    def set_rate(self, rate: float) -> None:
        raise NotImplementedError

    def _volume_moved(self, percent: int) -> None:
        raise NotImplementedError

    def _show_subtitle(self, line: int | None) -> None:
        raise NotImplementedError

    def _show_playing(self, playing: bool) -> None:
        raise NotImplementedError
