"""App tests drive real Qt widgets on the offscreen platform (no display needed), with the
fixtures several app test files share."""

from __future__ import annotations

import os

# A laptop's 1920x1080 screen (offscreen's own is 800x600): the window starts 1280x800 on it,
# as on a student's, rather than cut to the screen (app/window_state.py, fit_on_screen).
os.environ.setdefault(
    "QT_QPA_PLATFORM",
    f"offscreen:configfile={os.path.join(os.path.dirname(__file__), 'offscreen.json')}",
)

import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.player.view import PlayerView
from engine.library import Library
from tests.app.media import MEDIA_VARIABLE, PlayerMedia, make_test_media, media_in
from tests.app.x_server import x_server  # noqa: F401  (Xvfb + openbox, for any app test)
from tools.factories import make_srt


@pytest.fixture(autouse=True)
def _runtime_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """libVLC and the single-instance socket want XDG_RUNTIME_DIR."""
    os.environ.setdefault("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("xdg")))


@pytest.fixture(scope="session")
def media(tmp_path_factory: pytest.TempPathFactory) -> PlayerMedia:
    """A short lecture video, its speech and transcript (made once per run: a child pytest
    on an X server takes its parent's, tests/app/x_server.py)."""
    made = os.environ.get(MEDIA_VARIABLE)
    if made:
        return media_in(Path(made))
    return make_test_media(tmp_path_factory.mktemp("player-media"))


@pytest.fixture
def quick_library(library: Library) -> Library:
    """The empty ``library``, set not to read text off video frames (the test video has none)."""
    config = library.config
    library.configure(replace(config, media=replace(config.media, screen_text=False)))
    return library


@pytest.fixture
def lecture_library(quick_library: Library, tmp_path: Path, media: PlayerMedia) -> Library:
    """One course, Algorithms: the test lecture with its subtitles beside it."""
    course = tmp_path / "Algorithms"
    course.mkdir()
    shutil.copy(media.video, course / "lecture.mp4")
    make_srt(course / "lecture.srt", [(t.start_ms, t.end_ms, t.text) for t in media.transcript])
    quick_library.ingest([course])
    return quick_library


@pytest.fixture
def player(qtbot: QtBot) -> Iterator[PlayerView]:
    """A player alone on Qt Multimedia, shown and active (files that test one backend at a
    time define their own)."""
    view = PlayerView(backend="qt")
    qtbot.addWidget(view)
    view.resize(1000, 480)
    view.show()
    view.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is view)
    yield view
    view.shutdown()
