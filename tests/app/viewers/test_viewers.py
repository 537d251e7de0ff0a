"""Slide pages and code files shown from real PDFs, .pptx decks and source text. A .pptx
slide is drawn from the text its import stored, so those tests import the deck first; a PDF
page is drawn from the file (``library`` is an empty one)."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPalette, QTextFormat
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from app.tasks import Tasks
from app.viewers.code_view import DARK_STYLE, LIGHT_STYLE, CodeView
from app.viewers.pages import ViewerError, render_page
from app.viewers.slide_view import SlideView
from engine.library import Library
from tools.factories import make_pdf, make_pptx

PAGES = [
    "Sorting\ninsertion sort builds the sorted list",
    "Quicksort\nLomuto partition scheme\nthe pivot is the last element",
    "Merge sort\nsplit, sort both halves, merge",
]
SORTING = '''"""Sorting algorithms for week two."""


def partition(items, low, high):
    pivot = items[high]
    i = low
    # Lomuto scheme: the pivots are not moved, the pivot is last.
    for j in range(low, high):
        if items[j] <= pivot:
            items[i], items[j] = items[j], items[i]
            i += 1
    return i
'''
LOMUTO_LINE = 7
VIDEO = "/courses/algorithms/lecture 3.mp4"


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_pdf(tmp_path_factory.mktemp("deck") / "quicksort.pdf", PAGES, slides=True)


@pytest.fixture(scope="module")
def pptx(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_pptx(
        tmp_path_factory.mktemp("pptx") / "graphs.pptx",
        [("Graphs", "breadth-first search visits by layers", ""), ("Trees", "a heap", "")],
    )


@pytest.fixture
def pptx_library(quick_library: Library, pptx: Path) -> Library:
    """A library that has imported the .pptx deck."""
    report = quick_library.ingest([pptx])
    assert len(report.files) == 1 and not report.errors, report
    return quick_library


def _dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in (
        (QPalette.ColorRole.Window, "#2b2b2b"),
        (QPalette.ColorRole.WindowText, "#e8e8e8"),
        (QPalette.ColorRole.Base, "#1e1e1e"),
        (QPalette.ColorRole.AlternateBase, "#2b2b2b"),
        (QPalette.ColorRole.Text, "#e8e8e8"),
        (QPalette.ColorRole.Button, "#353535"),
        (QPalette.ColorRole.ButtonText, "#e8e8e8"),
        (QPalette.ColorRole.Highlight, "#3d7bd9"),
        (QPalette.ColorRole.HighlightedText, "#ffffff"),
    ):
        palette.setColor(role, QColor(colour))
    return palette


@pytest.fixture
def dark(qapp: QApplication) -> Iterator[None]:
    """The application in a dark palette (Fusion), restored afterwards."""
    style, palette = qapp.style().name(), qapp.palette()
    qapp.setStyle("Fusion")
    qapp.setPalette(_dark_palette())
    yield
    qapp.setPalette(palette)
    qapp.setStyle(style)


# --- render_page ---------------------------------------------------------------------------


def test_render_page_draws_each_pdf_page_at_the_width_asked(deck: Path, library: Library) -> None:
    first = render_page(str(deck), 1, 400, library)
    second = render_page(str(deck), 2, 400, library)
    assert (first.width(), second.width()) == (400, 400)
    assert abs(first.height() - 400 * 9 / 16) <= 1  # make_pdf's slides are 16:9
    assert first != second
    assert render_page(str(deck), 2, 400, library) == second
    assert render_page(str(deck), 2, 123, library).width() == 123
    dark_pixels = sum(
        first.pixelColor(x, y).lightness() < 128 for x in range(0, 400, 4) for y in range(0, 225, 4)
    )
    assert dark_pixels > 20  # the title's black type, on a white page


def test_render_page_sees_a_changed_file(tmp_path: Path, library: Library) -> None:
    path = make_pdf(tmp_path / "deck.pdf", PAGES, slides=True)
    before = render_page(str(path), 1, 300, library)
    make_pdf(path, ["Completely different\nwords here", *PAGES[1:]], slides=True)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    assert render_page(str(path), 1, 300, library) != before


def test_render_page_draws_pptx_slides_as_text_cards(
    qapp: QApplication, pptx: Path, pptx_library: Library, tmp_path: Path
) -> None:
    first = render_page(str(pptx), 1, 640, pptx_library)
    second = render_page(str(pptx), 2, 640, pptx_library)
    assert first.width() == 640 and abs(first.height() - 360) <= 1
    assert first != second
    assert first.pixelColor(2, 180) == QColor("white")
    # The slides' text is the library's: a deck it has not read is not parsed here.
    unread = tmp_path / "unread.pptx"
    unread.write_bytes(pptx.read_bytes())
    with pytest.raises(ViewerError, match=r"unread\.pptx: it is not in the library"):
        render_page(str(unread), 1, 640, pptx_library)


@pytest.mark.parametrize("page", [0, 4, -1])
def test_render_page_refuses_a_page_out_of_range(deck: Path, page: int, library: Library) -> None:
    with pytest.raises(ViewerError, match="has no page"):
        render_page(str(deck), page, 200, library)


def test_render_page_refuses_missing_and_broken_files(tmp_path: Path, library: Library) -> None:
    with pytest.raises(ViewerError, match=r"cannot open missing\.pdf"):
        render_page(str(tmp_path / "missing.pdf"), 1, 200, library)
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 nothing else")
    with pytest.raises(ViewerError, match="not a readable PDF"):
        render_page(str(broken), 1, 200, library)
    notes = tmp_path / "notes.md"
    notes.write_text("# not a deck\n")
    with pytest.raises(ViewerError, match=r"only \.pdf, \.pptx, \.odp and photos"):
        render_page(str(notes), 1, 200, library)
    photo = tmp_path / "board.jpg"
    photo.write_bytes(b"\xff\xd8\xff\xe0 not the rest of a JPEG")
    with pytest.raises(ViewerError, match=r"cannot read board\.jpg"):
        render_page(str(photo), 1, 200, library)


def test_render_page_from_several_threads_at_once(deck: Path, library: Library) -> None:
    sizes: list[tuple[int, int]] = []
    errors: list[BaseException] = []

    def render(width: int) -> None:
        try:
            for page in (1, 2, 3):
                image = render_page(str(deck), page, width, library)
                sizes.append((page, image.width()))
        except BaseException as e:  # handed to the test thread, which fails with it
            errors.append(e)

    threads = [threading.Thread(target=render, args=(301 + i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(sizes) == sorted((p, 301 + i) for i in range(4) for p in (1, 2, 3))


# --- SlideView -----------------------------------------------------------------------------


def _slide_view(qtbot: QtBot, library: Library) -> SlideView:
    tasks = Tasks()
    view = SlideView(library, tasks)
    tasks.setParent(view)  # dies with the view, after waiting for its page
    qtbot.addWidget(view)
    view.resize(800, 560)
    view.show()
    qtbot.waitExposed(view)
    return view


def _pixmap_width(label: QLabel) -> int:
    pixmap = label.pixmap()
    return 0 if pixmap.isNull() else round(pixmap.width() / pixmap.devicePixelRatio())


def test_slide_view_pages_through_a_deck(qtbot: QtBot, deck: Path, library: Library) -> None:
    view = _slide_view(qtbot, library)
    view.show_page(str(deck), 2)
    qtbot.waitUntil(lambda: view.page_label.text() == "quicksort — page 2 of 3")
    assert (view.current_path, view.current_page) == (str(deck), 2)
    assert 700 <= _pixmap_width(view.image_label) <= 800  # fitted to the view
    page_two = view.image_label.pixmap().toImage()
    assert view.prev_button.isEnabled() and view.next_button.isEnabled()

    qtbot.mouseClick(view.next_button, Qt.MouseButton.LeftButton)
    assert view.page_label.text() == "quicksort — page 3 of 3"
    assert view.current_page == 3
    assert not view.next_button.isEnabled()
    qtbot.waitUntil(lambda: view.image_label.pixmap().toImage() != page_two)

    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_PageUp)
    qtbot.waitUntil(lambda: view.page_label.text() == "quicksort — page 2 of 3")
    assert view.current_page == 2
    qtbot.keyClick(view, Qt.Key.Key_PageUp)
    qtbot.waitUntil(lambda: view.current_page == 1 and not view.prev_button.isEnabled())
    qtbot.keyClick(view, Qt.Key.Key_PageUp)
    assert view.current_page == 1


def test_slide_view_renders_on_the_task_runner_it_is_given(
    qtbot: QtBot, deck: Path, library: Library
) -> None:
    tasks = Tasks(inline=True)  # runs each task before ``run`` returns
    view = SlideView(library, tasks)
    qtbot.addWidget(view)
    view.resize(800, 560)
    view.show_page(str(deck), 2)
    assert view.page_label.text() == "quicksort — page 2 of 3"
    assert _pixmap_width(view.image_label) > 0
    # A closed runner (the window closing) starts nothing: the page on show stays.
    shown = view.image_label.pixmap().toImage()
    tasks.close(1000)
    view.show_page(str(deck), 3)
    assert view.image_label.pixmap().toImage() == shown


def test_slide_view_renders_again_for_a_new_size(
    qtbot: QtBot, deck: Path, library: Library
) -> None:
    view = _slide_view(qtbot, library)
    view.show_page(str(deck), 1)
    qtbot.waitUntil(lambda: _pixmap_width(view.image_label) > 700)
    view.resize(500, 560)
    qtbot.waitUntil(lambda: 400 <= _pixmap_width(view.image_label) <= 500)
    # A short, wide view: the slide fits its height instead of overflowing.
    view.resize(900, 300)
    qtbot.waitUntil(lambda: 0 < view.image_label.pixmap().height() <= 300)


def test_slide_view_plays_where_the_slide_is_shown(
    qtbot: QtBot, deck: Path, library: Library
) -> None:
    view = _slide_view(qtbot, library)
    view.show_page(str(deck), 2)
    assert not view.play_button.isVisible()

    view.show_page(str(deck), 2, [(VIDEO, 83_000)], ["lomuto"])
    assert view.play_button.isVisible()
    assert view.play_button.text() == "Play where this slide is shown (01:23)"
    assert view.play_button.menu() is None
    with qtbot.waitSignal(view.play_requested, timeout=2000) as signal:
        qtbot.mouseClick(view.play_button, Qt.MouseButton.LeftButton)
    assert signal.args == [VIDEO, 83_000]

    # In a narrow preview it says less rather than a cut "Play where …own (01:23)".
    view.resize(520, 400)
    qtbot.waitUntil(lambda: view.play_button.text() == "Play (01:23)")
    assert view.play_button.toolTip() == "Play where this slide is shown (01:23)"
    qtbot.waitUntil(lambda: view.play_button.width() >= view.play_button.sizeHint().width())
    view.resize(800, 560)
    qtbot.waitUntil(lambda: view.play_button.text() == "Play where this slide is shown (01:23)")

    # Another page of the deck was not found in the video.
    qtbot.keyClick(view, Qt.Key.Key_PageDown)
    assert view.current_page == 3 and not view.play_button.isVisible()


def test_slide_view_lists_every_video_that_shows_the_slide(
    qtbot: QtBot, deck: Path, library: Library
) -> None:
    view = _slide_view(qtbot, library)
    other = "/courses/algorithms/review.mp4"
    view.show_page(str(deck), 1, [(VIDEO, 5_000), (other, 3_725_000)])
    assert view.play_button.text() == "Play where this slide is shown (00:05)"
    menu = view.play_button.menu()
    assert menu is not None
    assert [a.text() for a in menu.actions()] == ["lecture 3.mp4 at 00:05", "review.mp4 at 1:02:05"]
    with qtbot.waitSignal(view.play_requested, timeout=2000) as signal:
        menu.actions()[1].trigger()
    assert signal.args == [other, 3_725_000]


def test_slide_view_marks_the_query_words_on_the_page(
    qtbot: QtBot, deck: Path, library: Library
) -> None:
    view = _slide_view(qtbot, library)
    view.show_page(str(deck), 2)
    qtbot.waitUntil(lambda: not view.image_label.pixmap().isNull())
    plain = view.image_label.pixmap().toImage()
    view.show_page(str(deck), 2, terms=["lomuto"])
    qtbot.waitUntil(lambda: view.image_label.pixmap().toImage() != plain)
    marked = view.image_label.pixmap().toImage().convertToFormat(QImage.Format.Format_RGB32)
    yellow = sum(
        (c := marked.pixelColor(x, y)).red() > 200 and c.green() > 180 and c.blue() < 120
        for x in range(0, marked.width(), 3)
        for y in range(0, marked.height(), 3)
    )
    assert yellow > 50


def test_slide_view_says_why_a_page_cannot_be_shown(
    qtbot: QtBot, deck: Path, tmp_path: Path, library: Library
) -> None:
    view = _slide_view(qtbot, library)
    view.show_page(str(tmp_path / "gone.pdf"), 1)
    qtbot.waitUntil(lambda: "cannot open gone.pdf" in view.image_label.text())
    assert view.image_label.pixmap().isNull()
    view.show_page(str(deck), 9)
    qtbot.waitUntil(lambda: view.image_label.text() == "quicksort.pdf has no page 9 (it has 3)")
    view.show_page(str(deck), 1)
    qtbot.waitUntil(lambda: view.image_label.text() == "" and view.next_button.isEnabled())
    # Asked again once the file is there, the same page renders.
    view.show_page(str(tmp_path / "gone.pdf"), 1)
    qtbot.waitUntil(lambda: "cannot open gone.pdf" in view.image_label.text())
    make_pdf(tmp_path / "gone.pdf", PAGES, slides=True)
    view.show_page(str(tmp_path / "gone.pdf"), 1)
    qtbot.waitUntil(lambda: view.page_label.text() == "gone — page 1 of 3")
    assert view.image_label.text() == "" and not view.image_label.pixmap().isNull()


def test_slide_view_shows_pptx_slides(qtbot: QtBot, pptx: Path, pptx_library: Library) -> None:
    view = _slide_view(qtbot, pptx_library)
    view.show_page(str(pptx), 1)
    # Named as the library names it (no title in its properties: its first slide's title).
    source = pptx_library.source(str(pptx))
    assert source is not None and source.title == "Graphs"
    qtbot.waitUntil(lambda: view.page_label.text() == "Graphs — page 1 of 2")
    assert not view.image_label.pixmap().isNull()


# --- CodeView ------------------------------------------------------------------------------


def _code_view(qtbot: QtBot) -> CodeView:
    view = CodeView()
    qtbot.addWidget(view)
    view.resize(800, 400)
    view.show()
    qtbot.waitExposed(view)
    return view


def _colour_at(view: CodeView, line: int, column: int) -> QColor | None:
    """The highlighter's foreground at a 1-based line and 0-based column, if any."""
    block = view.editor.document().findBlockByNumber(line - 1)
    for span in block.layout().formats():
        if span.start <= column < span.start + span.length and span.format.hasProperty(
            QTextFormat.Property.ForegroundBrush
        ):
            return span.format.foreground().color()
    return None


def _marked_words(view: CodeView) -> list[str]:
    return [
        s.cursor.selectedText() for s in view.editor.extraSelections() if s.cursor.hasSelection()
    ]


def test_code_view_opens_at_the_line(qtbot: QtBot) -> None:
    view = _code_view(qtbot)
    view.show_code(SORTING, "src/sorting.py", LOMUTO_LINE, ["lomuto", "pivot"])
    assert view.editor.marked_line == LOMUTO_LINE
    assert view.header.text() == f"src/sorting.py:{LOMUTO_LINE}"
    assert view.editor.isReadOnly()
    assert view.editor.textCursor().blockNumber() == LOMUTO_LINE - 1
    lines = [
        s
        for s in view.editor.extraSelections()
        if s.format.property(QTextFormat.Property.FullWidthSelection)
    ]
    assert [s.cursor.blockNumber() for s in lines] == [LOMUTO_LINE - 1]
    assert lines[0].format.background().color() != view.editor.palette().color(
        QPalette.ColorRole.Base
    )


def test_code_view_centres_the_line_also_when_shown_later(qtbot: QtBot) -> None:
    view = CodeView()  # the window fills a hidden view, then shows it
    qtbot.addWidget(view)
    text = "".join(f"value_{i} = {i}\n" for i in range(400))
    view.show_code(text, "values.py", 250)
    view.resize(700, 420)
    view.show()
    qtbot.waitExposed(view)
    editor = view.editor
    middle = editor.viewport().height() / 2

    def centred() -> bool:
        return abs(editor.cursorRect().center().y() - middle) <= editor.fontMetrics().height()

    qtbot.waitUntil(centred)
    assert editor.textCursor().blockNumber() == 249


def test_code_view_colours_keywords_apart_from_names(qtbot: QtBot) -> None:
    view = _code_view(qtbot)
    view.show_code(SORTING, "sorting.py", LOMUTO_LINE)
    assert view.style_name == LIGHT_STYLE
    keyword = _colour_at(view, 4, 0)  # "def"
    function = _colour_at(view, 4, 4)  # "partition"
    name = _colour_at(view, 5, 4)  # "pivot", a plain name: the text colour
    comment = _colour_at(view, LOMUTO_LINE, 4)
    assert keyword is not None and function is not None and comment is not None
    assert name is None
    assert len({keyword.name(), function.name(), comment.name()}) == 3


def test_code_view_marks_whole_words_of_the_query(qtbot: QtBot) -> None:
    view = _code_view(qtbot)
    view.show_code(SORTING, "sorting.py", LOMUTO_LINE, ["lomuto", "pivot"])
    # "pivots" is another word; "Lomuto" matches "lomuto" whatever its case.
    assert _marked_words(view) == ["pivot", "Lomuto", "pivot", "pivot"]
    view.show_code(SORTING, "sorting.py", None, ())
    assert _marked_words(view) == []
    assert view.editor.marked_line == 0 and view.header.text() == "sorting.py"


def test_code_view_shows_an_error_as_a_line(qtbot: QtBot) -> None:
    view = _code_view(qtbot)
    view.show_code(SORTING, "sorting.py", 3)
    view.show_error("code.zip is no longer in the library\nsecond line")
    assert view.header.text() == "code.zip is no longer in the library"
    assert view.editor.toPlainText() == "" and view.editor.marked_line == 0


def test_code_view_shows_a_notebook_as_coloured_json(qtbot: QtBot) -> None:
    view = _code_view(qtbot)
    notebook = {"cells": [{"cell_type": "code", "source": ["print('hello')"]}], "nbformat": 4}
    view.show_code(json.dumps(notebook, indent=1), "week1.ipynb", 3)
    assert view.editor.marked_line == 3
    assert _colour_at(view, 2, 2) is not None  # the "cells" key


def test_code_view_colours_a_big_file_as_it_comes_into_view(qtbot: QtBot) -> None:
    view = _code_view(qtbot)
    body = "".join(f"def function_{i}(x):\n    return x + {i}  # step {i}\n\n" for i in range(7000))
    view.show_code(body, "big.py", 15_001)
    assert view.editor.blockCount() == 21_001
    assert view.editor.textCursor().blockNumber() == 15_000
    qtbot.waitUntil(lambda: _colour_at(view, 15_001, 0) is not None, timeout=20_000)
    # Lines far from the view wait until they are scrolled to.
    assert _colour_at(view, 100, 0) is None
    view.editor.verticalScrollBar().setValue(90)
    qtbot.waitUntil(lambda: _colour_at(view, 100, 0) is not None)


def test_code_view_follows_a_dark_palette(qtbot: QtBot, dark: None) -> None:
    view = _code_view(qtbot)
    view.show_code(SORTING, "sorting.py", LOMUTO_LINE, ["lomuto"])
    assert view.style_name == DARK_STYLE
    dark_keyword = _colour_at(view, 4, 0)
    assert dark_keyword is not None and dark_keyword.lightnessF() > 0.5
    QApplication.setPalette(QApplication.style().standardPalette())
    qtbot.waitUntil(lambda: view.style_name == LIGHT_STYLE)
    light_keyword = _colour_at(view, 4, 0)
    assert light_keyword is not None and light_keyword != dark_keyword


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None is immortal from Python 3.12")
def test_qt_calls_keep_none_alive(qapp: QApplication) -> None:
    """PySide6 6.12.0 on Python 3.11 drops a reference to None at each void call, and the
    interpreter aborts after a few thousand; a code view makes that many calls at once."""
    label = QLabel()
    before = sys.getrefcount(None)
    for _ in range(1000):
        label.setText("x")
    assert sys.getrefcount(None) >= before - 10


def test_long_lines_and_notes_wrap_in_the_view(qtbot: QtBot) -> None:
    """A narrow preview shows the whole matched line: no horizontal scrolling."""
    view = _code_view(qtbot)
    view.resize(420, 400)
    long_line = "    # " + "the pivot is moved to its final place " * 8
    notes = "# Quicksort\n\n" + "Quicksort partitions around a pivot, then sorts each side. " * 6
    for text, name in ((SORTING + long_line + "\n", "src/sorting.py"), (notes, "notes.md")):
        view.show_code(text, name, 3 if name == "notes.md" else 13, ["pivot"])
        qtbot.wait(50)
        assert view.editor.horizontalScrollBar().maximum() == 0, name
        block = view.editor.document().findBlockByNumber(2 if name == "notes.md" else 12)
        assert block.layout().lineCount() > 1, name


def test_a_narrow_slide_view_shortens_the_title_not_the_page_number(
    qtbot: QtBot, tmp_path: Path, library: Library
) -> None:
    deck = make_pdf(
        tmp_path / "Algorithms 101 Sorting and Searching, lecture one.pdf", PAGES, slides=True
    )
    view = _slide_view(qtbot, library)
    view.resize(360, 400)
    view.show_page(str(deck), 2)
    full = "Algorithms 101 Sorting and Searching, lecture one — page 2 of 3"
    qtbot.waitUntil(lambda: view.page_label.text() == full)
    shown = view.page_label.shown_text()
    assert shown.endswith("… — page 2 of 3") and shown.startswith("Algorithms")
    metrics = view.page_label.fontMetrics()
    assert metrics.horizontalAdvance(shown) <= view.page_label.contentsRect().width()
    assert view.page_label.toolTip() == full
    assert view.page_label.width() >= view.width() - 20  # a line of its own
