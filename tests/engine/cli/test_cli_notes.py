"""`coursedex notes add|list|remove` and `search --kind bookmark`: the real command, in-process,
on a copy of the built library (Biology 101 + Chemistry)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.integrations.links import parse_link
from tests.conftest import LOMUTO_LINE, MixedCourse
from tests.engine.cli.test_cli import Cli


@pytest.fixture
def cli(built_library_dir: Path, models_dir: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(built_library_dir, models_dir, capsys)


def test_notes_are_added_listed_found_and_removed(cli: Cli, mixed_course: MixedCourse) -> None:
    lecture, slides = str(mixed_course.lecture), str(mixed_course.slides)
    added = cli("notes", "add", lecture, "--at", "0:31.5", "the", "hippo", "arrives")
    assert (added.code, added.err) == (0, "")
    assert added.out == "added note 1 at 00:31 of lecture.srt (Biology 101)\n"
    assert cli("notes", "add", slides, "--page", "2", "mitochondria: the powerhouse").code == 0
    code = cli("notes", "add", str(mixed_course.code), "--line", str(LOMUTO_LINE), "Lomuto")
    assert code.code == 0 and f"src/sorting.py line {LOMUTO_LINE} of code.zip" in code.out

    listed = cli("notes", "list", "--course", "biology 101")
    assert listed.code == 0
    assert listed.out.splitlines() == [
        "Biology 101",
        f"     3  code.zip  src/sorting.py line {LOMUTO_LINE}  Lomuto",
        "     1  lecture.srt  00:31  the hippo arrives",
        "     2  slides.pdf  page 2  mitochondria: the powerhouse",
    ]
    notes = cli("notes", "list", "--json").json()
    assert isinstance(notes, list)
    hippo = next(n for n in notes if n["id"] == 1)
    assert (hippo["source"], hippo["at"], hippo["text"]) == (lecture, 31.5, "the hippo arrives")
    link = parse_link(hippo["link"])
    assert (link.source, link.start_ms, link.sha256) == (lecture, 31_500, hippo["sha256"])

    found = cli("search", "--kind", "bookmark", "--json", "hippo")
    results = found.json()["results"]  # type: ignore[index]
    assert [(r["kind"], r["source"], r["start"]) for r in results][:1] == [
        ("bookmark", lecture, 31.5)
    ]
    assert all(r["kind"] == "bookmark" for r in results)
    # The window's name for the kind works too.
    assert cli("search", "--kind", "my notes", "powerhouse").out.count("[bookmark]") >= 1

    assert cli("notes", "remove", "1").out == "removed note 1\n"
    again = cli("notes", "remove", "1")
    assert (again.code, again.out) == (1, "")
    assert again.err == "coursedex: there is no note 1 (see `coursedex notes list`)\n"
    after = cli("search", "--kind", "bookmark", "--json", "hippo").json()
    assert all(r["source"] != lecture for r in after["results"])  # type: ignore[index]


def test_a_note_that_cannot_be_added_is_one_line_and_exit_1(
    cli: Cli, mixed_course: MixedCourse
) -> None:
    lecture = str(mixed_course.lecture)
    cases = {
        ("--at", "9:00", "late"): "09:00 is after the end of lecture.srt",
        ("--page", "2", "wrong"): "a note on lecture.srt is at a time, not at a page",
    }
    for args, message in cases.items():
        run = cli("notes", "add", lecture, *args)
        assert run.code == 1 and run.out == ""
        assert run.err.startswith("coursedex: ") and message in run.err
        assert run.err.count("\n") == 1
    blank = cli("notes", "add", lecture, "--at", "0:10", "  ")
    assert (blank.code, blank.err) == (1, "coursedex: a note needs some text (it is blank)\n")
    unknown = cli("notes", "add", str(mixed_course.folder / "gone.mp4"), "--at", "1", "x")
    assert unknown.code == 1 and "no file" in unknown.err
    assert cli("notes", "list").out.startswith("no notes yet")
    with pytest.raises(SystemExit) as usage:  # no place, or a time that is not one
        cli("notes", "add", lecture, "text")
    assert usage.value.code == 2
    with pytest.raises(SystemExit):
        cli("notes", "add", lecture, "--at", "1:2x", "text")
    with pytest.raises(SystemExit):
        cli("notes", "add", lecture, "--at", "1", "--page", "2", "text")
    with pytest.raises(SystemExit):
        cli("notes", "remove", "0")
