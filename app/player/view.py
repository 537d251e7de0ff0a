"""The player: a lecture plays from an exact time with its transcript beside it, following along.

libVLC (python-vlc) draws into a native child widget; where libVLC cannot load, Qt Multimedia
plays the same files behind the same widget. Both backends are polled by a QTimer on the UI
thread, so nothing from libVLC's own threads ever reaches a Qt widget.

    player = PlayerView(backend="auto")
    player.open("/courses/lecture-01.mp4", start_ms=754_300, transcript=library.transcript(path))
"""

from __future__ import annotations

import html
import itertools
import logging
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QFrame,
    QLabel,
    QLineEdit,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.accessible import describe
from app.player.control_bar import SKIP_MS, ControlBar
from app.player.controls import SubtitleLabel
from app.player.full_screen import FullScreen
from app.player.go_to import ask_time
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
    SearchBoxKeys,
    add_shortcuts,
)
from app.player.memory import PlaybackMemory
from app.player.playback import make_backend
from app.player.transcript import TranscriptColumn
from engine.api import Chapter, Source, Timing

log = logging.getLogger(__name__)

TICK_MS = 200  # how often the widget reads the backend's position while it plays
REMEMBER_EVERY_MS = 5_000  # the position is written this often while playing
NEAR_END_MS = 5_000  # a lecture left this close to its end starts over next time
PLAYER_HELP = (
    "The lecture playing, its controls and its transcript. Space plays or pauses, Left and "
    "Right skip 10 seconds, G goes to a time you type, F is full screen, Tab moves through "
    "the controls; Help > Keyboard shortcuts lists every key"
)


class PlayerView(QWidget):
    """Video (or a plain panel for audio) left, the transcript column right, controls below.

    It owns its control bar and connects the bar's signals to its actions; its keys
    (app/player/keys.py) work in its whole window. The row being spoken is
    selected and kept in view, except for a few seconds after the user scrolls the
    transcript; clicking a row seeks to it. Failures show as one line and emit ``error``.
    """

    position_changed = Signal(int)  # ms, every TICK_MS while playing and after a seek
    error = Signal(str)  # one line: the file is gone or cannot be played

    def __init__(
        self,
        parent: QWidget | None = None,
        backend: str = "auto",
        vlc_args: Sequence[str] = (),
        memory: PlaybackMemory | None = None,
    ) -> None:
        super().__init__(parent)
        self._backend = make_backend(backend, vlc_args)
        self._memory = memory
        self._path = ""
        self._start_ms = 0  # where the passage opened starts: "replay from here"
        self._last_position = -1
        self._remembered = -REMEMBER_EVERY_MS
        self._closed = False
        self._muted = False
        self._box_keys = SearchBoxKeys(self._showing, self)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        describe(self, "Lecture player", PLAYER_HELP)
        self._build()
        self._keys()
        if memory is not None:
            self.set_rate(memory.speed())
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._timer.start()
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)  # libVLC must stop before Python exits
            if isinstance(app, QApplication):
                app.focusChanged.connect(self._focus_changed)

    # --- layout --------------------------------------------------------------------------------

    def _build(self) -> None:
        self._build_video()
        self.transcript = TranscriptColumn()
        self.transcript.seek_requested.connect(self.seek)
        self.transcript.matches_changed.connect(lambda _m: self._mark())
        self.transcript.match_requested.connect(
            lambda step: self.next_match() if step > 0 else self.previous_match()
        )
        self.transcript_list = self.transcript.transcript_list
        self.transcript.hide()
        self._splitter = QSplitter(Qt.Orientation.Horizontal)
        self._splitter.addWidget(self.video_area)
        self._splitter.addWidget(self.transcript)
        self._splitter.setStretchFactor(0, 2)
        self._splitter.setStretchFactor(1, 1)
        self._splitter.setChildrenCollapsible(False)

        self.message_label = QLabel()
        self.message_label.setStyleSheet("color: #c0392b;")
        self.message_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message_label.hide()

        self.full_screen = FullScreen(self)
        self.controls = ControlBar()
        self._connect_controls()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._splitter, 1)
        layout.addWidget(self.message_label)
        layout.addWidget(self.controls)

    def _connect_controls(self) -> None:
        bar = self.controls
        bar.play_pause_clicked.connect(self.toggle_pause)
        bar.skip_requested.connect(self.skip)
        bar.seek_requested.connect(self.seek)
        bar.replay_clicked.connect(self.replay)
        bar.next_match_clicked.connect(self.next_match)
        bar.previous_match_clicked.connect(self.previous_match)
        bar.subtitles_toggled.connect(lambda _on: self._show_subtitle(None))
        bar.full_screen_clicked.connect(self.full_screen.toggle)
        bar.copy_link_clicked.connect(self.copy_link)
        bar.rate_chosen.connect(self.set_rate)
        bar.mute_clicked.connect(self.toggle_mute)
        bar.volume_moved.connect(self._volume_moved)
        self.full_screen.changed.connect(bar.show_full_screen)
        self.transcript.copied.connect(bar.show_notice)

    def _keys(self) -> None:
        """Window-wide shortcuts: text boxes keep the keys they type with, a focused control
        the keys it works with (keys.py)."""
        bar = self.controls
        self._box_keys.player_keys = add_shortcuts(self, (
            (("Space", "K"), self.toggle_pause),
            (("Left", "J"), lambda: self.skip(-SKIP_MS)),
            (("Right", "L"), lambda: self.skip(SKIP_MS)),
            (("N",), self.next_match),
            (("P",), self.previous_match),
            (("R",), self.replay),
            (("F",), self.full_screen.toggle),
            (("M",), self.toggle_mute),
            (("C",), bar.subtitles_button.toggle),
            ((FASTER_KEY,), lambda: bar.step_speed(1)),
            ((SLOWER_KEY,), lambda: bar.step_speed(-1)),
            ((VOLUME_UP_KEY, "="), lambda: bar.step_volume(VOLUME_STEP)),
            ((VOLUME_DOWN_KEY,), lambda: bar.step_volume(-VOLUME_STEP)),
            ((COPY_LINK_KEY,), self.copy_link),
            ((GO_TO_KEY,), self.ask_time),
            ((NOTE_KEY,), bar.note_button.click),  # the window adds it (app/notes/)
            *(((str(n),), lambda n=n: self.go_to_tenth(n)) for n in range(10)),
        ), self._showing)  # fmt: skip
        keep = ControlKeys(self)
        press = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)
        for control in bar.focus_order():
            if isinstance(control, QAbstractButton | QComboBox):
                keep.watch(control, press)
        arrows = (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down)
        keep.watch(bar.volume_slider, arrows)
        keep.watch(self.transcript.chapter_list, (Qt.Key.Key_Space,))
        bar.focus_ring.add(self, bar)  # the player itself: the ring goes round its controls
        order = [self, *bar.focus_order(), *self.transcript.focus_order()]
        for first, then in itertools.pairwise(order):
            QWidget.setTabOrder(first, then)

    def _build_video(self) -> None:
        self.video_area = QWidget()
        self.video_area.installEventFilter(self)  # keeps the subtitle over the picture
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
        area = QVBoxLayout(self.video_area)
        area.setContentsMargins(0, 0, 0, 0)
        area.addWidget(self.video_stack)
        self.subtitle = SubtitleLabel(self.video_area)

    # --- public API ----------------------------------------------------------------------------

    @property
    def backend_name(self) -> str:
        return self._backend.name

    def open(
        self,
        path: str,
        start_ms: int | None = 0,
        transcript: Sequence[Timing] = (),
        *,
        terms: Sequence[str] = (),
        chapters: Sequence[Chapter] = (),
        source: Source | None = None,
    ) -> None:
        """Play ``path`` from ``start_ms`` (None: where it was left, else its start),
        replacing what played; a failure emits ``error``. ``terms`` are the words searched:
        their lines are marked on the seek bar and highlighted in the transcript. ``source``
        (the library's record) titles the quotes and puts the file's hash in the links."""
        if self._closed:
            return
        self._remember()
        if start_ms is None:
            start_ms = (self._memory.position(path) if self._memory else None) or 0
        self._path = path
        self._start_ms = max(0, start_ms)
        self._box_keys.opened()
        self.message_label.hide()
        self.transcript.sha256 = source.sha256 if source is not None else None
        self.transcript.title = source.title if source is not None else Path(path).stem
        self._set_transcript(transcript, chapters, " ".join(terms))
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
        self._backend.load(path, self._start_ms)
        self._backend.set_rate(self.controls.chosen_rate())
        self._remembered = self._start_ms
        self._refresh()

    def watch_text_box(self, box: QLineEdit) -> None:
        """Let the player's keys reach it from ``box`` right after a lecture opened, Space,
        Left and Right while it is empty too (the search box; see app/player/keys.py)."""
        self._box_keys.watch(box)

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

    def replay(self) -> None:
        """Back to where the passage found starts, playing."""
        self.seek(self._start_ms)
        self.play()

    def matches(self) -> list[int]:
        """Start times of the transcript lines with the words searched, in order."""
        return list(self.transcript.matches)

    def next_match(self) -> None:
        position = self.position_ms()
        later = [ms for ms in self.transcript.matches if ms > position + 500]
        if later:
            self.seek(later[0])

    def previous_match(self) -> None:
        # Just after a match has started, "previous" is the one before it.
        position = self.position_ms()
        earlier = [ms for ms in self.transcript.matches if ms < position - 1_500]
        if earlier:
            self.seek(earlier[-1])

    def toggle_pause(self) -> None:
        if self.is_playing():
            self.pause()
        else:
            self.play()

    def pause(self) -> None:
        if not self._closed:
            self._backend.pause()
            self._refresh()
            self._remember()

    def play(self) -> None:
        if not self._closed and self._path:
            self._backend.play()
            self._refresh()

    def set_rate(self, rate: float) -> None:
        if self._closed:
            return
        self._backend.set_rate(rate)
        if self._memory is not None:
            self._memory.set_speed(rate)
        self.controls.show_rate(rate)

    def rate(self) -> float:
        return 1.0 if self._closed else self._backend.rate()

    def set_volume(self, percent: int) -> None:
        self.controls.volume_slider.setValue(max(0, min(100, percent)))  # it tells the backend

    def toggle_mute(self) -> None:
        self._muted = not self._muted
        if not self._closed:
            self._backend.set_volume(0 if self._muted else self.controls.volume())
        self.controls.show_muted(self._muted)

    def _volume_moved(self, percent: int) -> None:
        if self._muted:
            self.toggle_mute()  # moving the volume unmutes, as players do
        elif not self._closed:
            self._backend.set_volume(percent)

    def copy_link(self) -> None:
        """A coursedex:// link to the moment playing, on the clipboard."""
        self.transcript.copy_link(self.position_ms())

    def go_to_tenth(self, tenths: int) -> None:
        """0 to the start, 5 to the middle, 9 to nine tenths of the lecture."""
        self.seek(self.duration_ms() * tenths // 10)

    def ask_time(self) -> None:
        """Go to a time the user types (G)."""
        if not self._path:
            return
        ms = ask_time(self, self.position_ms(), self.duration_ms())
        if ms is not None:
            self.seek(ms)

    def stop(self) -> None:
        if not self._closed:
            self._backend.stop()
            self._refresh()

    def shutdown(self) -> None:
        """Stop and release the media engine; the widget plays nothing afterwards."""
        if self._closed:
            return
        self._remember()
        if self._memory is not None:
            self._memory.sync()
        self._closed = True
        self._timer.stop()
        self._backend.release()

    # --- following playback --------------------------------------------------------------------

    def _showing(self) -> bool:
        """Whether the keys are the player's: a lecture is open and the player is on screen."""
        return bool(self._path) and not self._closed and self.isVisible()

    def _focus_changed(self, old: QWidget | None, new: QWidget | None) -> None:
        """Qt Multimedia's video window takes the focus when it is shown (from the search
        box, as Enter opens a hit): it goes back where it was."""
        video = self._backend.video
        if new is None or not (new is video or video.isAncestorOf(new)):
            return
        if old is not None:
            old.setFocus(Qt.FocusReason.OtherFocusReason)
        elif not self.full_screen.give_focus_back():  # the window was activated again
            self.setFocus(Qt.FocusReason.OtherFocusReason)

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
        self.controls.show_playing(playing)
        has_video = self._backend.has_video()
        if has_video is not None:
            page = self._backend.video if has_video else self.audio_panel
            self.video_stack.setCurrentWidget(page)
        self.controls.show_time(position, duration)
        self._follow(position)
        if playing and abs(position - self._remembered) >= REMEMBER_EVERY_MS:
            self._remember()
        if playing or position != self._last_position:
            self._last_position = position
            self.position_changed.emit(position)

    def _remember(self) -> None:
        """Keep where the lecture is (forgotten near its end: next time it starts over)."""
        if self._memory is None or not self._path or self._closed:
            return
        position, duration = self._backend.position_ms(), self._backend.duration_ms()
        near_end = duration > 0 and position >= duration - NEAR_END_MS
        self._memory.set_position(self._path, None if near_end else position)
        self._remembered = position

    def _fail(self, message: str) -> None:
        log.warning("%s", message)
        self.message_label.setText(message)
        self.message_label.show()
        self.error.emit(message)

    # --- transcript ----------------------------------------------------------------------------

    def _set_transcript(
        self, transcript: Sequence[Timing], chapters: Sequence[Chapter], terms: str
    ) -> None:
        lines = sorted(transcript, key=lambda t: t.start_ms)
        self.transcript.set_lecture(self._path, lines, chapters, terms)
        self._show_subtitle(-1)
        if lines and self.transcript.isHidden():
            self.transcript.show()
            self._splitter.setSizes([2_000, 1_000])  # in proportion: the picture gets two thirds
        elif not lines:
            self.transcript.hide()
        self._mark()

    def _mark(self) -> None:
        self.controls.seek_slider.set_marks(
            self.transcript.matches, [c.start_ms for c in self.transcript.chapters]
        )

    def _follow(self, position: int) -> None:
        if self.transcript.follow(position):
            self._show_subtitle(None)

    def _show_subtitle(self, line: int | None) -> None:
        """The spoken line (``line``; None: the current one) over the picture, when on."""
        spoken = self.transcript.line_at(self.transcript.line if line is None else line)
        text = spoken.text if spoken is not None and self.controls.subtitles_on() else ""
        self.subtitle.setText(text)
        self.subtitle.place(self.video_stack)
        self.subtitle.setVisible(bool(text))

    # --- seek bar and clicks on the picture ----------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.video_area:
            if event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
                self.subtitle.place(self.video_stack)
            return super().eventFilter(watched, event)
        if event.type() == QEvent.Type.MouseButtonPress:
            self.setFocus(Qt.FocusReason.MouseFocusReason)
            self.toggle_pause()
            return True
        if event.type() == QEvent.Type.MouseButtonDblClick:
            self.toggle_pause()  # the press before it paused
            self.full_screen.toggle()
            return True
        return super().eventFilter(watched, event)
