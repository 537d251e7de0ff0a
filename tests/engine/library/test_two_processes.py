"""Processes around one library (issue 15, item 3): the recognition child, two `coursedex`
commands at once, and what the one that waits or is refused says.

Everything runs as real processes on a real library: the command line is started with
``python -m engine.cli``.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.config import SearchConfig
from engine.library import Library
from engine.media.transcribe import SpeechSegment, Transcriber
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from engine.search import SearchFilters
from tests.english import ENGLISH_INGEST, english
from tests.heard import heard_share
from tools.factories import make_narrated_slides, make_note
from tools.lecture_media import make_audio

ROOT = Path(__file__).resolve().parents[3]
SAID = "Today we study the quicksort algorithm. It picks a pivot and partitions the array."


@pytest.fixture(scope="module")
def whisper_dir(models_dir: Path) -> Path:
    return ModelRegistry(models_dir).path("faster-whisper-tiny.en")


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("speech") / "pivot.wav"
    make_audio(path, SAID)
    return path


def test_recognition_starts_while_opencv_is_being_imported(whisper_dir: Path, speech: Path) -> None:
    """OpenCV's loader puts its own package folder on sys.path while ``import cv2`` runs
    (the frames of one video are read while the next one's speech is recognised): a child
    spawned then found cv2's ``typing`` before the standard library's and died at start,
    and the video ended as an error."""
    spec = importlib.util.find_spec("cv2")
    assert spec is not None and spec.origin is not None
    package = str(Path(spec.origin).parent)
    heard: list[SpeechSegment] = []
    sys.path.insert(1, package)  # as cv2's bootstrap() leaves it until its import ends
    try:
        Transcriber(whisper_dir).transcribe(speech, on_segment=heard.append)
    finally:
        sys.path.remove(package)
    # Here 4 of its 8 words ("wicks or tail rhythm" for "quicksort algorithm"); none when
    # the child died at start.
    assert heard_share(" ".join(s.text for s in heard), SAID) >= 0.4, heard


# --- a window open while `coursedex ingest` runs in a terminal -------------------------------


def _cli(
    library: Path, models: Path, *args: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable, "-m", "engine.cli", "--library", str(library), "--models", str(models),
        "--threads", "1", *args,
    ]  # fmt: skip
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def _open(folder: Path, embedder: OnnxEmbedder, models: Path) -> Library:
    return Library.open(folder, english(), lambda: embedder, models=ModelRegistry(models))


def test_an_open_library_finds_what_another_process_imported(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder
) -> None:
    """The window's library stays open while `coursedex ingest` adds files: afterwards its
    searches find them by meaning (the vector index is read again) and within a course
    filter (the filter's cached segment ids are read again), without reopening."""
    folder = tmp_path / "lib"
    old = tmp_path / "Oceans"
    make_note(old, "walrus", "The walrus hauls out on the sea ice.")
    with _open(folder, embedder, models_dir) as window:
        window.ingest([old])
        dense = SearchConfig(fulltext=False)
        in_oceans = SearchFilters(course="Oceans")
        assert window.search("a small white whale", config=dense, filters=in_oceans).results == []
        make_note(old, "beluga", "The beluga is a small white whale of the Arctic.")
        make_note(tmp_path / "Tusks", "narwhal", "The narwhal has one long spiral tusk.")
        done = _cli(
            folder, models_dir, "ingest", *ENGLISH_INGEST, str(old), str(tmp_path / "Tusks")
        )
        assert done.returncode == 0, done.stderr
        hits = window.search("a whale with a spiral tusk", config=dense).results
        assert hits and hits[0].source == str(tmp_path / "Tusks" / "narwhal.md")
        found = window.search("a small white whale", config=dense, filters=in_oceans).results
        assert [h.source for h in found][:1] == [str(old / "beluga.md")]


def test_an_open_library_never_answers_with_rows_that_took_removed_ids(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder
) -> None:
    """A terminal removes a course and imports another while the window is open: SQLite
    gives the new rows the ids the removed ones had, so a window still holding the old
    vectors under those ids would answer a question about the removed course with the
    new file."""
    folder = tmp_path / "lib"
    old = make_note(tmp_path / "Polar", "walrus", "The walrus hauls out on the sea ice.")
    new = make_note(tmp_path / "Tusks", "narwhal", "The narwhal has one long spiral tusk.")
    dense = SearchConfig(fulltext=False)
    with _open(folder, embedder, models_dir) as window:
        window.ingest([old.parent])
        assert window.search("walrus resting on ice", config=dense).results[0].source == str(old)
        assert _cli(folder, models_dir, "remove", "Polar").returncode == 0
        assert _cli(folder, models_dir, "ingest", *ENGLISH_INGEST, str(new.parent)).returncode == 0
        assert window.store.segments.ids_with_text() == {1}  # the narwhal took the walrus's id
        hits = window.search("walrus resting on ice", config=dense).results
        assert not [h for h in hits if h.source == str(new) and h.strong]
        top = window.search("a whale with a spiral tusk", config=dense).results
        assert top and top[0].source == str(new)


# --- two commands at once ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def lecture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course with a narrated 10-s video (its speech is recognised: the import runs for a
    while) and a note."""
    folder = tmp_path_factory.mktemp("lecture") / "Geology"
    folder.mkdir()
    make_narrated_slides(
        folder / "lecture.mp4",
        [
            (["Volcanoes", "Magma"], "A volcano erupts when magma rises through the crust."),
            (["Glaciers", "Ice"], "A glacier carves a valley as it slowly moves downhill."),
        ],
        tmp_path_factory.mktemp("pictures"),
    )
    make_note(folder, "basalt", "Basalt is a dark volcanic rock.")
    return folder


def _start(library: Path, models: Path, *args: str) -> subprocess.Popen[str]:
    command = [
        sys.executable, "-m", "engine.cli", "--library", str(library), "--models", str(models),
        "--threads", "1", *args,
    ]  # fmt: skip
    return subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _transcribing(library: Path, proc: subprocess.Popen[str]) -> None:
    """Wait until ``proc``'s import has committed the note and is recognising the video."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            with sqlite3.connect(f"file:{library / 'library.db'}?mode=ro", uri=True) as conn:
                row = conn.execute(
                    "SELECT count(*) FROM sources WHERE kind = 'video' AND status = 'indexing'"
                ).fetchone()
        except sqlite3.Error:
            row = (0,)
        if row[0]:
            return
        time.sleep(0.1)
    raise AssertionError("the import never reached the video")


def _all_indexed_once(folder: Path, embedder: OnnxEmbedder, models: Path) -> dict[str, str]:
    with _open(folder, embedder, models) as lib:
        rows = lib.store.conn.execute("SELECT path, status FROM sources").fetchall()
        assert len(rows) == len({path for path, _ in rows})
        index = lib.indexer.index
        assert index is not None and index.ids() == lib.store.segments.ids_with_text()
        return {Path(path).name: status for path, status in rows}


def test_two_ingests_at_once_both_finish_and_the_second_says_it_waited(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder, lecture: Path
) -> None:
    folder = tmp_path / "lib"
    ModelRegistry(models_dir).path("faster-whisper-tiny.en")
    first = _start(folder, models_dir, "ingest", *ENGLISH_INGEST, str(lecture))
    try:
        _transcribing(folder, first)
        other = make_note(tmp_path / "Minerals", "quartz", "Quartz is a hard crystalline mineral.")
        second = _start(folder, models_dir, "ingest", *ENGLISH_INGEST, str(other.parent))
        out, err = second.communicate(timeout=600)
        assert second.returncode == 0, err
        # Not a terminal: one plain line says why it does not start at once.
        assert "waiting for another import into this library to finish" in err
        assert "1 indexed" in out
    finally:
        first_out, first_err = first.communicate(timeout=600)
    assert first.returncode == 0, first_err
    assert "2 indexed" in first_out
    statuses = _all_indexed_once(folder, embedder, models_dir)
    assert statuses == dict.fromkeys(["lecture.mp4", "basalt.md", "quartz.md"], "indexed")


def test_remove_from_a_terminal_during_an_import_is_refused_then_works(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder, lecture: Path
) -> None:
    folder = tmp_path / "lib"
    ModelRegistry(models_dir).path("faster-whisper-tiny.en")
    old = make_note(tmp_path / "Old", "gneiss", "Gneiss is a banded metamorphic rock.")
    assert _cli(folder, models_dir, "ingest", *ENGLISH_INGEST, str(old.parent)).returncode == 0
    importing = _start(folder, models_dir, "ingest", *ENGLISH_INGEST, str(lecture))
    try:
        _transcribing(folder, importing)
        for target in ("Old", "Geology", str(lecture / "basalt.md")):
            refused = _cli(folder, models_dir, "remove", target)
            assert refused.returncode == 1, refused.stdout
            assert refused.stderr.startswith("coursedex: another Coursedex is importing"), (
                refused.stderr
            )
            assert "Traceback" not in refused.stderr
    finally:
        _, err = importing.communicate(timeout=600)
    assert importing.returncode == 0, err
    statuses = _all_indexed_once(folder, embedder, models_dir)
    assert statuses == dict.fromkeys(["lecture.mp4", "basalt.md", "gneiss.md"], "indexed")
    removed = _cli(folder, models_dir, "remove", "Old")
    assert (removed.returncode, removed.stdout.strip()) == (0, "removed 1 file")
    assert _all_indexed_once(folder, embedder, models_dir).keys() == {"lecture.mp4", "basalt.md"}


# --- the recognition child when its parent dies ------------------------------------------------

_PARENT = """
import multiprocessing, os, sys, threading, time
from pathlib import Path
from engine.media.transcribe import Transcriber

def run():
    Transcriber(Path(sys.argv[1])).transcribe(Path(sys.argv[2]), on_segment=print)

threading.Thread(target=run, daemon=True).start()
while not (children := multiprocessing.active_children()):
    time.sleep(0.002)
print(children[0].pid, flush=True)
os._exit(0)  # killed, as it were, while the child is still starting
"""


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_recognition_child_whose_parent_died_as_it_started_exits(
    whisper_dir: Path, tmp_path: Path
) -> None:
    """The parent dies while the child is still starting; the child then blocks reading its
    audio (a pipe nobody writes to, as a slow network file would). It used to watch for its
    parent's death by comparing os.getppid() with the parent it saw at start, which was
    already init: it never noticed and stayed for ever."""
    media = tmp_path / "never.wav"
    os.mkfifo(media)
    writer = os.open(media, os.O_RDWR)  # holds the pipe open, writes nothing
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT, str(whisper_dir), str(media)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    child = 0
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert parent.wait(60) == 0
        deadline = time.monotonic() + 30  # a hang guard: it exits within a second or two
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(child)
    finally:
        if child and _alive(child):
            os.kill(child, signal.SIGKILL)
        os.close(writer)
        if parent.stdout is not None:
            parent.stdout.close()


def test_an_open_library_reads_a_changed_file_while_another_process_still_imports(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder, lecture: Path
) -> None:
    """A terminal imports a changed note, then recognises a video (its vector index not saved
    yet): the note's new rows took its old ids, and the open window must search the new
    text's vectors under them, not the old ones it holds."""
    folder = tmp_path / "lib"
    course = tmp_path / "Notes"
    note = make_note(course, "zz-animal", "The walrus hauls out on the sea ice.")
    dense = SearchConfig(fulltext=False)
    ModelRegistry(models_dir).path("faster-whisper-tiny.en")
    with _open(folder, embedder, models_dir) as window:
        window.ingest([course])
        assert window.search("walrus resting on ice", config=dense).results[0].source == str(note)
        note.write_text("# Animal\n\nThe narwhal has one long spiral tusk.\n", encoding="utf-8")
        importing = _start(folder, models_dir, "ingest", *ENGLISH_INGEST, str(course), str(lecture))
        try:
            _transcribing(folder, importing)
            hits = window.search("walrus resting on ice", config=dense).results
            assert not [h for h in hits if h.source == str(note) and h.strong]
            top = window.search("a whale with a spiral tusk", config=dense).results
            assert top and top[0].source == str(note)
        finally:
            _, err = importing.communicate(timeout=600)
        assert importing.returncode == 0, err
