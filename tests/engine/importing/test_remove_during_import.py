"""A file or course removed while it is being imported (issue 24, item 6): the import stops
its work on it at once (the video being transcribed stops; queued files are skipped), goes
on with the rest, and leaves nothing of it to resume; the course goes as the import ends.

Real media: a narrated video (espeak-ng, ffmpeg) transcribed by tiny.en in its child process,
and a short spoken audio file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.importing.progress import IngestProgress, Outcome, Stage
from engine.library import Library
from engine.types import SourceStatus
from tools.lecture_media import Clip, make_audio, make_lecture_video, slide_image

SAID = (
    "A binary search tree keeps every smaller key in the left subtree and every larger key in "
    "the right subtree.",
    "A heap keeps every parent smaller than its children, which makes a good priority queue.",
    "Dynamic programming solves each overlapping subproblem once and keeps its answer.",
)


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Algorithms/: a-lecture.mp4 (about 20 s of speech), b-intro.wav, notes.md."""
    folder = tmp_path_factory.mktemp("remove") / "Algorithms"
    folder.mkdir()
    pictures = tmp_path_factory.mktemp("pictures")
    clips = [
        Clip(slide_image([f"Part {i}", text[:30]], pictures / f"{i}.png"), text)
        for i, text in enumerate(SAID)
    ]
    make_lecture_video(folder / "a-lecture.mp4", clips)
    make_audio(folder / "b-intro.wav", "Welcome to the course on algorithms and their analysis.")
    (folder / "notes.md").write_text("# Week one\n\nThe okapi is a giraffe of the forest.\n")
    return folder


def _unfinished(library: Library) -> list[str]:
    queued = (SourceStatus.QUEUED, SourceStatus.INDEXING)
    return [s.path for s in library.sources() if s.status in queued]


def test_a_file_removed_while_transcribed_stops_and_the_rest_goes_on(
    library: Library, course: Path
) -> None:
    video = str(course / "a-lecture.mp4")
    stopped: list[list[str]] = []
    after: list[IngestProgress] = []  # the video's reports after its removal

    def progress(p: IngestProgress) -> None:
        if stopped and p.path == video:
            after.append(p)
        elif p.path == video and p.stage == Stage.TRANSCRIBING and (p.stage_fraction or 0) > 0:
            stopped.append(library.remove_during_import(video))

    report = library.ingest([course], progress=progress)
    assert stopped == [[video]], "the import held the video and stops it"
    outcomes = {Path(f.path).name: f.outcome for f in report.files}
    assert outcomes == {
        "notes.md": Outcome.INDEXED,
        "a-lecture.mp4": Outcome.REMOVED,
        "b-intro.wav": Outcome.INDEXED,
    }
    # Stopped in its transcription: no later stage, not transcribed to its end.
    later = {p.stage for p in after if p.result is None}
    assert later <= {Stage.TRANSCRIBING}, later
    assert not any((p.stage_fraction or 0) >= 0.99 for p in after if p.result is None)
    assert after[-1].result is not None and after[-1].result.outcome == Outcome.REMOVED
    # Gone, with nothing left to resume; the rest is searchable.
    assert video not in {s.path for s in library.sources()}
    assert _unfinished(library) == []
    assert library.resume().files == []
    assert library.search("welcome algorithms analysis").results


def test_a_course_removed_during_its_import_is_gone_when_it_ends(
    library: Library, course: Path
) -> None:
    asked: list[list[str]] = []

    def progress(p: IngestProgress) -> None:
        if p.stage == Stage.TRANSCRIBING and not asked:
            asked.append(library.remove_during_import("Algorithms"))

    report = library.ingest([course], progress=progress)
    assert len(asked[0]) == 3, "every file of the course the import holds"
    outcomes = {Path(f.path).name: f.outcome for f in report.files}
    assert outcomes["notes.md"] == Outcome.INDEXED  # done before the removal
    assert outcomes["a-lecture.mp4"] == outcomes["b-intro.wav"] == Outcome.REMOVED
    assert "Algorithms" not in {c.name for c in library.courses()}
    assert library.sources() == [] and _unfinished(library) == []
    # A later import of the same files is not skipped: the removal was for that run only.
    again = library.ingest([course / "notes.md", course / "b-intro.wav"])
    assert [f.outcome for f in again.files] == [Outcome.INDEXED, Outcome.INDEXED]


def test_what_the_import_does_not_hold_is_left_to_remove(
    library: Library, course: Path, tmp_path: Path
) -> None:
    other = tmp_path / "Botany"
    other.mkdir()
    (other / "leaf.md").write_text("# Leaves\n\nA leaf turns sunlight into sugar.\n")
    library.ingest([other])
    answers: list[list[str]] = []

    def progress(p: IngestProgress) -> None:
        if p.result is not None and not answers:
            answers.append(library.remove_during_import("Botany"))

    library.ingest([course / "notes.md"], progress=progress)
    assert answers == [[]]
    assert library.remove("Botany").count == 1
