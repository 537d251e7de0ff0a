"""Course packs in the window (issue 27, item 4): File > Import course pack… (the pack's
dialog, then the media folder's, cancelled), the import on the bar's worker, the outcome or
the refusal on its status line; a hit on the lecture that is not here says so in the
preview, and Locate… links the copy chosen (only one of the same content). Export course
pack… (issue 36, item 10) from the File menu and a course's menu, imported back."""

from __future__ import annotations

import json
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit
from pytestqt.qtbot import QtBot

from app.library.pack_import import MEDIA_TITLE
from app.window import MainWindow
from engine.api import (
    EngineConfig,
    ExportSummary,
    ImportSummary,
    Library,
    ModelRegistry,
    export_pack,
)
from engine.models.embedder import OnnxEmbedder
from tests.app.ui import drop, on_next_modal
from tools.hostile.collisions import ATTACKER, generate
from tools.hostile.packs import _parts, _write

WAIT_MS = 60_000


@pytest.fixture
def pack(lecture_library: Library, tmp_path: Path) -> Path:
    """The Algorithms course (a lecture read through its subtitles) as a teacher shares it."""
    out = tmp_path / "share" / "algorithms.cdxpack"
    export_pack(lecture_library, "Algorithms", out)
    return out


@pytest.fixture
def student(tmp_path: Path, embedder: OnnxEmbedder, models_dir: Path) -> Iterator[Library]:
    lib = Library.open(
        tmp_path / "student", EngineConfig(), lambda: embedder, models=ModelRegistry(models_dir)
    )
    yield lib
    lib.close()


def _type_into(dialog: QFileDialog, path: Path | None) -> None:
    """Type ``path`` into a file dialog and accept it, as a user does; None: Cancel."""
    if path is None:
        dialog.reject()
        return
    name = dialog.findChild(QLineEdit, "fileNameEdit")
    assert name is not None
    name.setText(str(path))
    dialog.accept()
    if dialog.isVisible():  # never leave a modal dialog open: the test would hang
        dialog.reject()


def _file_action(window: MainWindow, text: str) -> QAction:
    menu = window.menuBar().actions()[0].menu()
    assert menu is not None
    return next(a for a in menu.actions() if a.text() == text)  # type: ignore[union-attr]


def _window(qtbot: QtBot, library: Library) -> MainWindow:
    window = MainWindow(library, player_backend="qt")
    qtbot.addWidget(window)
    window.show()
    return window


def test_a_pack_imported_from_the_file_menu_is_searchable_and_its_lecture_located(
    qtbot: QtBot, pack: Path, student: Library, tmp_path: Path
) -> None:
    window = _window(qtbot, student)
    titles: list[str] = []

    def answer_pack(dialog: QFileDialog) -> None:
        titles.append(dialog.windowTitle())
        on_next_modal(QFileDialog, answer_folder)
        _type_into(dialog, pack)

    def answer_folder(dialog: QFileDialog) -> None:
        titles.append(dialog.windowTitle())
        _type_into(dialog, None)  # no folder: the lecture is not on this computer

    on_next_modal(QFileDialog, answer_pack)
    with qtbot.waitSignal(window.pack_import.finished, timeout=WAIT_MS) as done:
        _file_action(window, "Import course &pack…").trigger()
    summary = done.args[0] if done.args else None
    assert isinstance(summary, ImportSummary), summary
    assert titles[0] == "Import course pack" and titles[1].startswith("Folder holding")
    expected = pack.parent / "Algorithms" / "lecture.mp4"
    assert [f.path for f in summary.missing] == [str(expected)]
    status = window.import_bar.status.text()
    assert "Imported “Algorithms” from algorithms.cdxpack" in status
    assert "1 file is not on this computer" in status
    qtbot.waitUntil(lambda: window.panel.item_of(str(expected)) is not None)

    qtbot.keyClicks(window.search_pane.search, "merge sort halves")
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.source == str(expected))
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Return)
    preview = window.preview_pane
    qtbot.waitUntil(lambda: preview.stack.currentWidget() is preview.missing)
    assert "“lecture.mp4” is not on this computer" in preview.missing.message.text()
    assert str(expected.parent) in preview.missing.message.text()
    assert preview.missing.locate_button.isVisible()

    found = tmp_path / "Downloads"  # the student's copy, renamed, with its subtitles
    found.mkdir()
    teacher = pack.parent.parent / "Algorithms"  # lecture_library's course folder
    shutil.copy(teacher / "lecture.mp4", found / "Week 1.mp4")
    shutil.copy(teacher / "lecture.srt", found / "Week 1.srt")
    shutil.copy(teacher / "lecture.srt", found / "not the lecture.mp4")

    on_next_modal(QFileDialog, lambda d: _type_into(d, found / "not the lecture.mp4"))
    qtbot.mouseClick(preview.missing.locate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "its content differs" in preview.missing.status.text())
    assert preview.stack.currentWidget() is preview.missing

    on_next_modal(QFileDialog, lambda d: _type_into(d, found / "Week 1.mp4"))
    qtbot.mouseClick(preview.missing.locate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: preview.has_player and preview.stack.currentWidget() is preview.player)
    assert student.source(str(found / "Week 1.mp4")) is not None
    assert student.source(str(expected)) is None
    qtbot.waitUntil(lambda: window.panel.item_of(str(found / "Week 1.mp4")) is not None)
    window.close()


def test_a_damaged_pack_is_refused_on_the_status_line(
    qtbot: QtBot, pack: Path, student: Library
) -> None:
    half = pack.with_name("half.cdxpack")
    half.write_bytes(pack.read_bytes()[: pack.stat().st_size // 2])
    window = _window(qtbot, student)
    with qtbot.waitSignal(window.pack_import.finished, timeout=WAIT_MS) as done:
        window.pack_import.start(half, None)
    assert done.args == [window.import_bar.status.text()]
    assert window.import_bar.status.text() == (
        "Could not import the course pack half.cdxpack: not a course pack: not a zip file "
        "(corrupt or truncated)"
    )
    assert not window.import_bar.progress.isVisible() and student.courses() == []
    window.close()


def test_cancel_stops_a_pack_import_before_anything_is_written(
    qtbot: QtBot, pack: Path, student: Library
) -> None:
    """The bar's Cancel button during a pack import (one whose text is embedded again, for
    another model: seconds of work): the library stays empty and the status line says so."""
    with zipfile.ZipFile(pack) as zf:
        parts = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(parts["manifest.json"])
    manifest["model_id"] = "another-embedder@000000000000"
    parts["manifest.json"] = json.dumps(manifest).encode()
    other = pack.with_name("other-model.cdxpack")
    with zipfile.ZipFile(other, "w") as zf:
        for name, body in parts.items():
            zf.writestr(name, body)
    window = _window(qtbot, student)
    bar = window.import_bar
    with qtbot.waitSignal(window.pack_import.finished, timeout=WAIT_MS) as done:
        window.pack_import.start(other, None)
        assert bar.cancel_button.isVisible()
        qtbot.mouseClick(bar.cancel_button, Qt.MouseButton.LeftButton)
    assert done.args == [
        "The import of other-model.cdxpack was cancelled: the library is as it was."
    ]
    assert [bar.status.text()] == done.args and not bar.cancel_button.isVisible()
    assert student.courses() == [] and student.stats()["segments"] == 0
    window.close()


def test_a_pack_dropped_on_the_window_is_imported_with_the_folder_chosen(
    qtbot: QtBot, pack: Path, student: Library
) -> None:
    """A pack dropped (with a second one) is imported as the menu does: the folder of its
    files is asked for (the teacher's course folder: the lecture is found there, nothing is
    missing), and the status line says to drop the other pack again."""
    second = pack.with_name("second.cdxpack")
    shutil.copy(pack, second)
    teacher = pack.parent.parent / "Algorithms"
    window = _window(qtbot, student)
    titles: list[str] = []

    def answer_folder(dialog: QFileDialog) -> None:
        titles.append(dialog.windowTitle())
        _type_into(dialog, teacher)

    on_next_modal(QFileDialog, answer_folder)
    with qtbot.waitSignal(window.pack_import.finished, timeout=WAIT_MS) as done:
        drop(window, [pack, second])
    summary = done.args[0] if done.args else None
    assert isinstance(summary, ImportSummary), summary
    assert titles == [MEDIA_TITLE]
    assert summary.missing == [] and [f.path for f in summary.files] == [
        str(teacher / "lecture.mp4")
    ]
    status = window.import_bar.status.text()
    assert status.startswith("Imported “Algorithms” from algorithms.cdxpack"), status
    assert status.endswith("One course pack at a time: drop second.cdxpack again."), status
    assert [c.name for c in student.courses()] == ["Algorithms"]
    assert [s.status for s in student.sources()] == ["indexed"]
    window.close()


def test_a_pack_s_file_where_the_student_s_own_is_is_named_and_left_out(
    qtbot: QtBot, pack: Path, student: Library, tmp_path: Path
) -> None:
    """Issue 34: the student indexed the lecture themselves; a pack of the course under
    another case ("algorithms") with other bytes at lecture.mp4 and its own text leaves the
    student's lecture as they indexed it, and the status line names the file left out."""
    teacher = pack.parent.parent / "Algorithms"
    lecture = str(teacher / "lecture.mp4")
    student.ingest([teacher / "lecture.mp4"], course="Algorithms")
    before = [s.text for s in student.segments_of(lecture)]
    hostile = {c.path.name: c for c in generate(pack, tmp_path / "hostile")}
    window = _window(qtbot, student)
    with qtbot.waitSignal(window.pack_import.finished, timeout=WAIT_MS) as done:
        window.pack_import.start(hostile["other-bytes.cdxpack"].path, teacher)
    summary = done.args[0] if done.args else None
    assert isinstance(summary, ImportSummary), summary
    assert [f.path for f in summary.conflicts] == [lecture]
    assert window.import_bar.status.text().endswith(
        " 1 file of the pack left out: other content is at “lecture.mp4”; yours is kept as it is."
    )
    assert [s.text for s in student.segments_of(lecture)] == before
    assert not any(ATTACKER in text for text in before)


def test_the_status_line_names_a_note_left_out(qtbot: QtBot, pack: Path, student: Library) -> None:
    """A note at a place its file does not have (issue 34, item 8) is left out of the
    import, the rest comes in, and the status line names it."""
    parts = _parts(pack)
    sources = json.loads(parts["course.json"])["sources"]
    video = next(i for i, s in enumerate(sources) if s["kind"] == "video")
    notes = [
        {"source": video, "text": "right here", "at_ms": 1000},
        {"source": video, "text": "nowhere", "page": 3},
    ]
    noted = _write(
        pack.with_name("noted.cdxpack"),
        {**parts, "notes.json": json.dumps(notes).encode()},
        rehash=True,
    )
    window = _window(qtbot, student)
    with qtbot.waitSignal(window.pack_import.finished, timeout=WAIT_MS) as done:
        window.pack_import.start(noted, None)
    assert done.args is not None and isinstance(done.args[0], ImportSummary)
    status = window.import_bar.status.text()
    assert status.endswith(
        " 1 note or slide link left out, at a place its file does not have (notes.json: "
        "note 2: a note on lecture.mp4 is at a time, not at a page)."
    ), status
    assert [n.text for n in student.notes()] == ["right here"]
    window.close()


def test_a_course_exported_from_the_window_is_imported_into_a_new_library_from_the_window(
    qtbot: QtBot, lecture_library: Library, student: Library, tmp_path: Path
) -> None:
    """Issue 36, item 10: File > Export course pack… (two courses, none picked: the course is
    chosen from a list) writes the pack with its progress on the import bar; a course's menu
    in the library panel exports it too. A new library imports the pack from its own File
    menu, and its search finds the lecture."""
    zoology = tmp_path / "Zoology"
    zoology.mkdir()
    (zoology / "giraffes.md").write_text("# Giraffes\n\nThe giraffe eats acacia leaves.\n")
    lecture_library.ingest([zoology])
    teacher = _window(qtbot, lecture_library)
    qtbot.waitUntil(lambda: teacher.panel.item_of_course("Zoology") is not None)
    bar, export = teacher.import_bar, teacher.pack_export
    seen: list[tuple[str, bool]] = []  # the bar's line and its progress bar, at each report
    export.progressed.connect(lambda _p: seen.append((bar.status.text(), bar.progress.isVisible())))
    asked: list[list[str]] = []

    def pick_course(dialog: QInputDialog) -> None:
        asked.append(dialog.comboBoxItems())
        on_next_modal(QFileDialog, save_as)
        dialog.setTextValue("Algorithms")
        dialog.accept()

    def save_as(dialog: QFileDialog) -> None:
        offered.append(dialog.selectedFiles()[0])
        _type_into(dialog, out)

    offered: list[str] = []
    out = tmp_path / "to share" / "algorithms week 1"  # no suffix typed: .cdxpack is added
    out.parent.mkdir()
    on_next_modal(QInputDialog, pick_course)
    with qtbot.waitSignal(export.finished, timeout=WAIT_MS) as done:
        _file_action(teacher, "&Export course pack…").trigger()
    summary = done.args[0] if done.args else None
    assert isinstance(summary, ExportSummary), summary
    saved = out.with_name("algorithms week 1.cdxpack")
    assert asked == [["Algorithms", "Zoology"]] and Path(offered[0]).name == "Algorithms.cdxpack"
    assert summary.path == saved and summary.course == "Algorithms" and saved.is_file()
    assert bar.status.text().startswith(f"Course pack saved: {saved} (1 file, "), bar.status.text()
    assert not bar.progress.isVisible() and not bar.cancel_button.isVisible()
    lines = [line for line, shown in seen if shown]
    assert "Exporting “Algorithms” as a course pack: reading its files (1 of 1)…" in lines
    assert lines[-1] == "Exporting “Algorithms” as a course pack: writing the pack…"

    row = teacher.panel.item_of_course("Algorithms")
    assert row is not None
    again = tmp_path / "again.cdxpack"
    on_next_modal(QFileDialog, lambda d: _type_into(d, again))
    with qtbot.waitSignal(export.finished, timeout=WAIT_MS) as done:
        next(
            a for a in teacher.panel.menu_for(row).actions() if a.text() == "Export course pack…"
        ).trigger()
    assert done.args is not None and isinstance(done.args[0], ExportSummary)
    assert again.is_file()
    teacher.close()

    window = _window(qtbot, student)

    def answer_pack(dialog: QFileDialog) -> None:
        on_next_modal(QFileDialog, lambda media: _type_into(media, None))
        _type_into(dialog, saved)

    on_next_modal(QFileDialog, answer_pack)
    with qtbot.waitSignal(window.pack_import.finished, timeout=WAIT_MS) as done:
        _file_action(window, "Import course &pack…").trigger()
    assert done.args is not None and isinstance(done.args[0], ImportSummary), done.args
    qtbot.keyClicks(window.search_pane.search, "merge sort halves")
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.course == "Algorithms")
    assert [c.name for c in student.courses()] == ["Algorithms"]
    window.close()
