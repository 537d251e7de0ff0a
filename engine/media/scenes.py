"""Scene cuts of a video, a keyframe and a thumbnail per scene, and the text on each keyframe.

The video is decoded once (engine/media/frames.py). PySceneDetect's ContentDetector scores
grey frames scaled down to about 320 px wide, about 5 a second, weighing luminance and edges
only: slides are mostly white with dark text, so a slide change (even one new bullet line)
moves edges a lot. Each scene's keyframe is caught from the same pass. Its text is read with
OCR only when it is needed: a keyframe that is the same picture as an earlier one (the
lecturer went back to a slide) takes that scene's text, and one that shows a page of the
course's slide deck takes the page's text (engine/media/pictures.py, engine/media/deck.py).
Memory stays flat on long videos: a scene is read as soon as it ends.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.config import MediaConfig
from engine.errors import Cancelled, UnreadableFileError
from engine.media.frames import Sample, VideoInfo, rgb, sample_frames
from engine.media.pictures import PictureIndex, signature
from engine.models.ocr import TextRecognizer, lines_to_text
from engine.own_folders import own_folder, write_whole

if TYPE_CHECKING:
    from engine.media.deck import DeckPictures

log = logging.getLogger(__name__)

ANALYSIS_WIDTH = 320  # frames are scaled down to about this width to find cuts
ANALYSIS_FPS = 5.0  # frames looked at per second
OCR_WIDTH = 1600  # keyframes are decoded at up to this width (the OCR reading width)
_SETTLE_MS = 1000  # a keyframe is this far into its scene, after any fade has settled
_KEEP_MS = 4000  # recent frames kept to pick a short scene's keyframe when its end is known


class TextFrom(StrEnum):
    """Where a scene's on-screen text came from."""

    NONE = "none"  # no keyframe, or text not read
    OCR = "ocr"  # read off the keyframe
    EARLIER = "earlier"  # the same picture as an earlier scene: its text
    DECK = "deck"  # a page of the course's slide deck: the page's text


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
    text: str  # text on the keyframe, one line per row ("" when not read)
    heading: str  # its first line, usually the slide title
    text_from: TextFrom = TextFrom.NONE


def read_counts(scanned: Sequence[ScreenScene]) -> str:
    """What reading the screen took, for the import's report: "3 frames read, 5 known
    (4 slide pages)"."""
    from engine.plain_text import plural

    counts = {k: sum(1 for s in scanned if s.text_from is k) for k in TextFrom}
    known = counts[TextFrom.EARLIER] + counts[TextFrom.DECK]
    out = f"{plural(counts[TextFrom.OCR], 'frame')} read"
    if known:
        out += f", {known} known ({plural(counts[TextFrom.DECK], 'slide page')})"
    return out


class _LumaEdges:
    """PySceneDetect's ContentDetector (luma and edges only, its flash filter for the least
    scene length) on grey frames; a frame identical to the one before scores 0 unread
    (a still slide's frames often are)."""

    def __init__(
        self, threshold: float, min_frames: int, scores: list[tuple[int, float]] | None
    ) -> None:
        from scenedetect import ContentDetector

        self.detector = ContentDetector(threshold=threshold, min_scene_len=min_frames)
        self._scores = scores
        self._last: tuple[np.ndarray, np.ndarray] | None = None

    def score(self, grey: np.ndarray) -> float:
        import cv2

        last = self._last
        if last is not None and np.array_equal(grey, last[0]):
            return 0.0
        edges = self.detector._detect_edges(grey)  # pyright: ignore[reportPrivateUsage]
        self._last = (grey, edges)
        if last is None:
            return 0.0
        luma = float(cv2.absdiff(grey, last[0]).mean())
        return (luma + float(cv2.absdiff(edges, last[1]).mean())) / 2

    def cuts(self, ms: int, fps: float, grey: np.ndarray) -> list[int]:
        """Cuts (ms) the frame at ``ms`` confirms: it, or an earlier frame."""
        from scenedetect.common import FrameTimecode

        value = self.score(grey)
        if self._scores is not None:
            self._scores.append((ms, value))
        timecode = FrameTimecode(round(ms * fps / 1000), fps)
        found = self.detector._flash_filter.filter(  # pyright: ignore[reportPrivateUsage]
            timecode=timecode, above_threshold=value >= self.detector._threshold
        )
        return [round(float(t.seconds) * 1000) for t in found]


@dataclass(slots=True)
class _Pass:
    """Scenes found while the frames stream by; each scene's keyframe is caught on the way,
    so the video is decoded once. A scene is handed out when its end is known."""

    cutter: _LumaEdges
    fps: float
    starts: list[int] = field(default_factory=lambda: [0])
    pick: tuple[int, Sample] | None = None  # the open scene's keyframe so far
    recent: deque[Sample] = field(default_factory=deque)

    def feed(self, sample: Sample) -> list[tuple[int, int, Sample | None]]:
        self.recent.append(sample)
        while self.recent and self.recent[0].ms < sample.ms - _KEEP_MS:
            self.recent.popleft()
        done = []
        for cut in self.cutter.cuts(sample.ms, self.fps, sample.grey):
            if cut > self.starts[-1]:
                done.append(self._close(cut))
                self.starts.append(cut)
        start = self.starts[-1]
        if self.pick is None and sample.ms >= start + _SETTLE_MS:
            self.pick = (start, sample)
        return done

    def _close(self, end: int) -> tuple[int, int, Sample | None]:
        start = self.starts[-1]
        target = keyframe_time(start, end)
        chosen = next((s for s in self.recent if target <= s.ms < end), None)
        if chosen is None and self.pick is not None and start <= self.pick[1].ms < end:
            chosen = self.pick[1]
        self.pick = None
        return start, end, chosen

    def finish(self, duration_ms: int) -> tuple[int, int, Sample | None]:
        return self._close(max(duration_ms, self.starts[-1] + 1))


def iter_scenes(
    video: Path,
    *,
    threshold: float,
    min_scene_ms: int,
    progress: Callable[[float], None] | None,
    cancel: threading.Event | None,
    scores: list[tuple[int, float]] | None,
) -> Iterator[tuple[int, int, Sample | None]]:
    """(start ms, end ms, keyframe sample or None) of each scene as soon as it ends; the last
    one ends at the video's duration. ``scores`` as for :func:`detect_cuts`.

    Raises:
        UnreadableFileError: no video stream, or its frames cannot be decoded.
        Cancelled: ``cancel`` was set.
    """
    info = VideoInfo(0.0, 0)
    samples = sample_frames(
        video, info, per_second=ANALYSIS_FPS, width=ANALYSIS_WIDTH, progress=progress,
        cancel=cancel,
    )  # fmt: skip
    first = next(samples)
    # The least scene length in frames, as it always was: 2 s of sampled frames.
    skip = max(0, round(info.fps / ANALYSIS_FPS) - 1)
    min_frames = max(1, round(min_scene_ms / 1000 * info.fps / (skip + 1)))
    scan = _Pass(_LumaEdges(threshold, min_frames, scores), info.fps)
    for sample in itertools.chain([first], samples):
        yield from scan.feed(sample)
    yield scan.finish(info.duration_ms)


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
    scenes = iter_scenes(
        video, threshold=threshold, min_scene_ms=min_scene_ms, progress=progress,
        cancel=cancel, scores=scores,
    )  # fmt: skip
    spans = [(a, b) for a, b, _ in scenes]
    return spans, spans[-1][1]


def keyframe_time(start_ms: int, end_ms: int) -> int:
    """A moment a little into the scene, after any fade has settled."""
    return start_ms + min(_SETTLE_MS, (end_ms - start_ms) // 2)


def keyframes(
    video: Path, times_ms: Sequence[int], *, max_width: int = OCR_WIDTH
) -> Iterator[np.ndarray | None]:
    """RGB frames at the given times (None where a frame cannot be read), one at a time.

    Read with PyAV, as the scan's one pass is (engine/media/frames.py), so the app ships one
    FFmpeg: each time is sought to the keyframe before it and decoded up to the frame shown
    then, the same picture the pass would have kept.

    Raises:
        UnreadableFileError: the file cannot be opened or has no video stream.
    """
    import av
    import av.error

    try:
        container = av.open(str(video))
    except (av.error.FFmpegError, OSError) as e:
        raise UnreadableFileError(f"cannot read video frames: {e}") from e
    try:
        if not container.streams.video or container.streams.video[0].time_base is None:
            raise UnreadableFileError("no video stream")
        stream = container.streams.video[0]
        for ms in times_ms:
            try:
                frame = _frame_at(container, stream, ms)
            except av.error.FFmpegError as e:
                log.info("%s: no frame at %d ms: %s", video.name, ms, e)
                frame = None
            yield None if frame is None else rgb(frame, max_width)
    finally:
        container.close()


def _frame_at(container: Any, stream: Any, ms: int) -> Any:
    """The frame on screen at ``ms``: the last one starting by then (within half a frame,
    as a time rounds to the nearest frame), else the first after it."""
    first = stream.start_time or 0
    rate = stream.average_rate or stream.guessed_rate
    half_ms = 500 / float(rate) if rate else 0.0
    container.seek(first + int(ms / 1000 / stream.time_base), stream=stream, backward=True)
    shown = None
    for frame in container.decode(stream):
        if frame.pts is None:
            continue
        if float((frame.pts - first) * stream.time_base) * 1000 > ms + half_ms:
            return shown if shown is not None else frame
        shown = frame
    return shown


def write_thumbnail(image: np.ndarray, path: Path, width: int) -> None:
    """A small JPEG of an RGB frame, written whole or not at all."""
    import cv2

    height = round(image.shape[0] * width / image.shape[1])
    small = cv2.resize(image, (width, max(1, height)), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", small[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise UnreadableFileError("cannot encode a thumbnail")
    write_whole(path, data.tobytes())


def scan_video(
    video: Path,
    thumbs_dir: Path,
    key: str,
    config: MediaConfig,
    recognizer: TextRecognizer | None,
    *,
    deck: DeckPictures | None = None,
    progress: Callable[[float], None] | None = None,
    cancel: threading.Event | None = None,
) -> list[ScreenScene]:
    """Scenes of ``video`` with a thumbnail each (``{key}-{index:04d}.jpg`` in
    ``thumbs_dir``) and the text on each keyframe: an earlier scene's when it is the same
    picture, a page's of ``deck`` when it shows one, else read by ``recognizer``.

    Progress is the share of the video gone through.

    Raises:
        UnreadableFileError: the frames cannot be read.
        Cancelled: ``cancel`` was set.
    """
    own_folder(thumbs_dir)
    earlier: PictureIndex[int] = PictureIndex()
    out: list[ScreenScene] = []
    scenes = iter_scenes(
        video, threshold=config.scene_threshold, min_scene_ms=config.min_scene_ms,
        progress=progress, cancel=cancel, scores=None,
    )  # fmt: skip
    for i, (start, end, sample) in enumerate(scenes):
        if cancel is not None and cancel.is_set():
            raise Cancelled("cancelled")
        ms = sample.ms if sample is not None else keyframe_time(start, end)
        picture = rgb(sample.frame, OCR_WIDTH) if sample is not None else _seek(video, ms)
        name, text, text_from = "", "", TextFrom.NONE
        if picture is not None:
            name = f"{key}-{i:04d}.jpg"
            write_thumbnail(picture, thumbs_dir / name, config.thumbnail_width)
            grey = sample.grey if sample is not None else picture
            sig = signature(grey)
            same = earlier.find(sig)
            page = deck.find(grey) if same is None and deck is not None else None
            if same is not None:
                text, text_from = out[same].text, TextFrom.EARLIER
            elif page is not None:
                text, text_from = page.text, TextFrom.DECK
            elif recognizer is not None:
                text, text_from = lines_to_text(recognizer.read(picture)), TextFrom.OCR
            if text_from is not TextFrom.NONE:
                earlier.add(sig, i)
        heading = text.split("\n", 1)[0][:120] if text else ""
        out.append(ScreenScene(Scene(i, start, end, ms, name), text, heading, text_from))
    if not out:
        raise UnreadableFileError("cannot read video frames")
    log.info("%s: %s", video.name, read_counts(out))
    if progress is not None:
        progress(1.0)
    return out


def _seek(video: Path, ms: int) -> np.ndarray | None:
    """A keyframe the pass did not keep (a scene shorter than the frames kept)."""
    return next(keyframes(video, [ms]), None)
