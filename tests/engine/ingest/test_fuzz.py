"""Issue 25, item 10: property-based tests (Hypothesis) of the parsers that take outside text:
links, MCP tool arguments, numbers, subtitles, notes, notebooks and archive member names.
Whatever the text, each raises nothing but the project's own errors (CoursedexError; the
SDK's ToolError for a tool call), and every number it gives is in range.

Bounded work: small sizes, a fixed number of examples each (about 1,900 in all; the whole
file runs in well under a minute on 2 cores), no example database left in the tree, and
derandomized so that a run is the same run everywhere (CI included): tests/engine/fuzzing.py,
which test_fuzz_packs.py (course packs) and test_fuzz_exports.py (export paths) share.
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from engine.config import ChunkingConfig, EngineConfig
from engine.errors import CoursedexError
from engine.ingest.archive import parse_archive
from engine.ingest.notebook import notebook_segments
from engine.ingest.notes import note_segments
from engine.ingest.subtitles import cues_from_text
from engine.integrations.links import LinkError, parse_link
from engine.integrations.mcp_server import build_server
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.numbers import MAX_COUNT, MAX_ID, MAX_SECONDS, NumberError, seconds_ms, whole
from engine.types import SegmentDraft
from tests.conftest import MixedCourse
from tests.engine.fuzzing import SPICE, fuzz, json_value, text_like

number_text = st.one_of(
    st.from_regex(r"\A-?[0-9\u00b2\u0661\uff11]{1,4}(?:[.e:][0-9]{1,4})?s?\Z", fullmatch=True),
    st.text(st.sampled_from(SPICE), max_size=24),
)


def _in_range(value: int | None, low: int, high: int) -> bool:
    return value is None or low <= value <= high


def _check_segment(seg: SegmentDraft) -> None:
    assert _in_range(seg.start_ms, 0, MAX_SECONDS * 1000), seg
    assert _in_range(seg.end_ms, 0, MAX_SECONDS * 1000), seg
    if seg.start_ms is not None and seg.end_ms is not None:
        assert seg.start_ms <= seg.end_ms, seg
    assert _in_range(seg.page, 1, MAX_COUNT), seg
    assert _in_range(seg.line_start, 1, MAX_COUNT) and _in_range(seg.line_end, 1, MAX_COUNT), seg
    if seg.line_start is not None and seg.line_end is not None:
        assert seg.line_start <= seg.line_end, seg


# --- links and numbers ----------------------------------------------------------------------


@fuzz(400)
@given(
    t=number_text,
    page=number_text,
    line=number_text,
    source=text_like,
    tail=text_like,
)
def test_any_link_is_a_moment_in_range_or_a_link_error(
    t: str, page: str, line: str, source: str, tail: str
) -> None:
    from urllib.parse import quote

    for text in (
        f"coursedex://open?source=/a{quote(source)}&t={quote(t)}&page={quote(page)}&line={quote(line)}",
        f"coursedex://open?source=/a.mp4&t={t}",
        f"coursedex://open?source=/a.pdf&page={page}",
        f"coursedex://open?source=/a.py&line={line}",
        f"coursedex://{source}?{tail}",
        source,
    ):
        try:
            link = parse_link(text)
        except LinkError:
            continue
        assert link.source.strip()
        assert _in_range(link.start_ms, 0, MAX_SECONDS * 1000), (text, link)
        assert _in_range(link.page, 1, MAX_COUNT) and _in_range(link.line, 1, MAX_COUNT), link


@fuzz(300)
@given(
    value=st.one_of(
        number_text,
        text_like,
        st.integers(),
        st.floats(),
        st.booleans(),
        st.none(),
        st.integers(min_value=2**62, max_value=2**70),
    )
)
def test_numbers_from_outside_are_in_range_or_a_number_error(value: object) -> None:
    for low, high in ((1, MAX_COUNT), (1, MAX_ID), (0, 10)):
        try:
            n = whole(value, "n", low, high)
        except NumberError:
            pass
        else:
            assert isinstance(n, int) and low <= n <= high
    try:
        ms = seconds_ms(value, "t")
    except NumberError:
        return
    assert isinstance(ms, int) and 0 <= ms <= MAX_SECONDS * 1000


# --- MCP tool arguments ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzz_library(
    tmp_path_factory: pytest.TempPathFactory, built_library_template: Path, embedder: OnnxEmbedder
) -> Iterator[Library]:
    folder = Path(shutil.copytree(built_library_template, tmp_path_factory.mktemp("fuzz") / "l"))
    library = Library.open(folder, EngineConfig(), lambda: embedder)
    yield library
    library.close()


@pytest.fixture(scope="module")
def mcp_server(fuzz_library: Library) -> MCPServer:
    return build_server(fuzz_library)


anything = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    text_like,
    st.lists(text_like, max_size=3),
)


@fuzz(250)
@given(
    tool=st.sampled_from(["get_transcript", "get_context", "search", "list_courses", "list_notes"]),
    arguments=st.dictionaries(
        st.sampled_from(
            [
                *("source", "t", "before", "after", "segment_id", "around"),
                *("query", "limit", "course", "kind"),
            ]
        ),
        anything,
        max_size=5,
    ),
    lecture_link=st.booleans(),
)
def test_any_mcp_arguments_give_a_result_or_a_reason(
    mcp_server: MCPServer,
    mixed_course: MixedCourse,
    tool: str,
    arguments: dict[str, object],
    lecture_link: bool,
) -> None:
    if lecture_link and tool == "get_transcript":
        arguments = {**arguments, "source": str(mixed_course.lecture)}

    async def call() -> None:
        await mcp_server.call_tool(tool, arguments)

    try:
        anyio.run(call)
    except ToolError as e:
        assert not isinstance(e, UnexpectedToolError), repr(e.__cause__)
        assert "the tool failed" not in str(e), str(e)
    except MCPError as e:  # a search limit outside 1-50: the protocol's "Invalid params"
        assert e.code == INVALID_PARAMS and str(e).startswith("limit must be"), str(e)


# --- a user's notes: any text at any place --------------------------------------------------

# Small numbers often (places the files have), huge ones sometimes.
place_number = st.one_of(
    st.none(),
    st.integers(min_value=-3, max_value=70),
    st.integers(min_value=-(2**70), max_value=2**70),
)


@fuzz(120)
@given(
    text=text_like,
    file=st.sampled_from(["lecture", "slides", "notes", "code", "nothing"]),
    at_ms=place_number,
    page=place_number,
    line=place_number,
    member=st.one_of(st.none(), st.just("src/sorting.py"), text_like),
)
def test_any_note_is_kept_at_a_place_its_file_has_or_refused_with_a_reason(
    fuzz_library: Library,
    mixed_course: MixedCourse,
    text: str,
    file: str,
    at_ms: int | None,
    page: int | None,
    line: int | None,
    member: str | None,
) -> None:
    path = getattr(mixed_course, file, mixed_course.folder / "nothing.srt")
    try:
        note = fuzz_library.add_note(
            str(path), text, at_ms=at_ms, page=page, line=line, path_in_archive=member
        )
    except CoursedexError as e:
        assert str(e) and "\n" not in str(e)
        return
    place = note.place
    assert note.text.strip() and note.source_path == str(path)
    assert sum(v is not None for v in (place.at_ms, place.page, place.line)) <= 1
    assert place.at_ms is None or 0 <= place.at_ms <= 61_000
    assert place.page is None or 1 <= place.page <= 2
    assert place.line is None or 1 <= place.line <= MAX_COUNT
    assert note.id in {n.id for n in fuzz_library.notes(source=str(path))}


# --- files' text: subtitles, notes, notebooks -----------------------------------------------

CUE_TIME = st.from_regex(r"\A(\d{1,3}:)?\d{1,2}:\d{1,2}([.,]\d{0,4})?\Z", fullmatch=True)


@st.composite
def subtitles(draw: st.DrawFn) -> str:
    """SRT/VTT-shaped text: numbered cues with timings of every shape, and noise."""
    header = draw(st.sampled_from(["", "WEBVTT\n\n", "WEBVTT - x\nKind: captions\n\n", "\ufeff"]))
    cues = []
    for i in range(draw(st.integers(0, 6))):
        start, end = draw(st.one_of(CUE_TIME, number_text)), draw(st.one_of(CUE_TIME, number_text))
        body = draw(text_like)
        cues.append(
            f"{i + 1}\n{start} --> {end}{draw(st.sampled_from(['', ' align:start']))}\n{body}"
        )
    return header + "\n\n".join(cues) + draw(st.sampled_from(["", "\n", "\n\n", draw(text_like)]))


@fuzz(300)
@given(text=st.one_of(subtitles(), text_like))
def test_any_subtitle_text_gives_ordered_cues_or_an_unreadable_file(text: str) -> None:
    try:
        cues, _warnings = cues_from_text(text)
    except CoursedexError:
        return
    assert cues
    for before, cue in zip([None, *cues], cues, strict=False):
        assert 0 <= cue.start_ms <= cue.end_ms <= 1000 * 3600 * 1000, cue
        if before is not None:
            assert before.start_ms <= cue.start_ms, (before, cue)


@fuzz(250)
@given(
    text=st.one_of(
        text_like,
        st.lists(
            st.one_of(
                st.builds(lambda n, t: "#" * n + " " + t, st.integers(1, 7), text_like),
                text_like,
                st.sampled_from(["---", "```", "", "title: x", "====", "* item", "1. item"]),
            ),
            max_size=12,
        ).map("\n".join),
    ),
    name=st.sampled_from(["notes.md", "notes.txt", "notes.rst", "notes.markdown"]),
)
def test_any_notes_text_gives_segments_in_range(text: str, name: str) -> None:
    try:
        _title, segments = note_segments(text, name, ChunkingConfig())
    except CoursedexError:
        return
    for seg in segments:
        _check_segment(seg)


@st.composite
def notebooks(draw: st.DrawFn) -> str:
    import json

    cell = st.fixed_dictionaries(
        {"cell_type": st.sampled_from(["code", "markdown", "raw", 3])},
        optional={
            "source": st.one_of(text_like, st.lists(text_like, max_size=4), json_value),
            "outputs": json_value,
        },
    )
    body = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "cells": st.one_of(st.lists(cell, max_size=5), json_value),
                "metadata": st.one_of(
                    st.fixed_dictionaries(
                        {"language_info": st.fixed_dictionaries({"name": text_like})}
                    ),
                    json_value,
                ),
                "nbformat": json_value,
                "worksheets": json_value,
            },
        )
    )
    return json.dumps(body)


@fuzz(250)
@given(text=st.one_of(notebooks(), text_like))
def test_any_notebook_text_gives_segments_in_range(text: str) -> None:
    try:
        segments = notebook_segments(text, "lab.ipynb", ChunkingConfig())
    except CoursedexError:
        return
    for seg in segments:
        _check_segment(seg)


# --- archive member names ---------------------------------------------------------------------

member_name = st.one_of(
    st.builds(
        lambda stem, ext: stem + ext,
        text_like.filter(bool),
        st.sampled_from([".py", ".md", ".ipynb", ".txt", ".zip", ".js", ""]),
    ),
    st.sampled_from(
        ["../x.py", "/abs.py", "a/../../b.py", "C:\\x.py", "a\\..\\..\\b.py", "._a.py"]
    ),
)


@fuzz(150)
@given(
    members=st.lists(
        st.tuples(member_name, st.sampled_from(["print(1)\n", "# T\n\nwords here\n", "", "{}"])),
        max_size=5,
        unique_by=lambda member: member[0],
    )
)
def test_any_archive_member_names_stay_inside(members: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "code.zip"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, text in members:
                try:
                    zf.writestr(name, text)
                except (ValueError, UnicodeEncodeError):  # zipfile refuses the name itself
                    continue
        try:
            parsed = parse_archive(path, EngineConfig())
        except CoursedexError:
            return
    for seg in parsed.segments:
        _check_segment(seg)
        inside = PurePosixPath(seg.path_in_archive or "")
        assert not inside.is_absolute() and ".." not in inside.parts, seg.path_in_archive
