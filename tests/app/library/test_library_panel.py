"""The library panel as a student uses it, on a real library: names stay readable beside
errors, unfinished and missing files say so, removing waits for an import and refreshes the
results, lectures play from the panel where they were left, files open on the desktop, and a
transcript is exported."""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QFileDialog,
    QLineEdit,
    QMessageBox,
    QTreeWidgetItem,
)
from pytestqt.qtbot import QtBot

from app.library.import_bar import report_text
from app.library.rows import MISSING, NOT_INDEXED, REMOVING
from app.window import MainWindow
from engine.importing.progress import FileResult, IngestProgress, IngestReport, Outcome
from engine.library import Library
from tests.app.ui import make_test_video, on_next_modal, stray_enter_on_next_box
from tests.conftest import HIPPO_MS, LECTURE_CUES
from tools.factories import make_srt

VLC_DUMMY = ("--vout=dummy", "--aout=dummy")


def shown_window(qtbot: QtBot, library: Library, **kwargs: object) -> MainWindow:
    window = MainWindow(library, **kwargs)  # type: ignore[arg-type]
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def answer_next_box(
    button: QMessageBox.StandardButton,
    seen: list[str],
    before: Callable[[], None] = lambda: None,
) -> None:
    """Click ``button`` in the next modal message box, keeping its text; ``before`` runs
    while the box is open, just before the click."""

    def click(box: QMessageBox) -> None:
        seen.append(box.text())
        before()
        clicked = box.button(button)
        assert clicked is not None
        clicked.click()

    on_next_modal(QMessageBox, click)


def notes(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"# {name}\n\n{text}\n", encoding="utf-8")
    return path


# --- item 1 and 15: readable names, short states, plurals ---------------------------------


def test_a_long_error_never_squeezes_the_names(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "Marine biology and oceanography"
    notes(course, "week-01-introduction-to-the-ocean.md", "The octopus has three hearts.")
    (course / "deck.pptx").write_bytes(b"PK\x03\x04 a truncated deck")
    (course / "deep.ipynb").write_text("[" * 100_000, encoding="utf-8")
    report = library.ingest([course])
    assert report.count(Outcome.ERROR) == 2, report.files
    window = shown_window(qtbot, library)
    panel = window.panel
    qtbot.waitUntil(lambda: panel.state_of(str(course / "deck.pptx")) is not None)
    for panel_width in (170, 360):  # one column (states as colours), then two
        sizes = window.splitter.sizes()
        window.splitter.setSizes([panel_width, sizes[1], sum(sizes) - panel_width - sizes[1]])
        qtbot.wait(50)  # the layout
        width = panel.viewport().width()
        assert panel.isColumnHidden(1) == (width < 200), width
        shown = 0 if panel.isColumnHidden(1) else panel.columnWidth(1)
        assert panel.columnWidth(0) >= width // 2, (panel.columnWidth(0), shown)
        assert panel.columnWidth(0) + shown <= width
    assert not panel.isColumnHidden(1)
    deck = panel.item_of(str(course / "deck.pptx"))
    assert deck is not None and deck.text(1) == "error"
    assert "deck.pptx could not be indexed: not a PowerPoint file" in deck.toolTip(1)
    top = panel.item_of(course.name)
    assert top is not None and top.text(1) == "3 files, 2 errors"


def test_plurals_in_the_panel_and_the_import_report(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    library.ingest([notes(tmp_path / "Solo", "only.md", "One file alone.")], course="Solo")
    window = shown_window(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.item_of("Solo") is not None)
    solo = window.panel.item_of("Solo")
    assert solo is not None and solo.text(1) == "1 file"
    report = IngestReport(
        [FileResult("/c/a.md", Outcome.INDEXED), FileResult("/c/b.pdf", Outcome.ERROR, "empty")]
        + [FileResult(f"/c/{i}.pdf", Outcome.ERROR, "not a PDF file") for i in range(2)]
        + [FileResult("/c/d.md", Outcome.DUPLICATE)]
    )
    first = report_text(report).split(". ")[0]
    assert first == "Import finished: 1 indexed, 1 duplicate, 3 errors"


def test_the_import_bar_keeps_its_height(qtbot: QtBot, library: Library, tmp_path: Path) -> None:
    course = tmp_path / "Broken"
    notes(course, "fine.md", "A fine note about lichens.")
    for i in range(4):
        (course / f"broken-{i}.pdf").write_bytes(b"%PDF-1.4 nothing else")
    window = shown_window(qtbot, library)
    bar = window.import_bar
    idle = bar.height()
    heights: list[int] = []
    bar.progress_reported.connect(lambda _p: heights.append(bar.height()))
    with qtbot.waitSignal(window.imported, timeout=60_000):
        window.import_paths([course])
    qtbot.wait(50)
    assert set(heights) | {bar.height()} == {idle}
    assert "4 errors" in window.import_bar.status.text()
    assert "4 files could not be imported" in window.import_bar.status.text()


# --- item 11: cancelled and missing files -----------------------------------------------


def test_cancelled_files_read_not_indexed_and_resuming_is_offered(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "Geology"
    files = [notes(course, f"rock-{i}.md", f"Basalt sample number {i}.") for i in range(4)]
    cancel = threading.Event()

    def stop_after_the_first(p: IngestProgress) -> None:
        if p.result is not None:
            cancel.set()

    report = library.ingest([course], progress=stop_after_the_first, cancel=cancel)
    assert report.count(Outcome.INDEXED) == 1 and report.count(Outcome.CANCELLED) == 3
    window = shown_window(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.state_of(str(files[3])) is not None)
    states = sorted(window.panel.state_of(str(f)) or "" for f in files)
    assert states == ["indexed", NOT_INDEXED, NOT_INDEXED, NOT_INDEXED]
    # A start offers to resume; it does not resume unasked.
    assert window.resume_pending()
    assert not window.importing and window.import_bar.offering
    assert "did not finish importing last time" in window.import_bar.status.text()
    window.import_bar.later_button.click()
    assert not window.importing and not window.import_bar.offering
    assert "3 files stay not indexed" in window.import_bar.status.text()
    assert window.resume_pending()
    with qtbot.waitSignal(window.imported, timeout=60_000):
        window.import_bar.resume_button.click()
    qtbot.waitUntil(lambda: all(window.panel.state_of(str(f)) == "indexed" for f in files))


def test_cancelling_in_the_window_leaves_no_file_indexing(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "Botany"
    files = [notes(course, f"leaf-{i}.md", f"Leaf shape number {i}.") for i in range(5)]
    window = shown_window(qtbot, library)
    window.import_bar.progress_reported.connect(lambda _p: window.import_bar.cancel_button.click())
    with qtbot.waitSignal(window.imported, timeout=60_000) as blocker:
        window.import_paths([course])
    report = blocker.args[0] if blocker.args else None
    assert isinstance(report, IngestReport) and report.count(Outcome.CANCELLED) >= 1

    def settled() -> bool:
        states = [window.panel.state_of(str(f)) for f in files]
        return None not in states and NOT_INDEXED in states

    qtbot.waitUntil(settled)
    states = {window.panel.state_of(str(f)) for f in files}
    assert states <= {"indexed", NOT_INDEXED}, states


def test_a_moved_file_reads_missing_and_opening_it_names_it(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    note = notes(tmp_path / "Astronomy", "comets.md", "A comet's tail points away from the sun.")
    library.ingest([note])
    note.rename(tmp_path / "comets.md")
    window = shown_window(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.state_of(str(note)) == MISSING)
    item = window.panel.item_of(str(note))
    assert item is not None and "comets.md is no longer at" in item.toolTip(1)
    qtbot.keyClicks(window.search_pane.search, "comet tail")
    qtbot.waitUntil(lambda: window.result_at(0) is not None, timeout=10_000)
    window.open_current()
    # The preview says so where the hit would show, and offers Locate… (as for a pack's file).
    missing = window.preview_pane.missing
    qtbot.waitUntil(lambda: window.preview_pane.stack.currentWidget() is missing)
    assert "“comets.md” is not on this computer" in missing.message.text()
    assert str(note.parent) in missing.message.text() and missing.locate_button.isEnabled()
    # Open original file says the same, naming the file.
    assert not window.library_actions.open_file(str(note))
    box = window.library_actions.message
    assert box is not None and "comets.md is no longer at" in box.text()
    box.close()
    # Moved while the window is open: opening it tells, and the panel says so from then on.
    other = notes(tmp_path / "Astronomy", "moons.md", "Europa has an ocean under its ice.")
    library.ingest([other.parent])
    window.refresh_library()
    qtbot.waitUntil(lambda: window.panel.state_of(str(other)) == "indexed")
    other.unlink()
    assert not window.library_actions.open_file(str(other))
    qtbot.waitUntil(lambda: window.panel.state_of(str(other)) == MISSING)


# --- item 10: removing ------------------------------------------------------------------


@contextmanager
def an_import_waiting_for_the_lock(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> Iterator[tuple[MainWindow, IO[bytes]]]:
    """A window on a library holding "Old course", whose import of "New course" waits:
    another process (this test, through the file it yields) holds the library's write lock."""
    notes(tmp_path / "Old course", "old.md", "Trilobites lived in ancient seas.")
    library.ingest([tmp_path / "Old course"])
    window = shown_window(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.item_of("Old course") is not None)
    with (library.folder / "library.lock").open("a+b") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        notes(tmp_path / "New course", "new.md", "Ammonite shells.")
        window.import_paths([tmp_path / "New course"])
        qtbot.waitUntil(lambda: window.importing)
        yield window, held


def test_a_removal_confirmed_after_the_import_ended_still_happens(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    """The question is asked while an import runs and answered after it ended: the removal
    was queued for an import's end that had already passed, and never happened."""
    asked: list[str] = []
    with an_import_waiting_for_the_lock(qtbot, library, tmp_path) as (window, held):

        def end_import() -> None:
            with qtbot.waitSignal(window.imported, timeout=60_000):
                fcntl.flock(held.fileno(), fcntl.LOCK_UN)

        answer_next_box(QMessageBox.StandardButton.Yes, asked, before=end_import)
        window.panel.remove_requested.emit("Old course", True)  # as its menu does
    assert asked and "An import is running: its work on it stops" in asked[0]
    removed = "Removed the course “Old course” (1 file)."
    qtbot.waitUntil(lambda: window.import_bar.status.text() == removed)
    assert [c.name for c in library.courses()] == ["New course"]


def test_a_removal_waiting_for_an_import_happens_when_the_window_closes(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    """Asked to remove a course during an import, the student quits before it ends: the
    import is stopped to resume next time, and the removal they confirmed is carried out."""
    asked: list[str] = []
    with an_import_waiting_for_the_lock(qtbot, library, tmp_path) as (window, held):
        answer_next_box(QMessageBox.StandardButton.Yes, asked)
        window.panel.remove_requested.emit("Old course", True)  # as its menu does
        qtbot.waitUntil(lambda: len(asked) == 1)
        item = window.panel.item_of("Old course")
        assert item is not None and item.text(1) == REMOVING

        def other_process_done() -> None:
            fcntl.flock(held.fileno(), fcntl.LOCK_UN)

        answer_next_box(QMessageBox.StandardButton.Yes, asked, before=other_process_done)
        window.close()  # "Quit anyway?" is answered yes
    assert len(asked) == 2 and "An import is still running" in asked[1]
    qtbot.wait(300)  # anything the closed window still had queued
    assert "Old course" not in [c.name for c in library.courses()]


def test_removing_during_an_import_waits_for_it_and_says_so(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    old = tmp_path / "Old course"
    notes(old, "old.md", "Trilobites lived in ancient seas.")
    library.ingest([old])
    new = tmp_path / "New course"
    for i in range(3):
        notes(new, f"new-{i}.md", f"Ammonite shell number {i}.")
    window = shown_window(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.item_of("Old course") is not None)
    asked: list[str] = []
    marked: list[str] = []

    def remove_once(_p: IngestProgress) -> None:
        if not marked:
            marked.append("asking")
            answer_next_box(QMessageBox.StandardButton.Yes, asked)
            window.panel.remove_requested.emit("Old course", True)  # as its menu does
            item = window.panel.item_of("Old course")
            marked.append(item.text(1) if item is not None else "")

    window.import_bar.progress_reported.connect(remove_once)
    # Another process holds the library's write lock: the window's import waits for it (and
    # says so, which asks for the removal), so the question is answered while it runs.
    with (library.folder / "library.lock").open("a+b") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        window.import_paths([new])
        qtbot.waitUntil(lambda: len(marked) == 2)
        assert asked and "An import is running: its work on it stops" in asked[0]
        assert marked == ["asking", REMOVING]
        assert [c.name for c in library.courses()] == ["Old course"]  # not yet
        with qtbot.waitSignal(window.imported, timeout=60_000):
            fcntl.flock(held.fileno(), fcntl.LOCK_UN)
    qtbot.waitUntil(lambda: [c.name for c in library.courses()] == ["New course"])
    qtbot.waitUntil(lambda: window.panel.item_of("Old course") is None)
    # Said once the import ends, or during it (kept after its report) when the other
    # process let go of the library first.
    assert "Removed the course “Old course” (1 file)." in window.import_bar.status.text()


def test_removing_the_filtered_course_refreshes_the_results(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    notes(tmp_path / "Volcanoes", "lava.md", "Basalt lava flows are fluid.")
    notes(tmp_path / "Minerals", "rocks.md", "Basalt is a dark volcanic rock.")
    library.ingest([tmp_path / "Volcanoes", tmp_path / "Minerals"])
    window = shown_window(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.item_of("Volcanoes") is not None)
    window.panel.select_course("Volcanoes")  # a click on it filters the search
    qtbot.keyClicks(window.search_pane.search, "basalt")

    def shown_courses() -> set[str]:
        rows = (window.result_at(i) for i in range(window.search_pane.results.count()))
        return {r.course for r in rows if r is not None}

    qtbot.waitUntil(lambda: shown_courses() == {"Volcanoes"}, timeout=10_000)
    lava = window.panel.item_of(str(tmp_path / "Volcanoes" / "lava.md"))
    assert lava is not None
    window.panel.setCurrentItem(lava)
    asked: list[str] = []
    answer_next_box(QMessageBox.StandardButton.No, asked)
    qtbot.keyClick(window.panel, Qt.Key.Key_Delete)  # the Delete key asks first
    assert asked == ["Remove “lava.md” from the library? The files on disk are not touched."]
    assert window.panel.item_of(str(tmp_path / "Volcanoes" / "lava.md")) is not None
    # A stray Enter (issue 36, item 16) removes nothing: No is the default, for a file and
    # for a course.
    asked.clear()
    stray_enter_on_next_box(asked)
    qtbot.keyClick(window.panel, Qt.Key.Key_Delete)
    stray_enter_on_next_box(asked)
    window.panel.remove_requested.emit("Volcanoes", True)
    assert len(asked) == 2 and "the course “Volcanoes” and its files" in asked[1]
    assert window.tasks.wait(30_000)  # a removal, had one started, has ended on the worker
    assert {s.course for s in library.sources()} == {"Volcanoes", "Minerals"}
    assert window.panel.item_of(str(tmp_path / "Volcanoes" / "lava.md")) is not None
    asked.clear()
    answer_next_box(QMessageBox.StandardButton.Yes, asked)
    window.panel.remove_requested.emit("Volcanoes", True)  # as its menu does
    assert asked and "the course “Volcanoes” and its files" in asked[0]
    qtbot.waitUntil(lambda: shown_courses() == {"Minerals"}, timeout=10_000)
    assert window.import_bar.status.text() == "Removed the course “Volcanoes” (1 file)."
    assert "no course" not in window.search_pane.status.text()
    assert window.search_pane.course_box.currentData() is None


# --- features: play and resume, open, show in folder, export ---------------------------


def playing(window: MainWindow) -> bool:
    return window.preview_pane.has_player and window.preview_pane.player.is_playing()


@pytest.fixture(scope="module")
def lecture_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 64-s test video with its subtitles beside it."""
    folder = tmp_path_factory.mktemp("panel") / "Zoology"
    folder.mkdir()
    make_test_video(folder / "lecture.mp4", 64)
    make_srt(folder / "lecture.srt", LECTURE_CUES)
    return folder


def double_click(qtbot: QtBot, window: MainWindow, item: QTreeWidgetItem) -> None:
    panel = window.panel
    panel.scrollToItem(item)
    point = panel.visualItemRect(item).center()
    # As a mouse does: the first click's press and release, then the second click.
    qtbot.mouseClick(panel.viewport(), Qt.MouseButton.LeftButton, pos=point)
    qtbot.mousePress(panel.viewport(), Qt.MouseButton.LeftButton, pos=point)
    qtbot.mouseDClick(panel.viewport(), Qt.MouseButton.LeftButton, pos=point)
    qtbot.mouseRelease(panel.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_a_lecture_plays_from_the_panel_where_it_was_left(
    qtbot: QtBot, quick_library: Library, lecture_folder: Path, tmp_path: Path
) -> None:
    video = str(lecture_folder / "lecture.mp4")
    quick_library.ingest([lecture_folder])
    remembered = tmp_path / "settings.json"  # the player keeps positions beside it
    window = shown_window(qtbot, quick_library, player_backend="qt", settings_path=remembered)
    qtbot.waitUntil(lambda: window.panel.state_of(video) == "indexed")
    item = window.panel.item_of(video)
    assert item is not None
    double_click(qtbot, window, item)
    qtbot.waitUntil(
        lambda: window.preview_pane.has_player and window.preview_pane.player.is_playing(),
        timeout=15_000,
    )
    assert window.preview_pane.player.position_ms() < 5_000  # the first time: from the start
    window.preview_pane.player.seek(40_000)
    qtbot.waitUntil(lambda: window.preview_pane.player.position_ms() >= 40_000, timeout=10_000)
    window.preview_pane.player.pause()
    window.close()

    again = shown_window(qtbot, quick_library, player_backend="qt", settings_path=remembered)
    qtbot.waitUntil(lambda: again.panel.state_of(video) == "indexed")
    item = again.panel.item_of(video)
    assert item is not None
    actions = {a.text(): a for a in again.panel.menu_for(item).actions()}
    resume = next(a for text, a in actions.items() if text.startswith("Resume at 00:4"))
    resume.trigger()
    qtbot.waitUntil(
        lambda: again.preview_pane.has_player and again.preview_pane.player.is_playing(),
        timeout=15_000,
    )
    assert 39_000 <= again.preview_pane.player.position_ms() <= 50_000, (
        again.preview_pane.player.position_ms()
    )
    actions["Play from the start"].trigger()
    qtbot.waitUntil(lambda: again.preview_pane.player.position_ms() < 5_000, timeout=10_000)
    again.close()


class UrlRecorder(QObject):
    """Where QDesktopServices sends file URLs while a test runs (Qt's own hook)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def handle(self, url: QUrl) -> None:
        self.urls.append(url)


@pytest.fixture
def desktop() -> Iterator[UrlRecorder]:
    recorder = UrlRecorder()
    QDesktopServices.setUrlHandler("file", recorder, "handle")  # pyright: ignore[reportArgumentType]
    yield recorder
    QDesktopServices.unsetUrlHandler("file")


def test_open_original_and_show_in_folder_ask_the_desktop(
    qtbot: QtBot, library: Library, tmp_path: Path, desktop: UrlRecorder
) -> None:
    note = notes(tmp_path / "Chemistry", "acids.md", "Acids turn litmus paper red.")
    library.ingest([note.parent])
    window = shown_window(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.state_of(str(note)) == "indexed")
    item = window.panel.item_of(str(note))
    assert item is not None
    actions = {a.text(): a for a in window.panel.menu_for(item).actions()}
    assert "Play" not in actions and "Export transcript…" not in actions  # not a lecture
    actions["Open original file"].trigger()
    actions["Show in folder"].trigger()
    double_click(qtbot, window, item)  # a file that is not a lecture opens in its application
    folder = QUrl.fromLocalFile(str(note.parent))
    assert desktop.urls == [QUrl.fromLocalFile(str(note)), folder, QUrl.fromLocalFile(str(note))]
    course = window.panel.item_of("Chemistry")
    assert course is not None
    by_text: dict[str, Callable[[], None]] = {
        a.text(): a.trigger for a in window.panel.menu_for(course).actions()
    }
    by_text["Show in folder"]()
    assert desktop.urls[-1] == folder


def test_a_transcript_is_exported_from_the_panel(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    (tmp_path / "Zoology").mkdir()
    lecture = make_srt(tmp_path / "Zoology" / "week 1.srt", LECTURE_CUES)
    library.ingest([lecture.parent])
    library.add_note(str(lecture), "ask about hippos", at_ms=HIPPO_MS)  # exported with it
    window = shown_window(qtbot, library)
    qtbot.waitUntil(lambda: window.panel.state_of(str(lecture)) == "indexed")
    item = window.panel.item_of(str(lecture))
    assert item is not None
    export = next(a for a in window.panel.menu_for(item).actions() if a.text().startswith("Export"))
    out = tmp_path / "exports"
    out.mkdir()
    chosen: list[str] = []

    def save_as_txt(dialog: QFileDialog) -> None:
        chosen.append(dialog.selectedFiles()[0])
        name = dialog.findChild(QLineEdit, "fileNameEdit")  # typed, as a user does
        assert name is not None
        name.setText(str(out / "week one.txt"))
        dialog.accept()

    on_next_modal(QFileDialog, save_as_txt)
    export.trigger()
    assert chosen and Path(chosen[0]).name == "week 1.srt"  # offered: the lecture's name
    saved = out / "week one.txt"
    qtbot.waitUntil(saved.exists)
    lines = saved.read_text(encoding="utf-8").splitlines()
    hippo = lines.index("[00:31] The hippopotamus enters the library.")
    assert lines[hippo + 1] == "[00:31] Note: ask about hippos"
    qtbot.waitUntil(lambda: window.import_bar.status.text() == f"Transcript saved as {saved}")
