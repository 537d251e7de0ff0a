"""The window's file dialogs (issue 24, item 9): Add files opens in the student's Videos
folder with filters for lectures, slides, code and notes taken from what the engine imports
(not the folder the app started in, with only "All files"); the folder used last is where
the next dialog opens, after a restart too; Add folder starts in Documents."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QLineEdit
from pytestqt.qtbot import QtBot

from app.window import MainWindow
from engine.api import Library
from engine.ingest.kinds import (
    AUDIO_EXTENSIONS,
    CODE_EXTENSIONS,
    DOCUMENT_EXTENSIONS,
    NOTE_EXTENSIONS,
    PHOTO_EXTENSIONS,
    SLIDE_EXTENSIONS,
    VIDEO_EXTENSIONS,
)
from tests.app.ui import on_next_modal


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A student's home with Videos and Documents (the XDG defaults)."""
    home = tmp_path / "home"
    for folder in ("Videos", "Documents"):
        (home / folder).mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    return home


def file_action(window: MainWindow, text: str) -> QAction:
    menu = window.menuBar().actions()[0].menu()
    assert menu is not None
    return next(a for a in menu.actions() if a.text() == text)  # type: ignore[union-attr]


def dialog_from(
    qtbot: QtBot, window: MainWindow, text: str, choose: Path | None = None
) -> tuple[str, list[str]]:
    """Open File > ``text``; keep its folder and filters; choose ``choose`` or cancel."""
    seen: list[tuple[str, list[str]]] = []

    def answer(dialog: QFileDialog) -> None:
        seen.append((dialog.directory().absolutePath(), dialog.nameFilters()))
        if choose is None:
            dialog.reject()
            return
        name = dialog.findChild(QLineEdit, "fileNameEdit")  # typed, as a user does
        assert name is not None
        name.setText(str(choose))
        dialog.accept()
        if dialog.isVisible():  # never leave a modal dialog open: the test would hang
            dialog.reject()

    on_next_modal(QFileDialog, answer)
    file_action(window, text).trigger()
    qtbot.waitUntil(lambda: bool(seen))
    return seen[0]


def extensions(name_filter: str) -> set[str]:
    return set(re.findall(r"\*(\.[\w+]+)", name_filter))


def test_add_files_starts_in_videos_with_filters_and_remembers_the_folder(
    qtbot: QtBot, library: Library, home: Path, tmp_path: Path
) -> None:
    state = tmp_path / "config" / "window.ini"
    window = MainWindow(library, window_state=state)
    qtbot.addWidget(window)
    window.show()
    folder, filters = dialog_from(qtbot, window, "Add &files…")
    assert folder == str(home / "Videos")
    names = [f.split(" (")[0] for f in filters]
    assert names == [
        "All supported",
        "Lectures",
        "Slides",
        "Documents",
        "Photos and scans",
        "Code",
        "Notes",
        "All files",
    ]
    supported, lectures, slides, documents, photos, code, notes, _all = map(extensions, filters)
    assert lectures >= VIDEO_EXTENSIONS | AUDIO_EXTENSIONS
    assert slides == SLIDE_EXTENSIONS
    assert code == CODE_EXTENSIONS and {".zip", ".py", ".ipynb"} <= code
    assert notes >= NOTE_EXTENSIONS and {".md", ".txt", ".ipynb"} <= notes
    assert documents == DOCUMENT_EXTENSIONS | {".html", ".htm"}
    assert photos == PHOTO_EXTENSIONS and {".jpg", ".png"} <= photos
    assert supported == lectures | slides | documents | photos | code | notes
    assert filters[-1] == "All files (*)"

    course = tmp_path / "Downloads" / "Algorithms"
    course.mkdir(parents=True)
    note = course / "sorting.md"
    note.write_text("# Sorting\n\nMerge sort is stable.\n", encoding="utf-8")
    with qtbot.waitSignal(window.imported, timeout=60_000):
        dialog_from(qtbot, window, "Add &files…", choose=note)
    # The panel reads a new file's row on the pool: it may land just after the import ends
    # (a one-line note imports in milliseconds, and the Notes tab reads on the pool too).
    qtbot.waitUntil(lambda: window.panel.item_of(str(note)) is not None)
    assert dialog_from(qtbot, window, "Add &files…")[0] == str(course)
    window.close()

    again = MainWindow(library, window_state=state)
    qtbot.addWidget(again)
    again.show()
    assert dialog_from(qtbot, again, "Add f&older…")[0] == str(course)  # after a restart
    again.close()


def test_add_folder_starts_in_documents(qtbot: QtBot, library: Library, home: Path) -> None:
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.show()
    assert dialog_from(qtbot, window, "Add f&older…")[0] == str(home / "Documents")
