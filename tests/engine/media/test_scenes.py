"""Scene cuts, keyframes, thumbnails and on-screen text of real generated slide videos."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from engine.config import MediaConfig
from engine.errors import Cancelled, UnreadableFileError
from engine.media.frames import VideoInfo, rgb, sample_frames
from engine.media.scenes import Scene, ScreenScene, detect_cuts, keyframes, scan_video
from engine.media.screen import screen_segments
from engine.models.ocr import RapidTextRecognizer
from engine.types import SegmentKind
from tools.lecture_media import Clip, make_lecture_video, slide_image

# Pairs 1-2 and 4-5 differ by one added line only: a slide build must still be a cut.
SLIDES = (
    ["Sorting algorithms", "Bubble sort swaps neighbours"],
    ["Sorting algorithms", "Bubble sort swaps neighbours", "Insertion sort grows a prefix"],
    ["Graph search", "Breadth first uses a queue"],
    ["Hash tables", "Buckets are picked by hashing"],
    ["Hash tables", "Buckets are picked by hashing", "Chaining handles collisions"],
    ["Dynamic programming", "Memoization stores answers"],
)
ROOT = Path(__file__).resolve().parents[3]
UNIQUE = ("Bubble", "Insertion", "Breadth", "Buckets", "Chaining", "Memoization")


@pytest.fixture(scope="module")
def recognizer() -> RapidTextRecognizer:
    return RapidTextRecognizer(threads=2)


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[int]]:
    folder = tmp_path_factory.mktemp("scenes")
    clips = [
        Clip(slide_image(lines, folder / f"{i}.png"), seconds=3 + i % 2)
        for i, lines in enumerate(SLIDES)
    ]
    path = folder / "slides.mp4"
    return path, make_lecture_video(path, clips, audio=False)


def test_every_cut_is_found_within_a_second(video: tuple[Path, list[int]]) -> None:
    path, cuts = video
    threshold = MediaConfig().scene_threshold
    scores: list[tuple[int, float]] = []
    spans, duration = detect_cuts(path, threshold=threshold, min_scene_ms=2000, scores=scores)
    found = [a for a, _ in spans]
    assert len(found) == len(cuts), (found, cuts)
    assert all(abs(a - b) <= 1000 for a, b in zip(found, cuts, strict=True)), (found, cuts)
    assert spans[-1][1] == duration and spans[0][0] == 0
    # About 5 frames a second are scored; frames away from cuts stay under the threshold.
    assert abs(len(scores) - duration / 200) <= 3
    assert all(v < threshold for ms, v in scores if all(abs(ms - c) > 1000 for c in cuts))


def test_scan_reads_each_slide_and_writes_thumbnails(
    video: tuple[Path, list[int]], recognizer: RapidTextRecognizer, tmp_path: Path
) -> None:
    path, _ = video
    reports: list[float] = []
    scanned = scan_video(path, tmp_path, "key", MediaConfig(), recognizer, progress=reports.append)
    assert len(scanned) == len(SLIDES)
    for item, word, lines in zip(scanned, UNIQUE, SLIDES, strict=True):
        assert word.lower() in item.text.lower(), item.text
        assert item.heading.lower() == lines[0].lower()
        thumb = tmp_path / item.scene.thumbnail
        assert thumb.read_bytes()[:3] == b"\xff\xd8\xff"
        import cv2

        picture = cv2.imread(str(thumb))
        assert picture is not None and picture.shape[1] == 320
    assert reports[-1] == pytest.approx(1.0) and reports == sorted(reports)


def test_keyframes_come_from_inside_their_scene(video: tuple[Path, list[int]]) -> None:
    path, cuts = video
    frames = list(keyframes(path, [c + 1000 for c in cuts], max_width=640))
    assert all(f is not None and f.shape == (360, 640, 3) for f in frames)
    # Slides 1 and 2 differ (one more line): their keyframes must differ too.
    assert frames[0] is not None and frames[1] is not None
    assert np.abs(frames[0].astype(int) - frames[1].astype(int)).sum() > 0


def test_keyframes_are_the_pictures_the_scan_keeps(video: tuple[Path, list[int]]) -> None:
    """A keyframe read on its own (a scene too short for the pass to keep one) is the very
    picture the one decoding pass shows at that time, whichever frame type it is."""
    path, _ = video
    info = VideoInfo(0.0, 0)
    kept = [(s.ms, rgb(s.frame, 640)) for s in sample_frames(path, info, per_second=5, width=320)]
    chosen = kept[1::4]
    assert len(chosen) >= 5
    read = list(keyframes(path, [ms for ms, _ in chosen], max_width=640))
    for (ms, picture), frame in zip(chosen, read, strict=True):
        assert frame is not None and np.array_equal(frame, picture), ms


def test_keyframes_are_read_without_opencv(video: tuple[Path, list[int]]) -> None:
    """Frames come from PyAV's FFmpeg, the one the bundle ships (OpenCV's is left out)."""
    path, cuts = video
    code = (
        "import sys; sys.modules['cv2'] = None\n"
        "from engine.media.scenes import keyframes\n"
        f"frames = list(keyframes({str(path)!r}, {[c + 1000 for c in cuts]!r}, max_width=640))\n"
        "print([None if f is None else f.shape for f in frames])\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == str([(360, 640, 3)] * len(cuts))


def test_cancel_and_unreadable_video(
    video: tuple[Path, list[int]], recognizer: RapidTextRecognizer, tmp_path: Path
) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        scan_video(video[0], tmp_path, "k", MediaConfig(), recognizer, cancel=cancel)
    fake = tmp_path / "fake.mp4"
    fake.write_text("not a video at all\n" * 50)
    with pytest.raises(UnreadableFileError):
        scan_video(fake, tmp_path, "k", MediaConfig(), recognizer)


def _scene(i: int, text: str) -> ScreenScene:
    return ScreenScene(Scene(i, i * 1000, i * 1000 + 1000, i * 1000 + 500, f"t{i}.jpg"), text, "")


def test_screen_segments_merge_repeats_and_skip_empty_screens() -> None:
    scanned = [
        _scene(0, "Hash tables\nBuckets are picked by hashing"),
        _scene(1, "Hash tables\nBuckets are picked by hashing"),  # the same slide again
        _scene(2, ""),  # a camera shot of the lecturer
        _scene(3, "x"),
        _scene(4, "Graph search\nBreadth first uses a queue"),
        _scene(5, "Hash tables\nBuckets are picked by hashing"),  # back after a detour
    ]
    out = screen_segments(scanned)
    spans = [(d.start_ms, d.end_ms, thumb) for d, thumb in out]
    assert spans == [(0, 2000, "t0.jpg"), (4000, 5000, "t4.jpg"), (5000, 6000, "t5.jpg")]
    assert all(d.kind == SegmentKind.SCREEN for d, _ in out)
