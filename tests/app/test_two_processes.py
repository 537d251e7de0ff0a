"""The window open while `coursedex ingest` runs in a terminal (issue 15, item 3): a real
child process imports into the window's library; the window keeps searching meanwhile and,
once the import ends, finds the new files by meaning, without being reopened."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.window import MainWindow
from engine.library import Library
from engine.models.registry import ModelRegistry
from tests.english import ENGLISH_INGEST
from tools.factories import make_narrated_slides, make_note

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def botany(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course the terminal imports: a note, and a narrated video whose speech is
    recognised (so the import runs while the window searches)."""
    folder = tmp_path_factory.mktemp("botany") / "Botany"
    make_note(folder, "photosynthesis", "Photosynthesis turns sunlight into chemical energy.")
    make_narrated_slides(
        folder / "roots.mp4",
        [
            (["Roots", "Water"], "Roots take up water and minerals from the soil."),
            (["Stems", "Transport"], "The stem carries water up to every branch."),
        ],
        tmp_path_factory.mktemp("pictures"),
    )
    return folder


def _show(qtbot: QtBot, window: MainWindow, query: str, source: Path) -> None:
    window.search_pane.search.clear()
    qtbot.keyClicks(window.search_pane.search, query)
    qtbot.waitUntil(
        lambda: (r := window.result_at(0)) is not None and r.source == str(source),
        timeout=30_000,
    )


def test_the_window_finds_what_a_terminal_import_added(
    qtbot: QtBot, quick_library: Library, models_dir: Path, tmp_path: Path, botany: Path
) -> None:
    walrus = make_note(tmp_path / "Oceans", "walrus", "The walrus hauls out on the sea ice.")
    quick_library.ingest([walrus.parent])
    ModelRegistry(models_dir).path("faster-whisper-tiny.en")
    window = MainWindow(quick_library)
    qtbot.addWidget(window)
    window.show()
    terminal = subprocess.Popen(
        [
            sys.executable, "-m", "engine.cli", "--library", str(quick_library.folder),
            "--models", str(models_dir), "--threads", "1", "ingest", *ENGLISH_INGEST, str(botany),
        ],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        _show(qtbot, window, "walrus", walrus)  # searching works while the terminal imports
        qtbot.waitUntil(lambda: terminal.poll() is not None, timeout=300_000)
    finally:
        out, err = terminal.communicate(timeout=300)
    assert terminal.returncode == 0, err
    assert "2 indexed" in out
    # No word in common with the note: only its vector can find it.
    _show(qtbot, window, "how does greenery make food from light", botany / "photosynthesis.md")
    _show(qtbot, window, "minerals from the soil", botany / "roots.mp4")
    window.close()
