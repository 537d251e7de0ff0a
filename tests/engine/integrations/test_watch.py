"""Watch folders: a file dropped into a followed course folder becomes searchable without any
click; a changed one is indexed again; a removed one is reported missing and kept."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from engine.errors import NotFoundError
from engine.importing.progress import Outcome
from engine.integrations.watch import FolderWatcher, WatchReport, followed
from engine.library import Library

WAIT_S = 120.0  # a bound for a slow machine, not a timing claim


def _found(library: Library, query: str, path: Path) -> bool:
    return any(r.source == str(path) for r in library.search(query, limit=5).results)


@pytest.fixture
def course(tmp_path: Path, library: Library) -> Path:
    folder = tmp_path / "Zoology"
    folder.mkdir()
    (folder / "week1.md").write_text("# Week one\n\nThe okapi lives in the forest.\n")
    library.ingest([folder])
    return folder


def test_a_file_dropped_into_a_followed_folder_becomes_searchable(
    library: Library, course: Path
) -> None:
    library.follow("Zoology")
    assert library.follows("zoology") and followed(library) == ["Zoology"]
    reports: list[WatchReport] = []
    arrived = threading.Event()

    def got(report: WatchReport) -> None:
        reports.append(report)
        arrived.set()

    watcher = FolderWatcher(library, interval_s=0.1, settle_s=0, on_report=got)
    watcher.start()
    try:
        outside = course.parent / "week2.md"
        outside.write_text("# Week two\n\nThe capybara is the largest rodent.\n")
        dropped = course / "lectures" / "week2.md"
        dropped.parent.mkdir()
        os.replace(outside, dropped)  # dropped in whole, as a file manager moves it
        assert arrived.wait(WAIT_S), "the watcher imported nothing"
        deadline = time.monotonic() + WAIT_S
        while not _found(library, "capybara largest rodent", dropped):
            assert time.monotonic() < deadline, reports
            arrived.clear()
            arrived.wait(1.0)
    finally:
        assert watcher.stop()
    source = library.source(str(dropped))
    assert source is not None and source.course == "Zoology"
    outcomes = [f.outcome for r in reports if r.imported for f in r.imported.files]
    assert outcomes == [Outcome.INDEXED]


def test_changed_files_are_indexed_again_and_removed_ones_are_kept_missing(
    library: Library, course: Path
) -> None:
    library.follow("Zoology")
    watcher = FolderWatcher(library, settle_s=0)
    assert not watcher.scan().changed  # what was imported is not read again

    note = course / "week1.md"
    note.write_text("# Week one\n\nThe pangolin is covered in scales.\n")
    later = time.time() + 10
    os.utime(note, (later, later))
    report = watcher.scan()
    assert report.imported is not None
    assert [f.outcome for f in report.imported.files] == [Outcome.INDEXED]
    assert _found(library, "pangolin scales", note)
    assert not _found(library, "okapi forest", note)
    assert not watcher.scan().changed

    note.unlink()
    report = watcher.scan()
    assert report.missing == (str(note),) and report.imported is None
    assert library.source(str(note)) is not None  # kept: only the user removes things
    assert not watcher.scan().changed  # said once


def test_a_file_still_being_written_waits_and_unfollowed_folders_are_left_alone(
    library: Library, course: Path
) -> None:
    fresh = course / "week3.md"
    fresh.write_text("# Week three\n\nThe axolotl regrows its limbs.\n")
    watcher = FolderWatcher(library, settle_s=3600)
    assert not watcher.scan().changed  # not followed
    library.follow("Zoology")
    assert not watcher.scan().changed  # modified just now: it may still be copying
    watcher.settle_s = 0
    report = watcher.scan()
    assert report.imported is not None and _found(library, "axolotl limbs", fresh)
    library.follow("Zoology", on=False)
    assert followed(library) == []


def test_only_a_course_imported_as_a_folder_can_follow_it(library: Library, tmp_path: Path) -> None:
    loose = tmp_path / "loose.md"
    loose.write_text("# Loose\n\nA note of its own.\n")
    library.ingest([loose], course="Loose notes")
    with pytest.raises(NotFoundError, match="not imported as a folder"):
        library.follow("Loose notes")
    with pytest.raises(NotFoundError, match="no course named"):
        library.follow("Botany")
