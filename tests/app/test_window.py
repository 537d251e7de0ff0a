"""The search window on a real library: focus on start, results follow the typing."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDragEnterEvent, QDragLeaveEvent, QDropEvent, QPalette
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from app.library.elided_label import ElidedLabel
from app.library.import_bar import progress_text
from app.search.results import location
from app.window import EMPTY_LIBRARY, MainWindow
from engine.importing.progress import IngestProgress, IngestReport, Outcome
from engine.library import Library
from engine.types import SegmentKind
from tests.app.ui import drop, giraffe_window
from tests.conftest import HIPPO_MS, LECTURE_CUES
from tests.places import at_moment
from tools.factories import make_srt


def test_empty_library_says_what_to_drop(qtbot: QtBot, library: Library) -> None:
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.search_pane.status.text() == EMPTY_LIBRARY)
    assert window.preview_pane.placeholder.text() == EMPTY_LIBRARY
    assert window.focusWidget() is window.search_pane.search


def test_typing_shows_results_without_blocking(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    lecture = make_srt(tmp_path / "lecture.srt", LECTURE_CUES)
    notes = tmp_path / "notes.md"
    notes.write_text("# Giraffes\n\nThe giraffe has a long neck and eats acacia leaves.\n")
    library.ingest([lecture, notes])
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.show()
    qtbot.keyClicks(window.search_pane.search, "hippopotamus")
    qtbot.waitUntil(lambda: window.search_pane.results.count() > 0, timeout=10_000)
    first = window.result_at(0)
    assert first is not None
    assert first.source == str(lecture) and first.kind == SegmentKind.TRANSCRIPT
    assert at_moment(first).start_ms == HIPPO_MS
    assert location(first) == "00:31"
    # the lecture's hits are one row: the count says so (the notes may match weakly)
    status = window.search_pane.status.text()
    assert re.fullmatch(r"\d+ results in 1 lecture( and 1 file)? \(\d+ ms\)", status)
    # A new query replaces the rows; Esc clears the box and the list.
    window.search_pane.search.clear()
    qtbot.keyClicks(window.search_pane.search, "giraffe neck")
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.source == str(notes))
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Escape)
    qtbot.waitUntil(
        lambda: window.search_pane.search.text() == "" and window.search_pane.results.count() == 0
    )


def test_a_question_the_library_cannot_answer_says_so(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    window = giraffe_window(qtbot, library, tmp_path)
    qtbot.keyClicks(window.search_pane.search, "how long should I knead bread dough")
    expected = "Nothing in your library is close to “how long should I knead bread dough”."
    qtbot.waitUntil(lambda: window.search_pane.status.text() == expected, timeout=10_000)
    assert window.search_pane.results.count() == 0
    assert (
        window.search_pane.empty_note.isVisible()
        and window.search_pane.empty_note.text() == expected
    )
    # A question it can answer still gets its rows.
    window.search_pane.search.clear()
    qtbot.keyClicks(window.search_pane.search, "what do giraffes eat")
    qtbot.waitUntil(lambda: window.search_pane.results.count() > 0, timeout=10_000)
    assert re.fullmatch(r"1 result \(\d+ ms\)", window.search_pane.status.text())
    assert not window.search_pane.empty_note.isVisible()


def test_dropping_a_folder_imports_it_while_search_keeps_working(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "Zoology"
    course.mkdir()
    make_srt(course / "lecture.srt", LECTURE_CUES)
    (course / "notes.md").write_text("# Giraffes\n\nThe giraffe has a long neck.\n")
    (course / "broken.pdf").write_bytes(b"%PDF-1.4 nothing else")
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.show()
    reports: list[IngestProgress] = []
    window.import_bar.progress_reported.connect(reports.append)
    with qtbot.waitSignal(window.imported, timeout=60_000) as blocker:
        drop(window, [course])
        assert window.importing and window.import_bar.progress.isVisible()
        qtbot.keyClicks(window.search_pane.search, "giraffe")  # typing during the import is fine
    assert blocker.args is not None
    report = blocker.args[0]
    assert isinstance(report, IngestReport)
    assert report.count(Outcome.INDEXED) == 2 and report.count(Outcome.ERROR) == 1
    assert not window.importing and not window.import_bar.progress.isVisible()
    assert "2 indexed, 1 error" in window.import_bar.status.text()
    assert "broken.pdf: not a PDF file" in window.import_bar.status.text()
    assert reports and reports[-1].fraction == 1.0
    assert reports[-1].result is not None
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.title != "")
    assert library.search("hippopotamus").results[0].source == str(course / "lecture.srt")


def test_files_dragged_over_the_window_show_what_a_drop_does(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    """Issue 36, item 17: while files are dragged over the window a hint covers it (seen:
    the window's middle is painted in the highlight colour), gone when they leave or drop."""
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(tmp_path))])
    middle = QPoint(window.width() // 2, window.height() // 2)
    buttons, keys = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    highlight = window.palette().color(QPalette.ColorRole.Highlight)

    def hint_shown() -> bool:
        hints = [w for w in window.findChildren(QLabel) if "Drop to import" in w.text()]
        painted = QColor(window.grab().toImage().pixel(middle)) == highlight
        return painted and any(w.isVisible() for w in hints)

    assert not hint_shown()
    enter = QDragEnterEvent(middle, Qt.DropAction.CopyAction, mime, buttons, keys)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted() and hint_shown()
    QApplication.sendEvent(window, QDragLeaveEvent())
    assert not hint_shown()
    QApplication.sendEvent(
        window, QDragEnterEvent(middle, Qt.DropAction.CopyAction, mime, buttons, keys)
    )
    assert hint_shown()
    with qtbot.waitSignal(window.imported, timeout=30_000):  # an empty folder: nothing to do
        QApplication.sendEvent(
            window, QDropEvent(QPointF(middle), Qt.DropAction.CopyAction, mime, buttons, keys)
        )
    assert not hint_shown()


def test_progress_line_names_file_stage_and_time_left() -> None:
    p = IngestProgress("/x/lecture.mp4", 1, 3, "transcribing", 0.4, 95.0, None, 0.43, "0.04x")
    line = "Importing 2/3 lecture.mp4: transcribing 43%, about 2 min left"  # no "(0.04x)"
    assert progress_text(p) == line


def test_the_bar_cuts_a_long_name_not_the_time_left(qtbot: QtBot) -> None:
    """Issue 36, item 14: "less than a minute l…" was cut; the file's name gives way."""
    name = "week-03-dynamic-programming-memoisation-and-tabulation-worked-examples.mp4"
    p = IngestProgress(f"/x/{name}", 5, 6, "transcribing", 0.9, 30.0, None, 0.47, "0.05x")
    label = ElidedLabel()
    qtbot.addWidget(label)
    label.resize(label.fontMetrics().horizontalAdvance("x" * 60), 20)
    label.setText(progress_text(p), name)
    assert label.shown().endswith(": transcribing 47%, less than a minute left")
    assert label.shown().startswith("Importing 6/6 week") and "…" in label.shown()
    assert label.toolTip() == label.text() == progress_text(p)  # all of it


def test_closing_mid_search_leaves_nothing_running_on_the_library(
    qtbot: QtBot, library: Library, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A query typed just before the window closes (its debounce still pending, or its
    search on the pool) never runs against the library once the window has closed."""
    window = giraffe_window(qtbot, library, tmp_path)
    qtbot.keyClicks(window.search_pane.search, "giraffe")
    qtbot.waitUntil(lambda: window.search_pane.results.count() > 0, timeout=10_000)
    window.search_pane.search.clear()
    qtbot.keyClicks(window.search_pane.search, "acacia leaves")  # the debounce has not fired yet
    window.close()
    library.close()  # as app.main does once the event loop ends
    status = window.search_pane.status.text()
    qtbot.wait(500)  # long past the debounce
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    assert window.search_pane.status.text() == status
