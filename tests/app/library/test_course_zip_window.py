"""A platform's "Download all" zip dropped on the window (issue 35, item 1): the library
panel lists its files at their places in the zip, under the course the zip names, and the
import bar names the files it did not import. Real widgets, a real library, a real
Moodle-shaped zip (tools/course_zips.py) with a video and its subtitles."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from app.library.import_bar import report_text
from app.window import MainWindow
from engine.api import IngestReport, Library
from tests.app.ui import drop
from tools.course_zips import MOODLE_COURSE, make_moodle_zip


def test_a_dropped_course_zip_shows_its_files_at_their_places_and_names_the_rest(
    qtbot: QtBot, quick_library: Library, tmp_path: Path
) -> None:
    archive = make_moodle_zip(tmp_path / "CS101.zip", tmp_path / "work")
    window = MainWindow(quick_library)
    qtbot.addWidget(window)
    window.show()

    with qtbot.waitSignal(window.imported, timeout=120_000) as ended:
        drop(window, [archive])

    assert ended.args is not None and isinstance(ended.args[0], IngestReport)
    course = window.panel.item_of_course(MOODLE_COURSE)
    assert course is not None
    children = [course.child(i) for i in range(course.childCount())]
    rows = {row.text(0): row.text(1) for row in children if row is not None}
    assert rows["Week 1/Graphs slides.pdf"] == "indexed"
    assert rows["Week 2/recording.mp4"] == "indexed"
    assert rows["Week 2/lab2-code.zip"] == "indexed"
    assert rows["Week 3/broken.pdf"] == "error"
    assert "Week 2/recording.srt" not in rows  # the video's transcript, not a file of its own
    status = window.import_bar.status.text()
    assert "2 files in CS101.zip not imported: Week 3/broken.pdf, Week 3/grades.xyz" in status
    window.import_bar.errors_button.click()
    listed = window.import_bar.errors_dialog
    assert listed is not None
    text = listed.text.toPlainText()
    assert (
        "grades.xyz\n    not a kind of file Coursedex reads (.xyz)\n    in the archive CS101.zip"
        in text
    )


def test_the_status_line_counts_the_other_files_that_failed_beside_a_zips(
    quick_library: Library, tmp_path: Path
) -> None:
    folder = tmp_path / "Algorithms"
    folder.mkdir()
    make_moodle_zip(folder / "CS101.zip", tmp_path / "work")
    (folder / "loose.pdf").write_bytes(b"%PDF-1.4 not really")

    report = quick_library.ingest([folder])

    assert report_text(report).endswith(
        "2 files in CS101.zip not imported: CS101.zip/CS101 Algorithms/Week 3/broken.pdf, "
        "CS101.zip/CS101 Algorithms/Week 3/grades.xyz. 1 other file could not be imported"
    )
