"""Damage at rest as the window shows it (issue 15, item 4): a damaged search model is named
with how to reinstall it, at start-up and when a search is typed; a damaged library database
is said in a message box instead of a traceback."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from app.main import run, start
from app.window import MainWindow
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry
from tests.app.ui import on_next_modal, refused_at_start, stray_enter_on_next_box
from tests.engine.library.test_damage_at_rest import _garble_segments_page, embedder_models
from tools.hostile.damage import PAGE_DAMAGE, overwrite_page


def test_the_window_names_a_damaged_model_and_how_to_reinstall_it(
    qtbot: QtBot,
    tmp_path: Path,
    models_dir: Path,
    built_library_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    models = embedder_models(models_dir, tmp_path / "models")
    ModelRegistry(models).path(DEFAULT_EMBEDDER)  # found sound once, and remembered
    onnx = models / DEFAULT_EMBEDDER / "model.onnx"
    before = onnx.stat()
    with onnx.open("r+b") as f:  # damage at rest: same size, same modification time
        f.seek(5_000_000)
        f.write(b"\xff" * 65536)
    os.utime(onnx, ns=(before.st_atime_ns, before.st_mtime_ns))

    monkeypatch.setenv("COURSEDEX_SETTINGS", str(tmp_path / "settings.json"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    window = start(["--library", str(built_library_dir), "--models", str(models), "--no-demo"])
    qtbot.addWidget(window)
    try:
        damaged = (
            f"model {DEFAULT_EMBEDDER} in {models} is damaged (model.onnx: its content changed "
            f"(sha256 differs)): run `coursedex models remove {DEFAULT_EMBEDDER}`, then "
            f"`coursedex models install {DEFAULT_EMBEDDER}`"
        )
        qtbot.waitUntil(
            lambda: "could not load" in window.search_pane.status.text(), timeout=60_000
        )
        assert window.search_pane.status.text() == f"The search model could not load: {damaged}"
        # A search finds by its words, and says why.
        qtbot.keyClicks(window.search_pane.search, "axolotl")
        keyword = f". Keyword matches only: {damaged}"
        qtbot.waitUntil(lambda: window.search_pane.status.text().endswith(keyword), timeout=30_000)
        assert window.search_pane.status.text().startswith("1 result (")
        first = window.result_at(0)
        assert first is not None and Path(first.source).name == "notes.md"
    finally:
        window.close()
        window.library.close()


def test_a_damaged_library_database_is_said_in_a_window_not_a_traceback(
    qtbot: QtBot,
    tmp_path: Path,
    models_dir: Path,
    built_library_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Started from its icon, the app died at start-up with a traceback only a terminal
    shows: a user saw nothing at all."""
    db = built_library_dir / "library.db"
    size = db.stat().st_size
    os.truncate(db, size // 2)
    seen = refused_at_start(built_library_dir, models_dir, tmp_path, monkeypatch)
    assert seen == [
        (
            "Coursedex cannot open your library.",
            f"The library database {db} is damaged (database disk image is malformed): it may "
            "have been cut short by a full disk or a copy that did not finish, or a disk sector "
            "went bad. Restore it from a backup, or start over: the files it held are imported "
            "again, and the damaged files kept. Nothing was changed.\n\nStart Over keeps the "
            "damaged files in a folder inside the library.",
        )
    ]
    assert (built_library_dir / "library.db").stat().st_size == size // 2  # Quit: untouched
    assert not list(built_library_dir.glob("damaged-*"))


def test_start_over_from_the_message_box_imports_the_library_s_files_again(
    qtbot: QtBot,
    tmp_path: Path,
    models_dir: Path,
    built_library_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A student has no backup: one click makes a new library of the same files."""
    db = built_library_dir / "library.db"
    conn = sqlite3.connect(db)
    held = sorted(conn.execute("SELECT path, status FROM sources"))
    conn.close()
    _garble_segments_page(db)  # a bad sector: the list of files is still readable
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    argv = ["--library", str(built_library_dir), "--models", str(models_dir)]
    argv += ["--settings", str(tmp_path / "settings.json")]
    buttons: list[str] = []

    def answer(box: QMessageBox) -> None:
        buttons.extend(b.text() for b in box.buttons())
        next(b for b in box.buttons() if b.text() == "Start Over").click()

    on_next_modal(QMessageBox, answer, first_ms=0)
    window = None
    status: list[str] = []

    def quit_when_imported() -> None:
        nonlocal window
        top = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]
        if not top or top[0].importing or top[0].import_bar.waiting:
            QTimer.singleShot(100, quit_when_imported)
            return
        window = top[0]
        status.append(window.search_pane.status.text())
        window.close()  # as the user does: the app quits with its last window

    QTimer.singleShot(500, quit_when_imported)
    assert run(argv) == 0
    assert sorted(buttons) == ["Quit", "Start Over"]
    kept = next(built_library_dir.glob("damaged-*"))
    assert (kept / "library.db").is_file() and (kept / "vectors").is_dir()
    conn = sqlite3.connect(db)
    again = sorted(conn.execute("SELECT path, status FROM sources"))
    conn.close()
    assert again == held  # the same files, each with the same outcome (the demo not added)
    assert window is not None
    assert status[0].startswith(f"Started over: {len(held)} files to import again.")


def test_a_damaged_page_no_read_meets_is_said_by_the_window_and_nothing_is_imported(
    qtbot: QtBot,
    tmp_path: Path,
    models_dir: Path,
    built_library_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 34, item 5: a page of library.db overwritten where no read goes (the library
    opens and searches) was written over by the window's imports without a word."""
    db = built_library_dir / "library.db"
    overwrite_page(db, PAGE_DAMAGE["slide links"])
    before = db.read_bytes()
    note = tmp_path / "More" / "gecko.md"
    note.parent.mkdir()
    note.write_text("# Gecko\n\nThe gecko climbs glass.\n", encoding="utf-8")
    monkeypatch.setenv("COURSEDEX_SETTINGS", str(tmp_path / "settings.json"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    window = start(["--library", str(built_library_dir), "--models", str(models_dir), "--no-demo"])
    qtbot.addWidget(window)
    try:
        window.import_paths([note.parent])
        qtbot.waitUntil(lambda: not window.importing, timeout=60_000)
        assert window.import_bar.status.text().startswith(
            f"the library database {db} is damaged (database disk image is malformed): "
        )
        assert window.import_bar.status.text().endswith("Nothing was changed")
    finally:
        window.close()
        window.library.close()
    assert db.read_bytes() == before


def test_a_stray_enter_does_not_start_the_library_over(qtbot: QtBot) -> None:
    """Issue 36, item 16: Start Over sets the library aside; Enter alone quits."""
    from app.main import _cannot_open

    asked: list[str] = []
    stray_enter_on_next_box(asked)
    assert not _cannot_open("its database is damaged", offer_start_over=True)
    assert asked == ["Coursedex cannot open your library."]
