"""The player's controls on real media: a click on the seek bar jumps to the clicked point,
icons stay legible in the dark palette, replay from the hit, match markers with next and
previous match, the transcript's own search, subtitles on the picture, chapters, copying a
link or a quote, and speed and position remembered between starts. The control bar alone
plays nothing: it asks, by its signals, and shows what it is told."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage
from PySide6.QtWidgets import QStyle, QStyleOptionSlider, QToolButton
from pytestqt.qtbot import QtBot

from app.dialogs.settings import dark_palette
from app.player.control_bar import SKIP_MS, ControlBar
from app.player.memory import PlaybackMemory
from app.player.view import PlayerView
from engine.api import Chapter, parse_link
from tests.app.media import SLOT_MS, PlayerMedia

VLC_DUMMY = ("--vout=dummy", "--aout=dummy")
PLAYING_TIMEOUT_MS = 10_000


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
    slider = player.controls.seek_slider
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


def test_the_control_bar_asks_by_signals_and_shows_what_it_is_told(qtbot: QtBot) -> None:
    bar = ControlBar()
    qtbot.addWidget(bar)
    for button, signal, args in (
        (bar.forward_button, bar.skip_requested, [SKIP_MS]),
        (bar.back_button, bar.skip_requested, [-SKIP_MS]),
        (bar.play_button, bar.play_pause_clicked, []),
        (bar.replay_button, bar.replay_clicked, []),
        (bar.next_match_button, bar.next_match_clicked, []),
        (bar.previous_match_button, bar.previous_match_clicked, []),
        (bar.full_screen_button, bar.full_screen_clicked, []),
        (bar.copy_link_button, bar.copy_link_clicked, []),
        (bar.mute_button, bar.mute_clicked, []),
        (bar.subtitles_button, bar.subtitles_toggled, [True]),
    ):
        with qtbot.waitSignal(signal, timeout=1000) as emitted:
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        assert emitted.args == args, button.toolTip()
    with qtbot.waitSignal(bar.rate_chosen, timeout=1000) as emitted:
        bar.speed_box.setCurrentIndex(bar.speed_box.findText("1.5x speed"))
    assert emitted.args == [1.5]
    with qtbot.waitSignal(bar.volume_moved, timeout=1000) as emitted:
        bar.volume_slider.setValue(40)
    assert emitted.args == [40]

    # What the player tells it is shown, and asks for nothing in return.
    with qtbot.assertNotEmitted(bar.rate_chosen), qtbot.assertNotEmitted(bar.seek_requested):
        bar.show_rate(2.0)
        bar.show_time(6_000, 27_000)
    assert bar.speed_box.currentText() == "2x speed" and bar.chosen_rate() == 2.0
    assert bar.time_label.text() == "00:06 / 00:27" and bar.seek_slider.value() == 6_000
    bar.show_playing(True)
    bar.show_muted(True)
    bar.show_full_screen(True)
    assert bar.play_button.toolTip() == "Pause (Space)"
    assert bar.mute_button.toolTip() == "Unmute (M)"
    assert bar.full_screen_button.toolTip() == "Leave full screen (Esc, F)"


def test_a_click_on_the_seek_bar_jumps_to_the_clicked_point(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia
) -> None:
    player.open(str(media.video), 2_000, media.transcript)
    wait_playing(qtbot, player)
    slider = player.controls.seek_slider
    qtbot.waitUntil(lambda: slider.maximum() > 0)
    qtbot.mouseClick(slider, Qt.MouseButton.LeftButton, pos=groove_point(player, 0.75))
    target = round(0.75 * slider.maximum())
    assert abs(player.position_ms() - target) <= 1_000, (target, player.position_ms())
    qtbot.mouseClick(slider, Qt.MouseButton.LeftButton, pos=groove_point(player, 0.1))
    target = round(0.1 * slider.maximum())
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
        button: QToolButton = getattr(player.controls, name)
        image = button.icon().pixmap(16).toImage()
        assert contrast(image, background) >= 120, button.toolTip()
    player.shutdown()


@pytest.fixture
def qt_player(qtbot: QtBot) -> Iterator[PlayerView]:
    view = make_player(qtbot, "qt")
    yield view
    view.shutdown()


def test_replay_goes_back_to_the_start_of_the_passage_found(
    qtbot: QtBot, qt_player: PlayerView, media: PlayerMedia
) -> None:
    player = qt_player
    player.open(str(media.video), 12_300, media.transcript)
    wait_playing(qtbot, player)
    player.seek(20_000)
    player.pause()
    qtbot.mouseClick(player.controls.replay_button, Qt.MouseButton.LeftButton)
    assert abs(player.position_ms() - 12_300) <= 500, player.position_ms()
    wait_playing(qtbot, player)


def highlight_pixels(player: PlayerView) -> int:
    image = player.transcript_list.viewport().grab().toImage()
    mark = QColor("#ffe58a")
    return sum(
        1
        for y in range(image.height())
        for x in range(image.width())
        if image.pixelColor(x, y) == mark
    )


def test_matches_are_marked_and_next_previous_go_through_them_and_the_find_box_highlights(
    qtbot: QtBot, qt_player: PlayerView, media: PlayerMedia
) -> None:
    player = qt_player
    player.open(str(media.video), 0, media.transcript, terms=["sort"])
    wait_playing(qtbot, player)
    player.pause()
    sorting = [SLOT_MS * i for i in (1, 2, 3)]  # "Sorting puts", "Merge sort", "Quick sort"
    assert player.matches() == sorting
    assert player.controls.seek_slider.matches == sorting
    assert player.transcript.find_box.text() == "sort"
    qtbot.waitUntil(lambda: highlight_pixels(player) > 50)

    player.setFocus()
    qtbot.keyClick(player, Qt.Key.Key_N)
    assert abs(player.position_ms() - sorting[0]) <= 300, player.position_ms()
    qtbot.mouseClick(player.controls.next_match_button, Qt.MouseButton.LeftButton)
    assert abs(player.position_ms() - sorting[1]) <= 300, player.position_ms()
    qtbot.keyClick(player, Qt.Key.Key_N)
    qtbot.keyClick(player, Qt.Key.Key_P)
    assert abs(player.position_ms() - sorting[1]) <= 300, player.position_ms()
    qtbot.mouseClick(player.controls.previous_match_button, Qt.MouseButton.LeftButton)
    assert abs(player.position_ms() - sorting[0]) <= 300, player.position_ms()

    # The transcript's own search: other words, other marks.
    player.transcript.find_box.setText("heaps")
    assert player.matches() == [SLOT_MS * 4]
    assert player.controls.seek_slider.matches == [SLOT_MS * 4]
    player.transcript.find_box.setText("")
    assert player.matches() == [] and player.controls.seek_slider.matches == []
    qtbot.waitUntil(lambda: highlight_pixels(player) == 0)


def test_subtitles_are_drawn_over_the_picture_when_on(
    qtbot: QtBot, player: PlayerView, media: PlayerMedia
) -> None:
    player.open(str(media.video), 6_500, media.transcript)
    wait_playing(qtbot, player)
    assert not player.subtitle.isVisible()
    qtbot.mouseClick(player.controls.subtitles_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: player.subtitle.isVisible())
    qtbot.waitUntil(lambda: player.subtitle.text() in [t.text for t in media.transcript[2:4]])
    picture = player.video_stack.geometry()
    label = player.subtitle.geometry()
    assert picture.contains(label), (picture, label)
    assert label.center().y() > picture.center().y()  # over the bottom half
    player.seek(13_000)
    qtbot.waitUntil(lambda: player.subtitle.text() == media.transcript[4].text)
    player.setFocus()
    qtbot.keyClick(player, Qt.Key.Key_C)
    assert not player.controls.subtitles_button.isChecked() and not player.subtitle.isVisible()


def test_chapters_list_beside_the_transcript_seeks_and_follows(
    qtbot: QtBot, qt_player: PlayerView, media: PlayerMedia
) -> None:
    player = qt_player
    chapters = [Chapter(0, "Opening"), Chapter(9_000, "Quick sort", 2), Chapter(15_000, "Search")]
    player.open(str(media.video), 0, media.transcript, chapters=chapters)
    wait_playing(qtbot, player)
    listing = player.transcript.chapter_list
    assert listing.isVisible() and listing.count() == 3
    assert listing.item(1).text() == "00:09  Quick sort"
    assert player.controls.seek_slider.chapters == [0, 9_000, 15_000]
    item = listing.item(2)
    qtbot.mouseClick(
        listing.viewport(), Qt.MouseButton.LeftButton, pos=listing.visualItemRect(item).center()
    )
    assert abs(player.position_ms() - 15_000) <= 300, player.position_ms()
    player.seek(10_000)
    qtbot.waitUntil(lambda: listing.currentRow() == 1)
    player.open(str(media.video), 0, media.transcript)  # a lecture without chapters
    assert not listing.isVisible()


def test_copy_link_and_quote_with_time(
    qtbot: QtBot, qt_player: PlayerView, media: PlayerMedia
) -> None:
    player = qt_player
    player.open(str(media.video), 9_400, media.transcript)
    wait_playing(qtbot, player)
    player.pause()
    qtbot.mouseClick(player.controls.copy_link_button, Qt.MouseButton.LeftButton)
    link = parse_link(QGuiApplication.clipboard().text())
    assert link.source == str(media.video)
    assert link.start_ms is not None and abs(link.start_ms - player.position_ms()) <= 1_000
    player.transcript.copy_quote(media.transcript[3])
    quote = QGuiApplication.clipboard().text()
    assert quote.startswith(f"\u201c{media.transcript[3].text}\u201d (lecture, 00:09) coursedex://")
    assert parse_link(quote.split(") ", 1)[1]).start_ms == media.transcript[3].start_ms


def test_speed_and_position_are_remembered_between_starts(
    qtbot: QtBot, media: PlayerMedia, tmp_path: Path
) -> None:
    settings = tmp_path / "settings.json"
    first = make_player(qtbot, "qt", memory=PlaybackMemory.beside(settings))
    first.open(str(media.video), 0, media.transcript)
    wait_playing(qtbot, first)
    first.set_rate(1.5)
    first.seek(14_000)
    first.pause()
    first.shutdown()  # as when the app quits

    second = make_player(qtbot, "qt", memory=PlaybackMemory.beside(settings))
    assert second.controls.speed_box.currentText() == "1.5x speed"
    second.open(str(media.video), None, media.transcript)  # where it was left
    wait_playing(qtbot, second)
    assert abs(second.position_ms() - 14_000) <= 700, second.position_ms()
    assert second.rate() == 1.5
    second.open(str(media.video), 3_000, media.transcript)  # a hit's time wins
    wait_playing(qtbot, second)
    assert abs(second.position_ms() - 3_000) <= 700, second.position_ms()
    second.shutdown()
    assert (tmp_path / "playback.ini").is_file()
