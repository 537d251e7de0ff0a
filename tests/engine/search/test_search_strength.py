"""Each result says whether it is a strong match (the window draws "weaker matches" above
the first weak one), and code results keep their lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.demo import demo_files
from engine.library import Library
from engine.types import SegmentKind
from tests.conftest import LECTURE_CUES
from tests.places import at_moment
from tools.factories import make_srt


@pytest.mark.parametrize(
    ("query", "word"),
    [("pivot", "pivot"), ("when should a hash table resize", "hash")],
)
def test_padding_below_the_real_answers_is_weaker(
    demo_text_library: Library, query: str, word: str
) -> None:
    results = demo_text_library.search(query, limit=20, typing=True).results
    assert len(results) == 20
    strong = [r for r in results if r.strong]
    # Strength is a prefix of the ranking: no strong hit below a weaker one.
    assert [r.strong for r in results] == [True] * len(strong) + [False] * (20 - len(strong))
    assert 2 <= len(strong) <= 6, [(r.snippet[:40], r.strong) for r in results]
    assert all(word in r.snippet.casefold() for r in strong)
    weaker = results[len(strong) :]
    # What fills the list to 20 only shares the course's topic: no query word in it.
    assert sum(word in r.snippet.casefold() for r in weaker) <= 1
    assert all(r.to_json()["strong"] is r.strong for r in results)


def test_a_code_result_keeps_its_line_breaks(demo_text_library: Library) -> None:
    hits = demo_text_library.search("binary_search target", limit=5).results
    code = next(r for r in hits if r.kind == SegmentKind.CODE)
    lines = code.snippet.splitlines()
    assert len(lines) >= 3, code.snippet
    assert any(line.startswith("def binary_search(") for line in lines), code.snippet
    assert any(line.startswith("    ") for line in lines)  # the body's indentation
    spans = [code.snippet[a:b].casefold() for a, b in code.highlights]
    assert "target" in spans


def test_a_lecture_moment_names_the_slide_on_screen(library: Library, tmp_path: Path) -> None:
    """A speech hit carries the slide shown at its time and that slide's title."""
    deck = next(p for p in demo_files() if p.suffix == ".pdf")
    lecture = make_srt(tmp_path / "lecture.srt", LECTURE_CUES)
    library.ingest([deck, lecture])
    store = library.store
    lecture_source = store.catalog.source_by_path(str(lecture))
    deck_source = store.catalog.source_by_path(str(deck))
    assert lecture_source is not None and deck_source is not None
    with store.transaction():
        store.recordings.replace_slide_links(
            lecture_source.id, [(30_000, 40_000, deck_source.id, 6, 0.9)]
        )
    hit = next(
        r for r in library.search("hippopotamus", limit=5).results if r.source == str(lecture)
    )
    slide = at_moment(hit).slide
    assert slide is not None and (slide.source, slide.page) == (str(deck), 6)
    assert slide.title == "Hash tables"
    assert hit.to_json()["slide"] == {"source": str(deck), "page": 6, "title": "Hash tables"}
