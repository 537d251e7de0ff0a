"""The search pane as a student uses it: Enter, the course filter, weaker matches, a lecture's
moments in one row, search history and the last session, and the layout at small sizes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QIcon, QMouseEvent, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from app.dialogs.settings import apply_theme
from app.search.results import ResultRow, count_line, thumbnail
from app.search.status_line import StatusLine
from app.theme import is_dark
from app.viewers import pages
from app.window import MainWindow
from engine.api import SearchResult, SegmentKind, SourceKind, clock, parse_link
from engine.library import Library
from engine.search.results import AtMoment, OnPage, SlideOnScreen, WholeFile
from tests.conftest import LECTURE_CUES
from tests.engine.cli_run import InProcessCli
from tests.places import at_moment
from tools.factories import make_pdf, make_srt


@pytest.fixture
def two_courses(library: Library, tmp_path: Path) -> Library:
    """Zoology (a lecture's subtitles and notes on giraffes) and Botany (notes on acacia)."""
    zoology, botany = tmp_path / "Zoology", tmp_path / "Botany"
    zoology.mkdir()
    botany.mkdir()
    make_srt(zoology / "lecture.srt", LECTURE_CUES)
    (zoology / "notes.md").write_text("# Giraffes\n\nThe giraffe has a long neck.\n")
    (botany / "trees.md").write_text("# Acacia\n\nAcacia trees grow thorns against herbivores.\n")
    library.ingest([zoology, botany])
    return library


def shown_window(qtbot: QtBot, library: Library, **kwargs: object) -> MainWindow:
    window = MainWindow(library, **kwargs)  # type: ignore[arg-type]
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.search_pane.course_box.count() > 1)
    return window


def test_enter_right_after_typing_opens_the_new_querys_top_hit(
    qtbot: QtBot, two_courses: Library
) -> None:
    window = shown_window(qtbot, two_courses)
    qtbot.keyClicks(window.search_pane.search, "hippopotamus")
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.source.endswith(".srt"))
    window.search_pane.search.clear()
    opened: list[SearchResult] = []
    window.opened.connect(opened.append)
    qtbot.keyClicks(window.search_pane.search, "acacia thorns")
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Return)  # before the debounce has run
    qtbot.waitUntil(lambda: bool(opened), timeout=10_000)
    assert opened[0].source.endswith("trees.md"), opened[0].source
    assert len(opened) == 1
    # Enter again on the results shown opens the current row without searching again.
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Return)
    assert len(opened) == 2 and opened[1].source == opened[0].source


def _click_row(window: MainWindow, text: str, *, double: bool = False) -> None:
    """A click on a panel row; ``double``: the press, release, double-click and release a
    mouse sends (QTest's double-click alone never reaches the tree's double-click)."""
    panel = window.panel
    flags = Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive
    item = panel.findItems(text, flags)[0]
    centre = QPointF(panel.visualItemRect(item).center())
    kinds = [QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease]
    if double:
        kinds += [QEvent.Type.MouseButtonDblClick, QEvent.Type.MouseButtonRelease]
    left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
    for kind in kinds:
        held = none if kind == QEvent.Type.MouseButtonRelease else left
        event = QMouseEvent(
            kind, centre, panel.viewport().mapToGlobal(centre), left, held,
            Qt.KeyboardModifier.NoModifier,
        )  # fmt: skip
        QApplication.sendEvent(panel.viewport(), event)


def test_the_course_filter_is_shown_cleared_and_never_set_by_opening_a_course(
    qtbot: QtBot, two_courses: Library
) -> None:
    window = shown_window(qtbot, two_courses)
    chip = window.search_pane.filter_chip
    qtbot.waitUntil(lambda: window.panel.topLevelItemCount() == 2)
    # Clicking a file (to see it) or double-clicking a course (to open it) sets no filter.
    _click_row(window, "notes.md")
    assert window.search_pane.course_box.currentData() is None and not chip.isVisible()
    _click_row(window, "Botany", double=True)
    assert window.search_pane.course_box.currentData() is None and not chip.isVisible()
    # Picking the course row filters, and says so above the results.
    _click_row(window, "Zoology")
    assert window.search_pane.course_box.currentData() == "Zoology"
    assert chip.isVisible() and chip.label.text() == "Only in “Zoology”"
    # A filtered search that finds nothing says where it looked and offers every course.
    qtbot.keyClicks(window.search_pane.search, "acacia thorns")
    expected = "Nothing in “Zoology” matches “acacia thorns”."
    qtbot.waitUntil(lambda: window.search_pane.status.text() == expected, timeout=10_000)
    assert (
        window.search_pane.empty_note.isVisible()
        and "Search all courses" in window.search_pane.empty_note.text()
    )
    window.search_pane.empty_note.linkActivated.emit("all-courses")  # the link in the note
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.course == "Botany")
    assert window.search_pane.course_box.currentData() is None and not chip.isVisible()
    # The chip's own button clears the filter too.
    _click_row(window, "Zoology")
    assert chip.isVisible()
    qtbot.mouseClick(chip.clear_button, Qt.MouseButton.LeftButton)
    assert window.search_pane.course_box.currentData() is None and not chip.isVisible()
    assert not window.panel.selectedItems()


def test_weaker_matches_are_set_apart_and_stepped_over(
    qtbot: QtBot, demo_text_library: Library
) -> None:
    window = shown_window(qtbot, demo_text_library)
    qtbot.keyClicks(window.search_pane.search, "pivot")
    qtbot.waitUntil(lambda: window.search_pane.results.divider_row() is not None, timeout=10_000)
    divider = window.search_pane.results.divider_row()
    assert (
        divider is not None and window.search_pane.results.item(divider).text() == "Weaker matches"
    )
    assert window.result_at(divider) is None
    above = [window.result_at(i) for i in range(divider)]
    assert 2 <= len(above) <= 6 and all(r is not None and r.strong for r in above)
    assert all("pivot" in r.snippet.casefold() for r in above if r is not None)
    qtbot.waitUntil(lambda: window.search_pane.results.count() > divider + 3)
    below = [window.result_at(i) for i in range(divider + 1, window.search_pane.results.count())]
    assert all(r is not None and not r.strong for r in below)
    # Down from the last strong row lands on the first weaker one, not on the divider.
    window.search_pane.results.setCurrentRow(divider - 1)
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Down)
    assert window.search_pane.results.currentRow() == divider + 1
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Up)
    assert window.search_pane.results.currentRow() == divider - 1
    # A theme switched while it shows keeps it legible: the new palette's text colour.
    dark = QPalette(window.search_pane.results.palette())
    dark.setColor(QPalette.ColorRole.Text, QColor("#eeeeee"))
    dark.setColor(QPalette.ColorRole.Base, QColor("#202020"))
    window.search_pane.results.setPalette(dark)
    item = window.search_pane.results.item(divider)
    assert item.foreground().color() == QColor("#eeeeee")


@pytest.mark.parametrize("word", ["giraffe", "ZEPHYRUS"])
def test_one_word_in_nothing_gets_the_command_lines_answer_in_the_window(
    qtbot: QtBot, demo_text_library: Library, models_dir: Path, cli_main: InProcessCli, word: str
) -> None:
    """The window searches as the user types; the word being typed was left out of the early
    exit, so a one-word question had nothing left to gate and the nearest noise (a quicksort
    function) showed. A word no candidate's word starts with counts, as on the command line."""
    said = cli_main(demo_text_library.folder, models_dir, "search", "--", word)
    assert said.returncode == 0
    assert said.stdout.startswith(f"Nothing in your library is close to {word!r} "), said.stdout
    window = shown_window(qtbot, demo_text_library)
    pane = window.search_pane
    qtbot.keyClicks(pane.search, word)
    expected = f"Nothing in your library is close to “{word}”."
    qtbot.waitUntil(lambda: pane.status.text() == expected, timeout=10_000)
    assert pane.results.count() == 0 and pane.empty_note.text() == expected
    # A word still being typed that a word of the course starts with is not gated.
    pane.search.clear()
    qtbot.keyClicks(pane.search, "quicks")
    qtbot.waitUntil(lambda: pane.shown_query == "quicks", timeout=10_000)
    top = window.result_at(0)
    assert top is not None and "quicksort" in top.snippet.casefold()


def test_a_lecture_is_one_row_with_its_moments(qtbot: QtBot, two_courses: Library) -> None:
    window = shown_window(qtbot, two_courses)
    qtbot.keyClicks(window.search_pane.search, "textbook chapter lecture")
    qtbot.waitUntil(lambda: window.row_widget(0) is not None, timeout=10_000)
    qtbot.waitUntil(lambda: not window.search_pane.results._pending)
    rows = [window.result_at(i) for i in range(window.search_pane.results.count())]
    lecture_rows = [r for r in rows if r is not None and r.source.endswith("lecture.srt")]
    assert len(lecture_rows) == 1
    row = window.row_widget(rows.index(lecture_rows[0]))
    assert row is not None and len(row.moments) >= 1
    assert row.moment_links.isVisible()
    assert all(m.source == row.result.source for m in row.moments)
    starts = {at_moment(m).start_ms for m in row.moments} | {at_moment(row.result).start_ms}
    assert len(starts) == len(row.moments) + 1  # each moment a different time
    with qtbot.waitSignal(window.opened) as blocker:
        row.moment_links.linkActivated.emit(str(len(row.moments) - 1))  # the last moment's link
    assert blocker.args == [row.moments[-1]]

    # Dark, then Light: the links are the light theme's colour at once, not the dark one's
    # pale blue on white (issue 36, item 13).
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    results, lecture = window.search_pane.results, rows.index(lecture_rows[0])
    try:
        apply_theme(app, "dark")
        qtbot.waitUntil(lambda: is_dark(row.palette()))
        results.setCurrentRow(lecture)
        results.setCurrentRow(0 if lecture else 1)  # the row's links in the link colour
        dark_link = row.palette().color(QPalette.ColorRole.Link).name()
        assert dark_link in row.moment_links.text()
        apply_theme(app, "light")
        qtbot.waitUntil(lambda: not is_dark(row.palette()))
        light_link = row.palette().color(QPalette.ColorRole.Link).name()
        assert light_link != dark_link
        assert light_link in row.moment_links.text() and dark_link not in row.moment_links.text()
    finally:
        apply_theme(app, "light")


def test_the_count_names_the_lectures_and_files_its_rows_hold(
    qtbot: QtBot, two_courses: Library
) -> None:
    """ "12 results" above 3 rows misled (issue 24, item 9): a lecture's hits are one row."""
    window = shown_window(qtbot, two_courses)
    qtbot.keyClicks(window.search_pane.search, "textbook chapter lecture")
    qtbot.waitUntil(lambda: window.search_pane.status.text().endswith(" ms)"), timeout=10_000)
    qtbot.waitUntil(lambda: not window.search_pane.results._pending)
    rows = [window.result_at(i) for i in range(window.search_pane.results.count())]
    rows = [r for r in rows if r is not None]  # not the "Weaker matches" divider
    others = {r.source for r in rows if not r.source.endswith("lecture.srt")}
    status = window.search_pane.status.text()
    found = re.fullmatch(r"(\d+) results in (.+) \(\d+ ms\)", status)
    assert found, status
    assert int(found[1]) > len(rows)
    files = f" and {len(others)} file{'s' if len(others) > 1 else ''}" if others else ""
    assert found[2] == "1 lecture" + files, status


def test_count_line_nouns_and_plurals() -> None:
    def hit(source: str, kind: SourceKind) -> SearchResult:
        return SearchResult(
            segment_id=1, source=source, source_kind=kind, kind=SegmentKind.NOTE,
            course="C", title="t", heading="", place=WholeFile(), snippet="s",
            highlights=(), score=1.0, fulltext_rank=1, dense_rank=1,
        )  # fmt: skip

    video, deck, notes = SourceKind.VIDEO, SourceKind.SLIDES, SourceKind.NOTES
    assert count_line([hit("a.mp4", video)]) == "1 result"
    assert count_line([hit("a.md", notes), hit("b.md", notes)]) == "2 results"  # one row each
    lectures = [hit("a.mp4", video)] * 6 + [hit("b.srt", SourceKind.SUBTITLES)] * 4
    assert count_line(lectures) == "10 results in 2 lectures"
    mixed = [*lectures, hit("s.pdf", deck), hit("s.pdf", deck), hit("n.md", notes)]
    assert count_line(mixed) == "13 results in 2 lectures, 1 slide deck and 1 file"
    assert count_line([hit("a.mp4", video)] * 3) == "3 results in 1 lecture"


def test_a_speech_row_shows_the_slide_on_screen(
    qtbot: QtBot, tmp_path: Path, quick_library: Library
) -> None:
    deck = make_pdf(
        tmp_path / "slides.pdf", ["Sorting", "Merge sort\nsplit and merge"], slides=True
    )
    result = SearchResult(
        segment_id=1,
        source=str(tmp_path / "lecture.mp4"),
        source_kind=SourceKind.VIDEO,
        kind=SegmentKind.TRANSCRIPT,
        course="Algorithms",
        title="lecture",
        heading="",
        place=AtMoment(171_000, 180_000, slide=SlideOnScreen(str(deck), 2, "Merge sort")),
        snippet="Merge sort has a property that comes up in every interview.",
        highlights=(),
        score=1.0,
        fulltext_rank=1,
        dense_rank=1,
    )
    row = ResultRow(result, QIcon())
    qtbot.addWidget(row)
    assert "Slide 2 on screen: Merge sort (slides.pdf)" in row.text.text()
    image = thumbnail(result, quick_library)  # the slide's page, rendered
    assert image is not None and image.width() >= 160
    row.set_thumbnail(image)
    row.show()
    assert row.thumb.isVisible() and row.thumb.width() >= 160


def test_rows_are_shown_before_their_thumbnails_are_rendered(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    """A slide page's thumbnail is rendered after the rows are shown (it is not part of the
    search's time): the row keeps its place meanwhile, and the page then fills it."""
    (tmp_path / "Zoology").mkdir()
    deck = make_pdf(tmp_path / "Zoology" / "slides.pdf", ["Okapi", "The pangolin eats ants"])
    library.ingest([deck.parent])
    window = shown_window(qtbot, library)
    rendered_when_shown: list[bool] = []

    def rendered() -> bool:  # the deck's page among the images rendered in this process
        return any(Path(key[0]) == deck for key in list(pages._images._items))

    window.search_pane.results.model().rowsInserted.connect(
        lambda *_: rendered_when_shown.append(rendered())
    )
    qtbot.keyClicks(window.search_pane.search, "pangolin")
    qtbot.waitUntil(
        lambda: (
            (r := window.result_at(0)) is not None
            and isinstance(r.place, OnPage)
            and r.place.page == 2
        )
    )
    assert rendered_when_shown and not rendered_when_shown[0]
    row = window.row_widget(0)
    assert row is not None and row.thumb.isVisible()  # its place, kept for the page
    qtbot.waitUntil(lambda: not row.thumb.pixmap().isNull())
    assert rendered()


def test_up_in_an_empty_box_recalls_earlier_searches(qtbot: QtBot, two_courses: Library) -> None:
    window = shown_window(qtbot, two_courses)
    for query in ("giraffe neck", "acacia thorns"):
        window.search_pane.search.clear()
        qtbot.keyClicks(window.search_pane.search, query)
        with qtbot.waitSignal(window.opened, timeout=10_000):
            qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Return)
    window.search_pane.search.clear()
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Up)
    assert window.search_pane.search.text() == "acacia thorns"
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Up)
    assert window.search_pane.search.text() == "giraffe neck"
    qtbot.waitUntil(
        lambda: (r := window.result_at(0)) is not None and r.source.endswith("notes.md")
    )
    qtbot.keyClick(window.search_pane.search, Qt.Key.Key_Up)  # the oldest: it stays
    assert window.search_pane.search.text() == "giraffe neck"


def test_the_last_session_comes_back(qtbot: QtBot, two_courses: Library, tmp_path: Path) -> None:
    state = tmp_path / "config" / "window.ini"
    first = shown_window(qtbot, two_courses, window_state=state)
    first.resize(780, 560)  # the offscreen screen is 800 px wide
    qtbot.keyClicks(first.search_pane.search, "giraffe neck")
    with qtbot.waitSignal(first.opened, timeout=10_000):
        qtbot.keyClick(first.search_pane.search, Qt.Key.Key_Return)
    first.search_pane.search.clear()
    qtbot.keyClicks(first.search_pane.search, "acacia")
    qtbot.waitUntil(lambda: (r := first.result_at(0)) is not None and r.course == "Botany")
    first.splitter.setSizes([130, 290, 350])
    sizes = first.splitter.sizes()
    first.close()
    assert state.exists()

    again = shown_window(qtbot, two_courses, window_state=state)
    assert (again.width(), again.height()) == (780, 560)
    assert again.splitter.sizes() == sizes
    assert again.search_pane.search.text() == "acacia"
    qtbot.waitUntil(lambda: (r := again.result_at(0)) is not None and r.course == "Botany")
    assert again.search_pane.history.entries[-2:] == ["giraffe neck", "acacia"]


def test_a_question_typed_after_a_restart_replaces_the_last_one(
    qtbot: QtBot, two_courses: Library, tmp_path: Path
) -> None:
    """The last session's query comes back selected: it is searched and shown, and the first
    key typed starts a new question instead of adding to the old one."""
    state = tmp_path / "config" / "window.ini"
    first = shown_window(qtbot, two_courses, window_state=state)
    qtbot.keyClicks(first.search_pane.search, "acacia")
    qtbot.waitUntil(lambda: (r := first.result_at(0)) is not None and r.course == "Botany")
    first.close()

    again = shown_window(qtbot, two_courses, window_state=state)
    assert again.search_pane.search.text() == "acacia"
    assert again.focusWidget() is again.search_pane.search
    qtbot.keyClicks(again.search_pane.search, "giraffe neck")
    assert again.search_pane.search.text() == "giraffe neck"
    qtbot.waitUntil(lambda: (r := again.result_at(0)) is not None and r.course == "Zoology")


@pytest.mark.parametrize(("width", "height"), [(1024, 700), (1600, 1000)])
def test_panes_keep_readable_widths(
    qtbot: QtBot, two_courses: Library, width: int, height: int
) -> None:
    window = MainWindow(two_courses)
    qtbot.addWidget(window)
    window.resize(width, height)
    window.show()
    qtbot.waitExposed(window)
    panel, results, preview = window.splitter.sizes()
    assert panel >= 140 and results >= 300 and preview >= 340, window.splitter.sizes()
    assert preview > results > panel  # the video and its transcript get the most room
    qtbot.keyClicks(window.search_pane.search, "giraffe")
    qtbot.waitUntil(lambda: window.row_widget(0) is not None, timeout=10_000)
    row = window.row_widget(0)
    assert row is not None and row.text.width() >= 180  # a column of words, not of letters


def test_the_status_line_keeps_its_height(qtbot: QtBot, two_courses: Library) -> None:
    window = shown_window(qtbot, two_courses)
    window.resize(1024, 700)
    qtbot.keyClicks(window.search_pane.search, "giraffe")
    qtbot.waitUntil(lambda: "ms)" in window.search_pane.status.text(), timeout=10_000)
    qtbot.wait(50)
    before = (window.search_pane.status.height(), window.search_pane.results.height())
    # A message as long as a failed search's (a model that cannot load, a long query).
    long = "The search model could not load: " + "a long reason " * 12
    window.search_pane.status.setText(long)
    qtbot.wait(50)
    assert (window.search_pane.status.height(), window.search_pane.results.height()) == before
    assert window.search_pane.status.toolTip() == long  # whole, where two lines cannot hold it


def test_click_on_a_course_arrow_only_opens_it(qtbot: QtBot, two_courses: Library) -> None:
    window = shown_window(qtbot, two_courses)
    qtbot.waitUntil(lambda: window.panel.topLevelItemCount() == 2)
    item = window.panel.findItems("Zoology", Qt.MatchFlag.MatchExactly)[0]
    item.setExpanded(False)
    rect = window.panel.visualItemRect(item)
    arrow = QPoint(rect.x() - window.panel.indentation() // 2, rect.center().y())
    QTest.mouseClick(window.panel.viewport(), Qt.MouseButton.LeftButton, pos=arrow)
    assert item.isExpanded() and window.search_pane.course_box.currentData() is None


def test_a_result_rows_menu_copies_its_link_and_a_quote_with_its_time(
    qtbot: QtBot, two_courses: Library, tmp_path: Path
) -> None:
    """Issue 16: the result menu has Copy link and Copy quote with time; the link carries
    the moment and the file's hash (what finds the file after a move: tests/app/
    test_links_window.py opens such links)."""
    window = shown_window(qtbot, two_courses)
    qtbot.keyClicks(window.search_pane.search, "hippopotamus")
    qtbot.waitUntil(lambda: (r := window.result_at(0)) is not None and r.source.endswith(".srt"))
    hit = window.result_at(0)
    assert hit is not None
    at = at_moment(hit).start_ms
    menu = window.search_pane.results.row_menu(0)
    assert menu is not None
    actions = {a.text(): a for a in menu.actions() if a.text()}
    assert list(actions) == ["Open", "Copy link", "Copy quote with time", "Add note here…"]
    actions["Copy link"].trigger()
    link = QApplication.clipboard().text()
    parsed = parse_link(link)
    assert parsed.source == hit.source and parsed.start_ms == at
    assert parsed.sha256 == two_courses.source(hit.source).sha256  # type: ignore[union-attr]
    actions["Copy quote with time"].trigger()
    quote = QApplication.clipboard().text()
    assert clock(at) in quote and quote.endswith(link)
    assert "hippopotamus" in quote.lower()


def test_a_library_refresh_keeps_what_the_window_just_said(
    qtbot: QtBot, two_courses: Library, tmp_path: Path
) -> None:
    """The status said "Opened …" (a link, a lecture from the panel) and the refresh that
    follows an import or a removal replaced it with the library's size."""
    window = shown_window(qtbot, two_courses)
    qtbot.waitUntil(lambda: window.search_pane.status.text() == "3 files in the library")
    (tmp_path / "Botany" / "roots.md").write_text("# Roots\n\nRoots take up water.\n")
    two_courses.ingest([tmp_path / "Botany"])
    window.refresh_library()  # while idle, the size follows the library
    qtbot.waitUntil(lambda: window.search_pane.status.text() == "4 files in the library")
    window.search_pane.status.setText("Opened lecture at 00:42")
    reads: list[object] = []
    window.refresh_library()
    window.tasks.run(lambda: None, reads.append)  # one worker: done after the refresh
    qtbot.waitUntil(lambda: bool(reads))
    qtbot.wait(50)
    assert window.search_pane.status.text() == "Opened lecture at 00:42"


def test_a_long_status_ends_in_an_ellipsis_on_its_second_line_and_is_whole_in_its_tooltip(
    qtbot: QtBot,
) -> None:
    status = StatusLine()
    qtbot.addWidget(status)
    status.setWordWrap(True)
    status.resize(300, status.fontMetrics().lineSpacing() * StatusLine.LINES + 4)
    status.show()
    long = "1 result (3 ms). Keyword matches only: " + "the search model is damaged " * 12
    status.setText(long)
    shown = QLabel.text(status)  # what the label draws
    assert shown.count("\n") == 1 and shown.endswith("…"), shown
    assert all(status.fontMetrics().horizontalAdvance(line) <= 300 for line in shown.split("\n"))
    assert (status.text(), status.toolTip()) == (long, long)
    status.resize(3000, status.height())  # wide enough: the whole text again, no tooltip
    assert (QLabel.text(status), status.toolTip()) == (long, "")
    status.setText("2 results (4 ms)")
    assert (QLabel.text(status), status.toolTip()) == ("2 results (4 ms)", "")
