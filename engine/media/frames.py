"""One decoding pass over a video's frames, sampled a few times a second.

PyAV (FFmpeg, already used to probe media) decodes the video once. Frames no other frame
refers to (most B-frames) are not decoded at all: the pass needs about 5 frames a second, and
lecture videos at 25-30 frames a second keep far more than that among their reference frames.
Each sample is handed over as a small grey picture (the luma plane scaled down with OpenCV's
area filter, stretched to full range) for the scene detector, together with the decoded frame
itself, so a keyframe can be turned into a full-size picture later without a second decode.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.errors import Cancelled, UnreadableFileError

if TYPE_CHECKING:
    import av.container
    import av.video.frame
    import av.video.stream

log = logging.getLogger(__name__)

_PROGRESS_EVERY_MS = 30_000  # progress is reported this often, in video time
# Video luma runs 16-235; stretched to 0-255 the detector sees the contrast of RGB pictures.
_FULL_RANGE = np.clip((np.arange(256) - 16) * 255.0 / 219.0, 0, 255).round().astype(np.uint8)


@dataclass(frozen=True, slots=True)
class Sample:
    ms: int  # time from the start of the video
    grey: np.ndarray  # uint8, about ``width`` px wide
    frame: av.video.frame.VideoFrame  # the decoded frame, for a full-size picture on demand


@dataclass(slots=True)
class VideoInfo:
    fps: float
    duration_ms: int  # from the container; the pass raises it to the last frame seen


def rgb(frame: av.video.frame.VideoFrame, max_width: int) -> np.ndarray:
    """The frame as an RGB picture, scaled down to ``max_width`` when wider."""
    width, height = frame.width, frame.height
    if width > max_width:
        width, height = max_width, max(1, round(height * max_width / width))
    picture = frame.to_ndarray(format="rgb24", width=width, height=height, interpolation="AREA")
    return np.ascontiguousarray(picture)


def _grey(frame: av.video.frame.VideoFrame, width: int) -> np.ndarray:
    import cv2

    plane = frame.planes[0]
    luma = np.frombuffer(memoryview(plane), np.uint8).reshape(plane.height, plane.line_size)
    luma = luma[:, : plane.width]
    if plane.width > width:
        size = (width, max(1, round(plane.height * width / plane.width)))
        luma = cv2.resize(luma, size, interpolation=cv2.INTER_AREA)
    return cv2.LUT(np.ascontiguousarray(luma), _FULL_RANGE)


def _video_stream(
    container: av.container.InputContainer, info: VideoInfo
) -> tuple[av.video.stream.VideoStream, Fraction]:
    """The video's stream, set to decode reference frames only, and its time base; ``info``
    gets its frame rate and the container's duration.

    Raises:
        UnreadableFileError: no video stream (or none with a frame rate and time base).
    """
    if not container.streams.video:
        raise UnreadableFileError("no video stream")
    stream = container.streams.video[0]
    rate = stream.average_rate or stream.guessed_rate
    info.fps = float(rate) if rate else 0.0
    if info.fps <= 0 or stream.time_base is None:
        raise UnreadableFileError("no video stream")
    if container.duration:
        info.duration_ms = max(0, round(container.duration / 1000))
    stream.codec_context.skip_frame = "NONREF"
    return stream, stream.time_base


def sample_frames(
    video: Path,
    info: VideoInfo,
    *,
    per_second: float,
    width: int,
    progress: Callable[[float], None] | None = None,
    cancel: threading.Event | None = None,
) -> Iterator[Sample]:
    """Frames about ``1 / per_second`` apart, in order. ``info`` is filled in on opening
    (frame rate, duration) and its duration raised to the end of the last frame decoded.

    A stream that breaks off after some frames (a truncated file) ends the pass there.

    Raises:
        UnreadableFileError: no video stream, or no frame can be decoded.
        Cancelled: ``cancel`` was set.
    """
    import av
    import av.error

    try:
        container = av.open(str(video))
    except (av.error.FFmpegError, OSError) as e:
        raise UnreadableFileError(f"cannot read video frames: {e}") from e
    try:
        stream, time_base = _video_stream(container, info)
        first_pts = stream.start_time or 0
        step_ms = 1000 / per_second
        frame_ms = 1000 / info.fps
        due = 0.0
        report_at = _PROGRESS_EVERY_MS
        seen = 0
        try:
            for frame in container.decode(stream):
                pts = frame.pts if frame.pts is not None else first_pts
                ms = round(float((pts - first_pts) * time_base) * 1000)
                seen += 1
                info.duration_ms = max(info.duration_ms, round(ms + frame_ms))
                if ms >= report_at:
                    report_at += _PROGRESS_EVERY_MS
                    if progress is not None and info.duration_ms > 0:
                        progress(min(1.0, ms / info.duration_ms))
                if ms + frame_ms / 2 < due:
                    continue
                if cancel is not None and cancel.is_set():
                    raise Cancelled("cancelled")
                due = ms + step_ms
                yield Sample(ms, _grey(frame, width), frame)
        except av.error.FFmpegError as e:
            if not seen:
                raise UnreadableFileError(f"cannot read video frames: {e}") from e
            log.info("%s: frames end early at a decoding error: %s", video.name, e)
        if not seen:
            raise UnreadableFileError("cannot read video frames")
    finally:
        container.close()
