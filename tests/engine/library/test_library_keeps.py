"""What the integrations keep in a library and read from it, through Library's own methods
(watch folders: which courses follow their folder; URL import: the page a file came from;
the MCP server: a segment and its file's segments), never through ``library.store``."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.errors import NotFoundError
from engine.library import Library
from engine.models import Embedder


def _reopened(library: Library, embedder: Embedder) -> Library:
    library.close()
    return Library.open(library.folder, EngineConfig(), lambda: embedder)


def test_a_course_follows_its_folder_until_told_to_stop_and_it_is_kept(
    built_library: Library, embedder: Embedder
) -> None:
    assert not built_library.follows("Chemistry")
    built_library.follow("chemistry")  # any case names the course
    assert built_library.follows("Chemistry") and built_library.follows("CHEMISTRY")
    assert not built_library.follows("Biology 101")
    with _reopened(built_library, embedder) as again:
        assert again.follows("Chemistry") and not again.follows("Biology 101")
        again.follow("Chemistry", on=False)
        assert not again.follows("Chemistry")


def test_only_a_course_imported_as_a_folder_can_follow_it(
    built_library: Library, tmp_path: Path
) -> None:
    note = tmp_path / "loose.md"
    note.write_text("# Loose\n\nThe pangolin is covered in scales.\n")
    built_library.ingest([note], course="Loose notes")
    with pytest.raises(NotFoundError, match="not imported as a folder"):
        built_library.follow("Loose notes")
    with pytest.raises(NotFoundError, match="no course named"):
        built_library.follow("Astronomy")
    built_library.follow("Loose notes", on=False)  # stopping asks for no folder
    assert not built_library.follows("Loose notes")


def test_the_page_a_file_came_from_is_kept_by_its_path(
    built_library: Library, embedder: Embedder, tmp_path: Path
) -> None:
    video = tmp_path / "media" / "lecture.mp4"
    page = "https://example.org/watch?v=abc"
    assert built_library.origin(video) is None
    built_library.set_origin(video, page)
    assert built_library.origin(video) == page
    assert built_library.origin(str(video)) == page
    assert built_library.origin(tmp_path / "other.mp4") is None
    with _reopened(built_library, embedder) as again:
        assert again.origin(video) == page


def test_a_segment_and_its_files_segments_are_read_by_id_and_path(
    built_library: Library,
) -> None:
    hit = built_library.search("hippopotamus", limit=1).results[0]
    row = built_library.segment(hit.segment_id)
    assert row is not None
    assert row.id == hit.segment_id and row.source_path == hit.source
    rows = built_library.segments_of(hit.source)
    assert hit.segment_id in [r.id for r in rows]
    assert all(r.source_path == hit.source for r in rows)
    source = built_library.source(hit.source)
    assert source is not None and len(rows) == source.segments
    assert built_library.segment(10**9) is None
    with pytest.raises(NotFoundError):
        built_library.segments_of(str(Path(hit.source).with_name("gone.srt")))


def test_a_course_is_found_by_name_in_any_case_and_files_by_content(
    built_library: Library,
) -> None:
    course = built_library.course("biology 101")
    assert course.name == "Biology 101" and course.root is not None
    with pytest.raises(NotFoundError, match="no course named"):
        built_library.course("Astronomy")
    source = built_library.sources("Chemistry")[0]
    assert source.sha256 is not None
    assert [s.path for s in built_library.sources_with_content(source.sha256)] == [source.path]
    assert built_library.sources_with_content("0" * 64) == []
