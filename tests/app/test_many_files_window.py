"""A folder of 300 short notes imported through the window while the student types (issue
23: one typed letter took 10 to 25 s to show, because each file started or done re-read the
whole library and rebuilt every row of the panel). The search answers during the import, the
panel shows each file's state as it goes, and it follows row by row: a row, once shown, stays
the same row. No timing is asserted."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from app.window import SearchWindow
from engine.api import IngestProgress, IngestReport, Library, Outcome

NOTES = 300
TOPICS = ("merge sort is stable", "binary search halves the range", "heaps keep the minimum")


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
    window = SearchWindow(library)
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
