"""Timestamp links: made from a result, parsed back, and resolved after the file moved."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.cli import main as cli
from engine.config import EngineConfig
from engine.errors import NotFoundError
from engine.integrations.links import (
    LinkError,
    make_link,
    parse_link,
    quote_with_time,
    resolve_link,
    result_link,
)
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from tests.conftest import HIPPO_MS, LECTURE_CUES
from tests.places import at_moment
from tools.factories import make_srt


def test_a_link_round_trips_its_moment() -> None:
    path = "/home/ana/Courses/Algo & Data/week 2?/lecture #1+2.mp4"
    sha = "ab" * 32
    link = make_link(path, start_ms=83_500, sha256=sha)
    assert link.startswith("coursedex://open?source=")
    assert "t=83.5" in link
    parsed = parse_link(link)
    assert (parsed.source, parsed.start_ms, parsed.sha256) == (path, 83_500, sha)
    assert parse_link(make_link(path, start_ms=120_000)).start_ms == 120_000
    page = parse_link(make_link("/s/deck.pdf", page=3))
    assert (page.page, page.start_ms) == (3, None)
    code = parse_link(make_link("/s/code.zip", member="src/a b.py", line=14))
    assert (code.member, code.line) == ("src/a b.py", 14)
    windows = parse_link(make_link(r"C:\Users\ana\lecture.mp4", start_ms=1))
    assert windows.source == r"C:\Users\ana\lecture.mp4"


@pytest.mark.parametrize(
    ("t", "ms"),
    [("83", 83_000), ("83.25", 83_250), ("83s", 83_000), ("1:23", 83_000), ("1:02:03", 3_723_000)],
)
def test_a_typed_time_reads_as_seconds_or_a_clock(t: str, ms: int) -> None:
    assert parse_link(f"coursedex://open?source=/a.mp4&t={t}").start_ms == ms


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("https://example.org/?source=/a.mp4", "not a Coursedex link"),
        ("coursedex://delete?source=/a.mp4", "opens a file"),
        ("coursedex://open?t=3", "names no file"),
        ("coursedex://open?source=/a.mp4&t=soon", "t must be a time"),
        ("coursedex://open?source=/a.mp4&t=-4", "t must be a time"),
        ("coursedex://open?source=/a.mp4&t=nan", "t must be a time"),
        ("coursedex://open?source=/a.pdf&page=0", "page must be a number from 1"),
        ("coursedex://open?source=/a.py&line=x", "line must be a number from 1"),
        ("coursedex://open?source=/a.py&sha256=zz", "sha256 must be 64 hex digits"),
    ],
)
def test_a_bad_link_says_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(LinkError, match=says):
        parse_link(text)


def test_a_link_to_a_moved_file_resolves_by_its_content(library: Library, tmp_path: Path) -> None:
    course = tmp_path / "Zoology"
    course.mkdir()
    lecture = make_srt(course / "lecture.srt", LECTURE_CUES)
    library.ingest([course])
    hit = library.search("hippopotamus", limit=1).results[0]
    assert at_moment(hit).start_ms == HIPPO_MS
    link = result_link(library, hit)
    assert "sha256=" in link
    quote = quote_with_time(hit, link)
    assert "hippopotamus" in quote and "00:31" in quote and quote.endswith(link)

    here = parse_link(link)
    assert resolve_link(library, here) == here

    moved = tmp_path / "Archive" / "Zoology"
    shutil.move(course, moved)
    library.ingest([moved])  # the library follows the file to its new folder
    assert library.source(str(lecture)) is None
    found = resolve_link(library, parse_link(link))
    assert found.source == str(moved / "lecture.srt")
    assert found.start_ms == HIPPO_MS

    stranger = make_link(str(tmp_path / "nowhere.srt"), start_ms=0, sha256="cd" * 32)
    with pytest.raises(NotFoundError, match="no file in it has the same content"):
        resolve_link(library, parse_link(stranger))


def test_cli_open_prints_where_a_link_leads(
    tmp_path: Path,
    models_dir: Path,
    embedder: OnnxEmbedder,
    capsys: pytest.CaptureFixture[str],
) -> None:
    course = tmp_path / "Zoology"
    course.mkdir()
    make_srt(course / "lecture.srt", LECTURE_CUES)
    folder = tmp_path / "lib"
    with Library.open(folder, EngineConfig(), lambda: embedder) as lib:
        lib.ingest([course])
        source = lib.source(str(course / "lecture.srt"))
        assert source is not None
    old = make_link("/gone/lecture.srt", start_ms=HIPPO_MS, sha256=source.sha256)
    base = ["--library", str(folder), "--models", str(models_dir), "open"]
    assert cli([*base, old]) == 0
    assert capsys.readouterr().out.strip() == f"{course / 'lecture.srt'} at 00:31"
    assert cli([*base, old, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["moved"] is True and shown["start"] == HIPPO_MS / 1000
    # A path with ".." in it names the library's file (issue 25, item 5), which did not move.
    roundabout = make_link(f"{course}/../{course.name}/./lecture.srt", start_ms=HIPPO_MS)
    assert cli([*base, roundabout, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["source"], shown["moved"]) == (str(course / "lecture.srt"), False)
    assert cli([*base, make_link(f"{course}/../../../../../../etc/passwd")]) == 1
    assert "is not in this library" in capsys.readouterr().err
    assert cli([*base, "coursedex://open?source=/gone/x.srt"]) == 1
    assert "is not in this library" in capsys.readouterr().err


def test_every_installer_registers_the_scheme() -> None:
    root = Path(__file__).resolve().parents[3] / "installer"
    desktop = (root / "linux" / "coursedex.desktop").read_text(encoding="utf-8").splitlines()
    assert "Exec=coursedex %U" in desktop  # links and files (paths or file:// URLs)
    mime = next(line for line in desktop if line.startswith("MimeType="))
    assert "x-scheme-handler/coursedex;" in mime
    iss = (root / "windows" / "coursedex.iss").read_text(encoding="utf-8")
    assert '"Software\\Classes\\coursedex\\shell\\open\\command"' in iss
    spec = (root / "coursedex.spec").read_text(encoding="utf-8")
    assert '"CFBundleURLSchemes": ["coursedex"]' in spec
