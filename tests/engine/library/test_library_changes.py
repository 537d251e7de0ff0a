"""Every call that writes to the library says what it changed (issue 37, item 1): the files
added, changed and removed, the courses removed and renamed, the notes, and whether search
results may differ. Real library in a temporary folder, real files, the real embedder."""

from __future__ import annotations

import fcntl
import threading
from pathlib import Path

import pytest

from engine.changes import Changes
from engine.importing.progress import IngestProgress, Outcome, RemovedAfter, Stage
from engine.library import Library
from engine.library.marks import MANY_GONE, changes_between
from engine.store import FileMark, LibraryMarks


def _course(tmp_path: Path, name: str, files: dict[str, str]) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for file, text in files.items():
        (folder / file).write_text(text)
    return folder


@pytest.fixture
def botany(tmp_path: Path) -> Path:
    return _course(
        tmp_path,
        "Botany",
        {
            "leaf.md": "# Leaves\n\nA leaf turns sunlight into sugar.\n",
            "root.md": "# Roots\n\nA root draws water from the soil.\n",
        },
    )


def test_an_import_says_which_files_it_added_then_which_it_changed(
    library: Library, botany: Path
) -> None:
    leaf, root = str(botany / "leaf.md"), str(botany / "root.md")
    first = library.ingest([botany])
    assert first.changes == Changes(added=(leaf, root), notes_moved=True, results=True), (
        "both new, both indexed"
    )
    again = library.ingest([botany])  # nothing new, nothing different
    assert again.changes == Changes(changed=(leaf, root))
    assert not again.changes.results and not again.changes.notes
    (botany / "leaf.md").write_text("# Leaves\n\nA leaf breathes through its stomata.\n")
    edited = library.ingest([botany / "leaf.md"])
    assert edited.changes == Changes(changed=(leaf,), notes_moved=True, results=True)


def test_a_copy_imported_goes_and_says_so(library: Library, botany: Path, tmp_path: Path) -> None:
    library.ingest([botany])
    copy = _course(tmp_path, "Copies", {"leaf.md": (botany / "leaf.md").read_text()})
    report = library.ingest([copy])
    assert report.changes.removed == (str(copy / "leaf.md"),)  # its queued row went
    assert report.changes.added == ()


def test_removing_a_course_or_a_file_says_what_went(library: Library, botany: Path) -> None:
    library.ingest([botany])
    leaf, root = str(botany / "leaf.md"), str(botany / "root.md")
    one = library.remove(leaf)
    assert one.count == 1
    assert one.changes == Changes(removed=(leaf,), notes_moved=True, results=True)
    course = library.remove("botany")  # any case names it: the notice names it as written
    assert course.count == 1
    assert course.changes == Changes(
        removed=(root,), courses_removed=("Botany",), notes_moved=True, results=True
    )


def test_renaming_a_course_says_its_old_and_new_names(library: Library, botany: Path) -> None:
    library.ingest([botany])
    changes = library.rename_course("BOTANY", "Plants")
    assert changes == Changes(
        courses_renamed=(("Botany", "Plants"),), notes_moved=True, results=True
    )
    assert changes.notes and not changes.files


def test_setting_a_language_names_the_rows_to_show_it(library: Library, botany: Path) -> None:
    library.ingest([botany])
    done = library.set_language("Botany", "en")
    assert done.changes == Changes(changed=(str(botany / "leaf.md"), str(botany / "root.md")))
    assert not done.changes.notes and not done.changes.results


def test_notes_added_and_removed_are_told_as_notes(library: Library, botany: Path) -> None:
    library.ingest([botany])
    note = library.add_note(str(botany / "leaf.md"), "photosynthesis, see week 2", line=3)
    assert note.changes == Changes(notes_added=(note.id,), results=True)
    assert note.changes.notes and not note.changes.files
    assert library.notes() == [note]  # the note listed is the note added
    assert library.remove_note(note.id) == Changes(notes_removed=(note.id,), results=True)
    assert not library.remove_note(note.id)  # none left: nothing changed


def test_following_a_folder_changes_nothing_a_view_shows(library: Library, botany: Path) -> None:
    library.ingest([botany])
    assert library.follow("Botany") == Changes()


def test_another_process_s_commits_are_told_as_changes(library: Library, botany: Path) -> None:
    before = library.marks()
    library.ingest([botany])  # as if another process had: only the marks tell
    changes, now = library.changes_since(before)
    assert changes.added == (str(botany / "leaf.md"), str(botany / "root.md"))
    assert changes.results and changes.notes  # notes are not marked: they may differ
    assert now == library.marks()
    library.remove(str(botany / "leaf.md"))
    changes, _ = library.changes_since(now)
    assert changes.removed == (str(botany / "leaf.md"),) and not changes.whole


def _marks(files: dict[str, tuple[str, str]], *courses: str) -> LibraryMarks:
    named = {
        p: FileMark(course, status, "sha", None, None) for p, (course, status) in files.items()
    }
    return LibraryMarks(frozenset(courses) | {m.course for m in named.values()}, named)


def test_what_changed_is_told_row_by_row_and_whole_only_when_rows_cannot_follow() -> None:
    """Moved here from tests/app/test_handoff.py with the comparison it tests."""
    before = _marks({"/a.md": ("A", "indexed"), "/b.md": ("B", "indexed")})
    assert not changes_between(before, before)
    queued = _marks(
        {"/a.md": ("A", "indexed"), "/b.md": ("B", "indexed"), "/c.md": ("C", "queued")}
    )
    assert changes_between(before, queued) == Changes(added=("/c.md",))
    # A course renamed: its files are told at their new course, the old course goes.
    renamed = _marks({"/a.md": ("A", "indexed"), "/b.md": ("Bee", "indexed")})
    assert changes_between(before, renamed) == Changes(
        changed=("/b.md",), courses_removed=("B",), results=True
    )
    emptied = _marks({"/a.md": ("A", "indexed")}, "B")  # the course stays, without the file
    assert changes_between(before, emptied) == Changes(removed=("/b.md",), results=True)
    with_empty = _marks({"/a.md": ("A", "indexed"), "/b.md": ("B", "indexed")}, "New")
    assert changes_between(before, with_empty).whole  # no row to tell it by
    many = _marks({f"/{i}.md": ("A", "indexed") for i in range(30)})
    assert changes_between(many, _marks({}, "A")).whole
    assert MANY_GONE < 30


def test_a_course_removed_during_its_import_is_told_by_the_import_s_report(
    library: Library, botany: Path
) -> None:
    """The import's session holds what it stops and what waits for its end; its report
    says what the import and those removals changed."""
    leaf, root = str(botany / "leaf.md"), str(botany / "root.md")
    asked: list[tuple[list[str], tuple[str, ...], int | None]] = []

    def progress(p: IngestProgress) -> None:
        if p.result is not None and not asked:  # the first file is done, the other queued
            stopped = library.remove_during_import("Botany")
            session = library.importing
            asked.append((stopped, session.pending_removals(), session.left()))

    report = library.ingest([botany], progress=progress)
    assert asked == [([leaf, root], ("Botany",), 0)], "both held; nothing left to resume"
    assert [f.outcome for f in report.files] == [Outcome.INDEXED, Outcome.REMOVED]
    assert report.removed_after == [RemovedAfter("Botany", course=True, files=1, stopped=True)]
    assert report.changes.courses_removed == ("Botany",)
    assert set(report.changes.removed) == {leaf, root}
    assert report.changes.results and library.courses() == []
    assert library.importing.pending_removals() == () and library.importing.left() == 0


def test_a_removal_asked_while_the_import_waits_is_carried_out_as_it_ends(
    library: Library, botany: Path, tmp_path: Path
) -> None:
    """Asked while the import waited for another process's (which holds the lock), then
    the import cancelled: the removal still happens as the import call returns (whether it
    ran its cancelled files or not), and its report says so."""
    library.ingest([botany])
    cancel = threading.Event()
    other = _course(tmp_path, "Zoology", {"okapi.md": "# Okapi\n\nA giraffe of the forest.\n"})

    def progress(p: IngestProgress) -> None:
        if p.stage == Stage.WAITING and not cancel.is_set():
            assert library.importing.left() is None  # its files are not known yet
            assert library.importing.remove_after("Botany")
            cancel.set()

    with (library.folder / "library.lock").open("a+b") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # as another process importing

        def let_go() -> None:
            cancel.wait(60)
            fcntl.flock(held.fileno(), fcntl.LOCK_UN)

        releaser = threading.Thread(target=let_go)
        releaser.start()
        report = library.ingest([other], progress=progress, cancel=cancel)
        releaser.join()
    assert [f.outcome for f in report.files] == [Outcome.CANCELLED]
    assert report.removed_after == [RemovedAfter("Botany", course=True, files=2, stopped=False)]
    assert report.changes.courses_removed == ("Botany",)
    assert "Botany" not in {c.name for c in library.courses()}
    assert not library.importing.remove_after("Botany")  # no import asked for: remove now
