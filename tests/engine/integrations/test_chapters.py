"""A lecture's chapters come from the slides linked to it (titled by each slide's first line)
or, without a deck, from the text read off its screen; a deck's pages are read back as its
import stored them; real library, real PDF, .pptx and subtitles."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import NotFoundError
from engine.integrations.documents import Chapter, SlidePage
from engine.library import Library
from tests.engine.screens import screens_lecture
from tools.factories import make_pdf, make_pptx, make_srt

DECK = (
    "Bubble sort\nswap neighbours until nothing moves",
    "Merge sort\nsplit in halves and merge the sorted halves",
    "Hash tables\nkeys hash to buckets that hold values",
)
CUES = (
    (0, 9_000, "Bubble sort swaps neighbours until nothing moves in the list."),
    (9_000, 18_000, "Bubble sort is slow: it swaps neighbours again and again."),
    (18_000, 27_000, "Merge sort splits the list in halves and merges the sorted halves."),
    (27_000, 36_000, "Merging the sorted halves keeps merge sort stable."),
    (36_000, 45_000, "Hash tables map keys to buckets; each bucket holds values."),
    (45_000, 54_000, "A hash table resizes when its buckets fill up with keys."),
)


def test_chapters_follow_the_linked_slides_and_are_titled_by_them(
    library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "Algorithms"
    course.mkdir()
    make_pdf(course / "slides.pdf", list(DECK), slides=True)
    lecture = make_srt(course / "lecture.srt", CUES)
    library.ingest([course])

    chapters = library.chapters(str(lecture))
    assert [c.title for c in chapters] == ["Bubble sort", "Merge sort", "Hash tables"]
    assert [c.page for c in chapters] == [1, 2, 3]
    starts = [c.start_ms for c in chapters]
    assert starts == sorted(starts)
    assert starts[0] < 18_000 <= starts[1] + 9_000 and starts[1] < 36_000 <= starts[2] + 9_000


def test_a_lecture_without_slides_has_no_chapters_and_a_deck_none(
    library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "Talks"
    course.mkdir()
    lecture = make_srt(course / "talk.srt", CUES[:2])
    library.ingest([course])
    assert library.chapters(str(lecture)) == []
    assert Chapter(0, "x") == Chapter(0, "x", None)


def test_without_a_deck_chapters_come_from_the_text_on_screen(
    library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "Screens"
    video, cuts = screens_lecture(course, tmp_path)
    library.ingest([course])  # the deck is not in the course: nothing to link

    chapters = library.chapters(str(video))
    assert [c.page for c in chapters] == [None, None, None], chapters
    titles = [c.title.casefold() for c in chapters]
    for title, expected in zip(
        titles, ("binary search trees", "heaps", "graph traversal"), strict=True
    ):
        assert expected in title, titles
    for chapter, cut in zip(chapters, cuts, strict=True):
        assert abs(chapter.start_ms - cut) <= 1_000, (chapters, cuts)


def test_a_decks_pages_are_the_titles_and_text_its_import_read(
    library: Library, tmp_path: Path
) -> None:
    deck = make_pptx(
        tmp_path / "graphs.pptx",
        [("Graphs", "breadth-first search visits by layers", "say: queues"), ("Trees", "", "")],
    )
    library.ingest([deck])
    assert library.slide_pages(str(deck)) == [
        SlidePage(1, "Graphs", "Graphs\nbreadth-first search visits by layers\nsay: queues"),
        SlidePage(2, "Trees", "Trees"),
    ]
    pdf = make_pdf(tmp_path / "sorting.pdf", list(DECK), slides=True)
    with pytest.raises(NotFoundError):
        library.slide_pages(str(pdf))  # not imported: the file is not read here
    library.ingest([pdf])
    assert [p.title for p in library.slide_pages(str(pdf))] == [
        "Bubble sort",
        "Merge sort",
        "Hash tables",
    ]


def test_a_note_on_a_slide_neither_titles_a_chapter_nor_moves_the_slide_links(
    library: Library, tmp_path: Path
) -> None:
    course = tmp_path / "Algorithms"
    course.mkdir()
    deck = make_pdf(course / "slides.pdf", list(DECK), slides=True)
    lecture = make_srt(course / "lecture.srt", CUES)
    library.ingest([course])
    before = library.chapters(str(lecture))
    # A note on page 1 that says what the lecture says over page 3 (the student's summary).
    library.add_note(str(deck), "Hash tables " + " ".join(text for *_, text in CUES[4:]), page=1)
    library.link_slides()
    assert library.chapters(str(lecture)) == before
    assert [c.title for c in before] == ["Bubble sort", "Merge sort", "Hash tables"]
