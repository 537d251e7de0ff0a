"""The player on both backends, for real: libVLC with dummy outputs and Qt Multimedia offscreen
(which plays on the system clock when there is no audio device) open a generated lecture at an
exact time, seek, skip, change speed, pause, follow the transcript and report failures."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSlider
from pytestqt.qtbot import QtBot

from app.player.playback import PlayerUnavailable, has_qt_multimedia, x11_for_libvlc
from app.player.view import PlayerView
from app.window import MainWindow
from engine.library import Library
from engine.types import Timing
from tests.app.media import SLOT_MS, VIDEO_MS, PlayerMedia

VLC_DUMMY = ("--vout=dummy", "--aout=dummy")
BACKENDS = ("vlc", "qt")
PLAYING_TIMEOUT_MS = 10_000


def make_player(qtbot: QtBot, backend: str) -> PlayerView:
    player = PlayerView(backend=backend, vlc_args=VLC_DUMMY if backend == "vlc" else ())
    qtbot.addWidget(player)
    player.resize(900, 420)
    player.show()
    return player


@pytest.fixture(params=BACKENDS)
def player(request: pytest.FixtureRequest, qtbot: QtBot) -> Iterator[PlayerView]:
    view = make_player(qtbot, request.param)
    assert view.backend_name == request.param
    yield view
    view.shutdown()


def wait_playing(qtbot: QtBot, player: PlayerView) -> None:
    qtbot.waitUntil(player.is_playing, timeout=PLAYING_TIMEOUT_MS)


def spoken_row(player: PlayerView) -> int:
    rows = [i.row() for i in player.transcript_list.selectedIndexes()]
    return rows[0] if len(rows) == 1 else -1


def click_row(qtbot: QtBot, player: PlayerView, row: int) -> None:
    listing = player.transcript_list
    item = listing.item(row)
    listing.scrollToItem(item)
    qtbot.mouseClick(
        listing.viewport(), Qt.MouseButton.LeftButton, pos=listing.visualItemRect(item).center()
    )


def test_opens_at_the_time_seeks_skips_speeds_up_pauses_and_follows_the_transcript(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia
) -> None:
    player.open(str(media.video), 12_300, media.transcript)
    wait_playing(qtbot, player)
    assert abs(player.position_ms() - 12_300) <= 500, player.position_ms()
    qtbot.waitUntil(lambda: abs(player.duration_ms() - VIDEO_MS) <= 500)
    assert player.transcript_list.count() == len(media.transcript)
    assert player.transcript_list.item(4).text() == f"00:12  {media.transcript[4].text}"
    qtbot.waitUntil(lambda: spoken_row(player) == 12_300 // SLOT_MS)
    qtbot.waitUntil(lambda: player.controls.time_label.text().endswith(" / 00:27"))

    player.seek(5_000)
    assert abs(player.position_ms() - 5_000) <= 500, player.position_ms()
    qtbot.waitUntil(lambda: spoken_row(player) == 1)  # 3.0-5.8 s
    qtbot.wait(300)
    assert abs(player.position_ms() - 5_300) <= 500, player.position_ms()
    assert player.is_playing()

    before = player.position_ms()
    player.skip(10_000)
    assert abs(player.position_ms() - (before + 10_000)) <= 500, (before, player.position_ms())
    qtbot.waitUntil(lambda: spoken_row(player) == 5)  # 15.0-17.8 s

    player.set_rate(2.0)
    assert player.rate() == 2.0
    assert player.controls.speed_box.currentText() == "2x speed"
    start_ms, start = player.position_ms(), time.monotonic()
    qtbot.wait(1_500)
    speed = (player.position_ms() - start_ms) / ((time.monotonic() - start) * 1000)
    assert speed > 1.4, speed

    player.pause()
    qtbot.waitUntil(lambda: not player.is_playing())
    paused_at = player.position_ms()
    qtbot.wait(700)
    assert abs(player.position_ms() - paused_at) <= 100, (paused_at, player.position_ms())

    # Paused, a click on a row seeks to its start and highlights it.
    click_row(qtbot, player, 2)
    assert abs(player.position_ms() - media.transcript[2].start_ms) <= 500, player.position_ms()
    qtbot.waitUntil(lambda: spoken_row(player) == 2)
    assert not player.is_playing()
    assert player.controls.time_label.text() == "00:06 / 00:27"
    player.play()
    wait_playing(qtbot, player)
    qtbot.waitUntil(lambda: spoken_row(player) == 3, timeout=4_000)  # 9 s, at twice the speed
    player.set_rate(1.0)
    assert player.controls.speed_box.currentText() == "1x speed"


def test_keys_buttons_speed_box_and_seek_bar_drive_playback(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia
) -> None:
    player.open(str(media.video), 2_000, media.transcript)
    wait_playing(qtbot, player)
    player.setFocus()
    qtbot.waitUntil(player.hasFocus)
    qtbot.keyClick(player, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not player.is_playing())
    before = player.position_ms()
    qtbot.keyClick(player, Qt.Key.Key_Right)
    assert abs(player.position_ms() - (before + 10_000)) <= 500, player.position_ms()
    qtbot.keyClick(player, Qt.Key.Key_Left)
    assert abs(player.position_ms() - before) <= 500, player.position_ms()
    # Space reaches the player while its transcript has the focus, too.
    player.transcript_list.setFocus()
    qtbot.waitUntil(player.transcript_list.hasFocus)
    qtbot.keyClick(player.transcript_list, Qt.Key.Key_Space)
    wait_playing(qtbot, player)

    qtbot.mouseClick(player.controls.play_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not player.is_playing())
    before = player.position_ms()
    qtbot.mouseClick(player.controls.forward_button, Qt.MouseButton.LeftButton)
    assert abs(player.position_ms() - (before + 10_000)) <= 500, player.position_ms()
    qtbot.mouseClick(player.controls.back_button, Qt.MouseButton.LeftButton)
    assert abs(player.position_ms() - before) <= 500, player.position_ms()
    qtbot.mouseClick(player.controls.play_button, Qt.MouseButton.LeftButton)
    wait_playing(qtbot, player)

    player.controls.speed_box.setCurrentIndex(player.controls.speed_box.findText("1.5x speed"))
    assert player.rate() == 1.5
    player.controls.speed_box.setCurrentIndex(player.controls.speed_box.findText("0.5x speed"))
    assert player.rate() == 0.5

    # The seek bar follows playback, and moving it (as a click on its groove does) seeks.
    slider = player.controls.seek_slider
    qtbot.waitUntil(
        lambda: slider.maximum() > 0 and abs(slider.value() - player.position_ms()) < 1_000
    )
    slider.setSliderPosition(20_000)
    slider.triggerAction(QAbstractSlider.SliderAction.SliderMove)
    assert abs(player.position_ms() - 20_000) <= 500, player.position_ms()
    qtbot.waitUntil(lambda: abs(slider.value() - 20_000) <= 500)
    player.set_volume(40)
    assert player.controls.volume_slider.value() == 40

    # position_changed follows playback, and is quiet while paused.
    with qtbot.waitSignal(player.position_changed, timeout=1_000) as blocker:
        pass
    assert blocker.args is not None
    assert abs(blocker.args[0] - player.position_ms()) <= 500, blocker.args
    # A click on the picture pauses.
    picture = player.video_stack.currentWidget()
    assert picture is not None
    qtbot.mouseClick(picture, Qt.MouseButton.LeftButton, pos=picture.rect().center())
    qtbot.waitUntil(lambda: not player.is_playing())
    assert player.hasFocus()
    wait_settled(qtbot, player)
    with qtbot.assertNotEmitted(player.position_changed, wait=600):
        pass


def wait_settled(qtbot: QtBot, player: PlayerView) -> None:
    """Until a paused player reads the same position twice, 300 ms apart. libVLC seeks
    asynchronously: a seek asked just before the pause may land (and move the position once,
    to the frame it found) after it; what must not follow is the ticking of playback."""
    last = player.position_ms()
    for _ in range(15):
        qtbot.wait(300)
        now = player.position_ms()
        if now == last:
            return
        last = now
    raise AssertionError(f"the paused player's position keeps moving: {last} ms")


def test_the_spoken_row_stays_in_view_unless_the_user_just_scrolled(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia
) -> None:
    lines = [
        Timing(ms, ms + 900, f"Line {ms // 1000} of a long transcript")
        for ms in range(0, VIDEO_MS, 1000)
    ]
    player.resize(900, 240)
    player.open(str(media.video), 0, lines)
    wait_playing(qtbot, player)
    listing = player.transcript_list
    bar = listing.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)

    def in_view(row: int) -> bool:
        return listing.viewport().rect().intersects(listing.visualItemRect(listing.item(row)))

    player.seek(20_000)
    qtbot.waitUntil(lambda: spoken_row(player) == 20)
    assert in_view(20)

    # more than a row lasts (1 s), less than the app's hold
    player.transcript.USER_SCROLL_HOLD_S = 3.0
    bar.triggerAction(QAbstractSlider.SliderAction.SliderToMinimum)  # the user scrolls to the top
    qtbot.waitUntil(lambda: spoken_row(player) == 21)
    assert bar.value() == 0 and not in_view(21)
    qtbot.waitUntil(lambda: in_view(spoken_row(player)) and spoken_row(player) >= 22, timeout=6_000)
    assert bar.value() > 0


def test_a_missing_or_unplayable_file_says_why(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia, tmp_path: Path
) -> None:
    gone = tmp_path / "lecture-gone.mp4"
    with qtbot.waitSignal(player.error, timeout=1_000) as blocker:
        player.open(str(gone), 5_000, media.transcript)
    message = blocker.args[0] if blocker.args else ""
    assert "lecture-gone.mp4" in message and "no such file" in message, message
    assert "\n" not in message
    assert player.message_label.isVisible() and player.message_label.text() == message
    assert not player.is_playing()
    player.play()  # nothing to play: no exception, no error
    player.seek(1_000)

    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"\x00\x00\x00\x18ftypisom" + bytes(range(256)) * 64)
    with qtbot.waitSignal(player.error, timeout=PLAYING_TIMEOUT_MS) as blocker:
        player.open(str(broken))
    message = blocker.args[0] if blocker.args else ""
    assert message.startswith("broken.mp4 cannot be played"), message
    assert "\n" not in message

    # The next good file plays, and the old message is gone.
    player.open(str(media.video), 1_000)
    wait_playing(qtbot, player)
    assert player.message_label.isHidden()
    assert not player.transcript_list.isVisible()  # no transcript: the video takes the width


def test_an_audio_file_plays_beside_a_panel_naming_it(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia
) -> None:
    player.open(str(media.video), 4_000)
    wait_playing(qtbot, player)
    player.open(str(media.audio), 7_000, media.transcript)  # replaces the video
    wait_playing(qtbot, player)
    assert abs(player.position_ms() - 7_000) <= 500, player.position_ms()
    qtbot.waitUntil(lambda: player.video_stack.currentWidget() is player.audio_panel)
    assert "talk.m4a" in player.audio_panel.text()
    qtbot.waitUntil(lambda: spoken_row(player) == 2)
    player.seek(20_000)
    assert abs(player.position_ms() - 20_000) <= 500, player.position_ms()


def test_auto_chooses_vlc_here_and_qt_when_libvlc_does_not_start(qtbot: QtBot) -> None:
    auto = make_player(qtbot, "auto")
    assert auto.backend_name == "vlc"
    auto.shutdown()
    bad = ("--no-such-libvlc-option",)  # libvlc_new refuses it, as when its plugins are missing
    with pytest.raises(PlayerUnavailable, match="libVLC did not start") as caught:
        PlayerView(backend="vlc", vlc_args=bad)
    assert "\n" not in str(caught.value)
    fallback = PlayerView(backend="auto", vlc_args=bad)
    qtbot.addWidget(fallback)
    assert fallback.backend_name == "qt"
    fallback.shutdown()


def without_qt_multimedia_or_vlc(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """As the Linux build runs where VLC is not installed: no Qt Multimedia module to import
    (installer/coursedex.spec leaves it out there), and a libVLC that does not load."""
    for module in ("PySide6.QtMultimedia", "PySide6.QtMultimediaWidgets"):
        monkeypatch.setitem(sys.modules, module, None)  # import raises ImportError
    (tmp_path / "libvlc.so.5").write_bytes(b"not a library")
    monkeypatch.setenv("PYTHON_VLC_LIB_PATH", str(tmp_path / "libvlc.so.5"))


def test_without_qt_multimedia_no_libvlc_says_to_install_vlc(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    without_qt_multimedia_or_vlc(monkeypatch, tmp_path)
    assert not has_qt_multimedia()
    for backend in ("auto", "vlc"):
        with pytest.raises(PlayerUnavailable, match=r"^Videos play with VLC") as caught:
            PlayerView(backend=backend, vlc_args=VLC_DUMMY)
        assert "libvlc.so.5" in str(caught.value)  # why: the library that did not load
        assert "sudo apt install vlc" in str(caught.value) and "\n" not in str(caught.value)


def test_the_window_without_a_player_says_so_where_the_video_would_play(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, quick_library: Library,
    media: PlayerMedia,
) -> None:  # fmt: skip
    without_qt_multimedia_or_vlc(monkeypatch, tmp_path)
    for setting in ("auto", "qt"):  # "qt" from settings made where Qt Multimedia was
        window = MainWindow(quick_library, player_backend=setting)
        qtbot.addWidget(window)
        window.resize(1000, 600)
        window.show()
        window.play(str(media.video), 2_000)
        pane = window.preview_pane
        assert not pane.has_player
        assert pane.stack.currentWidget() is pane.placeholder
        assert pane.placeholder.isVisible()
        assert pane.placeholder.text().startswith("Videos play with VLC, which cannot be loaded")
        assert "sudo apt install vlc" in pane.placeholder.text()
        window.close()


def test_where_libvlc_is_the_only_player_a_wayland_session_runs_the_window_on_xwayland(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = {"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}
    with_qt = dict(session)
    x11_for_libvlc(with_qt)
    assert "QT_QPA_PLATFORM" not in with_qt  # Qt Multimedia plays inside Wayland windows
    monkeypatch.setitem(sys.modules, "PySide6.QtMultimedia", None)  # the Linux build
    only_vlc = dict(session)
    x11_for_libvlc(only_vlc)
    assert only_vlc["QT_QPA_PLATFORM"] == "xcb"
    chosen = {**session, "QT_QPA_PLATFORM": "wayland"}  # the user's choice stands
    x11_for_libvlc(chosen)
    assert chosen["QT_QPA_PLATFORM"] == "wayland"
    no_xwayland = {"WAYLAND_DISPLAY": "wayland-0"}  # the player then says why it cannot
    x11_for_libvlc(no_xwayland)
    assert "QT_QPA_PLATFORM" not in no_xwayland
