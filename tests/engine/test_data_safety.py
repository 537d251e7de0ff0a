"""Issue 18's data-safety defects, each with the real thing that showed it: a file a reader
fails on in a way nobody foresaw, a truncated database, a full disk, odd paths."""

from __future__ import annotations

import zipfile
from pathlib import Path

from engine.library import Library, Outcome
from engine.types import SourceStatus


class _NamelessInfo(zipfile.ZipInfo):
    """Lets zipfile write a member with an empty name (it refuses one of its own accord)."""

    def is_dir(self) -> bool:
        return False


def make_nameless_zip(path: Path) -> Path:
    """A zip whose one member has an empty name: zipfile's own ``is_dir`` raises IndexError
    on it, a failure no reader of ours expects."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(_NamelessInfo(""), "def f():\n    return 1\n")
    return path


def test_an_unexpected_failure_ends_that_file_and_the_import_goes_on(
    library: Library, tmp_path: Path
) -> None:
    folder = tmp_path / "Course"
    folder.mkdir()
    odd = make_nameless_zip(folder / "a-odd.zip")
    (folder / "b-notes.md").write_text("# Otters\n\nThe sea otter uses a stone as a tool.\n")
    report = library.ingest([folder])
    outcomes = {Path(f.path).name: f for f in report.files}
    assert outcomes["b-notes.md"].outcome == Outcome.INDEXED
    failed = outcomes["a-odd.zip"]
    assert failed.outcome == Outcome.ERROR
    assert "IndexError" in failed.detail and "\n" not in failed.detail
    source = library.source(str(odd))
    assert source is not None and source.status == SourceStatus.ERROR
    assert library.search("sea otter stone").results
