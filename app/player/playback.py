"""Playback engines behind the player: libVLC drawing into a native child widget where the
user has VLC (app/player/libvlc.py finds it), else Qt Multimedia. Both answer the same small
interface, which the player polls from a QTimer on the UI thread; nothing from libVLC's
threads touches Qt.

The Linux build carries no Qt Multimedia (installer/coursedex.spec: its FFmpeg and the QML it
needs weigh 45 MB, and the .deb depends on VLC): there, without a libVLC that loads, the
player says that videos need VLC and how to install it.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import (
    Qt,
    QUrl,
)
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QWidget,
)

from app.player import libvlc
from app.player.libvlc import PlayerUnavailable

__all__ = ["Backend", "PlayerUnavailable", "make_backend"]

log = logging.getLogger(__name__)


class Backend(Protocol):
    """What the widget needs from a media engine; all calls come from the UI thread."""

    name: str
    video: QWidget  # the picture; libVLC draws into its native window

    def load(self, path: str, start_ms: int) -> None: ...
    def poll(self) -> str | None: ...  # does deferred work; a one-line failure, reported once
    def play(self) -> None: ...
    def pause(self) -> None: ...
    def stop(self) -> None: ...
    def seek(self, ms: int) -> None: ...
    def position_ms(self) -> int: ...
    def duration_ms(self) -> int: ...
    def is_playing(self) -> bool: ...
    def has_video(self) -> bool | None: ...  # None until the file is open
    def set_rate(self, rate: float) -> None: ...
    def rate(self) -> float: ...
    def set_volume(self, percent: int) -> None: ...
    def release(self) -> None: ...


class VideoSurface(QFrame):
    """A black native child window for libVLC to draw into."""

    def __init__(self) -> None:
        super().__init__()
        self.setAttribute(Qt.WidgetAttribute.WA_NativeWindow)
        self.setAttribute(Qt.WidgetAttribute.WA_DontCreateNativeAncestors)
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Window, QColor("black"))
        self.setPalette(palette)
        self.setAutoFillBackground(True)


class _VlcBackend:
    """libVLC 3. Starts a file at a time with the ``:start-time`` option (no first-frame blip);
    a seek asked for before libVLC plays is applied when it does."""

    name = "vlc"

    def __init__(self, vlc_args: Sequence[str]) -> None:
        vlc = libvlc.load()
        self._platform = QGuiApplication.platformName()
        if self._platform.startswith("wayland"):
            raise PlayerUnavailable(
                "libVLC 3 cannot draw inside a Wayland window (QT_QPA_PLATFORM=xcb can)"
            )
        args = [*vlc_args, "--no-video-title-show", "--quiet"]
        if self._platform in ("offscreen", "minimal") and not any(
            a.startswith("--vout") for a in vlc_args
        ):
            args.append("--vout=dummy")  # no window to draw in: never let libVLC open its own
        instance = vlc.Instance(args)
        if instance is None:
            raise PlayerUnavailable(f"libVLC did not start with the options {' '.join(args)}")
        self._vlc: Any = vlc
        self._instance: Any = instance
        self._player: Any = instance.media_player_new()
        self._player.video_set_key_input(False)  # keys and clicks go to Qt, not libVLC
        self._player.video_set_mouse_input(False)
        self.video: QWidget = VideoSurface()
        self._window_set = False
        self._path = ""
        self._target: int | None = None  # a time asked for that libVLC does not report yet
        self._seek_pending = False  # the target still needs a set_time
        self._failed = False
        self.version = vlc.libvlc_get_version().decode(errors="replace")

    def _attach(self) -> None:
        if self._window_set or self._platform in ("offscreen", "minimal"):
            return
        window = int(self.video.winId())
        if sys.platform.startswith("win"):
            self._player.set_hwnd(window)
        elif sys.platform == "darwin":
            self._player.set_nsobject(window)
        else:
            self._player.set_xwindow(window)
        self._window_set = True

    def _state(self) -> Any:
        return self._player.get_state()

    def load(self, path: str, start_ms: int) -> None:
        self._attach()
        media = self._instance.media_new_path(path)
        if start_ms > 0:
            media.add_option(f":start-time={start_ms / 1000:.3f}")
        self._player.set_media(media)
        media.release()
        self._path, self._target, self._seek_pending, self._failed = path, start_ms, False, False
        self._player.play()

    def poll(self) -> str | None:
        state = self._state()
        states = self._vlc.State
        if self._target is not None and state in (states.Playing, states.Paused):
            if self._seek_pending:
                self._player.set_time(self._target)  # libVLC reports the new time at once
                self._target, self._seek_pending = None, False
            elif self._target == 0 or self._player.get_time() > 0:
                self._target = None  # the start time has taken effect
        broken = state == states.Error or (state == states.Ended and self.duration_ms() <= 0)
        if broken and self._path and not self._failed:
            self._failed = True
            self._target = None
            return f"{Path(self._path).name} cannot be played: libVLC could not read it"
        return None

    def play(self) -> None:
        states = self._vlc.State
        if self._state() in (states.Ended, states.Stopped, states.NothingSpecial) and self._path:
            self.load(self._path, 0)
        else:
            self._player.set_pause(0)

    def pause(self) -> None:
        self._player.set_pause(1)

    def stop(self) -> None:
        self._player.stop()
        self._target = None

    def seek(self, ms: int) -> None:
        states = self._vlc.State
        state = self._state()
        if state in (states.Ended, states.Stopped) and self._path:
            self.load(self._path, ms)
        elif state in (states.Playing, states.Paused) and not self._seek_pending:
            self._player.set_time(ms)
            self._target = None
        else:  # still opening
            self._target, self._seek_pending = ms, True

    def position_ms(self) -> int:
        if self._target is not None:
            return self._target
        return max(0, self._player.get_time())

    def duration_ms(self) -> int:
        return max(0, self._player.get_length())

    def is_playing(self) -> bool:
        return self._state() == self._vlc.State.Playing

    def has_video(self) -> bool | None:
        if self._state() not in (self._vlc.State.Playing, self._vlc.State.Paused):
            return None
        return self._player.video_get_track_count() > 0

    def set_rate(self, rate: float) -> None:
        self._player.set_rate(rate)

    def rate(self) -> float:
        return float(self._player.get_rate())

    def set_volume(self, percent: int) -> None:
        self._player.audio_set_volume(percent)

    def release(self) -> None:
        self._player.stop()
        self._player.release()
        self._instance.release()


class _QtBackend:
    """Qt Multimedia (its FFmpeg backend). A start time is applied once the file is loaded.

    The QAudioOutput is made by QML, not by Python. Qt's audio thread disconnects from the
    output when playback is torn down (stop, a new file); on an output made by Python that
    asks for the GIL while holding a Qt lock which the UI thread, holding the GIL inside
    stop() or setSource(), waits for: one file change in ten hung for good. With the QML-made
    output, hundreds do not. For the same reason no Qt message handler written in Python may
    be installed while it plays (app/qt_messages.py). Without an audio device (offscreen, a
    server) Qt says "No audio device detected" and plays on the system clock, so position,
    rate and pause still work."""

    name = "qt"

    def __init__(self) -> None:
        try:
            from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer
            from PySide6.QtMultimediaWidgets import QVideoWidget
            from PySide6.QtQml import QQmlComponent, QQmlEngine
        except ImportError as e:
            raise PlayerUnavailable(f"Qt Multimedia is not in this build ({e})") from e
        self._states = QMediaPlayer
        self._player = QMediaPlayer()
        # Both stay referenced: the output dies with them otherwise.
        self._qml = QQmlEngine()
        self._qml_component = QQmlComponent(self._qml)
        self._qml_component.setData(b"import QtMultimedia\nAudioOutput {}\n", QUrl())
        audio: Any = self._qml_component.create()
        if audio is None:
            log.info(
                "QML cannot make an audio output (%s); Python makes it",
                self._qml_component.errorString().strip(),
            )
            audio = QAudioOutput()
        self._audio: Any = audio
        self._player.setAudioOutput(self._audio)
        self.video: QWidget = QVideoWidget()
        # Its window container took the focus when first shown, out of the search box.
        for widget in (self.video, *self.video.findChildren(QWidget)):
            widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._player.setVideoOutput(self.video)
        self._player.mediaStatusChanged.connect(self._status_changed)
        self._player.errorOccurred.connect(self._failed)
        self._target: int | None = None  # applied when the file has loaded
        self._want_play = True
        self._error: str | None = None
        self._path = ""

    def _status_changed(self, status: Any) -> None:
        if status == self._states.MediaStatus.InvalidMedia and self._error is None:
            self._failed(None, self._player.errorString())
        self._start()

    def _start(self) -> None:
        """Go to the start time once the new file is open (the status now, not a queued one:
        the file replaced also reports being loaded), then play."""
        statuses = self._states.MediaStatus
        open_now = (statuses.LoadedMedia, statuses.BufferingMedia, statuses.BufferedMedia)
        if self._target is None or self._player.mediaStatus() not in open_now:
            return
        self._player.setPosition(self._target)
        self._target = None
        if self._want_play:
            self._player.play()

    def _failed(self, _error: object, message: str) -> None:
        reason = message.strip().splitlines()[0] if message.strip() else "unsupported file"
        self._error = f"{Path(self._path).name} cannot be played: {reason}"
        self._target = None

    def load(self, path: str, start_ms: int) -> None:
        # Replaced while playing, Qt stays "playing" at 0 without stop() first.
        self._target = None
        self._player.stop()
        self._path, self._target, self._want_play, self._error = path, start_ms, True, None
        self._player.setSource(QUrl.fromLocalFile(path))
        self._start()

    def poll(self) -> str | None:
        self._start()
        error, self._error = self._error, None
        return error

    def play(self) -> None:
        self._want_play = True
        if self._target is None:
            self._player.play()

    def pause(self) -> None:
        self._want_play = False
        if self._target is None:
            self._player.pause()

    def stop(self) -> None:
        self._target = None
        self._player.stop()

    def seek(self, ms: int) -> None:
        if self._target is not None:
            self._target = ms
        else:
            self._player.setPosition(ms)

    def position_ms(self) -> int:
        return self._target if self._target is not None else self._player.position()

    def duration_ms(self) -> int:
        return max(0, self._player.duration())

    def is_playing(self) -> bool:
        playing = self._player.playbackState() == self._states.PlaybackState.PlayingState
        return playing and self._target is None

    def has_video(self) -> bool | None:
        status = self._player.mediaStatus()
        statuses = self._states.MediaStatus
        if status in (statuses.NoMedia, statuses.LoadingMedia, statuses.InvalidMedia):
            return None
        return self._player.hasVideo()

    def set_rate(self, rate: float) -> None:
        self._player.setPlaybackRate(rate)

    def rate(self) -> float:
        return self._player.playbackRate()

    def set_volume(self, percent: int) -> None:
        from PySide6.QtMultimedia import QtAudio

        scale = QtAudio.VolumeScale  # the slider is perceived loudness, Qt wants amplitude
        linear = QtAudio.convertVolume(
            percent / 100, scale.LogarithmicVolumeScale, scale.LinearVolumeScale
        )
        self._audio.setVolume(linear)

    def release(self) -> None:
        self._player.stop()
        self._player.setSource(QUrl())


def make_backend(kind: str, vlc_args: Sequence[str]) -> Backend:
    """The engine asked for; ``auto`` is libVLC, else Qt Multimedia.

    Raises:
        PlayerUnavailable: that engine cannot play here (without Qt Multimedia, libVLC's
            failure says what to install).
    """
    if kind == "qt":
        return _QtBackend()
    if kind not in ("vlc", "auto"):
        raise ValueError(f"unknown player backend {kind!r} (auto, vlc or qt)")
    try:
        backend = _VlcBackend(vlc_args)
    except PlayerUnavailable as e:
        if not has_qt_multimedia():
            raise PlayerUnavailable(needs_vlc(str(e))) from e
        if kind == "vlc":
            raise
        log.info("player: Qt Multimedia, because %s", e)
        return _QtBackend()
    log.info("player: libVLC %s", backend.version)
    return backend


def has_qt_multimedia() -> bool:
    """Whether this build carries Qt Multimedia (the Linux build does not)."""
    try:
        import PySide6.QtMultimedia  # noqa: F401
    except ImportError:
        return False
    return True


def x11_for_libvlc(environ: MutableMapping[str, str]) -> None:
    """libVLC 3 draws into X11 windows only. Where it is the only player (a build without Qt
    Multimedia: Linux), a window in a Wayland session runs on XWayland, as VLC's own does,
    unless the user chose Qt's platform. Call before the QApplication is made."""
    wayland = environ.get("WAYLAND_DISPLAY") and environ.get("DISPLAY")
    if wayland and "QT_QPA_PLATFORM" not in environ and not has_qt_multimedia():
        environ["QT_QPA_PLATFORM"] = "xcb"


def needs_vlc(why: str) -> str:
    """What the user reads where the video would play when no player can: what is missing
    and the one thing to do."""
    how = (
        "install VLC (on Debian and Ubuntu: sudo apt install vlc)"
        if sys.platform.startswith("linux")
        else "install VLC from videolan.org"
    )
    return f"Videos play with VLC, which cannot be loaded here ({why}): {how}, then play again."
