"""The player's controls on real media: a click on the seek bar jumps to the clicked point,
icons stay legible in the dark palette, replay from the hit, match markers with next and
previous match, the transcript's own search, subtitles on the picture, chapters, copying a
link or a quote, and speed and position remembered between starts."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QStyle, QStyleOptionSlider, QToolButton
from pytestqt.qtbot import QtBot

from app.player import PlayerView
from app.settings import dark_palette
from tests.app.media import PlayerMedia, make_test_media

VLC_DUMMY = ("--vout=dummy", "--aout=dummy")
PLAYING_TIMEOUT_MS = 10_000


@pytest.fixture(autouse=True)
def _runtime_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ.setdefault("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("xdg")))


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> PlayerMedia:
    return make_test_media(tmp_path_factory.mktemp("player-media"))


def make_player(qtbot: QtBot, backend: str, **kwargs: object) -> PlayerView:
    player = PlayerView(backend=backend, vlc_args=VLC_DUMMY if backend == "vlc" else (), **kwargs)  # type: ignore[arg-type]
    qtbot.addWidget(player)
    player.resize(900, 420)
    player.show()
    return player


@pytest.fixture(params=("vlc", "qt"))
def player(request: pytest.FixtureRequest, qtbot: QtBot) -> Iterator[PlayerView]:
    view = make_player(qtbot, request.param)
    yield view
    view.shutdown()


def wait_playing(qtbot: QtBot, player: PlayerView) -> None:
    qtbot.waitUntil(player.is_playing, timeout=PLAYING_TIMEOUT_MS)


def groove_point(player: PlayerView, fraction: float) -> QPoint:
    """Where on the seek bar's groove ``fraction`` of the way along lies, in its coordinates."""
    slider = player.seek_slider
    option = QStyleOptionSlider()
    slider.initStyleOption(option)
    groove = slider.style().subControlRect(
        QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderGroove, slider
    )
    handle = slider.style().subControlRect(
        QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderHandle, slider
    )
    span = groove.width() - handle.width()
    x = groove.x() + handle.width() // 2 + round(span * fraction)
    return QPoint(x, groove.center().y())


def test_a_click_on_the_seek_bar_jumps_to_the_clicked_point(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia
) -> None:
    player.open(str(media.video), 2_000, media.transcript)
    wait_playing(qtbot, player)
    qtbot.waitUntil(lambda: player.seek_slider.maximum() > 0)
    qtbot.mouseClick(player.seek_slider, Qt.MouseButton.LeftButton, pos=groove_point(player, 0.75))
    target = round(0.75 * player.seek_slider.maximum())
    assert abs(player.position_ms() - target) <= 1_000, (target, player.position_ms())
    qtbot.mouseClick(player.seek_slider, Qt.MouseButton.LeftButton, pos=groove_point(player, 0.1))
    target = round(0.1 * player.seek_slider.maximum())
    assert abs(player.position_ms() - target) <= 1_000, (target, player.position_ms())


def contrast(image: QImage, background: QColor) -> int:
    """The largest lightness difference between an opaque pixel and the background."""
    best = 0
    for y in range(image.height()):
        for x in range(image.width()):
            colour = image.pixelColor(x, y)
            if colour.alpha() > 160:
                best = max(best, abs(colour.lightness() - background.lightness()))
    return best


def test_play_pause_and_volume_icons_contrast_with_a_dark_background(qtbot: QtBot) -> None:
    player = make_player(qtbot, "qt")
    player.setPalette(dark_palette())
    background = dark_palette().color(dark_palette().ColorRole.Button)
    for name in ("play_button", "mute_button"):
        button: QToolButton = getattr(player, name)
        image = button.icon().pixmap(16).toImage()
        assert contrast(image, background) >= 120, button.toolTip()
    player.shutdown()
