"""What an import tells its caller: the stage a file is in, each file's result, and the
whole job's progress with an estimate of the time left."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Protocol


class Outcome(StrEnum):
    INDEXED = "indexed"
    UNCHANGED = "unchanged"
    DUPLICATE = "duplicate"
    MOVED = "moved"
    ERROR = "error"
    CANCELLED = "cancelled"


class Stage(StrEnum):
    """Where a file is in the import; the value is what a user reads."""

    WAITING = "waiting for another import into this library to finish"
    READING = "reading"
    TRANSCRIBING = "transcribing"
    READING_PAGES = "reading pages"
    EMBEDDING = "embedding"
    FINDING_SCENES = "finding scenes"
    READING_SCREEN = "reading the screen"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class FileResult:
    path: str
    outcome: Outcome
    detail: str = ""
    segments: int = 0
    # (stage, seconds) in the order first met: how long each stage was the file's current
    # one; work done alongside another stage is named for it (e.g. scenes while transcribing)
    stages: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, slots=True)
class IngestProgress:
    """One progress report: which file, where in the job, and an estimate of time left."""

    path: str
    index: int  # 0-based position of this file in the job
    total: int
    stage: str  # a Stage's value
    fraction: float  # whole job, 0..1, weighted by file size
    eta_s: float | None
    result: FileResult | None = None
    file_fraction: float | None = None  # this file, 0..1, when the stage knows it
    detail: str = ""  # e.g. "0.09x real time" while transcribing


@dataclass(slots=True)
class IngestReport:
    files: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, outcome: Outcome) -> int:
        return sum(1 for f in self.files if f.outcome == outcome)

    @property
    def errors(self) -> list[FileResult]:
        return [f for f in self.files if f.outcome == Outcome.ERROR]


class StageReport(Protocol):
    """How a stage reports on the file it works on: its share done when it knows it."""

    def __call__(self, stage: Stage, file_fraction: float | None = None, detail: str = "") -> None:
        pass


class ProgressTracker:
    """Turns stage reports on file ``i`` into IngestProgress for the whole job, weighting
    each file by its size."""

    def __init__(self, paths: Sequence[Path], sink: Callable[[IngestProgress], None] | None):
        self._paths = [str(p) for p in paths]
        self._sizes = [_size(p) for p in paths]
        self._total = max(sum(self._sizes), 1)
        self._done = 0  # bytes of the files finished
        self._within = 0.0  # share of the current file done, as last reported
        self._started = time.monotonic()
        self._sink = sink
        self._current: tuple[str, float] | None = None  # the current file's stage, since when
        self._spent: dict[str, float] = {}  # seconds of each stage of the current file

    def spent(self, stage: str, seconds: float) -> None:
        """Add ``seconds`` to ``stage`` of the current file (work timed by itself)."""
        self._spent[stage] = self._spent.get(stage, 0.0) + seconds

    def reporter(self, i: int) -> StageReport:
        def stage(stage: Stage, file_fraction: float | None = None, detail: str = "") -> None:
            self.report(i, stage, file_fraction, detail)

        return stage

    def finished(self, i: int, result: FileResult) -> FileResult:
        """The file's result with the time each of its stages took; reported as done."""
        self._done += self._sizes[i]
        self._clock(Stage.DONE)
        timed = replace(result, stages=tuple((k, round(v, 3)) for k, v in self._spent.items()))
        self._current, self._spent = None, {}
        self.report(i, Stage.DONE, result=timed)
        return timed

    def _clock(self, stage: str) -> None:
        """The current file's stage is ``stage`` from now on."""
        now = time.monotonic()
        if self._current is not None and self._current[0] != stage:
            name, since = self._current
            self.spent(name, now - since)
        if self._current is None or self._current[0] != stage:
            self._current = (stage, now)

    def report(
        self,
        i: int,
        stage: Stage,
        file_fraction: float | None = None,
        detail: str = "",
        result: FileResult | None = None,
    ) -> None:
        if result is None:
            self._clock(stage)
        if self._sink is None:
            return
        if result is not None or stage == Stage.READING:
            self._within = 0.0
        elif file_fraction is not None:
            self._within = file_fraction
        fraction = min(1.0, (self._done + self._sizes[i] * self._within) / self._total)
        elapsed = time.monotonic() - self._started
        eta = elapsed * (1 - fraction) / fraction if fraction > 0.02 else None
        self._sink(
            IngestProgress(
                self._paths[i],
                i,
                len(self._paths),
                stage,
                fraction,
                eta,
                result,
                file_fraction,
                detail,
            )
        )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
