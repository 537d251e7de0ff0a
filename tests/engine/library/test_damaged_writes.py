"""A damaged database is never written (issue 34, item 5). One 4 KB page of library.db
overwritten (tools/hostile/damage.py): the library opens and most reads work, and imports,
pack imports, notes and removals wrote to it with exit 0 and no word. Each writing command
now refuses it in the one line search gives for a damaged database, with the way out
(start-over), and leaves the library as it was. The user's side is the real command line:
every command on every damage in-process (tests/engine/cli_run.py: its stderr as a child's
would be), and the way out in a child process, as a user runs it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.errors import LibraryDamagedError
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.packs import export_pack
from tests.engine.cli_run import InProcessCli
from tests.engine.cli_run import child_cli as _cli
from tests.engine.cli_run import library_files as _files
from tests.engine.library.test_damage_at_rest import _course
from tools.hostile.damage import PAGE_DAMAGE, overwrite_page


@pytest.fixture(scope="module")
def geology_pack(tmp_path_factory: pytest.TempPathFactory, embedder: OnnxEmbedder) -> Path:
    """A pack of a course the damaged library does not hold."""
    folder = tmp_path_factory.mktemp("geology")
    course = _course(folder / "Geology", {"volcano": "The volcano erupts molten lava."})
    with Library.open(folder / "lib", EngineConfig(), lambda: embedder) as lib:
        lib.ingest([course])
        out = folder / "geology.cdxpack"
        export_pack(lib, "Geology", out)
    return out


def _writes(library: Path, pack: Path) -> list[tuple[str, ...]]:
    """Every kind of write a user asks of a library from the command line."""
    new = _course(library.parent / "More", {"gecko": "The gecko climbs glass."})
    notes = str(library.parent / "Biology 101" / "notes.md")
    chemistry = str(library.parent / "Chemistry" / "titration.md")
    conn = sqlite3.connect(f"{(library / 'library.db').as_uri()}?mode=ro", uri=True)
    held = {Path(p).name: p for (p,) in conn.execute("SELECT path FROM sources")}
    conn.close()
    notes, chemistry = held.get("notes.md", notes), held.get("titration.md", chemistry)
    return [
        ("ingest", str(new)),
        ("pack", "import", str(pack)),
        ("notes", "add", notes, "--line", "1", "my own note"),
        ("notes", "remove", "1"),
        ("remove", chemistry),
        ("remove", "Chemistry"),
        ("rename", "Chemistry", "Chem"),
    ]


@pytest.mark.parametrize("damage", PAGE_DAMAGE)
def test_a_damaged_database_is_written_by_no_command(
    built_library_dir: Path,
    models_dir: Path,
    geology_pack: Path,
    damage: str,
    cli_main: InProcessCli,
) -> None:
    db = built_library_dir / "library.db"
    writes = _writes(built_library_dir, geology_pack)
    overwrite_page(db, PAGE_DAMAGE[damage])
    before = _files(built_library_dir)
    for command in writes:
        said = cli_main(built_library_dir, models_dir, *command)
        lines = said.lines
        assert said.returncode == 1, (command, lines)
        assert len(lines) == 1, (command, lines)
        assert lines[0].startswith(f"coursedex: the library database {db} is damaged ("), lines
        assert lines[0].endswith(
            f"Nothing was changed (to start over: coursedex --library {built_library_dir} "
            "start-over)"
        ), lines
        assert _files(built_library_dir) == before, command


def test_the_way_out_it_names_starts_the_library_over(
    built_library_dir: Path, models_dir: Path, geology_pack: Path
) -> None:
    overwrite_page(built_library_dir / "library.db", PAGE_DAMAGE["slide links"])
    refused = _cli(built_library_dir, models_dir, "pack", "import", str(geology_pack))
    assert refused.returncode == 1, refused.stderr[-3000:]
    assert len(refused.stderr.splitlines()) == 1, refused.stderr[-3000:]
    way_out = refused.stderr.strip().rsplit("(to start over: ", 1)[1].removesuffix(")")
    assert way_out == f"coursedex --library {built_library_dir} start-over"
    again = _cli(built_library_dir, models_dir, "start-over")
    assert again.returncode == 0, again.stderr[-3000:]
    done = _cli(built_library_dir, models_dir, "pack", "import", str(geology_pack))
    assert done.returncode == 0, done.stderr[-3000:]
    found = _cli(built_library_dir, models_dir, "search", "--json", "molten lava")
    assert Path(json.loads(found.stdout)["results"][0]["source"]).name == "volcano.md"


def test_a_library_refuses_its_first_write_and_still_reads(
    built_library_dir: Path, embedder: OnnxEmbedder
) -> None:
    """The check is the engine's, so the window refuses as the command line does."""
    overwrite_page(built_library_dir / "library.db", PAGE_DAMAGE["slide links"])
    before = _files(built_library_dir)
    with Library.open(built_library_dir, EngineConfig(), lambda: embedder) as lib:
        assert lib.search("axolotl").results  # reading what is sound goes on
        with pytest.raises(LibraryDamagedError, match=r"is damaged \(.*Nothing was changed$"):
            lib.rename_course("Chemistry", "Chem")
        with pytest.raises(LibraryDamagedError):  # refused each time, not only the first
            lib.remove("Chemistry")
        with pytest.raises(LibraryDamagedError):
            lib.follow("Biology 101")
    assert _files(built_library_dir) == before
