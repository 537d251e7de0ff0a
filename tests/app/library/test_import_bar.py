"""The import bar as a user meets it (issue 24): Resume offered at once after a cancel
(item 4), one bar that only grows with a time left that means something (item 5), and a
status line that counts the files that failed, with their list one click away (item 9); a
copy of a file another course holds says where it is (issue 36, item 9).

Real widgets, a real library, real files: notes, broken PDFs, and a spoken video that is
transcribed (tiny.en), cut into scenes and read for on-screen text.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from app.library.import_bar import elided
from app.library.rows import NOT_INDEXED
from app.window import MainWindow
from engine.api import (
    IngestProgress,
    IngestReport,
    Library,
    Outcome,
    SourceStatus,
    Stage,
    outcome_counts,
)
from tests.app.media import PlayerMedia
from tests.app.ui import on_next_modal
from tools.lecture_media import make_audio


def shown(qtbot: QtBot, library: Library) -> MainWindow:
    window = MainWindow(library)
    qtbot.addWidget(window)
    window.show()
    return window


def notes(folder: Path, n: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for i in range(n):
        path = folder / f"week-{i}.md"
        path.write_text(f"# Week {i}\n\nThe lichen sample number {i} grows on granite.\n")
        made.append(path)
    return made


# --- item 4: Resume right after a cancel ----------------------------------------------------


def test_a_cancelled_import_offers_resume_at_once(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    files = notes(tmp_path / "Lichens", 5)
    window = shown(qtbot, library)
    bar = window.import_bar

    with qtbot.waitSignal(window.imported, timeout=60_000) as ended:
        window.import_paths([tmp_path / "Lichens"])
        # At once, in the same turn of the event loop: the import has not finished its
        # files (cancelling on the first file's result, as before, raced an import that
        # had already ended on a loaded machine: 0 cancelled).
        assert window.importing
        bar.cancel()
    report = ended.args[0] if ended.args else None
    assert isinstance(report, IngestReport)
    n, done = report.count(Outcome.CANCELLED), report.count(Outcome.INDEXED)
    assert n >= 1 and n + done == 5  # the cancel reaches the import between files
    qtbot.waitUntil(lambda: bar.offering, timeout=10_000)
    assert bar.resume_button.isVisible()
    assert f"Import cancelled: {', '.join(outcome_counts(report))}." in bar.status.text()
    assert f"{n} cancelled" in bar.status.text()
    assert "can be resumed" in bar.status.text()
    # The panel's row says where to resume it, and the bar does offer it.
    stopped = next(f.path for f in report.files if f.outcome == Outcome.CANCELLED)
    qtbot.waitUntil(lambda: window.panel.state_of(stopped) == NOT_INDEXED, timeout=10_000)
    row = window.panel.item_of(stopped)
    assert row is not None and "when the bar offers it (after a cancel" in row.toolTip(1)
    with qtbot.waitSignal(window.imported, timeout=60_000) as resumed:
        bar.resume_button.click()
    again = resumed.args[0] if resumed.args else None
    assert isinstance(again, IngestReport) and again.count(Outcome.INDEXED) == n
    assert not bar.offering
    states = {s.path: s.status for s in library.sources()}
    assert all(states[str(f)] == SourceStatus.INDEXED for f in files)


# --- item 5: one bar, a time left that means something ---------------------------------------


def test_the_bar_only_grows_and_never_says_zero_left(
    qtbot: QtBot, library: Library, media: PlayerMedia, tmp_path: Path
) -> None:
    course = tmp_path / "Lecture"
    course.mkdir()
    video = course / "lecture.mp4"
    video.write_bytes(media.video.read_bytes())
    notes(course, 2)
    window = shown(qtbot, library)
    bar = window.import_bar
    seen: list[tuple[int, str, IngestProgress]] = []
    bar.progress_reported.connect(
        lambda p: seen.append((bar.progress.value(), bar.status.text(), p))
    )
    with qtbot.waitSignal(window.imported, timeout=300_000) as ended:
        window.import_paths([course])
    report = ended.args[0] if ended.args else None
    assert isinstance(report, IngestReport) and report.count(Outcome.INDEXED) == 3
    stages = {p.stage for _, _, p in seen}
    assert {Stage.TRANSCRIBING, Stage.FINDING_SCENES} <= stages, stages
    values = [value for value, _, _ in seen]
    assert values == sorted(values), "the bar never falls back when a stage starts"
    lines = [line for _, line, _ in seen]
    assert not any("00:00" in line for line in lines)
    assert "left" not in lines[0], "no time left before any work is done"
    # The panel's helper shows the file's own share on its row: it grows across stages too.
    rows = [p.file_fraction for _, _, p in seen if p.path == str(video) and p.result is None]
    assert rows and all(f is not None for f in rows)
    assert rows == sorted(rows)  # type: ignore[type-var]


# --- item 9: several errors on the status line ------------------------------------------------


def test_several_errors_are_counted_and_listed_on_demand(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "Broken"
    notes(course, 1)
    long_name = "lecture-" + "x" * 80 + "-week-12-final.pdf"
    broken = [course / long_name, course / "short.pdf", course / "empty.txt"]
    broken[0].write_bytes(b"%PDF-1.4 nothing else")
    broken[1].write_bytes(b"%PDF-1.4 nothing else")
    broken[2].write_bytes(b"")
    window = shown(qtbot, library)
    bar = window.import_bar
    with qtbot.waitSignal(window.imported, timeout=60_000):
        window.import_paths([course])
    status = bar.status.text()
    assert "3 files could not be imported" in status, status
    assert long_name not in status, "no file name hides the count"
    assert bar.errors_button.isVisible() and "3 errors" in bar.errors_button.text()
    bar.errors_button.click()
    dialog = bar.errors_dialog
    assert dialog is not None and dialog.isVisible()
    text = dialog.text.toPlainText()
    for path in broken:
        assert path.name in text
    assert text.count("not a PDF file") == 2
    assert dialog.text.isReadOnly()
    dialog.text.selectAll()
    assert dialog.text.textCursor().selectedText().replace("\u2029", "\n") == text
    dialog.copy_button.click()
    assert QGuiApplication.clipboard().text() == text


def test_one_error_names_its_file_cut_in_the_middle(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "One"
    notes(course, 1)
    long_name = "lecture-" + "y" * 80 + "-week-12-final.pdf"
    (course / long_name).write_bytes(b"%PDF-1.4 nothing else")
    window = shown(qtbot, library)
    with qtbot.waitSignal(window.imported, timeout=60_000):
        window.import_paths([course])
    status = window.import_bar.status.text()
    assert f"{elided(long_name)}: " in status and "not a PDF file" in status
    assert elided(long_name).startswith("lecture-y") and elided(long_name).endswith("final.pdf")
    assert "…" in elided(long_name) and len(elided(long_name)) == 40


# --- item 6: removing what is being imported ---------------------------------------------

# About half a minute of speech: the import is still busy with it when the video stops. Four
# different sentences (one said four times sent Whisper through its fallback temperatures).
TALK = (
    "A sorting algorithm puts the items of a list in order, and merge sort does it by "
    "splitting the list in halves and merging the sorted halves. "
    "Insertion sort takes one card at a time and slides it left until the hand is ordered "
    "again, which is quick for a list that is almost sorted. "
    "Quicksort chooses a pivot, moves the smaller keys before it and the larger ones after it, "
    "then sorts both sides the same way. "
    "Counting sort never compares two keys: it counts how often each small number occurs and "
    "writes them out in order."
)


@pytest.fixture(scope="module")
def talk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("talk") / "b-talk.wav"
    make_audio(path, TALK)
    return path


def lecture_course(folder: Path, media: PlayerMedia, talk: Path) -> Path:
    """A course of a note, a spoken video (27 s) and a talk (~30 s), read in that order."""
    notes(folder, 1)
    video = folder / "a-lecture.mp4"
    video.write_bytes(media.video.read_bytes())
    (folder / talk.name).write_bytes(talk.read_bytes())
    return video


def remove_when_transcribing(window: MainWindow, path: Path) -> list[IngestProgress]:
    """Remove ``path`` with the panel's action once its transcription is under way; the
    reports of it that follow are kept."""
    after: list[IngestProgress] = []

    def look(p: IngestProgress) -> None:
        if p.path != str(path):
            return
        if not after and p.stage == Stage.TRANSCRIBING:
            window.library_actions.remove(str(path), False, confirm=False)
        if after or p.stage == Stage.TRANSCRIBING:
            after.append(p)

    window.import_bar.progress_reported.connect(look)
    return after


def stopped_while_importing(qtbot: QtBot, window: MainWindow) -> None:
    bar = window.import_bar
    qtbot.waitUntil(lambda: "its import stopped" in bar.status.text(), timeout=120_000)
    assert window.importing, "the talk is still being imported"


def test_removing_a_file_being_imported_stops_it_and_says_so(
    qtbot: QtBot, quick_library: Library, media: PlayerMedia, talk: Path, tmp_path: Path
) -> None:
    video = lecture_course(tmp_path / "Sorting", media, talk)
    window = shown(qtbot, quick_library)
    bar = window.import_bar
    after = remove_when_transcribing(window, video)
    with qtbot.waitSignal(window.imported, timeout=300_000) as ended:
        window.import_paths([tmp_path / "Sorting"])
        stopped_while_importing(qtbot, window)
        line = "“a-lecture.mp4” removed from the library: its import stopped there"
        assert line in bar.status.text()
        # A quit now would promise a resume for the talk only, not for the video.
        assert "1 file not imported yet is offered" in window.quit_question()
    report = ended.args[0] if ended.args else None
    assert isinstance(report, IngestReport)
    assert {Path(f.path).name: f.outcome for f in report.files} == {
        "week-0.md": Outcome.INDEXED,
        "a-lecture.mp4": Outcome.REMOVED,
        "b-talk.wav": Outcome.INDEXED,
    }
    assert "1 removed" in bar.status.text() and not bar.offering
    assert not any((p.stage_fraction or 0) >= 0.99 for p in after if p.result is None)
    qtbot.waitUntil(lambda: window.panel.item_of(str(video)) is None, timeout=10_000)
    assert str(video) not in {s.path for s in quick_library.sources()}


def test_quitting_after_a_removal_promises_only_real_resumes(
    qtbot: QtBot, quick_library: Library, media: PlayerMedia, talk: Path, tmp_path: Path
) -> None:
    video = lecture_course(tmp_path / "Sorting", media, talk)
    later = notes(tmp_path / "Later", 1)[0]
    window = shown(qtbot, quick_library)
    remove_when_transcribing(window, video)
    window.import_paths([tmp_path / "Sorting"])
    stopped_while_importing(qtbot, window)
    window.import_paths([later])  # waits its turn: not queued in the library yet
    asked: list[str] = []

    def answer_yes(box: QMessageBox) -> None:
        asked.append(box.text())
        box.button(QMessageBox.StandardButton.Yes).click()

    on_next_modal(QMessageBox, answer_yes)
    window.close()
    (question,) = asked
    assert "1 file not imported yet is offered for resuming at the next start" in question
    assert "1 item waiting for it is not imported" in question
    sources = {s.path: s.status for s in quick_library.sources()}
    assert str(video) not in sources, "the removed video is gone, nothing of it to resume"
    assert sources[str(tmp_path / "Sorting" / "b-talk.wav")] in (
        SourceStatus.QUEUED,
        SourceStatus.INDEXING,
    ), "the talk is what the next start offers to resume"


# --- issue 36, item 9: a file the library holds already, imported into another course ---------


def test_a_file_already_in_another_course_says_where_in_its_row_and_on_the_status_line(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    """The library keeps a content once, in one course: a copy of a Botany note imported into
    Review is not listed there; its row says, while the import runs, which course has it
    (the file holding it in its tooltip), and so does the status line once it ends."""
    [kept] = notes(tmp_path / "Botany", 1)
    library.ingest([kept.parent])
    review = tmp_path / "Review"
    [new] = notes(review, 1)
    new.write_text("# Revision\n\nMosses hold water like sponges.\n")
    copy = review / "lichens again.md"
    copy.write_bytes(kept.read_bytes())
    cancelled = threading.Event()
    cancelled.set()
    library.ingest([review], cancel=cancelled)  # Review's rows wait, not indexed: shown at once
    window = shown(qtbot, library)
    panel = window.panel
    qtbot.waitUntil(lambda: panel.state_of(str(copy)) == NOT_INDEXED)
    seen: list[tuple[str | None, str]] = []

    def look(p: IngestProgress) -> None:  # after the window has shown the same report
        if p.path == str(copy) and p.result is not None:
            row = panel.item_of(str(copy))
            seen.append((panel.state_of(str(copy)), "" if row is None else row.toolTip(1)))

    window.import_bar.progress_reported.connect(look)
    with qtbot.waitSignal(window.imported, timeout=60_000) as ended:
        window.import_paths([review])
    report = ended.args[0] if ended.args else None
    assert isinstance(report, IngestReport) and report.count(Outcome.DUPLICATE) == 1
    assert seen == [
        (
            "already in “Botany”",
            f"lichens again.md: already in “Botany”: same content as {kept}, listed there once",
        )
    ]
    assert window.import_bar.status.text() == (
        "Import finished: 1 indexed, 1 duplicate. lichens again.md is already in the library, "
        f"in the course “Botany” (same content as {kept}): it is listed there, once"
    )
    qtbot.waitUntil(lambda: panel.item_of(str(copy)) is None)  # one copy, one place
    assert panel.state_of(str(new)) == "indexed" and panel.state_of(str(kept)) == "indexed"
