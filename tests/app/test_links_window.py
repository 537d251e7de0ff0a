"""A coursedex:// link opens the window at its moment, a running window takes the next one
over its single instance, and a link to a file that moved still lands on it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.main import start
from app.settings_model import Settings, save_settings
from app.single_instance import SingleInstance
from app.window import MainWindow
from engine.config import EngineConfig, MediaConfig
from engine.integrations.links import make_link, parse_link, result_link
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from engine.search import SearchResult
from engine.search.results import moment_ms
from tests.app.media import SENTENCES, SLOT_MS, PlayerMedia
from tests.english import english
from tests.places import at_moment
from tools.factories import make_srt

REPO = Path(__file__).resolve().parents[2]
HEAPS = SENTENCES.index("Heaps keep the largest item on top.")


@pytest.fixture
def moved_course(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder, media: PlayerMedia
) -> tuple[Path, Path, str]:
    """A lecture with its subtitles, imported, a link copied from a hit on it, then the
    course folder moved and imported at its new place. (library, new video path, link)"""
    old = tmp_path / "Data structures"
    old.mkdir()
    shutil.copy(media.video, old / "lecture.mp4")
    make_srt(old / "lecture.srt", [(t.start_ms, t.end_ms, t.text) for t in media.transcript])
    folder = tmp_path / "lib"
    config = english(EngineConfig(media=MediaConfig(screen_text=False)))
    registry = ModelRegistry(models_dir)
    with Library.open(folder, config, lambda: embedder, models=registry) as lib:
        lib.ingest([old])
        hit = lib.search("heaps keep the largest item on top", limit=1).results[0]
        assert hit.source == str(old / "lecture.mp4")
        assert abs(at_moment(hit).start_ms - HEAPS * SLOT_MS) < SLOT_MS
        link = result_link(lib, hit)
        new = tmp_path / "Archive" / "Data structures"
        shutil.move(old, new)
        lib.ingest([new])
        assert lib.source(str(old / "lecture.mp4")) is None
    return folder, new / "lecture.mp4", link


def _opened(qtbot: QtBot, window: MainWindow, timeout: int = 20_000) -> SearchResult:
    with qtbot.waitSignal(window.opened, timeout=timeout) as blocker:
        pass
    result = blocker.args[0] if blocker.args else None
    assert isinstance(result, SearchResult)
    return result


def test_links_open_the_window_at_their_moment(
    qtbot: QtBot,
    tmp_path: Path,
    models_dir: Path,
    moved_course: tuple[Path, Path, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    library, video, link = moved_course
    settings = tmp_path / "settings.json"
    save_settings(settings, Settings(player="qt", screen_text=False))
    monkeypatch.setenv("COURSEDEX_SETTINGS", str(settings))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    argv = ["--library", str(library), "--models", str(models_dir), "--no-demo"]

    # The link names the old place; the window opens the moved file at the link's time.
    window = start([*argv, "--open", link])
    qtbot.addWidget(window)
    shown = _opened(qtbot, window)
    assert shown.source == str(video)
    assert moment_ms(shown.place) == parse_link(link).start_ms
    qtbot.waitUntil(
        lambda: window.preview_pane.player.position_ms() >= HEAPS * SLOT_MS - 500, timeout=20_000
    )
    assert "Opened" in window.search_pane.status.text()

    # Only this user may talk to the window.
    instance = window.findChild(SingleInstance)
    assert isinstance(instance, SingleInstance)
    if sys.platform != "win32":
        assert os.stat(instance.address).st_mode & 0o077 == 0

    # A second `coursedex open` gives its link to this window and exits without one of its own.
    later = make_link(str(video), start_ms=2 * SLOT_MS)
    env = {**os.environ, "COURSEDEX_SETTINGS": str(settings), "PYTHONPATH": str(REPO)}
    second = subprocess.Popen(
        [sys.executable, "-m", "app.launcher", "open", later, "--library", str(library)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        shown = _opened(qtbot, window, timeout=60_000)
        qtbot.waitUntil(lambda: second.poll() is not None, timeout=30_000)
    finally:
        if second.poll() is None:
            second.kill()
    _out, err = second.communicate()
    assert second.returncode == 0, err
    assert (shown.source, moment_ms(shown.place)) == (str(video), 2 * SLOT_MS)

    # A link the library cannot answer says why, and the window stays as it was.
    gone = make_link(str(tmp_path / "elsewhere.mp4"), start_ms=1000, sha256="ab" * 32)
    from app.link_open import open_link

    assert not open_link(window, gone)
    assert "Cannot open the link" in window.search_pane.status.text()
    assert "no file in it has the same content" in window.search_pane.status.text()
    assert not open_link(window, "https://example.org/lecture")
    assert "not a Coursedex link" in window.search_pane.status.text()
    window.close()
    window.library.close()


def test_the_launcher_reads_links_and_file_urls() -> None:
    from app.launcher import _link_to_open, _local_path, _window_options

    link = "coursedex://open?source=/a.mp4&t=3"
    assert _link_to_open([link]) == 0
    assert _link_to_open(["open", link, "--library", "/l"]) == 1
    assert _link_to_open(["--library", "/l", "open", link]) == 3
    assert _link_to_open(["search", link]) is None
    assert _window_options(["--library", "/l", "open", link, "--threads", "2"]) == [
        "--library",
        "/l",
    ]
    if sys.platform != "win32":
        assert _local_path("file:///home/me/lecture%201.mp4") == "/home/me/lecture 1.mp4"
    assert _local_path("/plain/path.mp4") == "/plain/path.mp4"
