"""The first start of the app: the demo course imports by itself, text files first."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from app.main import DEMO_FLAG, start
from app.window import MainWindow
from engine.demo import DEMO_COURSE, DEMO_DIR, demo_queries
from engine.importing.progress import IngestReport, Outcome
from engine.library import Library


def test_first_start_imports_the_demo_course_searchable_before_its_video(
    qtbot: QtBot, tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COURSEDEX_SETTINGS", str(tmp_path / "settings.json"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    argv = ["--library", str(tmp_path / "lib"), "--models", str(models_dir)]
    window = start(argv)
    # A failed check must not leave the test waiting for an answer to "Quit anyway?".
    qtbot.addWidget(window, before_close_func=lambda w: w.close_without_asking())
    assert window.importing and window.library.flag(DEMO_FLAG)
    # Issue 36, item 2: the preview says the demo is importing, never "Nothing indexed yet.
    # Drop…" under an import bar saying "Importing 1/6" (nor does the status line).
    placeholder, status = window.preview_pane.placeholder, window.search_pane.status
    qtbot.waitUntil(lambda: window.panel.item_of(DEMO_COURSE) is not None, timeout=60_000)
    assert "demo course" in placeholder.text() and "is being imported" in placeholder.text()
    assert "Nothing indexed yet" not in status.text() + placeholder.text()
    notes, video = str(DEMO_DIR / "notes.md"), str(DEMO_DIR / "lecture-01-sorting.mp4")
    # Notes, slides, code, the handout and the whiteboard photo are imported before the
    # lecture video, so they are searchable while it transcribes (and only the video is left
    # to resume once the import is cancelled).
    qtbot.waitUntil(lambda: window.panel.state_of(notes) == "indexed", timeout=60_000)
    photo = str(DEMO_DIR / "whiteboard.jpg")
    qtbot.waitUntil(lambda: window.panel.state_of(photo) == "indexed", timeout=60_000)
    qtbot.keyClicks(window.search_pane.search, "binary search published 1946")
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.source == notes)
    assert window.result_at(0).course == DEMO_COURSE  # type: ignore[union-attr]
    assert window.importing and window.panel.state_of(video) != "indexed"
    assert "is being imported" in placeholder.text()  # until the lecture is in
    with qtbot.waitSignal(window.imported, timeout=30_000) as blocker:
        window.import_bar.cancel_button.click()
    report = blocker.args[0] if blocker.args else None
    assert isinstance(report, IngestReport) and report.count(Outcome.CANCELLED) >= 1
    window.close()
    window.library.close()

    # The next start offers to finish the video (it was cancelled: not unasked), and does
    # not import the course again.
    again = start(argv)
    qtbot.addWidget(again)
    assert not again.importing and again.import_bar.offering
    assert again.panel.state_of(video) in (None, "not indexed")  # None: not read yet
    again.import_bar.resume_button.click()
    assert again.importing and "Resuming the import of 1 file…" in again.import_bar.status.text()
    with qtbot.waitSignal(again.imported, timeout=30_000):
        again.import_bar.cancel_button.click()
    again.close()
    again.library.close()


def test_files_given_to_the_app_are_imported(
    qtbot: QtBot, tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file manager's "Open with Coursedex" (the desktop entry's ``coursedex %F``) passes
    the files alone: the launcher opens the window, which imports them."""
    from app.launcher import _are_paths

    monkeypatch.setenv("COURSEDEX_SETTINGS", str(tmp_path / "settings.json"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    notes = tmp_path / "week 1.md"
    notes.write_text("# Week one\n\nThe okapi is a relative of the giraffe.\n", encoding="utf-8")
    assert _are_paths([str(notes)])
    assert not _are_paths(["search", str(notes)])  # a command is never taken for a file
    assert not _are_paths([str(notes), str(tmp_path / "missing.md")])
    assert not _are_paths(["--library", str(tmp_path)])
    argv = ["--library", str(tmp_path / "lib"), "--models", str(models_dir), "--no-demo"]
    window = start([*argv, str(notes)])
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.imported, timeout=60_000) as blocker:
        pass
    report = blocker.args[0] if blocker.args else None
    assert isinstance(report, IngestReport) and report.count(Outcome.INDEXED) == 1, report
    # The panel reads the new course's rows on the window's pool (app/library/changes.py),
    # after the import's last change: as soon as the search model is loaded (the run's, held
    # by the process) the import can end before that read does.
    qtbot.waitUntil(lambda: window.panel.state_of(str(notes)) == "indexed")
    qtbot.keyClicks(window.search_pane.search, "okapi giraffe")
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.source == str(notes))
    window.close()
    window.library.close()


def test_the_demo_course_offers_three_example_questions_that_work(
    qtbot: QtBot, demo_library: Library
) -> None:
    """Issue 36, item 2: once the demo is in, the empty results list offers three of its
    questions (resources/demo/queries.txt); a click searches one and finds its answer in the
    file it is about (the lecture, the code, the slides)."""
    window = MainWindow(demo_library)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    pane = window.search_pane
    answered_by = dict(zip(demo_queries()[:3], ("lecture-01-sorting.mp4", "code.zip",
                                                "slides.pdf"), strict=True))  # fmt: skip

    def offered() -> dict[str, QPushButton]:
        buttons = pane.results.viewport().findChildren(QPushButton)
        return {b.text(): b for b in buttons if b.isVisible()}

    qtbot.waitUntil(lambda: set(offered()) == set(answered_by), timeout=10_000)
    for question, file in answered_by.items():
        qtbot.mouseClick(offered()[question], Qt.MouseButton.LeftButton)
        assert pane.search.text() == question and not offered()  # the results take its place
        qtbot.waitUntil(lambda q=question: pane.shown_query == q, timeout=10_000)
        top = window.result_at(0)
        assert top is not None and Path(top.source).name == file, (question, top)
        qtbot.keyClick(pane.search, Qt.Key.Key_Escape)  # the box empty: offered again
        qtbot.waitUntil(lambda: set(offered()) == set(answered_by))
    window.close()
