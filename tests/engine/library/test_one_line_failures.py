"""One line instead of tracebacks (issue 34, item 9). A disk that fills during an import gave
up to four tracebacks and left the lecture "indexing" after the process ended; during a pack
import, a sqlite3.OperationalError traceback; another user's library, a PermissionError
traceback on search, list and open. Each is now one line with exit status 1, and no file
stays "indexing" once the process that was at it is gone, however it ended. The user's side
is the real command line; the full disk a real (tmpfs) file system, the other user a process
without root's right to read anyone's files."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.importing.progress import IngestProgress, Stage
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry
from engine.packs import export_pack
from tests.engine.cli_run import ROOT, InProcessCli
from tests.engine.cli_run import child_cli as _cli
from tests.engine.library.test_data_safety import _tmpfs
from tools.factories import make_pdf, make_srt
from tools.hostile.damage import FREE_BYTES, fill
from tools.lecture_media import Clip, make_lecture_video, pdf_page_images


@pytest.fixture(scope="module")
def lecture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 24-second lecture of eight slides with its subtitles (no speech to recognise: its
    screen is read for text once the subtitles are stored, a second write)."""
    folder = tmp_path_factory.mktemp("lecture")
    titles = [f"Topic {i}\nThe tapir browses {i}" for i in range(8)]
    frames = pdf_page_images(make_pdf(folder / "deck.pdf", titles, slides=True), folder / "f")
    video = folder / "Zoo" / "lecture.mp4"
    video.parent.mkdir()
    make_lecture_video(video, [Clip(frame, seconds=3) for frame in frames], audio=False)
    cues = [(i * 3000, i * 3000 + 3000, f"Tapirs browse, part {i}.") for i in range(8)]
    make_srt(video.with_suffix(".srt"), cues)
    return video


@pytest.fixture(scope="module")
def lecture_pack(
    tmp_path_factory: pytest.TempPathFactory, lecture: Path, embedder: OnnxEmbedder
) -> Path:
    folder = tmp_path_factory.mktemp("pack")
    with Library.open(folder / "lib", EngineConfig(), lambda: embedder) as lib:
        lib.ingest([lecture.parent])
        export_pack(lib, "Zoo", folder / "zoo.cdxpack")
    return folder / "zoo.cdxpack"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MB file system."""
    with _tmpfs(tmp_path / "disk", "1m") as mount:
        yield mount


def _statuses(library: Path) -> dict[str, str]:
    """Each file's status as the database holds it, read without Coursedex (which would
    mend what it finds as it opens the library)."""
    conn = sqlite3.connect(library / "library.db")
    try:
        return {Path(p).name: s for p, s in conn.execute("SELECT path, status FROM sources")}
    finally:
        conn.close()


def _said(done: subprocess.CompletedProcess[str]) -> list[str]:
    """What a command said on both streams, but the progress lines of an import."""
    lines = done.stdout.splitlines() + done.stderr.splitlines()
    return [line for line in lines if not line.startswith("[")]


@pytest.mark.parametrize("free", FREE_BYTES)
def test_a_disk_that_fills_during_an_import_says_so_and_leaves_no_file_indexing(
    small_disk: Path, models_dir: Path, lecture: Path, free: int, cli_main: InProcessCli
) -> None:
    library = small_disk / "lib"
    assert cli_main(library, models_dir, "list").returncode == 0  # a new library
    filler = fill(small_disk, free)
    done = _cli(library, models_dir, "ingest", str(lecture.parent))
    filler.unlink()
    said = _said(done)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode in (0, 1), said
    if done.returncode == 1:
        assert any("disk full" in line for line in said), said
    assert all(line.strip() for line in said), said  # no part of a traceback nor a blank
    assert "indexing" not in _statuses(library).values()
    again = cli_main(library, models_dir, "ingest", str(lecture.parent))  # with room again
    assert again.returncode == 0, again.lines
    assert _statuses(library) == {"lecture.mp4": "indexed"}


@pytest.mark.parametrize("free", FREE_BYTES[:3])
def test_a_disk_that_fills_during_a_pack_import_says_so_and_imports_nothing(
    small_disk: Path, models_dir: Path, lecture_pack: Path, free: int, cli_main: InProcessCli
) -> None:
    library = small_disk / "lib"
    assert cli_main(library, models_dir, "list").returncode == 0  # a new library
    filler = fill(small_disk, free)
    done = _cli(library, models_dir, "pack", "import", str(lecture_pack))
    filler.unlink()
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    if done.returncode == 0:  # it fitted
        assert _statuses(library) == {"lecture.mp4": "indexed"}
        return
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        f"coursedex: disk full: the library database {library / 'library.db'} cannot grow; "
        "free some space and try again"
    )
    assert _statuses(library) == {}


def _import_then_die(models: str, library: str, files: list[str]) -> None:
    """In a child process: import ``files`` and die (as kill -9 would) while the first one
    is being embedded, its row marked as being indexed."""
    registry = ModelRegistry(Path(models))
    model = registry.load_embedder(DEFAULT_EMBEDDER, 1)

    def die_while_embedding(p: IngestProgress) -> None:
        if p.stage == Stage.EMBEDDING:
            os._exit(9)

    lib = Library.open(library, EngineConfig(), lambda: model, models=registry)
    lib.ingest(files, progress=die_while_embedding)


def test_a_file_a_killed_import_left_indexing_is_queued_by_the_next_process(
    tmp_path: Path, models_dir: Path, lecture: Path
) -> None:
    library = tmp_path / "lib"
    child = multiprocessing.get_context("spawn").Process(
        target=_import_then_die, args=(str(models_dir), str(library), [str(lecture)])
    )
    child.start()
    child.join(300)
    assert child.exitcode == 9
    assert _statuses(library) == {"lecture.mp4": "indexing"}  # as the kill left it
    listed = _cli(library, models_dir, "list")
    assert listed.returncode == 0, listed.stderr
    assert "lecture.mp4  (0 segments, queued)" in listed.stdout, listed.stdout
    assert _statuses(library) == {"lecture.mp4": "queued"}
    resumed = _cli(library, models_dir, "ingest", str(lecture))
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert _statuses(library) == {"lecture.mp4": "indexed"}


def _as_another_user(library: Path, models: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command line run by a user the library does not belong to: as root, without the
    capabilities that let root read any file (the library belongs to nobody); as anyone
    else, as is (the library's folder is made unreadable)."""
    prefix = ["setpriv", "--bounding-set=-all", "--inh-caps=-all"] if os.getuid() == 0 else []
    folders = ["--library", str(library), "--models", str(models)]
    return subprocess.run(
        [*prefix, sys.executable, "-m", "engine.cli", *folders, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_another_user_s_library_is_refused_in_one_line(
    built_library_dir: Path, models_dir: Path
) -> None:
    library = built_library_dir
    if os.getuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("root cannot run a command without its capabilities here (no setpriv)")
        for path in [library, *library.rglob("*")]:
            os.chown(path, 65534, 65534, follow_symlinks=False)  # nobody's
    else:
        library.chmod(0o000)
    try:
        for command in (("search", "axolotl"), ("list",), ("open", "coursedex://open?x")):
            done = _as_another_user(library, models_dir, *command)
            assert done.returncode == 1, (command, done.stderr[-3000:])
            lines = done.stderr.splitlines()
            assert len(lines) == 1, (command, done.stderr[-3000:])
            assert lines[0].startswith(
                f"coursedex: cannot open the library {library}: permission denied"
            ), lines
            assert lines[0].endswith(
                "; it belongs to another user, or its permissions were changed"
            ), lines
    finally:
        library.chmod(0o700)
