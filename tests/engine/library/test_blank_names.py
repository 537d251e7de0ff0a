"""Issue 25, item 7: an empty or blank course name is refused by ``rename``, ``remove`` and
``ingest --course``, through the library API and the command alike. Before, ``coursedex
rename Chemistry ''`` was accepted and ``coursedex remove ''`` then removed the course."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cli import main
from engine.errors import CoursedexError
from engine.library import Library
from tools.hostile.queries import BLANK_NAMES


@pytest.mark.parametrize("name", BLANK_NAMES, ids=range(len(BLANK_NAMES)))
def test_the_library_refuses_a_blank_name(
    built_library: Library, chemistry_notes: Path, name: str
) -> None:
    before = [(c.name, len(built_library.sources(c.name))) for c in built_library.courses()]
    with pytest.raises(CoursedexError, match="name"):
        built_library.rename_course("Chemistry", name)
    with pytest.raises(CoursedexError, match="name"):
        built_library.remove(name)
    if name:  # empty means "no course given": the file goes to Unsorted as before
        with pytest.raises(CoursedexError, match="name"):
            built_library.ingest([chemistry_notes], course=name)
    after = [(c.name, len(built_library.sources(c.name))) for c in built_library.courses()]
    assert after == before


def test_the_command_refuses_a_blank_name(
    built_library_dir: Path, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The script of the finding: rename to '' then remove ''; both refused, nothing gone."""
    argv = ["--library", str(built_library_dir), "--models", str(models_dir)]
    assert main([*argv, "stats", "--json"]) == 0
    before = capsys.readouterr().out
    for command in (["rename", "Chemistry", ""], ["remove", ""], ["remove", "  "]):
        assert main([*argv, *command]) == 1, command
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("coursedex: ") and err.count("\n") == 1, err
        assert "name" in err
    assert main([*argv, "stats", "--json"]) == 0
    assert capsys.readouterr().out == before
    assert main([*argv, "rename", "Chemistry", " Chemistry 2 "]) == 0  # spaces inside: a name
