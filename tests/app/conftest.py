"""App tests drive real Qt widgets on the offscreen platform (no display needed), with the
fixtures several app test files share."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from tests.app.media import PlayerMedia, make_test_media


@pytest.fixture(autouse=True)
def _runtime_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """libVLC and the single-instance socket want XDG_RUNTIME_DIR."""
    os.environ.setdefault("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("xdg")))


@pytest.fixture(scope="session")
def media(tmp_path_factory: pytest.TempPathFactory) -> PlayerMedia:
    """A short lecture video, its speech and transcript (made once per run)."""
    return make_test_media(tmp_path_factory.mktemp("player-media"))


@pytest.fixture
def quick_library(tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder) -> Iterator[Library]:
    """A library that does not read text off video frames (the test video has none)."""
    base = EngineConfig()
    config = replace(base, media=replace(base.media, screen_text=False))
    lib = Library.open(tmp_path / "lib", config, lambda: embedder, models=ModelRegistry(models_dir))
    yield lib
    lib.close()
