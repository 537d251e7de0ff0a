"""Shared fixtures. Every test fails if anything logs at ERROR (as in PySceneDetect).

A test stuck in C code (a deadlock inside Qt or libVLC) holds the GIL, so pytest-timeout's
signal never runs: faulthandler's watchdog thread, which needs no GIL, then writes every
thread's stack to ``.pytest-stuck.txt`` and ends the run, which scripts/test prints. CI ends
with the stacks instead of running into its own time limit.

The real default embedder is assembled once per session from the PyPI model packages and
shared: loading it is the slowest part of an engine test.
"""

from __future__ import annotations

import faulthandler
import gc
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import pytest

from engine.config import EngineConfig
from engine.demo import DEMO_COURSE, demo_files
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry
from tests.engine.cli_run import InProcessCli
from tests.english import english
from tests.traced import has_strace, offline_env, strace
from tools.factories import (
    make_code_zip,
    make_latin1_srt,
    make_pdf,
    make_srt,
    make_zip_bomb,
    make_zip_slip,
)

# pytest-timeout fails a test at 600 s when Python code can run; tests of this use a few s.
STUCK_AFTER_S = float(os.environ.get("COURSEDEX_TEST_STUCK_S", "720"))
# One file a process: with pytest-xdist (scripts/test runs two workers) each worker writes
# its own, ".pytest-stuck-gw0.txt"; scripts/test prints whichever was left.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
STUCK_FILE = f".pytest-stuck-{_WORKER}.txt" if _WORKER else ".pytest-stuck.txt"
ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    if float(config.getini("faulthandler_timeout") or 0) > 0:
        return  # the one faulthandler watchdog is pytest's
    config.stash[_stuck_key] = (config.rootpath / STUCK_FILE).open("w", encoding="utf-8")


def pytest_unconfigure(config: pytest.Config) -> None:
    stuck = config.stash.get(_stuck_key, None)
    if stuck is not None:
        faulthandler.cancel_dump_traceback_later()
        stuck.close()
        Path(stuck.name).unlink(missing_ok=True)  # nothing was stuck


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[object]:
    stuck = item.config.stash.get(_stuck_key, None)
    if stuck is None:
        return (yield)
    stuck.seek(0)
    stuck.truncate()
    stuck.write(f"{item.nodeid} was stuck for {STUCK_AFTER_S:g} s; every thread's stack:\n")
    stuck.flush()
    faulthandler.dump_traceback_later(STUCK_AFTER_S, exit=True, file=stuck)
    try:
        return (yield)
    finally:
        faulthandler.cancel_dump_traceback_later()


_stuck_key = pytest.StashKey[TextIO]()


@pytest.fixture(autouse=True)
def no_error_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.WARNING)
    yield
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    if errors:
        pytest.fail("logged at ERROR: " + "; ".join(r.getMessage() for r in errors))


@pytest.fixture
def cli_main(capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> InProcessCli:
    """The command line in-process through engine.cli.main, its stderr as a child's would
    be (tests/engine/cli_run.py)."""
    return InProcessCli(capfd, caplog)


@pytest.fixture(autouse=True)
def collector_as_the_process_has_it(request: pytest.FixtureRequest) -> Iterator[None]:
    """Outside tests/app the collector runs as in `coursedex` on the command line: automatic.
    The window's Tasks turn it off for good in favour of a UI-thread timer
    (app/main_thread_gc.py), and an engine test has no event loop to run that timer."""
    if "tests/app/" in request.node.nodeid or gc.isenabled():
        yield
        return
    gc.enable()
    try:
        yield
    finally:
        gc.disable()


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A models folder holding the default embedder, assembled from the PyPI packages."""
    root = tmp_path_factory.mktemp("models")
    ModelRegistry(root).path(DEFAULT_EMBEDDER)
    return root


@pytest.fixture(scope="session")
def embedder(models_dir: Path) -> OnnxEmbedder:
    return ModelRegistry(models_dir).load_embedder(DEFAULT_EMBEDDER, 2)


@pytest.fixture
def library(tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder) -> Iterator[Library]:
    """An empty library in ``tmp_path / "lib"`` using the session's embedder, its imports
    told their files are English (tests/english.py: no lecture's language is heard first);
    a module about languages uses :func:`detecting_library` instead."""
    lib = Library.open(
        tmp_path / "lib", english(), lambda: embedder, models=ModelRegistry(models_dir)
    )
    yield lib
    lib.close()


@pytest.fixture
def detecting_library(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder
) -> Iterator[Library]:
    """An empty library as a user's is by default: each file's language is found by its
    import (a lecture's heard by Whisper base first, a text's read off it)."""
    lib = Library.open(
        tmp_path / "lib", EngineConfig(), lambda: embedder, models=ModelRegistry(models_dir)
    )
    yield lib
    lib.close()


# --- a course folder with good and bad files, and a library built from it ----------------

HIPPO_MS = 31_500  # the cue that says "hippopotamus" in lecture.srt
LECTURE_CUES = tuple(
    (
        1500 + 3000 * i,
        1500 + 3000 * i + 2800,
        "The hippopotamus enters the library."
        if 1500 + 3000 * i == HIPPO_MS
        else f"Part {i} of this lecture reviews chapter {i} of the textbook.",
    )
    for i in range(20)
)  # 20 cues of 3 s from 1.5 s to 60.3 s
SORTING_PY = '''"""Sorting algorithms for week two."""


def insertion_sort(items):
    for i in range(1, len(items)):
        j = i
        while j > 0 and items[j - 1] > items[j]:
            items[j - 1], items[j] = items[j], items[j - 1]
            j -= 1
    return items


def partition(items, low, high):
    pivot = items[high]
    i = low
    # Lomuto scheme: the last element is the pivot.
    for j in range(low, high):
        if items[j] <= pivot:
            items[i], items[j] = items[j], items[i]
            i += 1
    items[i], items[high] = items[high], items[i]
    return i
'''
LOMUTO_LINE = 1 + SORTING_PY.splitlines().index(
    "    # Lomuto scheme: the last element is the pivot."
)


@dataclass(frozen=True)
class MixedCourse:
    """``Biology 101``: five good files (one unique word each) and five bad ones.

    slides.pdf: "chlorophyll" on page 1, "mitochondria" on page 2; notes.md: "axolotl";
    code.zip: ``src/sorting.py`` with "Lomuto" on line LOMUTO_LINE; lecture.srt: ~60 s,
    "hippopotamus" in the cue at HIPPO_MS; french.srt: Latin-1, "café", "élève".
    """

    folder: Path
    slides: Path
    notes: Path
    code: Path
    lecture: Path
    latin1: Path
    bad: dict[str, Path]  # what is wrong -> the file

    @property
    def good(self) -> tuple[Path, ...]:
        return (self.slides, self.notes, self.code, self.lecture, self.latin1)


def make_mixed_course(folder: Path) -> MixedCourse:
    folder.mkdir(parents=True)
    slides = make_pdf(
        folder / "slides.pdf",
        [
            "Photosynthesis\nchlorophyll captures sunlight energy",
            "Respiration\nmitochondria release stored energy",
        ],
    )
    notes = folder / "notes.md"
    notes.write_text("# Week one\n\nThe axolotl regenerates its limbs.\n", encoding="utf-8")
    code = make_code_zip(folder / "code.zip", {"src/sorting.py": SORTING_PY})
    lecture = make_srt(folder / "lecture.srt", LECTURE_CUES)
    latin1 = make_latin1_srt(folder / "french.srt")
    corrupt = folder / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >>\nthis is not a real pdf\n")
    empty = folder / "empty.txt"
    empty.write_bytes(b"")
    binary = folder / "binary.srt"
    binary.write_bytes(bytes(range(256)) * 16)
    bad = {
        "corrupt pdf": corrupt,
        "zip slip": make_zip_slip(folder / "escape.zip"),
        "zip bomb": make_zip_bomb(folder / "bomb.zip", megabytes=50),
        "empty": empty,
        "binary": binary,
    }
    return MixedCourse(folder, slides, notes, code, lecture, latin1, bad)


@pytest.fixture(scope="session")
def mixed_course(tmp_path_factory: pytest.TempPathFactory) -> MixedCourse:
    """Read-only: tests that change files build their own with :func:`make_mixed_course`."""
    return make_mixed_course(tmp_path_factory.mktemp("courses") / "Biology 101")


@pytest.fixture(scope="session")
def chemistry_notes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second course, ``Chemistry``, of one note about a "burette"."""
    folder = tmp_path_factory.mktemp("courses2") / "Chemistry"
    folder.mkdir()
    note = folder / "titration.md"
    note.write_text("# Titration\n\nA burette delivers the titrant drop by drop.\n")
    return note


@pytest.fixture(scope="session")
def built_library_template(
    tmp_path_factory: pytest.TempPathFactory,
    embedder: OnnxEmbedder,
    mixed_course: MixedCourse,
    chemistry_notes: Path,
) -> Path:
    """A closed library holding ``Biology 101`` and ``Chemistry``; copy it, never open it."""
    folder = tmp_path_factory.mktemp("template") / "lib"
    with Library.open(folder, EngineConfig(), lambda: embedder) as lib:
        lib.ingest([mixed_course.folder, chemistry_notes.parent])
    return folder


@pytest.fixture
def built_library_dir(tmp_path: Path, built_library_template: Path) -> Path:
    """A private copy of the built library's folder (for the CLI)."""
    return Path(shutil.copytree(built_library_template, tmp_path / "built"))


@pytest.fixture
def built_library(built_library_dir: Path, embedder: OnnxEmbedder) -> Iterator[Library]:
    lib = Library.open(built_library_dir, EngineConfig(), lambda: embedder)
    yield lib
    lib.close()


@pytest.fixture(scope="session")
def demo_text_template(
    tmp_path_factory: pytest.TempPathFactory, models_dir: Path, embedder: OnnxEmbedder
) -> Path:
    """A closed library of the demo course's notes, slides and code, imported once a run
    (seven modules imported them each); copy it, never open it."""
    folder = tmp_path_factory.mktemp("demo-text-template") / "lib"
    with Library.open(
        folder, EngineConfig(), lambda: embedder, models=ModelRegistry(models_dir)
    ) as library:
        library.ingest([p for p in demo_files() if p.suffix != ".mp4"], course=DEMO_COURSE)
    return folder


@pytest.fixture(scope="module")
def demo_text_library(
    tmp_path_factory: pytest.TempPathFactory,
    demo_text_template: Path,
    models_dir: Path,
    embedder: OnnxEmbedder,
) -> Iterator[Library]:
    """The demo course's notes, slides and code (its video needs the speech model): the
    module's own copy of :func:`demo_text_template`."""
    dest = tmp_path_factory.mktemp("demo-text") / "lib"
    with opened_copy(demo_text_template, dest, models_dir, embedder) as library:
        yield library


@dataclass(frozen=True)
class DemoImport:
    """The whole demo course imported by ``coursedex ingest`` in a child process, as a user
    with an empty HOME runs it, under strace when it is installed."""

    library: Path  # closed: copy it, never open it
    home: Path  # the user's HOME, empty before the import
    trace: Path | None  # every socket, connect and send of the import (None without strace)
    stdout: str


@pytest.fixture(scope="session")
def demo_import(tmp_path_factory: pytest.TempPathFactory, models_dir: Path) -> DemoImport:
    """The demo course imported once a run, its video transcribed by tiny.en (~20 s): the
    demo library the tests below copy, and the import test_privacy.py checks for network use
    (it imported the lecture again under strace, ~27 s of a CI run)."""
    root = tmp_path_factory.mktemp("demo-import")
    home, folder = root / "home", root / "lib"
    home.mkdir()
    trace = root / "ingest.strace" if has_strace() else None
    command = [
        sys.executable, "-m", "engine.cli", "--library", str(folder), "--models", str(models_dir),
        "ingest", "--strict", "--course", DEMO_COURSE, *map(str, demo_files()),
    ]  # fmt: skip
    done = subprocess.run(
        strace(trace, command) if trace is not None else command,
        cwd=ROOT,
        env=offline_env(home),
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard, not a timing
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return DemoImport(folder, home, trace, done.stdout)


@pytest.fixture(scope="session")
def demo_library_template(demo_import: DemoImport) -> Path:
    """A closed library of the whole demo course (:func:`demo_import`); copy it
    (:func:`copy_library`), never open it: tests that add to the demo course (notes,
    handouts, flashcards) work on their own copy."""
    return demo_import.library


def copy_library(template: Path, dest: Path) -> Path:
    """A private copy of a closed library's folder."""
    return Path(shutil.copytree(template, dest))


@contextmanager
def opened_copy(
    template: Path, dest: Path, models_dir: Path, embedder: OnnxEmbedder
) -> Iterator[Library]:
    """A private copy of a closed library, open with the run's embedder; closed after."""
    folder = copy_library(template, dest)
    library = Library.open(
        folder, EngineConfig(), lambda: embedder, models=ModelRegistry(models_dir)
    )
    try:
        yield library
    finally:
        library.close()


@pytest.fixture(scope="session")
def demo_library(
    tmp_path_factory: pytest.TempPathFactory,
    demo_library_template: Path,
    models_dir: Path,
    embedder: OnnxEmbedder,
) -> Iterator[Library]:
    """The whole demo course, its video transcribed by tiny.en (a copy of the template, once
    per session: the demo lecture's tests and the course pack's round trip share it; neither
    changes it)."""
    dest = tmp_path_factory.mktemp("demo-lecture") / "lib"
    with opened_copy(demo_library_template, dest, models_dir, embedder) as library:
        yield library


def written(folder: Path) -> dict[str, tuple[int, int]]:
    """Each file of a library folder: its size and modification time (a write changes it)."""
    return {
        str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()
    }
