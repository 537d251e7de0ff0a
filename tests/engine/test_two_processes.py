"""Processes around one library (issue 15, item 3): the recognition child, two `coursedex`
commands at once, and what the one that waits or is refused says.

Everything runs as real processes on a real library: the command line is started with
``python -m engine.cli``.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from engine.config import EngineConfig, SearchConfig
from engine.library import Library
from engine.media.transcribe import SpeechSegment, Transcriber
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from engine.search import SearchFilters
from tools.lecture_media import make_audio

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def whisper_dir(models_dir: Path) -> Path:
    return ModelRegistry(models_dir).path("faster-whisper-tiny.en")


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("speech") / "pivot.wav"
    make_audio(
        path, "Today we study the quicksort algorithm. It picks a pivot and partitions the array."
    )
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
    assert "partitions the array" in " ".join(s.text.lower() for s in heard)


# --- a window open while `coursedex ingest` runs in a terminal -------------------------------


def _note(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(f"# {name.title()}\n\n{text}\n", encoding="utf-8")
    return path


def _cli(
    library: Path, models: Path, *args: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable, "-m", "engine.cli", "--library", str(library), "--models", str(models),
        "--threads", "1", *args,
    ]  # fmt: skip
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def _open(folder: Path, embedder: OnnxEmbedder, models: Path) -> Library:
    return Library.open(folder, EngineConfig(), lambda: embedder, models=ModelRegistry(models))


def test_an_open_library_finds_what_another_process_imported(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder
) -> None:
    """The window's library stays open while `coursedex ingest` adds files: afterwards its
    searches find them by meaning (the vector index is read again) and within a course
    filter (the filter's cached segment ids are read again), without reopening."""
    folder = tmp_path / "lib"
    old = tmp_path / "Oceans"
    _note(old, "walrus", "The walrus hauls out on the sea ice.")
    with _open(folder, embedder, models_dir) as window:
        window.ingest([old])
        dense = SearchConfig(fulltext=False)
        in_oceans = SearchFilters(course="Oceans")
        assert window.search("a small white whale", config=dense, filters=in_oceans).results == []
        _note(old, "beluga", "The beluga is a small white whale of the Arctic.")
        _note(tmp_path / "Tusks", "narwhal", "The narwhal has one long spiral tusk.")
        done = _cli(folder, models_dir, "ingest", str(old), str(tmp_path / "Tusks"))
        assert done.returncode == 0, done.stderr
        hits = window.search("a whale with a spiral tusk", config=dense).results
        assert hits and hits[0].source == str(tmp_path / "Tusks" / "narwhal.md")
        found = window.search("a small white whale", config=dense, filters=in_oceans).results
        assert [h.source for h in found][:1] == [str(old / "beluga.md")]
