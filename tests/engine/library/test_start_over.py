"""Starting a damaged library over (engine/library/recovery.py, ``coursedex start-over``): the
damaged files are kept aside, the courses come back with their folders and whether they follow them,
and the files the library held are imported again. A sound library is never started over,
nor one another process is writing."""

from __future__ import annotations

import fcntl
import os
import sqlite3
from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.errors import LibraryBusyError, LibraryDamagedError, LibraryError
from engine.library import Library
from engine.library.recovery import HeldCourse, needs_start_over, start_over
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from engine.search import SearchFilters
from engine.types import SegmentKind
from tests.engine.cli.test_cli import Cli
from tests.engine.library.test_damage_at_rest import _garble_segments_page
from tests.places import at_moment

OWN = ("library.db", "vectors", "thumbs")


def _held(folder: Path) -> tuple[set[tuple[str, str, str]], dict[str, str | None]]:
    """(path, course, status) of every file, and each course's folder, read before damage."""
    conn = sqlite3.connect(folder / "library.db")
    try:
        files = set(
            conn.execute(
                "SELECT s.path, c.name, s.status FROM sources s "
                "JOIN courses c ON c.id = s.course_id"
            )
        )
        roots = dict(conn.execute("SELECT name, root FROM courses"))
    finally:
        conn.close()
    return files, roots


def _open(folder: Path, embedder: OnnxEmbedder, models: Path) -> Library:
    return Library.open(folder, EngineConfig(), lambda: embedder, models=ModelRegistry(models))


def test_a_damaged_library_starts_over_with_its_courses_and_files(
    built_library_dir: Path, embedder: OnnxEmbedder, models_dir: Path
) -> None:
    folder = built_library_dir
    with _open(folder, embedder, models_dir) as library:
        library.follow("Chemistry")
        lecture = next(s.path for s in library.sources() if s.path.endswith("lecture.srt"))
        note = library.add_note(lecture, "the narwhal question", at_ms=31_000)
    files, roots = _held(folder)
    old_db = (folder / "library.db").read_bytes()
    _garble_segments_page(folder / "library.db")
    with pytest.raises(LibraryDamagedError, match="start over"):
        _open(folder, embedder, models_dir)
    assert needs_start_over(folder)

    aside = start_over(folder, now=0)
    assert aside.folder.parent == folder
    assert aside.folder.name.startswith("damaged-1970010")  # the date, in local time
    assert aside.complete
    assert {(h.path, h.course) for h in aside.held} == {(p, c) for p, c, _ in files}
    assert set(aside.courses) == {
        HeldCourse("Biology 101", roots["Biology 101"], False),
        HeldCourse("Chemistry", roots["Chemistry"], True),
    }
    for name in OWN:
        assert (aside.folder / name).exists()
        assert not (folder / name).exists()
    assert len((aside.folder / "library.db").read_bytes()) == len(old_db)  # kept as it was

    with _open(folder, embedder, models_dir) as library:  # a new database
        aside.prepare(library)
        for course, paths in aside.by_course().items():
            library.ingest(paths, course=course)
        assert _held(folder) == (files, roots)  # same files, courses, outcomes and folders
        assert library.follows("Chemistry") and not library.follows("Biology 101")
        hit = library.search("burette").results[0]
        assert Path(hit.source).name == "titration.md"
        # The user's note is not an index: it is kept, and shows again under its file.
        [kept] = library.notes()
        assert (kept.text, kept.place, kept.source_path) == (note.text, note.place, lecture)
        assert kept.course == "Biology 101"
        bookmark = SearchFilters(kinds=(SegmentKind.BOOKMARK,))
        assert at_moment(library.search("narwhal", filters=bookmark).results[0]).start_ms == 31_000
    assert not needs_start_over(folder)


def test_a_sound_library_is_not_started_over(built_library_dir: Path) -> None:
    db = built_library_dir / "library.db"
    before = db.read_bytes()
    assert not needs_start_over(built_library_dir)
    with pytest.raises(LibraryError, match="is not damaged: nothing to start over"):
        start_over(built_library_dir)
    assert not list(built_library_dir.glob("damaged-*"))
    assert db.read_bytes() == before


def test_a_library_another_process_holds_is_not_started_over(built_library_dir: Path) -> None:
    os.truncate(built_library_dir / "library.db", 4096)
    with (built_library_dir / "library.lock").open("a+b") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # as another Coursedex writing it
        with pytest.raises(LibraryBusyError, match="in use by another Coursedex"):
            start_over(built_library_dir)
    assert (built_library_dir / "library.db").stat().st_size == 4096
    assert not list(built_library_dir.glob("damaged-*"))


def test_a_lost_database_starts_over_as_a_new_library(
    built_library_dir: Path, embedder: OnnxEmbedder, models_dir: Path
) -> None:
    (built_library_dir / "library.db").unlink()
    with pytest.raises(LibraryDamagedError, match="is missing, but the folder still holds"):
        _open(built_library_dir, embedder, models_dir)
    aside = start_over(built_library_dir)
    assert (aside.held, aside.courses, aside.complete) == ((), (), False)
    assert (aside.folder / "vectors").is_dir() and (aside.folder / "thumbs").is_dir()
    with _open(built_library_dir, embedder, models_dir) as library:
        assert library.sources() == []


def test_a_database_cut_in_half_gives_what_can_be_read(
    built_library_dir: Path, embedder: OnnxEmbedder, models_dir: Path
) -> None:
    files, _ = _held(built_library_dir)
    db = built_library_dir / "library.db"
    os.truncate(db, db.stat().st_size // 2)
    aside = start_over(built_library_dir)
    assert {(h.path, h.course) for h in aside.held} <= {(p, c) for p, c, _ in files}
    with _open(built_library_dir, embedder, models_dir) as library:
        aside.prepare(library)
        assert library.sources() == []


def test_the_command_line_says_how_to_start_over_and_does_it(
    built_library_dir: Path, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(built_library_dir, models_dir, capsys)
    files, _ = _held(built_library_dir)
    _garble_segments_page(built_library_dir / "library.db")
    refused = cli("search", "burette")
    assert refused.code == 1
    assert len(refused.err.splitlines()) == 1
    assert refused.err.rstrip().endswith(
        f"Nothing was changed (to start over: coursedex --library {built_library_dir} start-over)"
    )
    done = cli("start-over")
    assert done.code == 0, done
    kept = next(built_library_dir.glob("damaged-*"))
    assert done.out.splitlines()[:2] == [
        f"the damaged library's files are kept in {kept}",
        f"it held {len(files)} files: importing {len(files)} again",
    ]
    indexed = sum(status == "indexed" for _, _, status in files)
    errors = len(files) - indexed
    assert f"{len(files)} files in " in done.out
    assert f": {indexed} indexed, {errors} errors" in done.out, done.out
    found = cli("search", "burette", "--json")
    assert found.code == 0, found
    again = cli("start-over")
    assert (again.code, again.err.strip()) == (
        1,
        f"coursedex: the library {built_library_dir} is not damaged: nothing to start over",
    )
