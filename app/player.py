"""The player: a lecture plays from an exact time with its transcript beside it, following along.

libVLC (python-vlc) draws into a native child widget; where libVLC cannot load, Qt Multimedia
plays the same files behind the same widget. Both backends are polled by a QTimer on the UI
thread, so nothing from libVLC's own threads ever reaches a Qt widget.

    player = PlayerView(backend="auto")
    player.open("/courses/lecture-01.mp4", start_ms=754_300, transcript=library.transcript(path))
"""

from __future__ import annotations

import html
import logging
import time
from bisect import bisect_right
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QItemSelectionModel,
    QObject,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSlider,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSlider,
    QSplitter,
    QStackedWidget,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.playback import make_backend
from engine.api import Timing, clock

log = logging.getLogger(__name__)

TICK_MS = 200  # how often the widget reads the backend's position while it plays
SKIP_MS = 10_000
SPEEDS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)


class PlayerView(QWidget):
    """Video (or a plain panel for audio) left, the transcript right, the controls below.

    Space plays or pauses and Left/Right skip 10 s while the player has focus. The row being
    spoken is selected and kept in view, except for a few seconds after the user scrolls the
    transcript; clicking a row seeks to it. Failures show as one line and emit ``error``.
    """

    position_changed = Signal(int)  # ms, every TICK_MS while playing and after a seek
    error = Signal(str)  # one line: the file is gone or cannot be played

    USER_SCROLL_HOLD_S = 5.0  # how long a user's scroll of the transcript is left alone

    def __init__(
        self, parent: QWidget | None = None, backend: str = "auto", vlc_args: Sequence[str] = ()
    ) -> None:
        super().__init__(parent)
        self._backend = make_backend(backend, vlc_args)
        self._path = ""
        self._starts: list[int] = []  # transcript rows' start times, ascending
        self._line = -1  # the highlighted row
        self._last_position = -1
        self._was_playing: bool | None = None
        self._user_scrolled_at = float("-inf")
        self._closed = False
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._build()
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._timer.start()
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)  # libVLC must stop before Python exits

    # --- layout --------------------------------------------------------------------------------

    def _build(self) -> None:
        self._build_video()
        self._build_transcript()
        self._splitter = QSplitter(Qt.Orientation.Horizontal)
        self._splitter.addWidget(self.video_stack)
        self._splitter.addWidget(self.transcript_list)
        self._splitter.setStretchFactor(0, 2)
        self._splitter.setStretchFactor(1, 1)
        self._splitter.setChildrenCollapsible(False)

        self.message_label = QLabel()
        self.message_label.setStyleSheet("color: #c0392b;")
        self.message_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message_label.hide()

        volume_icon = self._build_controls()
        seek_row = QHBoxLayout()
        seek_row.addWidget(self.seek_slider, 1)
        seek_row.addWidget(self.time_label)
        buttons = QHBoxLayout()
        for widget in (self.back_button, self.play_button, self.forward_button, self.speed_box):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        buttons.addWidget(volume_icon)
        buttons.addWidget(self.volume_slider)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._splitter, 1)
        layout.addWidget(self.message_label)
        layout.addLayout(seek_row)
        layout.addLayout(buttons)

        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for key, slot in (
            (Qt.Key.Key_Space, self.toggle_pause),
            (Qt.Key.Key_Left, lambda: self.skip(-SKIP_MS)),
            (Qt.Key.Key_Right, lambda: self.skip(SKIP_MS)),
        ):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(context)
            shortcut.activated.connect(slot)

    def _build_video(self) -> None:
        self.video_stack = QStackedWidget()
        self.video_stack.addWidget(self._backend.video)
        self._backend.video.installEventFilter(self)
        self.audio_panel = QLabel()
        self.audio_panel.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.audio_panel.setWordWrap(True)
        self.audio_panel.setFrameShape(QFrame.Shape.StyledPanel)
        self.audio_panel.installEventFilter(self)
        self.video_stack.addWidget(self.audio_panel)
        self.video_stack.setMinimumSize(320, 180)

    def _build_transcript(self) -> None:
        self.transcript_list = QListWidget()
        self.transcript_list.setWordWrap(True)
        self.transcript_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        palette = self.transcript_list.palette()  # the spoken row stays visible unfocused
        for role in (QPalette.ColorRole.Highlight, QPalette.ColorRole.HighlightedText):
            color = palette.color(QPalette.ColorGroup.Active, role)
            palette.setColor(QPalette.ColorGroup.Inactive, role, color)
        self.transcript_list.setPalette(palette)
        self.transcript_list.itemClicked.connect(self._row_chosen)
        self.transcript_list.itemActivated.connect(self._row_chosen)
        scroll = self.transcript_list.verticalScrollBar()
        scroll.actionTriggered.connect(self._user_scrolled)  # wheel, drag, page clicks
        self.transcript_list.hide()

    def _build_controls(self) -> QLabel:
        """The seek bar, the buttons, speed and volume; returns the volume's icon."""
        self.seek_slider = QSlider(Qt.Orientation.Horizontal)
        self.seek_slider.setRange(0, 0)
        self.seek_slider.setSingleStep(5_000)
        self.seek_slider.setPageStep(SKIP_MS)
        self.seek_slider.actionTriggered.connect(self._slider_action)
        self.seek_slider.sliderReleased.connect(self._slider_released)
        self.seek_slider.sliderMoved.connect(self._slider_moved)
        self.time_label = QLabel("00:00 / 00:00")

        self.play_button = QToolButton()
        self.play_button.clicked.connect(self.toggle_pause)
        self.back_button = QToolButton()
        self.back_button.setText("-10 s")
        self.back_button.setToolTip("Back 10 seconds (Left)")
        self.back_button.clicked.connect(lambda: self.skip(-SKIP_MS))
        self.forward_button = QToolButton()
        self.forward_button.setText("+10 s")
        self.forward_button.setToolTip("Forward 10 seconds (Right)")
        self.forward_button.clicked.connect(lambda: self.skip(SKIP_MS))
        self.speed_box = QComboBox()
        self.speed_box.setToolTip("Speed")
        for speed in SPEEDS:
            self.speed_box.addItem(f"{speed:g}x", speed)
        self.speed_box.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_box.currentIndexChanged.connect(
            lambda i: self.set_rate(float(self.speed_box.itemData(i)))
        )
        volume_icon = QLabel()
        volume_icon.setPixmap(
            self.style().standardIcon(QStyle.StandardPixmap.SP_MediaVolume).pixmap(16)
        )
        self.volume_slider = QSlider(Qt.Orientation.Horizontal)
        self.volume_slider.setRange(0, 100)
        self.volume_slider.setValue(100)
        self.volume_slider.setMaximumWidth(120)
        self.volume_slider.setToolTip("Volume")
        self.volume_slider.valueChanged.connect(self._backend.set_volume)
        # Controls never take focus, so Space and the arrows always reach the player.
        for control in (self.play_button, self.back_button, self.forward_button, self.speed_box,
                        self.volume_slider, self.seek_slider):  # fmt: skip
            control.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._show_playing(False)
        return volume_icon

    # --- public API ----------------------------------------------------------------------------

    @property
    def backend_name(self) -> str:
        return self._backend.name

    def open(self, path: str, start_ms: int = 0, transcript: Sequence[Timing] = ()) -> None:
        """Play ``path`` from ``start_ms``, replacing what played; a failure emits ``error``."""
        if self._closed:
            return
        self._path = path
        self.message_label.hide()
        self._set_transcript(transcript)
        self.audio_panel.setText(
            f'<div style="font-size: 48pt">♪</div><p>{html.escape(Path(path).name)}</p>'
        )
        self.video_stack.setCurrentWidget(self._backend.video)
        if not Path(path).is_file():
            self._path = ""  # nothing to play or seek in
            self._backend.stop()
            self._fail(f"Cannot play {path}: no such file")
            self._refresh()
            return
        self._backend.load(path, max(0, start_ms))
        self._refresh()

    def position_ms(self) -> int:
        return 0 if self._closed else self._backend.position_ms()

    def duration_ms(self) -> int:
        return 0 if self._closed else self._backend.duration_ms()

    def is_playing(self) -> bool:
        return not self._closed and self._backend.is_playing()

    def seek(self, ms: int) -> None:
        if self._closed or not self._path:
            return
        duration = self._backend.duration_ms()
        self._backend.seek(max(0, min(ms, duration) if duration > 0 else ms))
        self._refresh()

    def skip(self, delta_ms: int) -> None:
        self.seek(self.position_ms() + delta_ms)

    def toggle_pause(self) -> None:
        if self.is_playing():
            self.pause()
        else:
            self.play()

    def pause(self) -> None:
        if not self._closed:
            self._backend.pause()
            self._refresh()

    def play(self) -> None:
        if not self._closed and self._path:
            self._backend.play()
            self._refresh()

    def set_rate(self, rate: float) -> None:
        if self._closed:
            return
        self._backend.set_rate(rate)
        index = self.speed_box.findData(rate)
        if index >= 0 and index != self.speed_box.currentIndex():
            self.speed_box.blockSignals(True)
            self.speed_box.setCurrentIndex(index)
            self.speed_box.blockSignals(False)

    def rate(self) -> float:
        return 1.0 if self._closed else self._backend.rate()

    def set_volume(self, percent: int) -> None:
        self.volume_slider.setValue(max(0, min(100, percent)))  # the slider tells the backend

    def stop(self) -> None:
        if not self._closed:
            self._backend.stop()
            self._refresh()

    def shutdown(self) -> None:
        """Stop and release the media engine; the widget plays nothing afterwards."""
        if self._closed:
            return
        self._closed = True
        self._timer.stop()
        self._backend.release()

    # --- following playback --------------------------------------------------------------------

    def _tick(self) -> None:
        if self._closed:
            return
        failure = self._backend.poll()
        if failure:
            self._fail(failure)
        self._refresh()

    def _refresh(self) -> None:
        if self._closed:
            return
        position, duration = self._backend.position_ms(), self._backend.duration_ms()
        playing = self._backend.is_playing()
        if playing != self._was_playing:
            self._show_playing(playing)
        has_video = self._backend.has_video()
        if has_video is not None:
            page = self._backend.video if has_video else self.audio_panel
            self.video_stack.setCurrentWidget(page)
        if self.seek_slider.maximum() != duration:
            self.seek_slider.setRange(0, duration)
        if not self.seek_slider.isSliderDown():
            self.seek_slider.setValue(position)
            self.time_label.setText(f"{clock(position)} / {clock(duration)}")
        self._follow(position)
        if playing or position != self._last_position:
            self._last_position = position
            self.position_changed.emit(position)

    def _show_playing(self, playing: bool) -> None:
        self._was_playing = playing
        icon = (
            QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        )
        self.play_button.setIcon(self.style().standardIcon(icon))
        self.play_button.setToolTip("Pause (Space)" if playing else "Play (Space)")

    def _fail(self, message: str) -> None:
        log.warning("%s", message)
        self.message_label.setText(message)
        self.message_label.show()
        self.error.emit(message)

    # --- transcript ----------------------------------------------------------------------------

    def _set_transcript(self, transcript: Sequence[Timing]) -> None:
        lines = sorted(transcript, key=lambda t: t.start_ms)
        self.transcript_list.clear()
        for line in lines:
            item = QListWidgetItem(f"{clock(line.start_ms)}  {line.text}")
            item.setData(Qt.ItemDataRole.UserRole, line.start_ms)
            self.transcript_list.addItem(item)
        self._starts = [line.start_ms for line in lines]
        self._line = -1
        self._user_scrolled_at = float("-inf")
        if lines and self.transcript_list.isHidden():
            self.transcript_list.show()
            self._splitter.setSizes([2_000, 1_000])  # in proportion: the picture gets two thirds
        elif not lines:
            self.transcript_list.hide()

    def _follow(self, position: int) -> None:
        line = bisect_right(self._starts, position) - 1
        if line == self._line:
            return
        self._line = line
        if line < 0:
            self.transcript_list.clearSelection()
            return
        item = self.transcript_list.item(line)
        self.transcript_list.selectionModel().select(
            self.transcript_list.indexFromItem(item),
            QItemSelectionModel.SelectionFlag.ClearAndSelect,
        )
        if time.monotonic() - self._user_scrolled_at > self.USER_SCROLL_HOLD_S:
            self.transcript_list.scrollToItem(item, QAbstractItemView.ScrollHint.PositionAtCenter)

    def _row_chosen(self, item: QListWidgetItem) -> None:
        self._user_scrolled_at = float("-inf")  # a chosen row may be scrolled into view again
        self.seek(int(item.data(Qt.ItemDataRole.UserRole)))

    def _user_scrolled(self, _action: int) -> None:
        self._user_scrolled_at = time.monotonic()

    # --- seek bar and clicks on the picture ----------------------------------------------------

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

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.MouseButtonPress:
            self.setFocus(Qt.FocusReason.MouseFocusReason)
            self.toggle_pause()
            return True
        return super().eventFilter(watched, event)
