"""Opening a hit on a Word document, an .odp slide or a whiteboard photo in the window: the
document's text at the hit's heading and line, the slide as a page, the photo as itself."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PIL import Image
from pytestqt.qtbot import QtBot

from app.viewers.pages import render_page
from app.window import MainWindow
from engine.api import Library, SearchResult
from tests.places import at_lines, on_page
from tools.document_files import make_docx, make_odp, make_photo


def _window(qtbot: QtBot, library: Library) -> MainWindow:
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(window)
    return window


def _hit(library: Library, query: str, name: str) -> SearchResult:
    hit = library.search(query).results[0]
    assert Path(hit.source).name == name
    return hit


def test_a_word_hit_opens_at_its_heading_and_line(
    qtbot: QtBot, quick_library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "Statistics"
    course.mkdir()
    filler = [f"Paragraph {n} about sampling and surveys in general." for n in range(40)]
    make_docx(
        course / "handout.docx",
        [("Sampling", filler), ("Confidence intervals", ["Bootstrap resamples the data."])],
    )
    quick_library.ingest([course])
    window = _window(qtbot, quick_library)
    hit = _hit(quick_library, "bootstrap resamples", "handout.docx")
    window.open_result(hit)
    view = window.preview_pane.code_view
    qtbot.waitUntil(lambda: window.preview_pane.stack.currentWidget() is view)
    assert view.header.text() == f"handout.docx:{at_lines(hit).line_start}"
    lines = view.editor.toPlainText().split("\n")
    assert lines[view.editor.marked_line - 1] == "Bootstrap resamples the data."
    assert "# Confidence intervals" in lines[: view.editor.marked_line]
    # Centred there: the first paragraphs are scrolled out of sight.
    assert view.editor.firstVisibleBlock().blockNumber() > 0


def test_a_photo_hit_shows_the_picture_and_an_odp_hit_its_slide(
    qtbot: QtBot, quick_library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "Physics"
    course.mkdir()
    photo = make_photo(course / "board.jpg", ["Ohms law V equals I R"], rotate_exif=True)
    make_odp(course / "waves.odp", [("Waves", "amplitude"), ("Interference", "fringes appear")])
    config = quick_library.config  # quick_library reads no text off pictures: this one does
    quick_library.configure(replace(config, media=replace(config.media, screen_text=True)))
    quick_library.ingest([course])
    window = _window(qtbot, quick_library)
    slides = window.preview_pane.slide_view

    hit = _hit(quick_library, "ohms law", "board.jpg")
    window.open_result(hit)
    qtbot.waitUntil(lambda: window.preview_pane.stack.currentWidget() is slides)
    qtbot.waitUntil(lambda: not slides.image_label.pixmap().isNull())
    assert slides.page_label.text() == "board — page 1 of 1"
    # Shown upright as the phone meant it: wider than tall, as it was drawn.
    picture = render_page(str(photo), 1, 400, quick_library)
    assert (picture.width(), picture.height() < picture.width()) == (400, True)
    with Image.open(photo) as stored:
        assert stored.height > stored.width  # the file itself is on its side

    hit = _hit(quick_library, "interference fringes", "waves.odp")
    assert on_page(hit).page == 2
    window.open_result(hit)
    qtbot.waitUntil(lambda: slides.page_label.text() == "Waves — page 2 of 2")
    qtbot.waitUntil(lambda: not slides.image_label.pixmap().isNull())
