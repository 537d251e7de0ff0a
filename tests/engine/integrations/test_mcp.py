"""``coursedex mcp`` driven by the MCP SDK's own client over stdio, on the demo course."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_types import CallToolResult, TextContent

from engine.config import EngineConfig
from engine.demo import DEMO_COURSE, DEMO_DIR, demo_files
from engine.integrations.links import parse_link
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.plain_text import clock
from tests.conftest import copy_library
from tests.heard import heard_share

LECTURE = DEMO_DIR / "lecture-01-sorting.mp4"
NOTE_MS = 95_000


@pytest.fixture(scope="module")
def demo_library(
    tmp_path_factory: pytest.TempPathFactory, demo_library_template: Path, embedder: OnnxEmbedder
) -> Path:
    """The demo course, its lecture transcribed, in a closed library (a copy of the run's),
    with a note of the user's at NOTE_MS."""
    folder = copy_library(demo_library_template, tmp_path_factory.mktemp("mcp") / "lib")
    with Library.open(folder, EngineConfig(), lambda: embedder) as lib:
        lib.add_note(str(LECTURE), "ask whether the aardvark sort is stable", at_ms=NOTE_MS)
    return folder


def _data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    text = result.content[0]
    assert isinstance(text, TextContent)
    return json.loads(text.text)


def _error(result: CallToolResult) -> str:
    assert result.is_error
    text = result.content[0]
    assert isinstance(text, TextContent)
    return text.text


def _session_run(library: Path, models: Path) -> dict[str, Any]:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "engine.cli", "--library", str(library), "--models", str(models), "mcp"],
    )
    seen: dict[str, Any] = {}

    async def talk() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            seen["server"] = init.server_info.name
            tools = await session.list_tools()
            seen["tools"] = {t.name: t for t in tools.tools}
            seen["search"] = _data(
                await session.call_tool(
                    "search", {"query": "why is merge sort stable", "kind": ["transcript"]}
                )
            )
            seen["courses"] = _data(await session.call_tool("list_courses", {}))
            link = seen["search"]["results"][0]["link"]
            seen["transcript"] = _data(
                await session.call_tool("get_transcript", {"source": link, "before": 10})
            )
            hit = seen["search"]["results"][0]["segment_id"]
            seen["context"] = _data(
                await session.call_tool("get_context", {"segment_id": hit, "around": 1})
            )
            seen["notes"] = _data(await session.call_tool("list_notes", {}))
            seen["no notes"] = _data(
                await session.call_tool("list_notes", {"course": DEMO_COURSE.upper()})
            )
            seen["bookmark"] = _data(
                await session.call_tool("search", {"query": "aardvark", "kind": ["bookmark"]})
            )
            seen["no course"] = _error(
                await session.call_tool("search", {"query": "merge", "course": "Nope"})
            )
            seen["no file"] = _error(
                await session.call_tool("get_transcript", {"source": "/nowhere/x.mp4"})
            )

    anyio.run(talk)
    return seen


def test_an_mcp_client_finds_the_merge_sort_moment(demo_library: Path, models_dir: Path) -> None:
    seen = _session_run(demo_library, models_dir)
    assert seen["server"] == "coursedex"
    tools = seen["tools"]
    assert set(tools) == {"search", "list_courses", "get_transcript", "get_context", "list_notes"}
    assert all(t.annotations.read_only_hint for t in tools.values())

    hit = seen["search"]["results"][0]
    assert hit["source"] == str(LECTURE)
    assert hit["kind"] == "transcript" and hit["course"] == DEMO_COURSE
    assert hit["language"] == "en"  # heard in English: the lecture's own language
    assert heard_share(hit["text"], "merge sort is stable") >= 0.6, hit["text"]
    link = parse_link(hit["link"])
    assert link.source == str(LECTURE) and link.sha256
    assert link.start_ms == round(hit["start"] * 1000)
    assert link.start_ms is not None and hit["where"] == clock(link.start_ms)

    (course,) = seen["courses"]["courses"]
    assert course["name"] == DEMO_COURSE
    assert {f["source"] for f in course["files"]} == {str(p) for p in demo_files()}
    lecture = next(f for f in course["files"] if f["source"] == str(LECTURE))
    assert lecture["language"] == "en" and seen["transcript"]["language"] == "en"

    lines = seen["transcript"]["lines"]
    assert lines and all(
        line["end"] >= hit["start"] - 10 and line["start"] <= hit["start"] + 60 for line in lines
    )
    assert any("stable" in line["text"].lower() for line in lines)

    context = seen["context"]["segments"]
    assert [s["hit"] for s in context].count(True) == 1
    assert 2 <= len(context) <= 3
    assert all(s["kind"] == "transcript" for s in context)

    (note,) = seen["notes"]["notes"]
    assert (note["source"], note["at"], note["course"]) == (str(LECTURE), 95.0, DEMO_COURSE)
    assert note["text"] == "ask whether the aardvark sort is stable"
    assert parse_link(note["link"]).start_ms == NOTE_MS
    assert seen["no notes"]["notes"] == seen["notes"]["notes"]  # a course's name in any case
    (found,) = seen["bookmark"]["results"]
    assert (found["kind"], found["start"], found["where"]) == ("bookmark", 95.0, "01:35")
    assert parse_link(found["link"]).start_ms == NOTE_MS

    assert "no course named 'Nope'" in seen["no course"]
    assert "not in" in seen["no file"]
