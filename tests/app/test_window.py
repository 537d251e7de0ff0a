"""The search window on a real library: focus on start, results follow the typing."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.window import EMPTY_LIBRARY, SearchWindow, location
from engine.library import Library
from engine.types import SegmentKind
from tests.conftest import HIPPO_MS, LECTURE_CUES
from tests.factories import make_srt


def test_empty_library_says_what_to_drop(qtbot: QtBot, library: Library) -> None:
    window = SearchWindow(library)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert window.status.text() == EMPTY_LIBRARY
    assert window.focusWidget() is window.search


def test_typing_shows_results_without_blocking(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    lecture = make_srt(tmp_path / "lecture.srt", LECTURE_CUES)
    notes = tmp_path / "notes.md"
    notes.write_text("# Giraffes\n\nThe giraffe has a long neck and eats acacia leaves.\n")
    library.ingest([lecture, notes])
    window = SearchWindow(library)
    qtbot.addWidget(window)
    window.show()
    qtbot.keyClicks(window.search, "hippopotamus")
    qtbot.waitUntil(lambda: window.results.count() > 0, timeout=10_000)
    first = window.result_at(0)
    assert first is not None
    assert first.source == str(lecture) and first.kind == SegmentKind.TRANSCRIPT
    assert first.start_ms == HIPPO_MS
    assert location(first) == "00:31"
    assert window.status.text().endswith("results")
    # A new query replaces the rows; Esc clears the box and the list.
    window.search.clear()
    qtbot.keyClicks(window.search, "giraffe neck")
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.source == str(notes))
    qtbot.keyClick(window.search, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.search.text() == "" and window.results.count() == 0)
