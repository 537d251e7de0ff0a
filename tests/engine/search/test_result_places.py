"""A hit's place is typed by its kind (engine/search/results.py): a lecture's moment, a
deck's page, lines of a file, or the whole file; the CLI's JSON keeps its flat shape."""

from __future__ import annotations

from engine.api import Library, SearchFilters, SegmentKind
from engine.search.results import AtLines, AtMoment, OnPage, WholeFile, moment_ms, place_of
from tests.conftest import HIPPO_MS, LOMUTO_LINE, MixedCourse

# The CLI's --json keys, in their order (tests/engine/test_cli*.py read them by name).
JSON_KEYS = [
    "source", "kind", "course", "title", "heading", "start", "end", "page", "path_in_archive",
    "line_start", "line_end", "line", "snippet", "highlights", "score", "segment_id",
    "thumbnail", "slide", "shown_in", "strong", "language", "context",
]  # fmt: skip


def test_each_kind_of_hit_has_its_kind_of_place(
    built_library: Library, mixed_course: MixedCourse
) -> None:
    lecture = built_library.search("hippopotamus").results[0]
    match lecture.place:
        case AtMoment(start_ms=start, end_ms=end):
            assert start == HIPPO_MS and end is not None and end > start
        case other:
            raise AssertionError(f"a lecture's hit at {other}")
    assert moment_ms(lecture.place) == HIPPO_MS

    slide = built_library.search("mitochondria").results[0]
    assert (slide.kind, slide.place) == (SegmentKind.SLIDE, OnPage(2))
    assert moment_ms(slide.place) is None

    code = built_library.search("Lomuto").results[0]
    match code.place:
        case AtLines(line_start=first, line_end=last, line=line, path_in_archive=member):
            assert member == "src/sorting.py" and line == LOMUTO_LINE
            assert last is not None and first <= line <= last
        case other:
            raise AssertionError(f"a code hit at {other}")

    built_library.add_note(str(mixed_course.notes), "wombats dig burrows")
    bookmarks = SearchFilters(kinds=(SegmentKind.BOOKMARK,))
    [whole] = built_library.search("wombats", filters=bookmarks).results
    assert whole.place == WholeFile()

    for hit in (lecture, slide, code, whole):
        assert list(hit.to_json()) == JSON_KEYS
    assert (lecture.to_json()["start"], lecture.to_json()["page"]) == (HIPPO_MS / 1000, None)
    assert (slide.to_json()["page"], slide.to_json()["start"]) == (2, None)
    assert code.to_json()["path_in_archive"] == "src/sorting.py"
    assert code.to_json()["line"] == LOMUTO_LINE


def test_a_segment_s_locators_name_one_place() -> None:
    assert place_of(start_ms=5, end_ms=9) == AtMoment(5, 9)
    assert place_of(page=3) == OnPage(3)
    assert place_of(line_start=4, line_end=8) == AtLines(4, 8, 4)  # no best line: the first
    assert place_of(line_start=4, line_end=8, line=6, path_in_archive="a.py") == AtLines(
        4, 8, 6, "a.py"
    )
    assert place_of(path_in_archive="a.py") == WholeFile("a.py")
    assert place_of() == WholeFile()
