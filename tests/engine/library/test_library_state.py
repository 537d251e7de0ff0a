"""A library never writes through a link out of it (issue 34, item 4), and what a killed
process left is cleaned up by the next writer, never what a live one is writing (item 6).

A library whose ``thumbs`` was a link to ``/etc`` got 8 JPEGs written there by ``pack import``;
a URL download killed with -9 left a 3.7 GB ``.part`` in ``media/`` through later imports and
removals; ``kill -9`` during ``pack export`` left ``.out.cdxpack.XXXX.tmp`` beside the output.
The hostile states are tools/hostile/library_state.py's; the processes are real and killed
with SIGKILL."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main
from engine.errors import CoursedexError, OutputExistsError
from engine.library import Library
from engine.outputs import check_output, write_output
from engine.own_folders import open_folder
from engine.packs import export_pack, import_pack, read_pack
from engine.partial_files import remove_stale_temps
from tests.engine.screens import screens_lecture
from tests.web_site import clear_proxies
from tools.hostile.library_state import (
    LIBRARY_CASES,
    LINK,
    LibraryCase,
    coursedex,
    kill,
    killed_writer,
    live_writer,
    outside_state,
    serve_slow_video,
    wait_for,
)

COURSE = "Zoology"
NOTES = "# Hippos\n\nHippopotamuses graze at night, on land.\n"


def _cli(folder: Path, models: Path, *args: str) -> int:
    return main(["--library", str(folder), "--models", str(models), *args])


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    course = tmp_path / COURSE
    course.mkdir()
    path = course / "hippos.md"
    path.write_text(NOTES, encoding="utf-8")
    return path


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder out of the library standing for /etc: what is in it must stay as it is."""
    folder = tmp_path / "etc"
    folder.mkdir()
    (folder / "passwd").write_text("root:x:0:0::/root:/bin/sh\n", encoding="utf-8")
    return folder


# --- item 4: links out of the library ---------------------------------------------------


@pytest.mark.parametrize("case", LIBRARY_CASES, ids=lambda c: c.what)
def test_a_library_whose_own_folder_leads_out_of_it_is_refused_in_one_line(
    case: LibraryCase,
    notes: Path,
    outside: Path,
    models_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lib = tmp_path / "lib"
    assert _cli(lib, models_dir, "ingest", str(notes), "--course", COURSE) == 0
    pack = tmp_path / "zoology.cdxpack"
    assert _cli(lib, models_dir, "pack", "export", COURSE, "-o", str(pack)) == 0
    case.make(lib, outside)
    before = outside_state(outside)
    capsys.readouterr()
    more = notes.with_name("more.md")
    more.write_text("# Lions\n\nLions sleep by day.\n", encoding="utf-8")
    for command in (["ingest", str(more)], ["pack", "import", str(pack)], ["search", "hippo"]):
        code = _cli(lib, models_dir, *command)
        err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert (code, len(lines)) == (1, 1), (case.what, command, err)
        assert re.search(case.reason, lines[0]), (case.what, lines[0])
        assert case.name in lines[0], lines[0]
    assert outside_state(outside) == before, case.what
    assert (lib / case.name).is_symlink() or (lib / case.name).is_file()


def _pack_with_pictures(library: Library, tmp_path: Path) -> Path:
    """A course pack of a lecture with three screens: a thumbnail each."""
    course = tmp_path / "Screens"
    (tmp_path / "scratch").mkdir()
    screens_lecture(course, tmp_path / "scratch")
    report = library.ingest([course])
    assert not report.errors, report.errors
    assert list(library.thumbs.glob("*.jpg"))
    pack = tmp_path / "screens.cdxpack"
    export_pack(library, "Screens", pack)
    assert read_pack(pack).thumbnails
    return pack


def test_a_thumbs_folder_made_a_link_after_the_library_opened_is_neither_written_nor_emptied(
    library: Library, outside: Path, tmp_path: Path
) -> None:
    """The folder is checked as the library opens, and each write opens it without following
    a link: one swapped for a link later (O_NOFOLLOW) is refused, not written through, and
    the clean-ups (a removed lecture's pictures, pictures no scene shows) delete nothing
    where it leads, though it holds files of the very names they would delete."""
    pack = _pack_with_pictures(library, tmp_path)
    for picture in library.thumbs.iterdir():
        picture.rename(outside / picture.name)
    (outside / "0123456789abcdef-0000.jpg").write_bytes(b"no scene shows it")
    library.thumbs.rmdir()
    library.thumbs.symlink_to(outside, target_is_directory=True)
    before = outside_state(outside)
    library.remove("Screens")
    assert outside_state(outside) == before
    with pytest.raises(CoursedexError, match=LINK):
        import_pack(library, pack)
    assert outside_state(outside) == before


# --- exports: the check made again where the file is written ---------------------------


def test_an_export_folder_swapped_for_a_link_into_the_library_after_the_check_is_refused(
    library: Library, notes: Path, tmp_path: Path
) -> None:
    """check_output judges a path; the write judges the folder it opened (walked up by
    descriptor), so a folder made a link into the library in between is refused."""
    library.ingest([notes], course=COURSE)
    out = tmp_path / "exports"
    out.mkdir()
    dest = out / "library.db"  # the library's database's name, in a folder of the user's
    target = check_output(dest, library)
    out.rmdir()
    out.symlink_to(library.folder, target_is_directory=True)
    database = (library.folder / "library.db").read_bytes()
    with pytest.raises(CoursedexError, match="inside the library's folder"):
        write_output(dest, target, lambda tmp: tmp.write_bytes(b"PK a zip"), library)
    assert (library.folder / "library.db").read_bytes() == database
    assert not [p for p in library.folder.iterdir() if p.name.endswith(".tmp")]


def test_an_export_target_made_after_the_check_is_not_replaced_without_force(
    library: Library, tmp_path: Path
) -> None:
    (tmp_path / "mine").mkdir()
    dest = tmp_path / "mine" / "handout.md"
    target = check_output(dest, library)
    dest.write_text("the student's own file, saved meanwhile\n", encoding="utf-8")
    with pytest.raises(OutputExistsError, match="already exists"):
        write_output(dest, target, lambda tmp: tmp.write_text("export\n"), library)
    assert dest.read_text(encoding="utf-8") == "the student's own file, saved meanwhile\n"
    write_output(dest, target, lambda tmp: tmp.write_text("export\n"), library, force=True)
    assert dest.read_text(encoding="utf-8") == "export\n"
    assert [p.name for p in dest.parent.iterdir()] == ["handout.md"]


# --- item 6: what killed processes leave ------------------------------------------------


def test_a_killed_export_s_temp_file_is_removed_by_the_next_export_never_a_live_one_s(
    library: Library, notes: Path, tmp_path: Path
) -> None:
    library.ingest([notes], course=COURSE)
    out = tmp_path / "out"
    out.mkdir()
    target = out / "zoology.cdxpack"
    killed = killed_writer(target)
    assert killed.parent == out and killed.exists()
    someone_else_s = out / f".{target.name}.a1b2c3.tmp"  # not ours: no pid, no lock
    someone_else_s.write_bytes(b"another program's file")
    with live_writer(target) as (_proc, live):
        export_pack(library, COURSE, target)
        assert not killed.exists()
        assert live.exists()  # a live writer's, kept
        assert someone_else_s.read_bytes() == b"another program's file"
        assert read_pack(target).manifest.course == COURSE
    export_pack(library, COURSE, target, force=True)  # the writer is dead now
    assert not live.exists()
    assert sorted(p.name for p in out.iterdir()) == sorted([target.name, someone_else_s.name])


def test_a_temp_file_is_removed_only_when_its_pid_is_gone_and_its_lock_is_free(
    tmp_path: Path,
) -> None:
    """Both checks, not either: a pid reused by a live process, or a writer of another pid
    namespace (a container) whose pid means nothing here, keeps its file."""
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead = int(gone.stdout)  # reaped: no process has this pid now (barring reuse)
    target = tmp_path / "zoology.cdxpack"
    locked = tmp_path / f".{target.name}.{dead}.0badc0de.tmp"
    locked.write_bytes(b"a writer of another namespace")
    alive = tmp_path / f".{target.name}.{os.getppid()}.0badc0de.tmp"  # pytest's parent
    alive.write_bytes(b"a live pid, no lock")
    free = tmp_path / f".{target.name}.{dead}.0ddba110.tmp"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, sys; f = open(sys.argv[1], 'rb'); "
         "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
         str(locked)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        free.write_bytes(b"dead and unlocked")
        with open_folder(tmp_path) as folder:
            assert remove_stale_temps(folder, target.name) == 1
        assert locked.exists() and alive.exists() and not free.exists()
    finally:
        kill(holder)
    with open_folder(tmp_path) as folder:
        assert remove_stale_temps(folder, target.name) == 1  # its lock is free now
    assert not locked.exists() and alive.exists()


@pytest.fixture
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_proxies(monkeypatch)


def _part(media: Path, name: str) -> Path | None:
    found = [p for p in media.rglob(f"{name}.mp4.part")] if media.is_dir() else []
    return found[0] if found and found[0].stat().st_size > 0 else None


@pytest.mark.usefixtures("_no_proxy")
def test_a_killed_download_s_part_file_is_removed_by_the_next_writer_never_a_live_one_s(
    library: Library, notes: Path, models_dir: Path
) -> None:
    media = library.folder / "media"
    with serve_slow_video() as site:
        fetches = {}
        # The live one first: the killed one's start (a writer) must keep its file too.
        for name in ("live", "killed"):
            fetches[name] = coursedex(
                "--library", str(library.folder), "--models", str(models_dir),
                "ingest", f"{site}/{name}.mp4",
            )  # fmt: skip
            wait_for(lambda n=name: _part(media, n), f"{name}.mp4.part")
            if name == "killed":
                kill(fetches[name])
        killed, live = _part(media, "killed"), _part(media, "live")
        assert killed is not None and live is not None
        try:
            library.ingest([notes])  # the next writer
            assert not killed.exists() and not killed.parent.exists()
            assert live.exists()
            size = live.stat().st_size
            wait_for(lambda: live.stat().st_size > size, "more of the live download")
        finally:
            kill(fetches["live"])
        library.remove(str(notes))  # the next writer after it was killed too
        assert not live.exists() and not live.parent.exists()
        assert [p.name for p in media.iterdir()] == []
