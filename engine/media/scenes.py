"""Scene cuts of a video, a keyframe and a thumbnail per scene, and the text on each keyframe.

PySceneDetect's ContentDetector runs on frames scaled down to about 320 px wide, weighing
luminance and edges only: slides are mostly white with dark text, so a slide change (even
one new bullet line) moves edges a lot while hue and saturation barely move. Frames are
streamed (memory stays flat on long videos), sampled at about 5 per second, and the video is
read in chunks so progress is reported and a cancel is honoured.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.config import MediaConfig
from engine.errors import Cancelled, UnreadableFileError
from engine.models.ocr import TextRecognizer, lines_to_text

log = logging.getLogger(__name__)

ANALYSIS_WIDTH = 320  # frames are scaled down to about this width to find cuts
ANALYSIS_FPS = 5.0  # frames looked at per second
OCR_WIDTH = 1600  # keyframes are decoded at up to this width (the OCR reading width)
_CHUNK_S = 30.0  # cuts are searched this many seconds at a time (progress, cancel)


@dataclass(frozen=True, slots=True)
class Scene:
    index: int
    start_ms: int
    end_ms: int
    keyframe_ms: int
    thumbnail: str  # JPEG file name inside the thumbnails folder ("" if none)


@dataclass(frozen=True, slots=True)
class ScreenScene:
    scene: Scene
    text: str  # OCR text of the keyframe, one line per row ("" when not read)
    heading: str  # its first line, usually the slide title


def detect_cuts(
    video: Path,
    *,
    threshold: float,
    min_scene_ms: int,
    progress: Callable[[float], None] | None = None,
    cancel: threading.Event | None = None,
    scores: list[tuple[int, float]] | None = None,
) -> tuple[list[tuple[int, int]], int]:
    """(start_ms, end_ms) of every scene, and the video's duration in ms.

    ``scores``, when given, receives (ms, content score) of every frame looked at, to tune
    the threshold (bench/scenes_ocr.py).

    Raises:
        UnreadableFileError: no video stream, or its frames cannot be decoded.
        Cancelled: ``cancel`` was set.
    """
    from scenedetect import ContentDetector, SceneManager, open_video
    from scenedetect.common import FrameTimecode

    logging.getLogger("pyscenedetect").setLevel(logging.WARNING)
    try:
        stream = open_video(str(video), backend="opencv")
    except Exception as e:  # scenedetect wraps OpenCV failures in several types
        raise UnreadableFileError(f"cannot read video frames: {e}") from e
    fps = float(stream.frame_rate or 0)
    if fps <= 0 or stream.frame_size[0] <= 0:
        raise UnreadableFileError("no video stream")
    duration = stream.duration
    total_s = float(duration.seconds) if duration is not None else 0.0
    skip = max(0, round(fps / ANALYSIS_FPS) - 1)
    min_frames = max(1, round(min_scene_ms / 1000 * fps / (skip + 1)))

    class _Detector(ContentDetector):
        def _calculate_frame_score(self, timecode: Any, frame_img: np.ndarray) -> float:
            score = super()._calculate_frame_score(timecode, frame_img)
            if scores is not None:
                scores.append((round(float(timecode.seconds) * 1000), float(score)))
            return score

    detector = _Detector(
        threshold=threshold,
        min_scene_len=min_frames,
        weights=ContentDetector.Components(
            delta_hue=0.0, delta_sat=0.0, delta_lum=1.0, delta_edges=1.0
        ),
    )
    manager = SceneManager()
    manager.add_detector(detector)
    manager.auto_downscale = False
    manager.downscale = max(1, stream.frame_size[0] // ANALYSIS_WIDTH)
    position = 0.0
    while True:
        if cancel is not None and cancel.is_set():
            raise Cancelled("cancelled")
        position += _CHUNK_S
        end = FrameTimecode(position, fps)
        try:
            read = manager.detect_scenes(stream, end_time=end, frame_skip=skip)
        except Exception as e:
            raise UnreadableFileError(f"cannot read video frames: {e}") from e
        if progress is not None and total_s > 0:
            progress(min(1.0, position / total_s))
        if read == 0 or (total_s > 0 and position >= total_s + _CHUNK_S):
            break
    seen_ms = round(float(stream.position.seconds) * 1000) if stream.position else 0
    duration_ms = max(round(total_s * 1000), seen_ms)
    if seen_ms == 0:
        raise UnreadableFileError("cannot read video frames")
    cuts = sorted(round(float(start.seconds) * 1000) for start, _ in manager.get_scene_list())
    starts = [0, *[c for c in cuts if 0 < c < duration_ms]]
    ends = [*starts[1:], duration_ms]
    return list(zip(starts, ends, strict=True)), duration_ms


def keyframe_time(start_ms: int, end_ms: int) -> int:
    """A moment a little into the scene, after any fade has settled."""
    return start_ms + min(1000, (end_ms - start_ms) // 2)


def keyframes(
    video: Path, times_ms: Sequence[int], *, max_width: int = OCR_WIDTH
) -> Iterator[np.ndarray | None]:
    """RGB frames at the given times (None where a frame cannot be read), one at a time."""
    import cv2

    capture: Any = cv2.VideoCapture(str(video))
    try:
        if not capture.isOpened():
            raise UnreadableFileError("cannot read video frames")
        for ms in times_ms:
            capture.set(cv2.CAP_PROP_POS_MSEC, float(ms))
            ok, frame = capture.read()
            if not ok or frame is None:
                yield None
                continue
            height, width = frame.shape[:2]
            if width > max_width:
                size = (max_width, round(height * max_width / width))
                frame = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
            yield np.ascontiguousarray(frame[:, :, ::-1])
    finally:
        capture.release()


def write_thumbnail(image: np.ndarray, path: Path, width: int) -> None:
    """A small JPEG of an RGB frame, written whole or not at all."""
    import cv2

    height = round(image.shape[0] * width / image.shape[1])
    small = cv2.resize(image, (width, max(1, height)), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", small[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise UnreadableFileError("cannot encode a thumbnail")
    temp = path.with_suffix(".tmp")
    temp.write_bytes(data.tobytes())
    temp.replace(path)


def scan_video(
    video: Path,
    thumbs_dir: Path,
    key: str,
    config: MediaConfig,
    recognizer: TextRecognizer | None,
    *,
    progress: Callable[[float], None] | None = None,
    cancel: threading.Event | None = None,
) -> list[ScreenScene]:
    """Scenes of ``video`` with a thumbnail each (``{key}-{index:04d}.jpg`` in
    ``thumbs_dir``) and the text read on each keyframe.

    Progress: finding cuts is the first 30%, reading keyframes the rest.

    Raises:
        UnreadableFileError: the frames cannot be read.
        Cancelled: ``cancel`` was set.
    """
    thumbs_dir.mkdir(parents=True, exist_ok=True)
    spans, _ = detect_cuts(
        video,
        threshold=config.scene_threshold,
        min_scene_ms=config.min_scene_ms,
        progress=(lambda f: progress(0.3 * f)) if progress is not None else None,
        cancel=cancel,
    )
    times = [keyframe_time(a, b) for a, b in spans]
    out: list[ScreenScene] = []
    for i, ((start, end), ms, frame) in enumerate(
        zip(spans, times, keyframes(video, times), strict=True)
    ):
        if cancel is not None and cancel.is_set():
            raise Cancelled("cancelled")
        name, text = "", ""
        if frame is not None:
            name = f"{key}-{i:04d}.jpg"
            write_thumbnail(frame, thumbs_dir / name, config.thumbnail_width)
            if recognizer is not None:
                text = lines_to_text(recognizer.read(frame))
        heading = text.split("\n", 1)[0][:120] if text else ""
        out.append(ScreenScene(Scene(i, start, end, ms, name), text, heading))
        if progress is not None:
            progress(0.3 + 0.7 * (i + 1) / len(spans))
    return out
