"""Processes around one library (issue 15, item 3): the recognition child, two `coursedex`
commands at once, and what the one that waits or is refused says.

Everything runs as real processes on a real library: the command line is started with
``python -m engine.cli``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from engine.media.transcribe import SpeechSegment, Transcriber
from engine.models.registry import ModelRegistry
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
