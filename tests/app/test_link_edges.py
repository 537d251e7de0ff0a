"""Issue 25, item 4, in the window: a link whose number is at the edge (``t=1e308``,
``line=²``, a time past the end of the lecture) says why in the status line and leaves the
window as it was; before, ``t=1e308`` raised OverflowError out of the link handler."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.link_open import open_link
from app.window import SearchWindow
from engine.integrations.links import make_link
from engine.library import Library
from tests.app.media import PlayerMedia
from tools.factories import make_srt


@pytest.fixture
def lecture(quick_library: Library, tmp_path: Path, media: PlayerMedia) -> Path:
    course = tmp_path / "Algorithms"
    course.mkdir()
    video = Path(shutil.copy(media.video, course / "lecture.mp4"))
    make_srt(course / "lecture.srt", [(t.start_ms, t.end_ms, t.text) for t in media.transcript])
    quick_library.ingest([course])
    return video


@pytest.mark.parametrize(
    ("tail", "says"),
    [
        ("&t=1e308", "t must be a time"),
        ("&t=Infinity", "t must be a time"),
        ("&t=\uff11\uff12", "t must be a time"),
        ("&line=\u00b2", "line must be a number"),
        ("&page=99999999999999999999", "page must be a number"),
        ("&t=9000000", "long: nothing at 9000000 seconds"),
    ],
)
def test_a_link_at_the_edge_says_why(
    qtbot: QtBot, quick_library: Library, lecture: Path, tail: str, says: str
) -> None:
    window = SearchWindow(quick_library, player_backend="qt")
    qtbot.addWidget(window)
    assert not open_link(window, make_link(str(lecture)) + tail)
    status = window.search_pane.status.text()
    assert status.startswith("Cannot open the link: ") and says in status, status
    assert not window.preview_pane.has_player
    assert open_link(window, make_link(str(lecture), start_ms=1000))
    window.close()
