"""Video and audio through the library, as a user drops them: a narrated lecture video whose
slides come from a PDF in the same course, an audio file, and broken media.

Everything is real: espeak-ng speaks, ffmpeg muxes, Whisper tiny.en transcribes in a child
process, PySceneDetect cuts, RapidOCR reads the frames.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.importing.hearing import ENGLISH_SPEECH_MODEL
from engine.importing.progress import IngestProgress, Outcome
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from engine.search import SearchFilters
from engine.search.results import moment_ms
from engine.types import SegmentKind, SourceKind, SourceStatus
from tests.english import ENGLISH_INGEST, english
from tests.places import at_moment, on_page
from tools.factories import make_pdf, make_srt
from tools.lecture_media import Clip, make_audio, make_lecture_video, pdf_page_images

ROOT = Path(__file__).resolve().parents[3]

# Six slides with distinct vocabulary. Each is narrated while it is on screen; the last line
# of every slide is never spoken, so only OCR of the frames can find it.
SLIDES = (
    (
        "Binary search trees\nSmaller keys go to the left subtree\nLarger keys go to the right"
        "\nExample: inventory of violins",
        "A binary search tree keeps every smaller key in the left subtree and every larger key "
        "in the right subtree.",
    ),
    (
        "Heaps and priority queues\nA parent is never larger than its children"
        "\nInsert and extract take log n\nExample: harbour cranes",
        "A heap is a tree where a parent is never larger than its children, which makes it a "
        "good priority queue.",
    ),
    (
        "Graph traversal\nBreadth first search uses a queue\nDepth first search uses a stack"
        "\nExample: museum corridors",
        "To traverse a graph, breadth first search visits neighbours with a queue, while depth "
        "first search follows one path with a stack.",
    ),
    (
        "Shortest paths\nDijkstra picks the closest vertex\nWeights must not be negative"
        "\nExample: bicycle couriers",
        "Dijkstra's algorithm finds shortest paths by always settling the closest vertex next.",
    ),
    (
        "Dynamic programming\nOverlapping subproblems\nMemoization stores each answer"
        "\nExample: chocolate factory",
        "Dynamic programming solves overlapping subproblems once and stores each answer in a "
        "table.",
    ),
    (
        "Hash tables\nA hash function picks the bucket\nCollisions are chained"
        "\nExample: pomegranate orchard",
        "A hash table uses a hash function to pick a bucket for every key.",
    ),
)
SCREEN_ONLY = ("violins", "cranes", "corridors", "couriers", "chocolate", "pomegranate")


@dataclass(frozen=True)
class Course:
    folder: Path
    video: Path
    deck: Path
    cuts: list[int]


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Course:
    folder = tmp_path_factory.mktemp("algorithms")
    deck = make_pdf(folder / "week3-slides.pdf", [text for text, _ in SLIDES], slides=True)
    frames = pdf_page_images(deck, tmp_path_factory.mktemp("frames"))
    clips = [Clip(frame, narration) for frame, (_, narration) in zip(frames, SLIDES, strict=True)]
    video = folder / "week3-lecture.mp4"
    cuts = make_lecture_video(video, clips)
    return Course(folder, video, deck, cuts)


@pytest.fixture(scope="module")
def built(
    course: Course, tmp_path_factory: pytest.TempPathFactory, models_dir: Path, embedder
) -> Iterator[Library]:
    lib = Library.open(
        tmp_path_factory.mktemp("lib"),
        english(),
        lambda: embedder,
        models=ModelRegistry(models_dir),
    )
    stages: list[IngestProgress] = []
    lib.frames_worker = []  # type: ignore[attr-defined]
    lib.found_when_frames_wait = None  # type: ignore[attr-defined]

    def progress(p: IngestProgress) -> None:
        if p.stage == "transcribing":
            lib.frames_worker.append(_frames_worker_niceness())  # type: ignore[attr-defined]
        if p.stage == "finding scenes" and lib.found_when_frames_wait is None:  # type: ignore[attr-defined]
            hits = lib.search("closest vertex Dijkstra", limit=10).results
            lib.found_when_frames_wait = {(r.source, r.kind) for r in hits}  # type: ignore[attr-defined]
        stages.append(p)

    threads: set[str] = set()  # the threads that used the library's database connection
    lib.store.conn.set_trace_callback(lambda _: threads.add(threading.current_thread().name))
    try:
        report = lib.ingest([course.folder], progress=progress)
    finally:
        lib.store.conn.set_trace_callback(None)
    assert [f.outcome for f in report.files] == [Outcome.INDEXED, Outcome.INDEXED], report
    lib.stages = stages  # type: ignore[attr-defined]
    lib.database_threads = threads  # type: ignore[attr-defined]
    yield lib
    lib.close()


def _scene_of(ms: int, cuts: list[int]) -> int:
    return max(i for i, c in enumerate(cuts) if c <= ms)


def test_spoken_words_are_found_at_the_word(built: Library, course: Course) -> None:
    outcome = built.search("closest vertex Dijkstra", limit=5)
    hit = next(r for r in outcome.results if r.kind == SegmentKind.TRANSCRIPT)
    assert hit.source == str(course.video)
    moment = at_moment(hit)
    # The narration of slide 4 is the only place these words are spoken.
    assert _scene_of(moment.start_ms, course.cuts) == 3
    rows = built.store.segments.by_ids([hit.segment_id])
    words = rows[hit.segment_id].words
    assert words, "recognised speech keeps word times"
    # The seek lands on a recognised word, not on the window or sentence start.
    assert moment.start_ms in {w.start_ms for w in words}
    assert moment.start_ms > (moment.end_ms or 0) - 60_000


def test_words_only_on_screen_are_found_at_their_scene(built: Library, course: Course) -> None:
    found = 0
    for i, word in enumerate(SCREEN_ONLY):
        screen_only = SearchFilters(kinds=(SegmentKind.SCREEN,))
        results = built.search(word, limit=5, filters=screen_only).results
        on_video = [r for r in results if r.source == str(course.video)]
        at = moment_ms(on_video[0].place) if on_video else None
        if at is not None:
            scene = _scene_of(at + 200, course.cuts)
            found += scene == i
    assert found == len(SCREEN_ONLY)


def test_video_hits_carry_thumbnail_and_slide(built: Library, course: Course) -> None:
    hit = built.search("breadth first search queue", limit=3).results[0]
    assert hit.source in (str(course.video), str(course.deck))
    video_hit = next(
        r
        for r in built.search("breadth first search queue", limit=10).results
        if r.source == str(course.video)
    )
    moment = at_moment(video_hit)
    assert moment.thumbnail is not None
    thumb = Path(moment.thumbnail)
    assert thumb.is_file() and thumb.read_bytes()[:3] == b"\xff\xd8\xff"  # a JPEG
    assert moment.slide is not None
    assert (moment.slide.source, moment.slide.page) == (str(course.deck), 3)


def test_slide_hits_say_where_they_are_shown(built: Library, course: Course) -> None:
    results = built.search("memoization overlapping subproblems", limit=10).results
    slide = next(r for r in results if r.kind == SegmentKind.SLIDE)
    page = on_page(slide)
    assert page.page == 5
    assert page.shown_in, "a slide linked to the video says where it is shown"
    path, ms = page.shown_in[0].source, page.shown_in[0].start_ms
    assert path == str(course.video)
    assert _scene_of(ms + 200, course.cuts) == 4


def test_every_scene_links_to_its_page(built: Library, course: Course) -> None:
    video = built.store.catalog.source_by_path(str(course.video))
    assert video is not None and video.status == SourceStatus.INDEXED
    assert video.kind == SourceKind.VIDEO
    links = built.store.recordings.slide_links(video.id)
    right = 0
    for i, cut in enumerate(course.cuts):
        middle = cut + 1500
        page = next((p for a, b, _, p, _ in links if a <= middle < b), None)
        right += page == i + 1
    assert right / len(course.cuts) >= 0.95


def test_progress_reports_transcription_then_frames(built: Library) -> None:
    stages = [p.stage for p in built.stages]  # type: ignore[attr-defined]
    assert "transcribing" in stages
    assert stages.index("transcribing") < stages.index("finding scenes")
    assert stages.index("finding scenes") < stages.index("reading the screen")
    fractions = [p.file_fraction for p in built.stages if p.stage == "transcribing"]  # type: ignore[attr-defined]
    assert any(f is not None and 0 < f < 1 for f in fractions)


def _frames_worker_niceness() -> int | None:
    """The niceness of the thread reading a video's frames, None when there is none."""
    worker = next((t for t in threading.enumerate() if t.name == "coursedex-frames"), None)
    if worker is None or worker.native_id is None:
        return None
    try:
        return os.getpriority(os.PRIO_PROCESS, worker.native_id)
    except OSError:  # it has just ended
        return None


def test_frames_are_read_while_speech_is_recognised(built: Library, course: Course) -> None:
    # The worker starts before recognition and is there at its first report, at a lower
    # priority than this process (Linux sets niceness per thread).
    seen = built.frames_worker  # type: ignore[attr-defined]
    assert seen and seen[0] is not None, seen
    if sys.platform.startswith("linux"):
        assert seen[0] > os.getpriority(os.PRIO_PROCESS, 0)
    # Speech is committed and searchable before the frames' results are taken.
    found = built.found_when_frames_wait  # type: ignore[attr-defined]
    assert (str(course.video), SegmentKind.TRANSCRIPT) in found
    assert (str(course.video), SegmentKind.SCREEN) not in found
    # The workers never use the library's database connection (one connection, one thread).
    assert built.database_threads == {threading.current_thread().name}  # type: ignore[attr-defined]


def test_audio_files_are_transcribed(library: Library, tmp_path: Path) -> None:
    audio = tmp_path / "podcast.mp3"
    make_audio(audio, "Today we talk about recursion and the call stack.")
    report = library.ingest([audio])
    assert report.files[0].outcome == Outcome.INDEXED, report.files[0].detail
    hit = library.search("recursion").results[0]
    assert hit.source == str(audio) and hit.kind == SegmentKind.TRANSCRIPT
    source = library.store.catalog.source_by_path(str(audio))
    assert source is not None and source.kind == SourceKind.AUDIO


def test_broken_media_end_as_errors_and_the_rest_goes_on(
    library: Library, tmp_path: Path, course: Course
) -> None:
    silent = tmp_path / "silent.mp4"
    frame = pdf_page_images(course.deck, tmp_path / "frames")[0]
    make_lecture_video(silent, [Clip(frame, seconds=3)], audio=False)
    truncated = tmp_path / "truncated.mp4"
    data = course.video.read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    fake = tmp_path / "notes.mp4"
    fake.write_text("these are my notes, not a video\n" * 20)
    good = tmp_path / "intro.wav"
    make_audio(good, "Welcome to the course on algorithms.")
    report = library.ingest([silent, truncated, fake, good])
    by_name = {Path(f.path).name: f for f in report.files}
    assert by_name["intro.wav"].outcome == Outcome.INDEXED
    for name, reason in (
        ("silent.mp4", "no audio"),
        ("truncated.mp4", "truncated"),
        ("notes.mp4", "not a media file"),
    ):
        assert by_name[name].outcome == Outcome.ERROR, name
        assert reason in by_name[name].detail, by_name[name].detail
        source = library.store.catalog.source_by_path(str(tmp_path / name))
        assert source is not None and source.status == SourceStatus.ERROR


def test_cancel_keeps_the_finished_part_and_resume_finishes(
    library: Library, course: Course
) -> None:
    cancel = threading.Event()

    def stop_after_first_part(p: IngestProgress) -> None:
        if p.stage == "transcribing" and (p.file_fraction or 0) > 0.2:
            cancel.set()

    report = library.ingest([course.video], progress=stop_after_first_part, cancel=cancel)
    assert report.files[0].outcome == Outcome.CANCELLED
    source = library.store.catalog.source_by_path(str(course.video))
    assert source is not None and source.status in (SourceStatus.QUEUED, SourceStatus.INDEXING)
    kept = library.store.conn.execute(  # an English lecture: tiny.en, told English
        "SELECT count(*) FROM transcript_parts WHERE model = ? AND asked = 'en'",
        (ENGLISH_SPEECH_MODEL,),
    ).fetchone()[0]
    assert kept >= 1, "the part recognised before the cancel is kept"

    resumed: list[IngestProgress] = []
    report = library.resume(progress=resumed.append)
    assert [f.outcome for f in report.files] == [Outcome.INDEXED]
    first = next(p for p in resumed if p.stage == "transcribing")
    assert (first.file_fraction or 0) > 0.1, "resumed where it stopped, not from zero"
    assert library.search("closest vertex").results


def _parts(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT count(*) FROM transcript_parts").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_killed_import_resumes_and_loses_nothing(
    tmp_path: Path, course: Course, models_dir: Path, embedder: OnnxEmbedder
) -> None:
    """Kill the `coursedex ingest` process while it transcribes, then run it again."""
    folder = tmp_path / "course"
    folder.mkdir()
    shutil.copy(course.deck, folder / course.deck.name)
    # A longer recording so the kill lands in the middle of speech recognition.
    video = folder / "long.mp4"
    shutil.copy(course.video, folder / "part1.mp4")
    frames = pdf_page_images(course.deck, tmp_path / "frames")
    make_lecture_video(video, [Clip(frames[i % 6], SLIDES[i % 6][1]) for i in range(12)])
    lib_dir = tmp_path / "lib"
    env = {**os.environ, "COURSEDEX_LIBRARY": str(lib_dir), "COURSEDEX_MODELS": str(models_dir)}
    command = [
        sys.executable,
        "-m",
        "engine.cli",
        "--threads",
        "2",
        "ingest",
        *ENGLISH_INGEST,
        str(folder),
    ]
    # Index the deck and the short video first: they must survive the kill.
    first = subprocess.run(
        [*command[:-1], str(folder / course.deck.name), str(folder / "part1.mp4")],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert first.returncode == 0, first.stderr
    proc = subprocess.Popen(
        command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 240
    while _parts(lib_dir / "library.db") < 2 and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    kept = _parts(lib_dir / "library.db")
    assert kept >= 2

    second = subprocess.run(
        [*command[:3], "-v", *command[3:]],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert second.returncode == 0, second.stderr
    assert "resuming transcription at" in second.stderr
    with Library.open(
        lib_dir, english(), lambda: embedder, models=ModelRegistry(models_dir)
    ) as lib:
        statuses = {Path(s.path).name: s.status for s in lib.sources()}
        assert statuses == {
            course.deck.name: SourceStatus.INDEXED,
            "part1.mp4": SourceStatus.INDEXED,
            "long.mp4": SourceStatus.INDEXED,
        }
        hits = {r.source for r in lib.search("priority queue heap", limit=20).results}
        assert str(video) in hits and str(folder / "part1.mp4") in hits


def _talk_about_each_slide() -> list[tuple[int, int, str]]:
    """Subtitles: forty seconds of talk per slide, in slide order."""
    return [
        (i * 40_000 + j * 10_000, i * 40_000 + j * 10_000 + 9_000, narration)
        for i, (_, narration) in enumerate(SLIDES)
        for j in range(4)
    ]


def test_subtitles_alone_are_lined_up_with_the_course_slides(
    library: Library, tmp_path: Path
) -> None:
    """No frames: the transcript's words are matched to the pages, in order."""
    folder = tmp_path / "Algorithms"
    folder.mkdir()
    deck = make_pdf(folder / "deck.pdf", [text for text, _ in SLIDES], slides=True)
    make_srt(folder / "lecture.srt", _talk_about_each_slide())
    report = library.ingest([folder])
    assert all(f.outcome == Outcome.INDEXED for f in report.files)
    slide = next(
        r
        for r in library.search("memoization overlapping subproblems", limit=10).results
        if r.kind == SegmentKind.SLIDE
    )
    page = on_page(slide)
    assert slide.source == str(deck) and page.page == 5
    assert page.shown_in and page.shown_in[0].source == str(folder / "lecture.srt")
    assert 150_000 <= page.shown_in[0].start_ms <= 170_000
    spoken = next(
        r
        for r in library.search("breadth first search queue", limit=10).results
        if r.kind == SegmentKind.TRANSCRIPT
    )
    on_screen = at_moment(spoken).slide
    assert on_screen is not None and (on_screen.source, on_screen.page) == (str(deck), 3)


def test_removing_a_deck_moves_its_lecture_to_the_deck_that_is_left(
    library: Library, tmp_path: Path
) -> None:
    folder = tmp_path / "Algorithms"
    folder.mkdir()
    texts = [text for text, _ in SLIDES]
    good = make_pdf(folder / "good.pdf", texts, slides=True)
    # A second deck with the same pages in another order: a worse fit, but a fit.
    make_pdf(folder / "shuffled.pdf", texts[::-1], slides=True)
    make_srt(folder / "lecture.srt", _talk_about_each_slide())
    library.ingest([folder])
    lecture = library.store.catalog.source_by_path(str(folder / "lecture.srt"))
    deck = library.store.catalog.source_by_path(str(good))
    assert lecture is not None and deck is not None
    assert {link[2] for link in library.store.recordings.slide_links(lecture.id)} == {deck.id}
    library.remove(str(good))
    other = library.store.catalog.source_by_path(str(folder / "shuffled.pdf"))
    assert other is not None
    assert {link[2] for link in library.store.recordings.slide_links(lecture.id)} == {other.id}
