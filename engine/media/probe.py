"""What a media file holds (streams, duration), and whether it is whole, read with PyAV.

Fast on long files: only the container header and a few packets near the end are read.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import UnreadableFileError

if TYPE_CHECKING:
    from av.container import InputContainer
    from av.stream import Stream

log = logging.getLogger(__name__)

NOT_MEDIA = "not a media file"
TRUNCATED = "corrupt or truncated media file"

# Leading bytes of containers we accept: a file that starts like one but cannot be read is
# broken (typically cut short), anything else is not media at all.
_SIGNATURES: tuple[tuple[int, bytes], ...] = (
    (4, b"ftyp"),  # MP4, MOV, M4A
    (0, b"\x1a\x45\xdf\xa3"),  # Matroska, WebM
    (0, b"RIFF"),  # WAV, AVI
    (0, b"OggS"),
    (0, b"fLaC"),
    (0, b"ID3"),  # MP3 with tags
    (0, b"\xff\xfb"),  # MP3 frame
    (0, b"\xff\xf3"),
    (0, b"\xff\xf2"),
    (0, b"\x00\x00\x01\xba"),  # MPEG program stream
    (0, b"\x30\x26\xb2\x75"),  # ASF / WMV
    (0, b"FLV"),
)


@dataclass(frozen=True, slots=True)
class MediaInfo:
    duration_ms: int
    has_audio: bool
    has_video: bool
    width: int | None = None
    height: int | None = None
    fps: float | None = None


def _looks_like_media(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            head = f.read(16)
    except OSError:
        return False
    return any(head[at : at + len(sig)] == sig for at, sig in _SIGNATURES)


def probe(path: Path) -> MediaInfo:
    """Streams and duration of a video or audio file.

    Raises:
        UnreadableFileError: not media, corrupt or truncated, or no audio or video stream.
    """
    import av
    import av.error

    try:
        container = av.open(str(path))
    except (av.error.FFmpegError, OSError, ValueError) as e:
        reason = TRUNCATED if _looks_like_media(path) else NOT_MEDIA
        log.info("%s: cannot open as media: %s", path.name, e)
        raise UnreadableFileError(reason) from e
    try:
        audio = container.streams.audio[0] if container.streams.audio else None
        video = next(
            (s for s in container.streams.video if s.disposition.name != "attached_pic"), None
        )
        if audio is None and video is None:
            raise UnreadableFileError("no audio or video stream")
        duration_ms = _duration_ms(container, audio, video)
        if duration_ms <= 0:  # a picture (FFmpeg opens a PNG) is not a broken video
            raise UnreadableFileError(TRUNCATED if _looks_like_media(path) else NOT_MEDIA)
        stream = audio if audio is not None else video
        if stream is not None:
            _check_tail(container, stream, duration_ms)
        fps = float(video.average_rate) if video is not None and video.average_rate else None
        return MediaInfo(
            duration_ms=duration_ms,
            has_audio=audio is not None,
            has_video=video is not None,
            width=video.codec_context.width if video is not None else None,
            height=video.codec_context.height if video is not None else None,
            fps=fps,
        )
    finally:
        container.close()


def _duration_ms(container: InputContainer, *streams: Stream | None) -> int:
    import av
    import av.error

    if container.duration:
        return int(container.duration * 1000 // av.time_base)
    best = 0
    for stream in streams:
        if stream is not None and stream.duration and stream.time_base:
            best = max(best, int(stream.duration * stream.time_base * 1000))
    return best


def _check_tail(container: InputContainer, stream: Stream, duration_ms: int) -> None:
    """Read a few packets near the end: a file cut short has none there.

    Raises:
        UnreadableFileError: the data stops well before the duration the header claims.
    """
    import av
    import av.error

    target_ms = max(0, duration_ms - 3000)
    if stream.time_base is None:
        return
    try:
        container.seek(int(target_ms / 1000 / stream.time_base), stream=stream, backward=True)
        last_ms = -1
        for i, packet in enumerate(container.demux(stream)):
            if packet.pts is not None and packet.size:
                last_ms = max(last_ms, int(packet.pts * stream.time_base * 1000))
            if i >= 50 or last_ms >= target_ms:
                break
    except av.error.FFmpegError as e:
        raise UnreadableFileError(TRUNCATED) from e
    if last_ms < 0 or last_ms < target_ms - 10_000:
        raise UnreadableFileError(TRUNCATED)
