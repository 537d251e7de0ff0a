"""Issue 25, item 4: numbers at the edges of their range are clear errors where they enter
(a link, an MCP tool's arguments, the command line), never a traceback from deep inside:
``t=1e308`` overflowed ``seconds * 1000``, a segment id of 2**63 reached SQLite, ``line=²``
passed ``isdigit()`` and failed ``int()``, and fullwidth digits were read as numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError

from engine.cli import main
from engine.integrations.links import LinkError, make_link, parse_link
from engine.integrations.mcp_server import build_server
from engine.library import Library
from engine.numbers import MAX_COUNT, MAX_SECONDS, NumberError, seconds_ms, whole
from tests.conftest import MixedCourse
from tools.hostile.exact import BAD_CLOCKS, GOOD_CLOCKS
from tools.hostile.queries import BAD_LINK_NUMBERS, BAD_TOOL_ARGUMENTS


@pytest.mark.parametrize("value", BAD_LINK_NUMBERS, ids=range(len(BAD_LINK_NUMBERS)))
def test_a_link_number_at_the_edge_is_a_link_error(value: str) -> None:
    name = value.split("=")[0]
    with pytest.raises(LinkError, match=f"^{name} must be a"):
        parse_link(f"coursedex://open?source=/a.mp4&{value}")


@pytest.mark.parametrize("clock", BAD_CLOCKS)
def test_a_clock_past_59_minutes_or_seconds_is_refused(clock: str) -> None:
    """Issue 34, item 10: ``00:99`` was read as 01:39 and ``t=1:99:99`` as 9639 s."""
    with pytest.raises(NumberError, match=r"^the time "):
        seconds_ms(clock, "the time")
    with pytest.raises(LinkError, match=r"^t "):
        parse_link(f"coursedex://open?source=/a.mp4&t={quote(clock)}")


@pytest.mark.parametrize(("clock", "ms"), GOOD_CLOCKS)
def test_a_clock_up_to_59_reads(clock: str, ms: int) -> None:
    assert seconds_ms(clock, "t") == ms
    assert parse_link(f"coursedex://open?source=/a.mp4&t={quote(clock)}").start_ms == ms


def test_notes_add_refuses_a_clock_past_59(
    built_library_dir: Path,
    models_dir: Path,
    mixed_course: MixedCourse,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--library", str(built_library_dir), "--models", str(models_dir), "notes", "add"]
    for clock in ("00:99", "1:99:99", "0:60"):
        with pytest.raises(SystemExit) as exit_:
            main([*argv, str(mixed_course.lecture), "--at", clock, "a note"])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert "minutes and seconds" in err and "Traceback" not in err, err


def test_numbers_in_range_still_read() -> None:
    assert parse_link("coursedex://open?source=/a.mp4&t=10000000").start_ms == MAX_SECONDS * 1000
    assert parse_link("coursedex://open?source=/a.mp4&t=0").start_ms == 0
    assert parse_link("coursedex://open?source=/a.mp4&t=.5").start_ms == 500
    assert parse_link("coursedex://open?source=/a.pdf&page=1000000000").page == MAX_COUNT
    assert parse_link("coursedex://open?source=/a.py&line= 7 ").line == 7
    assert seconds_ms(12.25, "t") == 12_250 and seconds_ms(3, "t") == 3000
    assert whole(2**63 - 1, "id", 1, 2**63 - 1) == 2**63 - 1
    for bad in (True, 1.0, None, "1.0", "\u0661"):
        with pytest.raises(NumberError):
            whole(bad, "n")


def test_the_open_command_says_what_is_wrong_in_one_line(
    built_library_dir: Path,
    models_dir: Path,
    mixed_course: MixedCourse,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--library", str(built_library_dir), "--models", str(models_dir)]
    lecture = make_link(str(mixed_course.lecture))
    for value in ("t=1e308", "t=Infinity", "line=\u00b2", "page=\uff11\uff12"):
        assert main([*argv, "open", f"{lecture}&{value}"]) == 1, value
        err = capsys.readouterr().err
        assert err.startswith("coursedex: ") and err.count("\n") == 1, err
        assert "must be a" in err
    # Past the end of the recording: the link names a moment that is not there.
    assert main([*argv, "open", f"{lecture}&t=9000000"]) == 1
    assert "long: nothing at 9000000 seconds" in capsys.readouterr().err


@pytest.mark.parametrize("option", [["--threads", "99999999999999999999"], ["--threads", "\u0663"]])
def test_command_line_numbers_are_bounded(
    built_library_dir: Path,
    models_dir: Path,
    capsys: pytest.CaptureFixture[str],
    option: list[str],
) -> None:
    """A huge --threads reached onnxruntime's options as an OverflowError traceback."""
    argv = ["--library", str(built_library_dir), "--models", str(models_dir), *option]
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "search", "axolotl"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "must be a number from 1 to 256" in err and "Traceback" not in err
    with pytest.raises(SystemExit):
        main(["--library", str(built_library_dir), "search", "--limit", "\u00b2", "axolotl"])
    assert "must be a number from 1" in capsys.readouterr().err


def _call(library: Library, tool: str, arguments: dict[str, Any]) -> str:
    """The tool error's message (through the server's own argument validation)."""
    server = build_server(library)

    async def call() -> None:
        await server.call_tool(tool, arguments)

    with pytest.raises(ToolError) as error:
        anyio.run(call)
    assert not isinstance(error.value, UnexpectedToolError), error.value.__cause__
    return str(error.value)


@pytest.mark.parametrize(
    ("tool", "arguments", "says"), BAD_TOOL_ARGUMENTS, ids=range(len(BAD_TOOL_ARGUMENTS))
)
def test_mcp_arguments_at_the_edge_say_why(
    built_library: Library,
    mixed_course: MixedCourse,
    tool: str,
    arguments: dict[str, object],
    says: str,
) -> None:
    if tool == "get_transcript":
        arguments = {"source": str(mixed_course.lecture), **arguments}
    message = _call(built_library, tool, arguments)
    assert says in message and "the tool failed" not in message, message


def test_a_link_time_at_the_edge_reaches_the_mcp_caller(
    built_library: Library, mixed_course: MixedCourse
) -> None:
    link = make_link(str(mixed_course.lecture)) + "&t=1e308"
    assert "t must be a time" in _call(built_library, "get_transcript", {"source": link})
