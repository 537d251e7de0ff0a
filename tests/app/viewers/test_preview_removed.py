"""The preview after a Remove (issue 24, item 9): the removed file's lecture stops and its
text goes, and a result still on screen for it no longer plays or opens it; a file imported
again opens as before."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from app.window import MainWindow
from engine.api import Library
from tests.app.media import PlayerMedia
from tests.app.ui import on_next_modal
from tools.factories import make_srt


def confirm_removal(qtbot: QtBot, window: MainWindow, target: str, is_course: bool) -> None:
    """Remove as the panel's menu does, answering Yes to the question."""
    on_next_modal(
        QMessageBox,
        lambda box: box.button(QMessageBox.StandardButton.Yes).click(),  # type: ignore[union-attr]
    )
    window.panel.remove_requested.emit(target, is_course)
    qtbot.waitUntil(lambda: window.panel.item_of(target) is None, timeout=10_000)


def search(qtbot: QtBot, window: MainWindow, query: str, source: Path) -> None:
    window.search_pane.search.clear()
    qtbot.keyClicks(window.search_pane.search, query)
    qtbot.waitUntil(
        lambda: (r := window.result_at(0)) is not None and r.source == str(source),
        timeout=15_000,
    )


def test_a_removed_lecture_stops_and_its_result_no_longer_plays(
    qtbot: QtBot, quick_library: Library, media: PlayerMedia, tmp_path: Path
) -> None:
    course = tmp_path / "Algorithms"
    course.mkdir()
    lecture = course / "lecture.mp4"
    shutil.copy(media.video, lecture)
    make_srt(course / "lecture.srt", [(t.start_ms, t.end_ms, t.text) for t in media.transcript])
    quick_library.ingest([course])
    window = MainWindow(quick_library, player_backend="qt")
    qtbot.addWidget(window)
    window.show()
    preview = window.preview_pane
    search(qtbot, window, "pivot partitions", lecture)
    hit = window.result_at(0)
    assert hit is not None
    window.open_current()
    qtbot.waitUntil(lambda: preview.has_player and preview.player.is_playing(), timeout=15_000)

    confirm_removal(qtbot, window, str(lecture), False)
    assert preview.stack.currentWidget() is preview.placeholder
    assert preview.placeholder.text() == "“lecture.mp4” was removed from the library."
    assert not preview.player.is_playing()
    # The result may still be on screen a moment: opening it plays nothing.
    window.open_result(hit)
    qtbot.wait(500)
    assert preview.stack.currentWidget() is preview.placeholder
    assert not preview.player.is_playing()

    # Imported again, the preview no longer says it was removed (issue 36, item 15), and it
    # plays again.
    with qtbot.waitSignal(window.imported, timeout=60_000):
        window.import_paths([lecture])
    qtbot.waitUntil(lambda: "was removed" not in preview.placeholder.text())
    assert preview.stack.currentWidget() is preview.placeholder
    assert preview.placeholder.text().startswith("“lecture.mp4” is in the library again.")
    window.open_result(hit)
    qtbot.waitUntil(lambda: preview.player.is_playing(), timeout=15_000)
    preview.shutdown()


def test_a_file_shown_goes_when_its_course_is_removed(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "Chemistry"
    course.mkdir()
    note = course / "acids.md"
    note.write_text("# Acids\n\nAcids turn litmus paper red.\n", encoding="utf-8")
    library.ingest([course])
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.show()
    preview = window.preview_pane
    qtbot.waitUntil(lambda: window.panel.item_of("Chemistry") is not None)
    search(qtbot, window, "litmus", note)
    window.open_current()
    qtbot.waitUntil(lambda: preview.stack.currentWidget() is preview.code_view)

    confirm_removal(qtbot, window, "Chemistry", True)
    assert preview.stack.currentWidget() is preview.placeholder
    assert "“acids.md” was removed from the library." in preview.placeholder.text()
