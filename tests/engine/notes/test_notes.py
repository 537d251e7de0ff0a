"""Notes on moments (engine/notes): added at a place in a file, listed in lecture order,
found by search as their own kind, kept when their file is removed and imported again,
removed only by the user. Real libraries, real SQLite, the real embedder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.config import EngineConfig, SearchConfig
from engine.errors import CoursedexError, NotFoundError
from engine.importing.progress import Outcome
from engine.library import Library
from engine.models import Embedder
from engine.notes import NoteError, Place
from engine.search import SearchFilters
from engine.search.results import moment_ms
from engine.types import SegmentKind
from tests.conftest import HIPPO_MS, LOMUTO_LINE, MixedCourse, make_mixed_course
from tests.places import at_lines, on_page

BOOKMARKS = SearchFilters(kinds=(SegmentKind.BOOKMARK,))
FULLTEXT_ONLY = SearchConfig(dense=False)
DENSE_ONLY = SearchConfig(fulltext=False, gate=0.0)


def _found(library: Library, query: str, config: SearchConfig | None = None) -> list[str]:
    """The snippets of the notes a search finds."""
    outcome = library.search(query, filters=BOOKMARKS, config=config)
    return [r.snippet for r in outcome.results]


def test_a_note_is_added_at_a_time_a_page_and_a_line_listed_in_order_and_removed(
    built_library: Library, mixed_course: MixedCourse
) -> None:
    lecture, slides, notes = map(
        str, (mixed_course.lecture, mixed_course.slides, mixed_course.notes)
    )
    late = built_library.add_note(lecture, "the hippo scene", at_ms=HIPPO_MS)
    early = built_library.add_note(lecture, "  the opening  ", at_ms=2000)
    page = built_library.add_note(slides, "chlorophyll is green", page=1)
    line = built_library.add_note(notes, "regeneration", line=3)
    code = built_library.add_note(str(mixed_course.code), "Lomuto, not Hoare", line=LOMUTO_LINE)

    assert late.place == Place(late.place.sha256, at_ms=HIPPO_MS)
    assert (early.text, early.course, early.source_path) == ("the opening", "Biology 101", lecture)
    assert early.source_title is not None and early.created > 0
    assert page.place.page == 1 and line.place.line == 3
    # The only member of the archive is the one a line is in.
    assert (code.place.path_in_archive, code.place.line) == ("src/sorting.py", LOMUTO_LINE)
    source = built_library.source(lecture)
    assert source is not None and late.place.sha256 == source.sha256

    listed = built_library.notes("biology 101")
    # Lecture order: by file (path), then by place in it.
    by_file = sorted([code, early, late, line, page], key=lambda n: n.source_path or "")
    assert [n.id for n in listed] == [n.id for n in by_file]
    assert [n.id for n in built_library.notes(source=lecture)] == [early.id, late.id]
    assert built_library.notes("Chemistry") == []
    with pytest.raises(NotFoundError):
        built_library.notes("Astronomy")

    assert built_library.remove_note(early.id)
    assert not built_library.remove_note(early.id)  # gone: nothing else is removed
    assert [n.id for n in built_library.notes(source=lecture)] == [late.id]
    assert early.id not in {n.id for n in built_library.notes()}


def test_notes_are_found_by_search_as_their_own_kind_and_open_their_place(
    built_library: Library, mixed_course: MixedCourse
) -> None:
    lecture = str(mixed_course.lecture)
    vectors = built_library.indexer.vector_count()
    note = built_library.add_note(lecture, "the quokka smiles for the camera", at_ms=HIPPO_MS)
    built_library.add_note(str(mixed_course.slides), "the capybara naps", page=2)
    assert built_library.indexer.vector_count() == vectors + 2

    [hit] = built_library.search("quokka", filters=BOOKMARKS, config=FULLTEXT_ONLY).results
    assert (hit.kind, hit.source, moment_ms(hit.place), hit.course) == (
        SegmentKind.BOOKMARK,
        lecture,
        HIPPO_MS,
        "Biology 101",
    )
    assert hit.snippet[slice(*hit.highlights[0])].lower() == "quokka"
    # Found without the kind filter too, and by meaning (its vector, the library's embedder).
    assert hit.segment_id in {r.segment_id for r in built_library.search("quokka").results}
    by_meaning = built_library.search("quokka smiles camera", filters=BOOKMARKS, config=DENSE_ONLY)
    assert by_meaning.results[0].segment_id == hit.segment_id
    # Only notes under the kind filter: the lecture's own words are not notes.
    assert _found(built_library, "hippopotamus", FULLTEXT_ONLY) == []
    page = built_library.search("capybara", filters=BOOKMARKS).results[0]
    assert (page.source, on_page(page).page) == (str(mixed_course.slides), 2)

    assert built_library.remove_note(note.id)
    assert _found(built_library, "quokka") == []
    assert built_library.indexer.vector_count() == vectors + 1


def test_a_note_stays_when_its_file_is_removed_and_shows_again_when_it_is_imported(
    library: Library, embedder: Embedder, tmp_path: Path
) -> None:
    course = make_mixed_course(tmp_path / "Biology 101")
    library.ingest([course.folder])
    lecture = str(course.lecture)
    note = library.add_note(lecture, "the wombat digs", at_ms=HIPPO_MS)

    assert library.remove(lecture).count == 1
    [kept] = library.notes()
    assert (kept.id, kept.text, kept.course) == (note.id, "the wombat digs", "Biology 101")
    assert (kept.source_path, kept.last_path) == (None, lecture)
    assert _found(library, "wombat") == []
    # Reopened: the note is on disk, not in memory.
    library.close()
    with Library.open(library.folder, EngineConfig(), lambda: embedder) as again:
        assert [n.id for n in again.notes("Biology 101")] == [note.id]
        report = again.ingest([course.lecture], course="Biology 101")
        assert [f.outcome for f in report.files] == [Outcome.INDEXED]
        [back] = again.notes()
        assert (back.id, back.source_path, back.place) == (note.id, lecture, note.place)
        [hit] = again.search("wombat", filters=BOOKMARKS).results
        assert (hit.source, moment_ms(hit.place)) == (lecture, HIPPO_MS)


def test_a_note_follows_its_file_when_the_file_is_moved(library: Library, tmp_path: Path) -> None:
    course = make_mixed_course(tmp_path / "Biology 101")
    library.ingest([course.folder])
    note = library.add_note(str(course.notes), "axolotls are salamanders", line=3)
    moved = course.notes.rename(course.folder / "week1.md")
    report = library.ingest([moved])
    assert [f.outcome for f in report.files] == [Outcome.MOVED]
    [kept] = library.notes()
    assert (kept.id, kept.source_path) == (note.id, str(moved))
    [hit] = library.search("salamanders", filters=BOOKMARKS).results
    assert (hit.source, at_lines(hit).line_start) == (str(moved), 3)


def test_a_file_read_again_keeps_its_notes_and_one_changed_leaves_them_listed(
    library: Library, tmp_path: Path
) -> None:
    """Read again with the same content (its notes come back with its new segments), then
    changed: a note is on the content it was written on, so it is listed without a file."""
    course = make_mixed_course(tmp_path / "Biology 101")
    library.ingest([course.folder])
    note = library.add_note(str(course.notes), "the numbat eats termites", line=3)
    source = library.source(str(course.notes))
    assert source is not None and source.sha256 is not None
    shutil.copy(course.notes, tmp_path / "saved.md")
    course.notes.write_text("# Week one\n\nSomething else entirely.\n", encoding="utf-8")
    library.ingest([course.notes])
    assert [n.source_path for n in library.notes()] == [None]
    assert _found(library, "numbat") == []
    shutil.copy(tmp_path / "saved.md", course.notes)  # the old content again
    library.ingest([course.notes])
    [back] = library.notes()
    assert (back.id, back.source_path) == (note.id, str(course.notes))
    assert _found(library, "numbat") != []


def test_a_note_needs_text_and_a_place_its_file_has(
    built_library: Library, mixed_course: MixedCourse
) -> None:
    lecture, slides = str(mixed_course.lecture), str(mixed_course.slides)
    refused = {
        "blank": lambda: built_library.add_note(lecture, " \n\t ", at_ms=1000),
        "after the end": lambda: built_library.add_note(lecture, "x", at_ms=5 * 60_000),
        "negative time": lambda: built_library.add_note(lecture, "x", at_ms=-1),
        "page 3 of 2": lambda: built_library.add_note(slides, "x", page=3),
        "page 0": lambda: built_library.add_note(slides, "x", page=0),
        "line beyond": lambda: built_library.add_note(str(mixed_course.notes), "x", line=999),
        "a page of a lecture": lambda: built_library.add_note(lecture, "x", page=1),
        "a time of a deck": lambda: built_library.add_note(slides, "x", at_ms=1000),
        "two places": lambda: built_library.add_note(lecture, "x", at_ms=1000, line=2),
        "no such member": lambda: built_library.add_note(
            str(mixed_course.code), "x", line=1, path_in_archive="src/nothing.py"
        ),
        "too long": lambda: built_library.add_note(lecture, "x" * 10_001, at_ms=1000),
    }
    messages = {}
    for what, add in refused.items():
        with pytest.raises(NoteError) as caught:
            add()
        messages[what] = str(caught.value)
    assert "blank" in messages["blank"]
    assert "after the end of lecture.srt" in messages["after the end"]
    assert messages["page 3 of 2"] == "page 3 is not in slides.pdf: it has 2 pages"
    assert "line 999 is not in notes.md" in messages["line beyond"]
    assert messages["a page of a lecture"] == "a note on lecture.srt is at a time, not at a page"
    assert messages["no such member"] == "code.zip has no file src/nothing.py"
    assert all("\n" not in m for m in messages.values())
    with pytest.raises(NotFoundError, match="no file"):
        built_library.add_note(str(mixed_course.folder / "missing.mp4"), "x", at_ms=0)
    with pytest.raises(CoursedexError):
        built_library.add_note("", "x")
    assert built_library.notes() == []
    # A note on the whole file needs no place.
    whole = built_library.add_note(slides, "the whole deck")
    assert whole.place == Place(whole.place.sha256)


def test_a_note_whose_file_is_gone_follows_its_course_when_renamed(
    library: Library, tmp_path: Path
) -> None:
    course = make_mixed_course(tmp_path / "Biology 101")
    library.ingest([course.folder])
    gone = library.add_note(str(course.lecture), "the okapi is shy", at_ms=HIPPO_MS)
    here = library.add_note(str(course.slides), "the tapir", page=1)
    library.remove(str(course.lecture))
    library.rename_course("biology 101", "Biology I")
    assert [(n.id, n.course) for n in library.notes("Biology I")] == [
        (here.id, "Biology I"),
        (gone.id, "Biology I"),
    ]
    with pytest.raises(NotFoundError):
        library.notes("Biology 101")
