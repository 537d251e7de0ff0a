"""What an import tells its caller: the stage a file is in, each file's result, and the
whole job's progress with an estimate of the time left (worked out in
:mod:`engine.importing.tracking`).

The progress model, for the window's bar and the library panel's rows: every report
(:class:`IngestProgress`) names one file (``path``), its ``stage`` and that stage's own share
done (``stage_fraction``), and ``file_fraction``: the file's share done across all its stages,
each weighted by what it costs (:mod:`engine.importing.estimate`), so it only grows from 0 to
1. ``fraction`` is the whole run's, its files weighted by their expected cost (a video by its
duration); ``eta_s`` the time left, None until it means something."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from engine.changes import NOTHING, Changes


class Outcome(StrEnum):
    INDEXED = "indexed"
    UNCHANGED = "unchanged"
    DUPLICATE = "duplicate"
    MOVED = "moved"
    ERROR = "error"
    CANCELLED = "cancelled"
    REMOVED = "removed"  # removed from the library while it was being imported


class Stage(StrEnum):
    """Where a file is in the import; the value is what a user reads."""

    WAITING = "waiting for another import into this library to finish"
    READING = "reading"
    UNPACKING = "taking its files out"  # a zip of course material, before its files
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
    # A duplicate: the course of the file that holds its content (``detail`` names that file).
    kept_in: str = ""


@dataclass(frozen=True, slots=True)
class IngestProgress:
    """One progress report: which file, where in the job, and an estimate of time left."""

    path: str
    index: int  # 0-based position of this file in the job
    total: int
    stage: str  # a Stage's value
    fraction: float  # whole job, 0..1, its files weighted by their expected cost; never falls
    eta_s: float | None  # seconds left, smoothed; None until meaningful; >= 1 while work remains
    result: FileResult | None = None  # the file's result, in the report that ends it
    file_fraction: float | None = None  # this file across all its stages, 0..1; never falls
    detail: str = ""  # e.g. "0.09x real time" while transcribing
    stage_fraction: float | None = None  # the current stage's own share, when it knows it


@dataclass(frozen=True, slots=True)
class RemovedAfter:
    """A course or file removed from the library as the import ended, asked during it."""

    target: str  # the course's name or the file's path, as asked
    course: bool  # a course was removed
    files: int  # the files removed then (those the import stopped went as it stopped them)
    stopped: bool  # the import held some of its files, and stopped them


@dataclass(slots=True)
class IngestReport:
    files: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0
    changes: Changes = NOTHING  # what the import changed in the library (Library.ingest)
    removed_after: list[RemovedAfter] = field(default_factory=list)

    def count(self, outcome: Outcome) -> int:
        return sum(1 for f in self.files if f.outcome == outcome)

    @property
    def errors(self) -> list[FileResult]:
        return [f for f in self.files if f.outcome == Outcome.ERROR]


class StageReport(Protocol):
    """How a stage reports on the file it works on: the stage's own share done when it knows
    it (the tracker turns it into the file's share across its stages)."""

    def __call__(self, stage: Stage, stage_fraction: float | None = None, detail: str = "") -> None:
        pass
