"""App tests drive real Qt widgets on the offscreen platform (no display needed), with the
fixtures several app test files share."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from dataclasses import replace

import pytest

from engine.library import Library
from tests.app.media import PlayerMedia, make_test_media
from tests.app.x_server import x_server  # noqa: F401  (Xvfb + openbox, for any app test)


@pytest.fixture(autouse=True)
def _runtime_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """libVLC and the single-instance socket want XDG_RUNTIME_DIR."""
    os.environ.setdefault("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("xdg")))


@pytest.fixture(scope="session")
def media(tmp_path_factory: pytest.TempPathFactory) -> PlayerMedia:
    """A short lecture video, its speech and transcript (made once per run)."""
    return make_test_media(tmp_path_factory.mktemp("player-media"))


@pytest.fixture
def quick_library(library: Library) -> Library:
    """The empty ``library``, set not to read text off video frames (the test video has none)."""
    config = library.config
    library.configure(replace(config, media=replace(config.media, screen_text=False)))
    return library
