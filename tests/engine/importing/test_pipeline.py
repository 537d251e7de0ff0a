"""The import pipeline registers each file once: its course and its row are written when the
job is queued (so a later start resumes it), and not again while the file is read and
committed (they were written three times per file before)."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from engine.importing.pipeline import CHANGED_WHILE_READ, VANISHED_WHILE_READ
from engine.importing.progress import IngestProgress, Outcome, Stage
from engine.library import Library
from tools.lecture_media import make_audio


def test_each_file_is_registered_once(library: Library, tmp_path: Path) -> None:
    folder = tmp_path / "Zoo"
    folder.mkdir()
    (folder / "a.md").write_text("# Giraffes\n\nThe giraffe eats acacia leaves.\n")
    (folder / "b.md").write_text("# Okapi\n\nThe okapi is a giraffe of the forest.\n")
    statements: list[str] = []
    stages: list[str] = []
    library.store.conn.set_trace_callback(statements.append)
    try:
        report = library.ingest([folder], progress=lambda p: stages.append(p.stage))
    finally:
        library.store.conn.set_trace_callback(None)
    assert report.count(Outcome.INDEXED) == 2
    written = [s for s in statements if s.lstrip().upper().startswith("INSERT INTO SOURCES")]
    assert len(written) == 2, written
    assert stages == [Stage.READING, Stage.EMBEDDING, Stage.DONE] * 2


def test_a_folder_is_queued_whole_or_not_at_all(library: Library, tmp_path: Path) -> None:
    """Another reader (the window's panel, another process) never sees a folder's files half
    queued: the window opened a 25-file course as a course of few files when it read it
    between two of them. Each time a file is registered, a second connection counts what is
    committed: none until the last is in."""
    folder = tmp_path / "Lecture notes"
    folder.mkdir()
    for i in range(25):
        (folder / f"note-{i:02}.md").write_text(f"# Note {i}\n\nThe giraffe number {i}.\n")
    reader = sqlite3.connect(library.folder / "library.db")
    seen: list[int] = []

    def count(statement: str) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO SOURCES"):
            seen.append(reader.execute("SELECT count(*) FROM sources").fetchone()[0])

    library.store.conn.set_trace_callback(count)
    try:
        report = library.ingest([folder])
    finally:
        library.store.conn.set_trace_callback(None)
        reader.close()
    assert report.count(Outcome.INDEXED) == 25
    assert len(seen) == 25 and set(seen) == {0}, seen


def test_each_file_reports_the_time_of_its_stages(library: Library, tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Giraffes\n\nThe giraffe eats acacia leaves.\n")
    report = library.ingest([notes])
    (result,) = report.files
    stages = dict(result.stages)
    assert list(stages) == [Stage.READING, Stage.EMBEDDING]
    assert all(seconds >= 0 for seconds in stages.values())
    assert sum(stages.values()) <= report.seconds


def test_one_recognition_child_hears_every_file_of_an_import(
    library: Library, tmp_path: Path
) -> None:
    folder = tmp_path / "Podcasts"
    folder.mkdir()
    make_audio(folder / "a.mp3", "Today we talk about recursion and the call stack.")
    make_audio(folder / "b.mp3", "The shortest path between two cities is found with a graph.")
    children: dict[str, set[int]] = {}

    def progress(p: IngestProgress) -> None:
        if p.stage == Stage.TRANSCRIBING:
            alive = {c.pid for c in multiprocessing.active_children() if c.pid is not None}
            children.setdefault(Path(p.path).name, set()).update(alive)

    report = library.ingest([folder], progress=progress)
    assert report.count(Outcome.INDEXED) == 2, report.files
    assert set(children) == {"a.mp3", "b.mp3"}
    assert len(children["a.mp3"]) == 1 and children["a.mp3"] == children["b.mp3"], children
    assert not multiprocessing.active_children(), "the child ends with the import"
    hit = library.search("shortest path between cities").results[0]
    assert hit.source == str(folder / "b.mp3")


def test_a_file_written_while_it_is_read_is_not_indexed_with_the_hash_of_another_version(
    library: Library, tmp_path: Path
) -> None:
    """Its hash was of the version before (CI: an empty .m4a was then a 'duplicate' of a note
    hashed while it was being rewritten and empty)."""
    audio = tmp_path / "lecture.wav"
    make_audio(audio, "Today we talk about recursion and the call stack.")
    saved: list[int] = []

    def progress(p: IngestProgress) -> None:
        if p.stage == Stage.TRANSCRIBING and not saved:  # the user saves a new version
            saved.append(make_audio(audio, "Graphs join nodes with edges, and trees are graphs."))

    (result,) = library.ingest([audio], progress=progress).files
    assert saved
    assert (result.outcome, result.detail) == (Outcome.ERROR, CHANGED_WHILE_READ)
    (again,) = library.ingest([audio]).files  # once saved, it imports
    assert again.outcome == Outcome.INDEXED
    assert library.search("graphs join nodes with edges").results[0].source == str(audio)


@pytest.mark.parametrize("when", ["before it is opened", "while it is transcribed"])
def test_a_file_deleted_while_it_is_read_is_said_to_be_gone(
    library: Library, tmp_path: Path, when: str
) -> None:
    """Not "it changed while it was read (still being saved?)": nothing is being saved, the
    file is gone (issue 25, item 8). Deleted before the speech recognizer opened it (its
    reader's error was "No such file") or after (it reads on, then the file is not there)."""
    audio = tmp_path / "lecture.wav"
    make_audio(
        audio,
        "Today we talk about recursion and the call stack. Each call waits for the next one. "
        "The stack grows until the base case returns, then it unwinds one frame at a time.",
    )
    seen: list[float | None] = []

    def progress(p: IngestProgress) -> None:
        if p.stage != Stage.TRANSCRIBING or not audio.exists():
            return
        seen.append(p.file_fraction)
        if when == "before it is opened" or (p.file_fraction or 0) > 0:
            audio.unlink()  # the user deletes it

    (result,) = library.ingest([audio], progress=progress).files
    assert not audio.exists(), seen
    assert (result.outcome, result.detail) == (Outcome.ERROR, VANISHED_WHILE_READ)
    assert "gone" in VANISHED_WHILE_READ and "changed" not in VANISHED_WHILE_READ
    assert library.search("recursion and the call stack").results == []
