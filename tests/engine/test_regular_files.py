"""Every path the engine reads is a regular file (issue 34, item 2): text the import, the
handouts and notes read, what a pack import hashes, a thumbnail a handout embeds. A named
pipe is never waited on (each test has a timeout: one that waited would stop there), a link
to /dev/zero is never read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.errors import UnreadableFileError
from engine.importing.files import sha256_of
from engine.ingest.text import read_text
from engine.integrations.pictures import thumbnail_picture
from engine.regular_files import open_regular, regular_file

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def pipe(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.md"
    os.mkfifo(path)  # nothing ever writes to it
    return path


@pytest.fixture
def zero(tmp_path: Path) -> Path:
    path = tmp_path / "zero.md"
    path.symlink_to("/dev/zero")
    return path


def test_text_from_a_named_pipe_is_refused_as_one(pipe: Path) -> None:
    with pytest.raises(UnreadableFileError, match=r"^not a regular file \(a named pipe\)$"):
        read_text(pipe, 1024)


def test_text_from_a_link_to_dev_zero_is_refused_as_a_device(zero: Path) -> None:
    with pytest.raises(UnreadableFileError, match=r"^not a regular file \(a device\)$"):
        read_text(zero, 1024)


def test_a_named_pipe_is_not_hashed(pipe: Path) -> None:
    """What a pack import does with a file of the right name in the media folder."""
    with pytest.raises(UnreadableFileError, match=r"pipe\.md is not a regular file"):
        sha256_of(pipe)


def test_a_thumbnail_that_is_a_named_pipe_is_none(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "frame.jpg")
    assert thumbnail_picture(tmp_path, "frame.jpg") is None


def test_the_refusal_names_the_path_and_what_it_is(tmp_path: Path, pipe: Path) -> None:
    with pytest.raises(UnreadableFileError) as refused:
        open_regular(pipe)
    assert str(refused.value) == f"{pipe} is not a regular file (a named pipe)"
    with pytest.raises(UnreadableFileError, match=r"is a folder, not a file$"):
        regular_file(tmp_path)
    with pytest.raises(UnreadableFileError, match=r"gone\.md: file not found$"):
        regular_file(tmp_path / "gone.md")
    broken = tmp_path / "broken.md"
    broken.symlink_to(tmp_path / "nowhere.md")
    with pytest.raises(UnreadableFileError, match=r"broken\.md: broken link: its target is gone"):
        regular_file(broken)


def test_a_regular_file_is_read(tmp_path: Path) -> None:
    """Not vacuous: what is refused above is refused for what it is."""
    notes = tmp_path / "notes.md"
    notes.write_text("# Otters\nThey hold hands.\n")
    with open_regular(notes) as f:
        assert f.read() == notes.read_bytes()
    assert read_text(notes, 1024).startswith("# Otters")
    link = tmp_path / "link.md"
    link.symlink_to(notes)
    assert regular_file(link).st_size == notes.stat().st_size
