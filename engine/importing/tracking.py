"""Turns the stage reports of an import's files into :class:`IngestProgress` for the whole
run: each file's share across its stages (weighted by its :class:`FilePlan`), the run's share
(files weighted by their expected cost), the time left (:class:`TimeLeft`), and how long each
of a file's stages took (kept in its result, and measured by bench/progress_shares.py)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from engine.importing.estimate import FilePlan, TimeLeft
from engine.importing.progress import (
    FileResult,
    IngestProgress,
    Outcome,
    Stage,
    StageReport,
)


class ProgressTracker:
    """Progress of one run over ``paths``, each with its plan (stages and expected cost)."""

    def __init__(
        self,
        paths: Sequence[str],
        plans: Sequence[FilePlan],
        sink: Callable[[IngestProgress], None] | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._paths = list(paths)
        self._plans = list(plans)
        self._total = max(sum(p.cost_s for p in plans), 1e-9)
        self._sink = sink
        self._now = clock
        self._done_cost = 0.0  # expected seconds of the files finished
        self._worked = 0.0  # expected seconds of work done by this run (not credited)
        self._file: tuple[int, float] = (-1, 0.0)  # the current file and its share done
        self._seen: set[str] = set()  # the current file's stages reported so far
        self._eta = TimeLeft(clock())
        self._current: tuple[str, float] | None = None  # the current file's stage, since when
        self._spent: dict[str, float] = {}  # seconds of each stage of the current file

    def spent(self, stage: str, seconds: float) -> None:
        """Add ``seconds`` to ``stage`` of the current file (work timed by itself)."""
        self._spent[stage] = self._spent.get(stage, 0.0) + seconds

    def reporter(self, i: int) -> StageReport:
        def stage(stage: Stage, stage_fraction: float | None = None, detail: str = "") -> None:
            self.report(i, stage, stage_fraction, detail)

        return stage

    def finished(self, i: int, result: FileResult) -> FileResult:
        """The file's result with the time each of its stages took; reported as done. What
        an indexed file had left counts as work; any other outcome did not do it."""
        self._clock(Stage.DONE)
        timed = replace(result, stages=tuple((k, round(v, 3)) for k, v in self._spent.items()))
        self._current, self._spent = None, {}
        share = self._share(i)
        if result.outcome == Outcome.INDEXED:
            self._worked += (1 - share) * self._plans[i].cost_s
        self._done_cost += self._plans[i].cost_s
        self._file = (-1, 0.0)
        self._send(i, Stage.DONE, None, None, "", timed)
        return timed

    def _clock(self, stage: str) -> None:
        """The current file's stage is ``stage`` from now on."""
        now = self._now()
        if self._current is not None and self._current[0] != stage:
            name, since = self._current
            self.spent(name, now - since)
        if self._current is None or self._current[0] != stage:
            self._current = (stage, now)

    def _share(self, i: int) -> float:
        return self._file[1] if self._file[0] == i else 0.0

    def report(
        self, i: int, stage: Stage, stage_fraction: float | None = None, detail: str = ""
    ) -> None:
        """File ``i`` is in ``stage``, ``stage_fraction`` of it done when known. Its share
        only grows; a stage the file's plan does not have leaves it where it was. The first
        report of transcribing may start past zero (speech kept by an earlier run): that
        part is credited, not counted as this run's work."""
        self._clock(stage)
        if self._file[0] != i:
            self._file, self._seen = (i, 0.0), set()
        plan, share = self._plans[i], self._file[1]
        first = stage not in self._seen
        self._seen.add(stage)
        position = plan.position(stage, stage_fraction)
        if position is not None and position > share:
            gain = position - share
            if first and stage == Stage.TRANSCRIBING and stage_fraction:
                gain = max(0.0, gain - plan.share(stage) * min(1.0, stage_fraction))
            self._worked += gain * plan.cost_s
            self._file = (i, position)
        self._send(i, stage, stage_fraction, self._file[1], detail, None)

    def _send(
        self,
        i: int,
        stage: Stage,
        stage_fraction: float | None,
        file_fraction: float | None,
        detail: str,
        result: FileResult | None,
    ) -> None:
        done = self._done_cost + self._share(i) * self._plans[i].cost_s
        eta = self._eta.update(self._now(), self._worked, max(0.0, self._total - done))
        if self._sink is None:
            return
        fraction = min(1.0, done / self._total)
        if result is not None:
            file_fraction = 1.0
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
                stage_fraction,
            )
        )
