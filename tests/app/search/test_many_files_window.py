"""A folder of 300 short notes imported through the window while the student types (issue
23: one typed letter took 10 to 25 s to show, because each file started or done re-read the
whole library and rebuilt every row of the panel). The search answers during the import, the
panel shows each file's state as it goes, and it follows row by row: a row, once shown, stays
the same row. The results follow it in whole frames, the row being read staying put (issue
36, item 12). No timing is asserted."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from app.search.result_list import ResultList
from app.window import MainWindow
from engine.api import IngestProgress, IngestReport, Library, Outcome, SearchResult

NOTES = 300
TOPICS = ("merge sort is stable", "binary search halves the range", "heaps keep the minimum")
FIRST_WORDS = (
    "Binary search halves the sorted range at each step.",
    "A binary search needs the array sorted first.",
    "Binary search compares the middle element with the key.",
    "Binary search runs in logarithmic time.",
    "Searching a sorted list: binary search beats a linear scan.",
    "Binary search finds the first position where a key could go.",
    "An off-by-one error is the classic bug in binary search.",
    "Binary search on the answer: guess a value and test it.",
    "Bisection is binary search on a continuous function.",
    "Binary search trees keep keys in order for searching.",
)
LATER_WORDS = (
    "Binary search: binary search halves the range; binary search is fast.",
    "Binary search of a rotated array finds the pivot first.",
    "Exponential search doubles the bound, then binary search finishes.",
    "Binary search in Python: the bisect module.",
    "Interpolation search guesses better than binary search on even data.",
)


class PaintedRows(QObject):
    """How many result rows the results list holds each time it is painted, and how many
    times it was painted with some rows of its result set still to come."""

    def __init__(self, results: ResultList) -> None:
        super().__init__(results)
        self.results = results
        self.counts: list[int] = []
        self.partial = 0
        results.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            rows = range(self.results.count())
            self.counts.append(sum(1 for r in rows if self.results.result_at(r) is not None))
            self.partial += self.results.filling
        return False


def test_300_notes_import_while_the_search_answers_and_the_panel_follows(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    giraffe = tmp_path / "Zoology" / "giraffe.md"
    giraffe.parent.mkdir()
    giraffe.write_text("# Giraffes\n\nThe giraffe has a long neck and eats acacia leaves.\n")
    library.ingest([giraffe.parent])
    folder = tmp_path / "Week notes"
    folder.mkdir()
    notes = [str(folder / f"note-{i:03}.md") for i in range(NOTES)]
    for i, path in enumerate(notes):
        Path(path).write_text(f"# Note {i}\n\nNote {i}: {TOPICS[i % len(TOPICS)]}.\n")
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.show()
    panel = window.panel
    qtbot.waitUntil(lambda: panel.item_of(str(giraffe)) is not None)
    untouched = panel.item_of(str(giraffe))
    first_rows: dict[str, QTreeWidgetItem] = {}  # each note's row when first seen
    midway: list[str | None] = []  # every note's state when the import is half done

    def look(p: IngestProgress) -> None:  # after the window has heard of the same report
        row = panel.item_of(p.path)
        if row is not None:
            first_rows.setdefault(p.path, row)
        if p.index == NOTES // 2 and not midway:
            midway.extend(panel.state_of(path) for path in notes)

    window.import_bar.progress_reported.connect(look)
    painted = PaintedRows(window.search_pane.results)
    with qtbot.waitSignal(window.imported, timeout=600_000) as ended:
        window.import_paths([folder])
        qtbot.waitUntil(lambda: panel.state_of(notes[-1]) == "queued", timeout=60_000)
        qtbot.keyClicks(window.search_pane.search, "binary search")
        qtbot.waitUntil(lambda: window.search_pane.shown_query == "binary search", timeout=120_000)
        answered_while_importing = window.importing
    report = ended.args[0] if ended.args else None
    assert isinstance(report, IngestReport) and report.count(Outcome.INDEXED) == NOTES
    assert answered_while_importing  # the results came before the import's end

    # Half way, the panel showed the files done and the files waiting, each in its row.
    assert midway.count("indexed") >= NOTES // 4, midway
    assert midway.count("queued") >= NOTES // 4, midway
    assert None not in midway
    qtbot.waitUntil(lambda: all(panel.state_of(path) == "indexed" for path in notes))
    course = panel.item_of("Week notes")
    assert course is not None and course.text(1) == f"{NOTES} files"
    # Row by row: the rows were updated in place, never rebuilt.
    assert panel.item_of(str(giraffe)) is untouched
    assert len(first_rows) == NOTES
    assert all(panel.item_of(path) is row for path, row in first_rows.items())
    qtbot.waitUntil(
        lambda: (r := window.search_pane.result_at(0)) is not None and "Note" in r.title
    )
    # Issue 36, item 12: the results followed the import in whole frames, never a few rows.
    assert painted.counts and not painted.partial, painted.counts


def test_the_row_being_read_stays_put_while_an_import_adds_results(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    """Issue 36, item 12: the results of a search follow an import without moving the row the
    student reads (the same result stays current, at the same height on screen), and every
    frame of the list shows a whole set of results, never the first few rows of one."""
    first, later = tmp_path / "Searching", tmp_path / "More searching"
    for folder, words in ((first, FIRST_WORDS), (later, LATER_WORDS)):
        folder.mkdir()
        for i, text in enumerate(words):
            (folder / f"{folder.name} {i}.md").write_text(f"# Binary search {i}\n\n{text}\n")
    library.ingest([first])
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.resize(1000, 600)  # the list scrolls
    window.show()
    qtbot.waitExposed(window)
    pane, results = window.search_pane, window.search_pane.results
    opened: list[SearchResult] = []
    window.opened.connect(opened.append)
    qtbot.keyClicks(pane.search, "binary search")
    qtbot.keyClick(pane.search, Qt.Key.Key_Return)  # before its results: the top hit opens
    qtbot.waitUntil(lambda: bool(opened) and not results.filling)
    assert opened == [results.result_at(0)]
    shown = sum(1 for r in range(results.count()) if results.result_at(r) is not None)
    assert shown == len(FIRST_WORDS)
    for _ in range(4):
        qtbot.keyClick(pane.search, Qt.Key.Key_Down)
    reading = results.currentRow()
    read = results.result_at(reading)
    assert reading >= 4 and read is not None
    top = results.visualItemRect(results.item(reading)).top()
    painted = PaintedRows(results)
    with qtbot.waitSignal(window.imported, timeout=120_000):
        window.import_paths([later])
    qtbot.waitUntil(
        lambda: (
            not results.filling
            and any(
                (r := results.result_at(i)) is not None and r.course == later.name
                for i in range(results.count())
            )
        )
    )
    now = results.result_at(results.currentRow())
    assert now is not None and (now.source, now.segment_id) == (read.source, read.segment_id)
    assert results.visualItemRect(results.currentItem()).top() == top
    assert painted.counts and min(painted.counts) >= shown, painted.counts
    qtbot.keyClick(pane.search, Qt.Key.Key_Return)  # opens the row being read
    assert opened[-1].segment_id == read.segment_id
