"""The library panel's Export handout… (a lecture's row) and Export flashcards… (a course's
row): a save dialog answered as a user does, the file written off the UI thread, the status
line saying where it went; a failure is a message box. Real window, real library (a deck and
subtitles), real engine."""

from __future__ import annotations

import sqlite3
import zipfile
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QLineEdit, QMessageBox
from pytestqt.qtbot import QtBot

from app.window import MainWindow
from engine.library import Library
from tests.app.ui import on_next_modal, stray_enter_on_next_box
from tools.factories import make_pdf, make_srt

DECK = (
    "Bubble sort\nswap neighbours until nothing moves",
    "Merge sort\nsplit in halves and merge the sorted halves",
    "Hash tables\nkeys hash to buckets that hold values",
)
CUES = (
    (0, 9_000, "Bubble sort swaps neighbours until nothing moves in the list."),
    (9_000, 18_000, "Bubble sort is slow: it swaps neighbours again and again."),
    (18_000, 27_000, "Merge sort splits the list in halves and merges the sorted halves."),
    (27_000, 36_000, "Merging the sorted halves keeps merge sort stable."),
    (36_000, 45_000, "Hash tables map keys to buckets; each bucket holds values."),
    (45_000, 54_000, "A hash table resizes when its buckets fill up with keys."),
)


def _course(library: Library, tmp_path: Path) -> tuple[Path, Path]:
    course = tmp_path / "Algorithms"
    course.mkdir()
    deck = make_pdf(course / "slides.pdf", list(DECK), slides=True)
    lecture = make_srt(course / "week 1.srt", CUES)
    library.ingest([course])
    return deck, lecture


def _window(qtbot: QtBot, library: Library) -> MainWindow:
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def _save_as(typed: Path, offered: list[str]) -> None:
    """Answer the next save dialog: note the name offered, type ``typed``, press Save."""

    def act(dialog: QFileDialog) -> None:
        offered.append(dialog.selectedFiles()[0])
        name = dialog.findChild(QLineEdit, "fileNameEdit")
        assert name is not None
        name.setText(str(typed))
        dialog.accept()

    on_next_modal(QFileDialog, act)


def test_a_lecture_row_exports_its_handout(qtbot: QtBot, library: Library, tmp_path: Path) -> None:
    _deck, lecture = _course(library, tmp_path)
    library.add_note(str(lecture), "Stable <means> equal keys keep their order", at_ms=28_000)
    window = _window(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.state_of(str(lecture)) == "indexed")
    item = window.panel.item_of(str(lecture))
    assert item is not None
    actions = {a.text(): a for a in window.panel.menu_for(item).actions()}
    assert actions["Export handout…"].isEnabled()
    out = tmp_path / "out"
    out.mkdir()
    offered: list[str] = []
    _save_as(out / "week one", offered)  # no suffix typed: the filter's, .html
    actions["Export handout…"].trigger()
    saved = out / "week one.html"
    qtbot.waitUntil(lambda: window.import_bar.status.text() == f"Handout saved: {saved}")
    assert Path(offered[0]).name == "week 1.html"  # offered: the lecture's name
    text = saved.read_text(encoding="utf-8")
    assert text.count('<img src="data:image/png;base64,') == 3
    assert "Merge sort splits the list in halves" in text
    assert "Stable &lt;means&gt; equal keys keep their order" in text


def test_a_course_row_exports_its_flashcards(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    _course(library, tmp_path)
    window = _window(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.item_of("Algorithms") is not None)
    course = window.panel.item_of("Algorithms")
    assert course is not None
    actions = {a.text(): a for a in window.panel.menu_for(course).actions()}
    offered: list[str] = []
    saved = tmp_path / "algorithms.apkg"
    _save_as(saved, offered)
    actions["Export flashcards…"].trigger()
    qtbot.waitUntil(
        lambda: window.import_bar.status.text() == f"Flashcards saved: {saved} (3 cards)"
    )
    assert Path(offered[0]).name == "Algorithms.apkg"
    with zipfile.ZipFile(saved) as zf:
        zf.extract("collection.anki2", tmp_path)
    db = sqlite3.connect(tmp_path / "collection.anki2")
    try:
        assert db.execute("SELECT count(*) FROM cards").fetchone() == (3,)
    finally:
        db.close()


def test_a_handout_that_cannot_be_written_says_why(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    _deck, lecture = _course(library, tmp_path)
    window = _window(qtbot, library)
    study = window.library_actions.study
    study.export_handout(str(lecture), tmp_path / "gone" / "week 1.html")
    qtbot.waitUntil(lambda: isinstance(window.library_actions.message, QMessageBox))
    box = window.library_actions.message
    assert box is not None and box.windowTitle() == "Cannot export the handout"
    assert "cannot write" in box.text() and "gone" in box.text()
    assert not (tmp_path / "gone").exists()


def _answer(button: QMessageBox.StandardButton, asked: list[str]) -> None:
    """Answer the next message box with ``button``, noting its question."""

    def act(box: QMessageBox) -> None:
        asked.append(box.text())
        box.button(button).click()

    on_next_modal(QMessageBox, act)


def test_a_handout_is_not_written_in_the_library_nor_over_a_file_unasked(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    """Issue 34, item 3: the window's exports are checked as the CLI's. A name typed without
    its suffix is a file the save dialog never saw: the window asks before replacing it."""
    _deck, lecture = _course(library, tmp_path)
    window = _window(qtbot, library)
    study = window.library_actions.study
    inside = library.folder / "week 1.html"
    study.export_handout(str(lecture), inside)
    qtbot.waitUntil(lambda: isinstance(window.library_actions.message, QMessageBox))
    box = window.library_actions.message
    assert box is not None and "inside the library's folder" in box.text()
    assert not inside.exists()
    box.close()

    qtbot.waitUntil(lambda: window.panel.state_of(str(lecture)) == "indexed")
    item = window.panel.item_of(str(lecture))
    assert item is not None
    export = {a.text(): a for a in window.panel.menu_for(item).actions()}["Export handout…"]
    mine = tmp_path / "week one.html"
    mine.write_text("my own page", encoding="utf-8")
    asked: list[str] = []
    _save_as(tmp_path / "week one", [])  # its suffix added after: the dialog did not ask
    _answer(QMessageBox.StandardButton.No, asked)
    export.trigger()
    assert asked == ["week one.html already exists. Do you want to replace it?"]
    assert mine.read_text(encoding="utf-8") == "my own page"
    _save_as(tmp_path / "week one", [])
    stray_enter_on_next_box(asked)  # issue 36, item 16: No is the default
    export.trigger()
    assert asked[1:] == asked[:1]
    assert window.tasks.wait(30_000)  # a handout, had one been written, is written
    assert mine.read_text(encoding="utf-8") == "my own page"
    del asked[1:]
    _save_as(tmp_path / "week one", [])
    _answer(QMessageBox.StandardButton.Yes, asked)
    export.trigger()
    qtbot.waitUntil(lambda: window.import_bar.status.text() == f"Handout saved: {mine}")
    assert len(asked) == 2 and "Merge sort splits" in mine.read_text(encoding="utf-8")
