"""One window per library (issue 24, item 2): files and folders given to ``coursedex`` (a file
manager's "Open with", a drop on the launcher) while a window of the library is open go to
that window, which imports them as if they were dropped on it; the second process exits
without a window of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.main import start
from app.settings_model import Settings, save_settings
from app.window import MainWindow
from engine.library import Library
from tools.factories import make_note

REPO = Path(__file__).resolve().parents[2]


def shows(window: MainWindow, course: str, path: Path) -> bool:
    """The panel has the file's row under its course, and the course filter offers it."""
    row = window.panel.item_of(str(path))
    return (
        row is not None
        and row.parent() is window.panel.item_of_course(course)
        and window.search_pane.course_box.findData(course) >= 0
    )


@pytest.fixture
def user_window(
    qtbot: QtBot,
    tmp_path: Path,
    models_dir: Path,
    quick_library: Library,
    monkeypatch: pytest.MonkeyPatch,
) -> MainWindow:
    """The user's window on a library of one course, started as ``coursedex`` starts it
    (the settings name the library)."""
    make_note(tmp_path / "Oceans", "walrus", "The walrus hauls out on ice.")
    quick_library.ingest([tmp_path / "Oceans"])
    folder = quick_library.folder
    quick_library.close()
    settings = tmp_path / "settings.json"
    save_settings(
        settings,
        Settings(
            library_dir=str(folder), models_dir=str(models_dir), player="qt", screen_text=False
        ),
    )
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("COURSEDEX_SETTINGS", str(settings))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    window = start(["--no-demo"])
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.panel.item_of_course("Oceans") is not None, timeout=30_000)
    return window


def test_open_with_while_the_window_runs_imports_there(
    qtbot: QtBot, tmp_path: Path, user_window: MainWindow
) -> None:
    window = user_window
    botany = tmp_path / "Botany"
    photosynthesis = make_note(botany, "photosynthesis", "Leaves turn sunlight into sugar.")
    lone = make_note(tmp_path / "loose", "osmosis", "Water moves through a membrane.")
    env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
    second = subprocess.Popen(
        # As a file manager gives them: a folder, and a file as a file:// URL.
        [sys.executable, "-m", "app.launcher", "Botany", lone.as_uri()],
        cwd=tmp_path,  # a relative path is the second process's, not the window's
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        qtbot.waitUntil(lambda: second.poll() is not None, timeout=60_000)
    finally:
        if second.poll() is None:  # it opened a window of its own
            second.kill()
        _out, err = second.communicate()
    assert second.returncode == 0, err
    assert "took the request" in err
    qtbot.waitUntil(lambda: shows(window, "Botany", photosynthesis), timeout=60_000)
    qtbot.waitUntil(lambda: not window.importing, timeout=60_000)
    assert window.library.source(str(lone)) is not None
    assert window.panel.item_of(str(lone)) is not None
    window.close()


def _cli(library: Path, models: Path, *args: str) -> subprocess.Popen[str]:
    """A `coursedex` command in a terminal, beside the open window."""
    return subprocess.Popen(
        [
            sys.executable, "-m", "engine.cli", "--library", str(library), "--models",
            str(models), *args,
        ],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _finish(qtbot: QtBot, command: subprocess.Popen[str]) -> str:
    try:
        qtbot.waitUntil(lambda: command.poll() is not None, timeout=120_000)
    finally:
        out, err = command.communicate(timeout=120)
    assert command.returncode == 0, err
    return out


def test_the_window_shows_what_a_terminal_adds_and_removes(
    qtbot: QtBot, tmp_path: Path, models_dir: Path, user_window: MainWindow
) -> None:
    window = user_window
    folder = window.library.folder
    walrus = window.panel.item_of(str(tmp_path / "Oceans" / "walrus.md"))
    assert walrus is not None
    botany = tmp_path / "Botany"
    leaves = make_note(botany, "photosynthesis", "Leaves turn sunlight into sugar.")
    roots = make_note(botany, "roots", "Roots take up water.")
    assert "2 indexed" in _finish(qtbot, _cli(folder, models_dir, "ingest", str(botany)))
    qtbot.waitUntil(lambda: shows(window, "Botany", leaves), timeout=30_000)
    assert shows(window, "Botany", roots)
    assert window.panel.item_of(str(tmp_path / "Oceans" / "walrus.md")) is walrus  # untouched

    # A file of a course it shows, then the course, removed in the terminal.
    _finish(qtbot, _cli(folder, models_dir, "remove", str(roots)))
    qtbot.waitUntil(lambda: window.panel.item_of(str(roots)) is None, timeout=30_000)
    assert shows(window, "Botany", leaves)
    _finish(qtbot, _cli(folder, models_dir, "remove", "Botany"))
    qtbot.waitUntil(lambda: window.panel.item_of_course("Botany") is None, timeout=30_000)
    qtbot.waitUntil(lambda: window.search_pane.course_box.findData("Botany") < 0, timeout=30_000)
    assert window.panel.item_of(str(tmp_path / "Oceans" / "walrus.md")) is walrus
    window.close()
