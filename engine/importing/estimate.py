"""What an import expects each file to cost, how that cost splits between the file's stages,
and the time left, told only once it means something.

The figures are seconds on 2 CPU cores with tiny.en, measured with
``bench/progress_shares.py`` (FileResult.stages of real imports: the demo course and a
generated narrated video). Only their ratios matter for the bars: the time left is measured
from the run's own speed, never from these absolute seconds.
"""

from __future__ import annotations

import stat
from collections import deque
from dataclasses import dataclass

from engine import ingest
from engine.config import EngineConfig
from engine.errors import CoursedexError
from engine.importing.planning import MEDIA, PlannedFile
from engine.importing.progress import Stage

# How long each stage is the current one, as shares of a file's import. Measured on
# 2026-11-26: the demo lecture (6.5 min, many slides: transcribing 65%, reading the screen
# 33%) and a generated 2.5-min narrated video (transcribing 84%, screen 14%); the frames are
# mostly read alongside the speech, so what is left of them after it is the screen's share.
# Reading (hash, probe) and embedding took 1-2% each; a subtitled video has no transcription,
# so its frames are most of its time. Documents spend most of their time embedding.
TRANSCRIBED_VIDEO = (
    (Stage.READING, 0.01),
    (Stage.TRANSCRIBING, 0.74),
    (Stage.EMBEDDING, 0.02),
    (Stage.FINDING_SCENES, 0.03),
    (Stage.READING_SCREEN, 0.20),
)
TRANSCRIBED_AUDIO = ((Stage.READING, 0.02), (Stage.TRANSCRIBING, 0.95), (Stage.EMBEDDING, 0.03))
SUBTITLED_VIDEO = (
    (Stage.READING, 0.05),
    (Stage.EMBEDDING, 0.10),
    (Stage.FINDING_SCENES, 0.15),
    (Stage.READING_SCREEN, 0.70),
)
DOCUMENT = ((Stage.READING, 0.15), (Stage.READING_PAGES, 0.35), (Stage.EMBEDDING, 0.50))

# Seconds of work per second of media, and for any file (hash, embed, commit). Measured on
# 2 idle cores (the window importing the demo course): the 6.5-min demo lecture took about
# 30 s (0.08 s per second, frames read alongside its speech), its notes, slides and code
# about a second each. On a loaded machine (load 11, bench/progress_shares.py) every file
# took 2-4 times longer; the ratios, which are all the bars use, moved less. Audio skips
# the frames.
VIDEO_S_PER_S = 0.1
AUDIO_S_PER_S = 0.07
SUBTITLED_S_PER_S = 0.03
FILE_S = 1.0  # a note, a deck or an archive: about a second each, whatever its size here
DOCUMENT_S_PER_MB = 2.0


@dataclass(frozen=True, slots=True)
class FilePlan:
    """A file's stages with their shares (summing to 1) and its expected cost in seconds."""

    stages: tuple[tuple[Stage, float], ...]
    cost_s: float

    def position(self, stage: str, stage_fraction: float | None) -> float | None:
        """The file's share done when ``stage`` is ``stage_fraction`` done: the stages before
        it, and its own share of it; None for a stage the plan does not have."""
        before = 0.0
        for name, share in self.stages:
            if name == stage:
                return min(1.0, before + share * min(1.0, max(0.0, stage_fraction or 0.0)))
            before += share
        return None

    def share(self, stage: str) -> float:
        return next((share for name, share in self.stages if name == stage), 0.0)


def media_plan(*, video: bool, transcribed: bool, frames: bool, duration_ms: int) -> FilePlan:
    """A video or audio file's plan: speech recognised or read from subtitles, and the frames
    read when ``frames`` (a video with on-screen text on)."""
    seconds = duration_ms / 1000
    if transcribed:
        if video and frames:
            return FilePlan(TRANSCRIBED_VIDEO, FILE_S + VIDEO_S_PER_S * seconds)
        return FilePlan(TRANSCRIBED_AUDIO, FILE_S + AUDIO_S_PER_S * seconds)
    if video and frames:
        return FilePlan(SUBTITLED_VIDEO, FILE_S + SUBTITLED_S_PER_S * seconds)
    return document_plan(0)


def document_plan(size: int) -> FilePlan:
    return FilePlan(DOCUMENT, FILE_S + DOCUMENT_S_PER_MB * size / 1e6)


class TimeLeft:
    """The time left from the run's own speed: the work done in its last ``WINDOW_S`` seconds
    of work (in expected seconds) per second, smoothed over ``SMOOTH_S`` so it moves like a
    clock, not like each report. None until ``SHOW_AFTER_S`` of work and ``SHOW_AFTER_SHARE``
    of it are done (or ``SURE_AFTER_S`` have gone by), and at least a second while work
    remains.

    Work credited without being done in this run (a file unchanged, a transcript resumed from
    an earlier run) is not ``worked``: it would make the run look faster than it is."""

    START_SHARE = 0.02
    SHOW_AFTER_S = 8.0
    SHOW_AFTER_SHARE = 0.05
    SURE_AFTER_S = 30.0
    WINDOW_S = 20.0
    SMOOTH_S = 4.0
    GAP_S = 3.0

    def __init__(self, started: float) -> None:
        self._started = started
        # (time, work done, seconds of work so far: silences counted as GAP_S at most)
        self._samples: deque[tuple[float, float, float]] = deque([(started, 0.0, 0.0)])
        self._eta: float | None = None
        self._at = started

    def update(self, now: float, worked: float, remaining: float) -> float | None:
        """Seconds left after ``worked`` (this run's work so far) with ``remaining`` to do.
        The clock starts at the last report before ``START_SHARE`` of the work is done:
        starting a recognition child and loading its model (18 s on a loaded machine, before
        a resumed lecture's first new words) are no measure of the speed that follows."""
        if worked <= self.START_SHARE * (worked + remaining):
            self._started = now
            self._samples = deque([(now, worked, 0.0)])
            return None
        last, _, busy = self._samples[-1]
        # A long silence (a child process starting, a model loading) counts as GAP_S: the
        # speed is that of the work, not of its pauses.
        self._samples.append((now, worked, busy + min(now - last, self.GAP_S)))
        busy_now = self._samples[-1][2]
        while len(self._samples) > 2 and busy_now - self._samples[1][2] >= self.WINDOW_S:
            self._samples.popleft()
        if remaining <= 0:
            self._eta = None
            return None
        elapsed = now - self._started
        share = worked / (worked + remaining)
        if elapsed < self.SHOW_AFTER_S:
            return None
        if share < self.SHOW_AFTER_SHARE and elapsed < self.SURE_AFTER_S:
            return None
        _, worked_then, busy_then = self._samples[0]
        busy = busy_now - busy_then
        rate = (worked - worked_then) / busy if busy > 0 else 0.0
        raw = remaining / rate if rate > 0 else None
        if self._eta is None:
            eta = raw if raw is not None else None
        else:
            decayed = max(0.0, self._eta - (now - self._at))
            weight = min(1.0, min(now - self._at, self.GAP_S) / self.SMOOTH_S)
            eta = decayed if raw is None else decayed + weight * (raw - decayed)
        self._at = now
        self._eta = None if eta is None else max(1.0, eta)
        return self._eta


def expected(item: PlannedFile, config: EngineConfig) -> FilePlan:
    """What importing ``item`` is expected to cost, and how its stages share it: media by
    its duration (read from its header), anything else by its size."""
    from engine.media.probe import probe

    try:
        found = item.path.stat()
        if not stat.S_ISREG(found.st_mode):  # a named pipe would wait for a writer forever
            return document_plan(0)
        if item.kind not in MEDIA:
            return document_plan(found.st_size)
        info = probe(item.path)
    except (OSError, CoursedexError):  # its import says what is wrong with it
        return document_plan(0)
    return media_plan(
        video=info.has_video,
        transcribed=ingest.find_sidecar(item.path) is None,
        frames=info.has_video and config.media.screen_text,
        duration_ms=info.duration_ms,
    )
