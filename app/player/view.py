"""The player: a lecture plays from an exact time with its transcript beside it, following along.

libVLC (python-vlc) draws into a native child widget; where libVLC cannot load, Qt Multimedia
plays the same files behind the same widget. Both backends are polled by a QTimer on the UI
thread, so nothing from libVLC's own threads ever reaches a Qt widget.

    player = PlayerView(backend="auto")
    player.open("/courses/lecture-01.mp4", start_ms=754_300, transcript=library.transcript(path))
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QLineEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.accessible import describe
from app.player.bindings import add_keys, connect_controls
from app.player.control_bar import ControlBar
from app.player.full_screen import FullScreen
from app.player.go_to import ask_time
from app.player.keys import SearchBoxKeys
from app.player.memory import PlaybackMemory
from app.player.picture import Picture
from app.player.playback import make_backend
from app.player.transcript import TranscriptColumn
from engine.api import Chapter, Source, Timing

log = logging.getLogger(__name__)

TICK_MS = 200  # how often the widget reads the backend's position while it plays
REMEMBER_EVERY_MS = 5_000  # the position is written this often while playing
PLAYER_HELP = (
    "The lecture playing, its controls and its transcript. Space plays or pauses, Left and "
    "Right skip 10 seconds, G goes to a time you type, F is full screen, Tab moves through "
    "the controls; Help > Keyboard shortcuts lists every key"
)


class PlayerView(QWidget):
    """Video (or a plain panel for audio) left, the transcript column right, controls below.

    It owns its picture (app/player/picture.py) and its control bar, whose signals go to its
    actions (app/player/bindings.py), as its keys do, in its whole window. The row being
    spoken is selected and kept in view, except for a few seconds after the user scrolls the
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
        self._box_keys.player_keys = add_keys(self, self, self._showing)  # bindings.py
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
        self.picture = Picture(self._backend.video)
        self.picture.pressed.connect(self._picture_pressed)
        self.picture.double_clicked.connect(self._picture_double_clicked)
        self.video_stack = self.picture.video_stack
        self.audio_panel = self.picture.audio_panel
        self.subtitle = self.picture.subtitle
        self.transcript = TranscriptColumn()
        self.transcript.seek_requested.connect(self.seek)
        self.transcript.matches_changed.connect(lambda _m: self._mark())
        self.transcript.match_requested.connect(
            lambda step: self.next_match() if step > 0 else self.previous_match()
        )
        self.transcript_list = self.transcript.transcript_list
        self.transcript.hide()
        self._splitter = QSplitter(Qt.Orientation.Horizontal)
        self._splitter.addWidget(self.picture)
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
        connect_controls(self)  # app/player/bindings.py
        self.controls.subtitles_toggled.connect(lambda _on: self._show_subtitle(None))
        self.controls.volume_moved.connect(self._volume_moved)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._splitter, 1)
        layout.addWidget(self.message_label)
        layout.addWidget(self.controls)

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
        self.picture.show_file(path)
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
            self.picture.show_video(has_video)
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
        position = self._backend.position_ms()
        self._memory.leave(self._path, position, self._backend.duration_ms())
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
        self.picture.show_subtitle(text)

    # --- clicks on the picture ----------------------------------------------------------------

    def _picture_pressed(self) -> None:
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        self.toggle_pause()

    def _picture_double_clicked(self) -> None:
        self.toggle_pause()  # the press before it paused
        self.full_screen.toggle()
