"""Issue 25, item 4, in the window: a link whose number is at the edge (``t=1e308``,
``line=²``, a time past the end of the lecture) says why in the status line and leaves the
window as it was; before, ``t=1e308`` raised OverflowError out of the link handler.

Issue 34, item 10: the player's "Go to a time" reads clocks as links do (``1:99`` was 2:39),
and ``coursedex open`` of a link the window would refuse (``t=¹²``) says why in one line and
exits 1, without a window; it opened one and exited 0."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.link_open import open_link
from app.player.go_to import parse_time
from app.window import MainWindow
from engine.integrations.links import make_link
from engine.library import Library
from tests.app.media import PlayerMedia
from tools.factories import make_srt
from tools.hostile.exact import BAD_CLOCKS, GOOD_CLOCKS, REFUSED_LINKS

REPO = Path(__file__).resolve().parents[2]


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
    window = MainWindow(quick_library, player_backend="qt")
    qtbot.addWidget(window)
    assert not open_link(window, make_link(str(lecture)) + tail)
    status = window.search_pane.status.text()
    assert status.startswith("Cannot open the link: ") and says in status, status
    assert not window.preview_pane.has_player
    assert open_link(window, make_link(str(lecture), start_ms=1000))
    window.close()


def test_go_to_a_time_reads_clocks_as_links_do() -> None:
    for clock in BAD_CLOCKS:
        assert parse_time(clock) is None, clock
    for clock, ms in GOOD_CLOCKS:
        assert parse_time(clock) == ms, clock


@pytest.mark.parametrize("link", REFUSED_LINKS)
def test_coursedex_open_of_a_link_the_window_refuses_fails_in_one_line(
    tmp_path: Path, link: str
) -> None:
    argv = ["--library", str(tmp_path / "lib"), "--settings", str(tmp_path / "settings.json")]
    done = subprocess.run(
        [sys.executable, "-m", "app.launcher", *argv, "open", link],
        cwd=REPO,
        capture_output=True,
        text=True,
        # Before: the window opened and waited for its user; the limit ends such a run.
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("coursedex: cannot open the link: "), done.stderr
    assert done.stderr.count("\n") == 1 and done.stdout == "", done.stderr
    assert not (tmp_path / "lib").exists()  # refused before any library is opened
