"""Every export checks where it writes (issue 34, item 3): a pack, a handout, flashcards and a
transcript are never written inside the library's folder (``-o LIB/library.db`` once replaced
the database with a zip, exit 0), over a file the library indexes, over a device, pipe,
socket or folder, nor over an existing file unless asked (``--force``). Each hostile target
of tools/hostile/outputs.py is refused with one line, exit 1, and left as it was."""

from __future__ import annotations

import errno
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.cli import main
from engine.errors import CoursedexError
from engine.integrations.transcript_export import write_transcript
from engine.library import Library
from engine.outputs import OutputExistsError, check_output, write_failed
from tools.factories import make_srt
from tools.hostile.outputs import EXISTS, output_cases, state

CUES = [
    (0, 4_000, "Hippopotamuses spend the day in rivers."),
    (4_000, 9_000, "At night they walk inland to graze on grass."),
]
COURSE = "Zoology"


@pytest.fixture
def course(library: Library, tmp_path: Path) -> list[Path]:
    """A small course the library indexed: a lecture (.srt), the student's notes (.md) and
    a reading list kept elsewhere, in the course through a link (so indexed under the link's
    name). The files as they are on disk."""
    folder = tmp_path / COURSE
    folder.mkdir()
    lecture = make_srt(folder / "week1.srt", CUES)
    notes = folder / "notes.md"
    notes.write_text("# Hippos\n\nThey graze at night, on land.\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    reading = elsewhere / "reading.md"
    reading.write_text("# Reading\n\nRiver horses of Africa.\n", encoding="utf-8")
    (folder / "reading.md").symlink_to(reading)
    library.ingest([folder])
    library.add_note(str(lecture), "Hippos graze at night", at_ms=5_000)  # an Anki card
    assert library.source(str(notes)) is not None
    assert library.source(str(folder / "reading.md")) is not None
    return [lecture, notes, reading]


def _cli(library: Library, models: Path, *args: str) -> int:
    return main(["--library", str(library.folder), "--models", str(models), *args])


EXPORTS: dict[str, tuple[str, Callable[[Path], list[str]]]] = {
    "pack": (".cdxpack", lambda out: ["pack", "export", COURSE, "-o", str(out)]),
    "handout": (".md", lambda out: ["export", "handout", "week1", "-o", str(out)]),
    "anki": (".apkg", lambda out: ["export", "anki", COURSE, "-o", str(out)]),
}


@pytest.mark.parametrize("export", sorted(EXPORTS))
def test_every_hostile_target_is_refused_with_one_line_and_left_as_it_was(
    export: str,
    library: Library,
    course: list[Path],
    models_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    suffix, command = EXPORTS[export]
    cases = output_cases(library.folder, course, suffix, tmp_path / "t")
    assert {c.what for c in cases} >= {"the library's database", "a named pipe", "a folder"}
    for case in cases:
        before = state(case.path)
        code = _cli(library, models_dir, *command(case.path))
        err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert (code, len(lines)) == (1, 1), (case.what, err)
        assert re.search(case.reason, lines[0]), (case.what, lines[0])
        assert state(case.path) == before, case.what
        if case.reason == EXISTS:
            assert "add --force to replace it" in lines[0]
            assert _cli(library, models_dir, *command(case.path), "--force") == 0, err
            assert state(case.path) != before
    # The library's database is still the library's, and every file it indexed is there.
    assert {Path(s.path).resolve() for s in library.sources()} == set(course)
    capsys.readouterr()
    assert _cli(library, models_dir, "search", "hippopotamus") == 0


def test_a_transcript_is_checked_as_the_others(
    library: Library, course: list[Path], tmp_path: Path
) -> None:
    lines = library.transcript(str(course[0]))
    for case in output_cases(library.folder, course, ".srt", tmp_path / "t"):
        before = state(case.path)
        with pytest.raises(CoursedexError, match=case.reason):
            write_transcript(lines, case.path, library=library)
        assert state(case.path) == before, case.what
    existing = tmp_path / "t" / "existing.srt"
    write_transcript(lines, existing, library=library, force=True)
    assert "Hippopotamuses" in existing.read_text(encoding="utf-8")


def test_a_link_to_a_file_is_checked_and_written_where_it_leads(
    library: Library, tmp_path: Path
) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with pytest.raises(OutputExistsError, match="already exists"):
        check_output(link, library)
    assert check_output(link, library, force=True) == real
    assert check_output(tmp_path / "new.txt", library) == tmp_path / "new.txt"


def test_a_full_disk_is_reported_as_a_full_disk(tmp_path: Path) -> None:
    full = OSError(errno.ENOSPC, "No space left on device")
    assert str(write_failed(tmp_path / "x.md", full)).endswith(": the disk is full")
    denied = PermissionError(errno.EACCES, "Permission denied")
    assert str(write_failed(tmp_path / "x.md", denied)).endswith(": Permission denied")
