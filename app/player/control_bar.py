"""The player's control bar: the seek bar and time, the buttons, speed and volume.

It plays nothing: each control emits a signal that PlayerView (app/player/view.py) connects
to its actions, and the view tells it back what to show (playing or paused, the position,
muted, the speed, full screen). Every control has a name and a description for a screen
reader, a key named in its tooltip (app/player/keys.py) and a place in the Tab order; a
click gives none of them the focus, so the player's keys go on working after one.
"""

from __future__ import annotations

import itertools

from PySide6.QtCore import QEvent, Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import QAccessible, QAccessibleEvent
from PySide6.QtWidgets import (
    QAbstractSlider,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.accessible import describe, label_box
from app.player.controls import FocusRing, SeekBar
from app.player.flow_row import FlowRow
from app.player.icons import media_icon
from app.player.keys import (
    COPY_LINK_KEY,
    FASTER_KEY,
    NOTE_KEY,
    SEEK_BAR_KEYS,
    SLOWER_KEY,
    VOLUME_DOWN_KEY,
    VOLUME_STEP,
    VOLUME_UP_KEY,
)
from engine.api import clock

SKIP_MS = 10_000
SPEEDS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
NOTICE_MS = 4_000  # how long "Link to 01:23 copied" stays
NOTE_HELP = "Adds a note at {} of the lecture: type it, Enter saves it, Esc cancels"
SEEK_BAR_HELP = (
    "Where the lecture is; ticks mark the lines with the words searched and the chapters. "
    "Left and Right go 10 seconds, Home and End to the start and the end"
)


class ControlBar(QWidget):
    """Two rows under the picture: seek bar and time; buttons, speed, mute and volume."""

    play_pause_clicked = Signal()
    skip_requested = Signal(int)  # ms, negative: back
    seek_requested = Signal(int)  # ms: a click on the groove, the wheel, a drag released
    replay_clicked = Signal()
    next_match_clicked = Signal()
    previous_match_clicked = Signal()
    subtitles_toggled = Signal(bool)
    full_screen_clicked = Signal()
    copy_link_clicked = Signal()
    note_clicked = Signal()  # a note at the moment shown
    rate_chosen = Signal(float)
    mute_clicked = Signal()
    volume_moved = Signal(int)  # percent

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._playing: bool | None = None
        self._muted = False
        self._build()
        self.show_playing(False)

    def _tool_button(
        self, name: str, description: str, tip: str, clicked: SignalInstance | None
    ) -> QToolButton:
        button = QToolButton()
        button.setText(name)  # drawn as an icon; the text stays for the icon-less styles
        describe(button, name, description, tip)
        if clicked is not None:
            button.clicked.connect(lambda: clicked.emit())
        return button

    def _build(self) -> None:
        self._build_seek_bar()
        self._build_playing_buttons()
        self._build_lecture_buttons()
        self._build_speed_and_volume()
        self.notice = QLabel()  # "Link to 01:23 copied", for a few seconds
        self.notice.hide()
        self._notice_timer = QTimer(self)
        self._notice_timer.setSingleShot(True)
        self._notice_timer.setInterval(NOTICE_MS)
        self._notice_timer.timeout.connect(self.notice.hide)
        self._lay_out()
        self._paint_icons()

    def _build_seek_bar(self) -> None:
        """The seek bar and the time beside it."""
        self.seek_slider = SeekBar()
        self.seek_slider.setRange(0, 0)
        self.seek_slider.setSingleStep(5_000)
        self.seek_slider.setPageStep(SKIP_MS)
        self.seek_slider.actionTriggered.connect(self._slider_action)
        self.seek_slider.sliderReleased.connect(self._slider_released)
        self.seek_slider.sliderMoved.connect(self._slider_moved)
        describe(self.seek_slider, "Position", SEEK_BAR_HELP, f"Position ({SEEK_BAR_KEYS})")
        self.time_label = QLabel("00:00 / 00:00")
        self.time_label.setAccessibleName("Time")

    def _build_playing_buttons(self) -> None:
        """Play or pause, back and forward 10 seconds, replay the passage found."""
        self.play_button = self._tool_button(
            "Play", "Plays the lecture or pauses it", "Play (Space)", self.play_pause_clicked
        )
        self.back_button = self._tool_button(
            "Back 10 seconds", "Goes back 10 seconds", "Back 10 seconds (Left, J)", None
        )
        self.back_button.setText("-10 s")
        self.back_button.clicked.connect(lambda: self.skip_requested.emit(-SKIP_MS))
        self.forward_button = self._tool_button(
            "Forward 10 seconds", "Goes forward 10 seconds", "Forward 10 seconds (Right, L)", None
        )
        self.forward_button.setText("+10 s")
        self.forward_button.clicked.connect(lambda: self.skip_requested.emit(SKIP_MS))
        self.replay_button = self._tool_button(
            "Replay",
            "Plays again from the start of the passage found",
            "Replay from the start of the passage found (R)",
            self.replay_clicked,
        )

    def _build_lecture_buttons(self) -> None:
        """The matches of the search, subtitles, full screen, a link, a note."""
        self.previous_match_button = self._tool_button(
            "Previous match",
            "Goes to the previous line with the words searched",
            "Previous match of the search (P)",
            self.previous_match_clicked,
        )
        self.next_match_button = self._tool_button(
            "Next match",
            "Goes to the next line with the words searched",
            "Next match of the search (N)",
            self.next_match_clicked,
        )
        self.subtitles_button = self._tool_button(
            "Subtitles", "Shows the line being spoken over the picture", "Subtitles (C)", None
        )
        self.subtitles_button.setText("CC")
        self.subtitles_button.setCheckable(True)
        self.subtitles_button.toggled.connect(self.subtitles_toggled)
        self.full_screen_button = self._tool_button(
            "Full screen",
            "Shows the player alone on the screen",
            "Full screen (F; Esc leaves it)",
            self.full_screen_clicked,
        )
        self.copy_link_button = self._tool_button(
            "Copy link",
            "Copies a coursedex:// link to this moment of the lecture",
            f"Copy a link to this moment ({COPY_LINK_KEY}; right-click a line: a quote)",
            self.copy_link_clicked,
        )
        self.note_button = self._tool_button(
            "Add note", NOTE_HELP.format("00:00"), f"Note at 00:00 ({NOTE_KEY})", self.note_clicked
        )
        self.note_button.setText("Note")

    def _build_speed_and_volume(self) -> None:
        self.speed_box = QComboBox()
        describe(
            self.speed_box,
            "Speed",
            "How fast the lecture plays",
            f"Speed ({SLOWER_KEY} slower, {FASTER_KEY} faster)",
        )
        for speed in SPEEDS:
            # Qt reads a list box by its text, not its accessible name: the text says "speed".
            self.speed_box.addItem(f"{speed:g}x speed", speed)
        self.speed_box.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_box.currentIndexChanged.connect(
            lambda i: self.rate_chosen.emit(float(self.speed_box.itemData(i)))
        )
        self.mute_button = self._tool_button(
            "Mute", "Turns the sound off", "Mute (M)", self.mute_clicked
        )
        self.volume_slider = QSlider(Qt.Orientation.Horizontal)
        self.volume_slider.setRange(0, 100)
        self.volume_slider.setValue(100)
        self.volume_slider.setSingleStep(VOLUME_STEP)
        self.volume_slider.setPageStep(2 * VOLUME_STEP)
        self.volume_slider.setFixedWidth(100)  # long enough to drag, in a row that wraps
        describe(
            self.volume_slider,
            "Volume",
            "How loud the lecture plays, in percent",
            f"Volume ({VOLUME_DOWN_KEY} softer, {VOLUME_UP_KEY} louder)",
        )
        self.volume_slider.valueChanged.connect(self.volume_moved)

    def _lay_out(self) -> None:
        seek_row = QHBoxLayout()
        seek_row.addWidget(self.seek_slider, 1)
        # The notice takes its room from the seek bar for a few seconds: in the row of
        # buttons it had what they left, 38 of its 124 px at 1280 px ("Note adde").
        seek_row.addWidget(self.notice)
        seek_row.addWidget(self.time_label)
        buttons = FlowRow()  # a second line where one is too short: each control whole
        for widget in (self.back_button, self.play_button, self.forward_button,
                       self.replay_button, self.speed_box, self.previous_match_button,
                       self.next_match_button, self.subtitles_button, self.full_screen_button,
                       self.copy_link_button, self.note_button):  # fmt: skip
            buttons.addWidget(widget)
        sound = QHBoxLayout()  # mute and volume stay together, at the end of the row
        sound.setContentsMargins(0, 0, 0, 0)
        sound.addWidget(self.mute_button)
        sound.addWidget(self.volume_slider)
        buttons.right_from = buttons.count()
        buttons.add_layout(sound)
        layout = QVBoxLayout(self)
        margin = FocusRing.MARGIN  # room for the focus ring round the controls at the edges
        layout.setContentsMargins(margin, margin, margin, margin)
        layout.addLayout(seek_row)
        layout.addLayout(buttons)
        label_box(self.speed_box, self)
        # Tab reaches every control, in the order they are seen; a click does not take the
        # focus, so the player's keys go on working after one.
        for control in self.focus_order():
            control.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        for first, then in itertools.pairwise(self.focus_order()):
            QWidget.setTabOrder(first, then)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.focus_ring = FocusRing(self)
        for control in self.focus_order():
            self.focus_ring.add(control)

    def focus_order(self) -> list[QWidget]:
        """The controls as Tab reaches them: the seek bar, then the buttons left to right."""
        return [self.seek_slider, self.back_button, self.play_button, self.forward_button,
                self.replay_button, self.speed_box, self.previous_match_button,
                self.next_match_button, self.subtitles_button, self.full_screen_button,
                self.copy_link_button, self.note_button, self.mute_button,
                self.volume_slider]  # fmt: skip

    def _paint_icons(self) -> None:
        """Icons in the palette's colours; again whenever the palette changes."""
        palette = self.palette()
        self.play_button.setIcon(media_icon("pause" if self._playing else "play", palette))
        self.mute_button.setIcon(media_icon("muted" if self._muted else "volume", palette))
        for button, name in (
            (self.back_button, "back"),
            (self.forward_button, "forward"),
            (self.replay_button, "replay"),
            (self.previous_match_button, "previous"),
            (self.next_match_button, "next"),
            (self.full_screen_button, "full screen"),
            (self.copy_link_button, "link"),
            (self.note_button, "note"),
        ):
            button.setIcon(media_icon(name, palette))  # icon only, the words in the tooltip

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._paint_icons()
        super().changeEvent(event)

    # --- what the player tells it --------------------------------------------------------------

    def show_playing(self, playing: bool) -> None:
        if playing == self._playing:
            return
        self._playing = playing
        self.play_button.setIcon(media_icon("pause" if playing else "play", self.palette()))
        name = "Pause" if playing else "Play"
        self.play_button.setText(name)
        self.play_button.setAccessibleName(name)
        self.play_button.setToolTip(f"{name} (Space)")

    def show_muted(self, muted: bool) -> None:
        self._muted = muted
        name = "Unmute" if muted else "Mute"
        describe(
            self.mute_button,
            name,
            "Turns the sound on again" if muted else "Turns the sound off",
            f"{name} (M)",
        )
        self.mute_button.setIcon(media_icon("muted" if muted else "volume", self.palette()))

    def show_time(self, position: int, duration: int) -> None:
        """The seek bar and the time label at ``position``; left alone while dragged."""
        if self.seek_slider.maximum() != duration:
            self.seek_slider.setRange(0, duration)
        if not self.seek_slider.isSliderDown():
            self.seek_slider.setValue(position)
            self.time_label.setText(f"{clock(position)} / {clock(duration)}")
        # The time is in the tooltip and the description, not the name: a focused button
        # whose name changed every second would be announced every second.
        tip = f"Note at {clock(position)} ({NOTE_KEY})"
        if self.note_button.toolTip() != tip:
            self.note_button.setToolTip(tip)
            self.note_button.setAccessibleDescription(NOTE_HELP.format(clock(position)))

    def show_rate(self, rate: float) -> None:
        """The speed box on ``rate``, without emitting ``rate_chosen`` again."""
        index = self.speed_box.findData(rate)
        if index >= 0 and index != self.speed_box.currentIndex():
            self.speed_box.blockSignals(True)
            self.speed_box.setCurrentIndex(index)
            self.speed_box.blockSignals(False)

    def show_notice(self, text: str) -> None:
        """``text`` beside the time for a few seconds, and said by a screen reader."""
        self.notice.setText(text)
        self.notice.setAccessibleName(text)
        self.notice.show()
        self._notice_timer.start()
        QAccessible.updateAccessibility(QAccessibleEvent(self.notice, QAccessible.Event.Alert))

    def show_full_screen(self, on: bool) -> None:
        name = "Leave full screen" if on else "Full screen"
        self.full_screen_button.setAccessibleName(name)
        self.full_screen_button.setToolTip(
            "Leave full screen (Esc, F)" if on else "Full screen (F; Esc leaves it)"
        )

    def step_speed(self, steps: int) -> None:
        """The next speed up (``steps`` > 0) or down the list; it stops at either end."""
        box = self.speed_box
        box.setCurrentIndex(max(0, min(box.count() - 1, box.currentIndex() + steps)))

    def step_volume(self, percent: int) -> None:
        self.volume_slider.setValue(self.volume_slider.value() + percent)

    def chosen_rate(self) -> float:
        return float(self.speed_box.currentData())

    def volume(self) -> int:
        return self.volume_slider.value()

    def subtitles_on(self) -> bool:
        return self.subtitles_button.isChecked()

    # --- seek bar ----------------------------------------------------------------------------

    def _slider_action(self, action: int) -> None:
        # Clicks on the groove, the wheel and keys seek at once; a drag seeks on release.
        if action != QAbstractSlider.SliderAction.SliderMove.value or not (
            self.seek_slider.isSliderDown()
        ):
            self.seek_requested.emit(self.seek_slider.sliderPosition())

    def _slider_moved(self, value: int) -> None:
        self.time_label.setText(f"{clock(value)} / {clock(self.seek_slider.maximum())}")

    def _slider_released(self) -> None:
        self.seek_requested.emit(self.seek_slider.sliderPosition())
