"""An import's progress as the bar and the library panel show it (issue 24, item 5): one
share per file across all its stages (never back to 0% when a stage starts), one share for
the run, and a time left that appears only once it means something, never says 0 while work
remains, and does not jump with each report.

The real imports use a generated narrated video (espeak-ng, ffmpeg, tiny.en in its child
process, scenes and on-screen text) and notes. The estimator's own behaviour is checked on a
clock the test sets: no test here measures wall time.
"""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import pytest

from engine.formatting import progress_line, time_left
from engine.importing.estimate import (
    TRANSCRIBED_VIDEO,
    FilePlan,
    TimeLeft,
    document_plan,
)
from engine.importing.progress import FileResult, IngestProgress, Outcome, Stage
from engine.importing.tracking import ProgressTracker
from engine.library import Library
from tools.lecture_media import Clip, make_lecture_video, slide_image

NARRATION = (
    "A binary search tree keeps every smaller key in the left subtree and every larger key in "
    "the right subtree, so each step halves what is left to search.",
    "A heap keeps every parent smaller than its children, which makes it a good priority "
    "queue for the shortest path algorithm of Dijkstra.",
    "Dynamic programming solves each overlapping subproblem once and keeps its answer in a "
    "table, so the next time it is only looked up.",
)


@pytest.fixture(scope="module")
def lecture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("progress-course")
    clips = [
        Clip(slide_image([f"Part {i + 1}", text[:40]], folder / f"{i}.png"), text)
        for i, text in enumerate(NARRATION)
    ]
    video = folder / "lecture.mp4"
    make_lecture_video(video, clips)
    for clip in clips:
        clip.image.unlink()
    return video


def _check_run(reports: list[IngestProgress]) -> None:
    """What every run's reports must show: the run's share and each file's only grow, a
    time left never below a second (never "00:00") while work remains, and none at first."""
    fractions = [p.fraction for p in reports]
    assert fractions == sorted(fractions), fractions
    by_file: dict[str, list[float]] = {}
    for p in reports:
        if p.file_fraction is not None:
            by_file.setdefault(p.path, []).append(p.file_fraction)
    for path, shares in by_file.items():
        assert shares == sorted(shares), (path, shares)
    for p in reports:
        if p.fraction < 1.0 and p.eta_s is not None:
            assert p.eta_s >= 1.0, p
        assert "00:00" not in progress_line(p)
    assert reports[0].eta_s is None, "no time left before any work is done"


def test_a_video_import_is_one_growing_bar_across_its_stages(
    library: Library, lecture: Path, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Trees\n\nA binary search tree keeps smaller keys to the left.\n")
    reports: list[IngestProgress] = []
    report = library.ingest([lecture, notes], progress=reports.append)
    assert [f.outcome for f in report.files] == [Outcome.INDEXED, Outcome.INDEXED]
    _check_run(reports)
    assert reports[-1].fraction == pytest.approx(1.0)
    video = [p for p in reports if p.path == str(lecture) and p.result is None]
    stages = list(dict.fromkeys(p.stage for p in video))
    assert stages[:2] == [Stage.READING, Stage.TRANSCRIBING], stages
    assert Stage.READING_SCREEN in stages
    # Each stage starts its own share at 0 or so, but the file's share goes on from where
    # the last stage left it: after transcribing, the file is most of the way done.
    after = next(p for p in video if p.stage == Stage.EMBEDDING)
    assert (after.file_fraction or 0) >= 0.7, after
    # The video is most of the run's cost (a minute of speech against a few lines of notes).
    last_of_video = next(p for p in reports if p.path == str(lecture) and p.result is not None)
    assert last_of_video.fraction > 0.9


def test_a_resumed_transcript_is_not_taken_for_speed(library: Library, lecture: Path) -> None:
    cancel = threading.Event()

    def stop_midway(p: IngestProgress) -> None:
        if p.stage == Stage.TRANSCRIBING and (p.stage_fraction or 0) > 0.3:
            cancel.set()

    report = library.ingest([lecture], progress=stop_midway, cancel=cancel)
    assert report.files[0].outcome == Outcome.CANCELLED
    resumed: list[IngestProgress] = []
    report = library.resume(progress=resumed.append)
    assert [f.outcome for f in report.files] == [Outcome.INDEXED]
    _check_run(resumed)
    first = next(p for p in resumed if p.stage == Stage.TRANSCRIBING)
    assert (first.file_fraction or 0) > 0.2, "it goes on from the speech kept, not from 0"
    assert first.eta_s is None, "the speech kept is no work of this run: no speed from it"


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_time_left_waits_for_work_then_follows_it_smoothly() -> None:
    clock = Clock()
    left = TimeLeft(clock.now)
    total = 600.0  # expected seconds of work; done here at 1 per second, then 3 per second
    seen: list[float | None] = []
    worked = 0.0
    for second in range(1, 400):
        clock.now += 1
        worked = min(total, worked + (1.0 if second < 200 else 3.0))
        seen.append(left.update(clock.now, worked, total - worked))
        if worked >= total:
            break
    assert seen[:4] == [None] * 4, "nothing before a few seconds of work"
    shown = [s for s in seen[:-1] if s is not None]
    assert shown and min(shown) >= 1.0
    assert seen[-1] is None, "nothing left, no time left"
    # At a steady speed it is right: at second 100, 500 s of work remain at 1 s per second.
    assert seen[99] == pytest.approx(500, rel=0.1)
    # When the speed triples it follows within a window, without leaping at once.
    steps = [abs(b - a) for a, b in itertools.pairwise(shown)]
    assert max(steps) < 60, max(steps)
    assert seen[260] == pytest.approx((total - (199 + 3 * 62)) / 3, rel=0.25)


def test_a_silence_between_reports_is_not_taken_for_slowness() -> None:
    """Starting a recognition child and loading its model: 20 s without a report, then the
    work goes on at its speed. The time left is that of the work, not a leap upwards."""
    clock = Clock()
    left = TimeLeft(clock.now)
    worked, total = 0.0, 200.0
    before: float | None = None
    for _ in range(30):
        clock.now += 1
        worked += 1.0
        before = left.update(clock.now, worked, total - worked)
    clock.now += 20
    eta = left.update(clock.now, worked + 1.0, total - worked - 1.0)
    assert before is not None and eta is not None
    assert eta < 1.3 * before, (before, eta)  # it was 5 times as long, counting the silence
    assert eta == pytest.approx(total - worked - 1.0, rel=0.3)


def test_a_stall_never_reaches_zero() -> None:
    clock = Clock()
    left = TimeLeft(clock.now)
    for worked in (1.2 * s for s in range(1, 11)):  # ten seconds of work
        clock.now += 1
        left.update(clock.now, worked, 100 - worked)
    eta: float | None = None
    for _ in range(300):  # a stage that says nothing for five minutes
        clock.now += 1
        eta = left.update(clock.now, 12.0, 88.0)
        assert eta is not None and eta >= 1.0
    assert "00:00" not in time_left(eta) and time_left(eta)


def test_the_share_of_a_file_follows_its_plan_and_never_falls() -> None:
    clock = Clock()
    reports: list[IngestProgress] = []
    plans = [FilePlan(TRANSCRIBED_VIDEO, 100.0), document_plan(0)]
    tracker = ProgressTracker(["a.mp4", "b.md"], plans, reports.append, clock)
    for stage, shares in (
        (Stage.READING, (None,)),
        (Stage.TRANSCRIBING, (0.0, 0.5, 1.0)),
        (Stage.EMBEDDING, (None,)),
        (Stage.FINDING_SCENES, (0.1, 0.3)),
        (Stage.READING_SCREEN, (0.3, 0.9)),
    ):
        for share in shares:
            clock.now += 1
            tracker.report(0, stage, share)
    tracker.finished(0, FileResult("a.mp4", Outcome.INDEXED))
    files = [p.file_fraction or 0.0 for p in reports]
    assert files == sorted(files)
    half = next(p for p in reports if p.stage_fraction == 0.5)
    assert half.file_fraction == pytest.approx(0.01 + 0.74 / 2)
    assert reports[-1].file_fraction == 1.0 and reports[-1].result is not None
    # The run: the video is nearly all of it (a note costs about a second).
    assert reports[-1].fraction == pytest.approx(100 / 101)
