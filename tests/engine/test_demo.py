"""The demo course: reproducible from resources/make_demo.py, and it says what it claims."""

from __future__ import annotations

import bisect
import itertools
import random
import zipfile
from pathlib import Path
from types import ModuleType

import pypdfium2 as pdfium
import pytest

from engine.config import IngestLimits, MediaConfig
from engine.media.probe import probe
from engine.media.scenes import detect_cuts
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "resources" / "make_demo.py"
COMMITTED = ROOT / "resources" / "demo"


def _load(path: Path, name: str) -> ModuleType:
    return load_script(path, name)


@pytest.fixture(scope="module")
def make_demo() -> ModuleType:
    return _load(SCRIPT, "coursedex_make_demo")


@pytest.fixture(scope="module")
def built_timed(
    make_demo: ModuleType, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, list[int]]:
    """The whole demo, video and photo included (about 20 s: espeak-ng and ffmpeg), and when each
    sentence of the lecture starts in its video."""
    out = tmp_path_factory.mktemp("demo")
    make_demo.build_demo(out, video=False)
    starts = make_demo.lecture_video(out / make_demo.VIDEO_FILE, out / make_demo.SLIDES_FILE)
    make_demo.whiteboard_photo(out / make_demo.WHITEBOARD_FILE)
    return out, starts


@pytest.fixture(scope="module")
def built(built_timed: tuple[Path, list[int]]) -> Path:
    return built_timed[0]


def _pdf_pages(path: Path) -> list[str]:
    document = pdfium.PdfDocument(path)
    try:
        return [document[i].get_textpage().get_text_range() for i in range(len(document))]
    finally:
        document.close()


def _file_text(path: Path, make_demo: ModuleType) -> str:
    """What a reader of the file sees (or a listener hears), whatever its format."""
    if path.suffix == ".mp4":
        return " ".join(s for _, section in make_demo.LECTURE for s in section)
    if path.suffix == ".jpg":  # what the photo shows (it is read with OCR: test_demo_lecture)
        return "\n".join(make_demo.WHITEBOARD)
    if path.suffix == ".docx":
        from engine.ingest.documents import document_text

        return document_text(path, IngestLimits())
    if path.suffix == ".pdf":
        return "\n".join(_pdf_pages(path))
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            return "\n".join(archive.read(n).decode("utf-8") for n in archive.namelist())
    return path.read_text(encoding="utf-8")


def test_text_files_are_byte_for_byte_deterministic(make_demo: ModuleType, tmp_path: Path) -> None:
    first = make_demo.build_demo(tmp_path / "a", video=False)
    second = make_demo.build_demo(tmp_path / "b", video=False)
    assert [p.name for p in first] == [p.name for p in second] == list(make_demo.TEXT_FILES)
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_committed_files_are_exactly_what_the_script_writes(
    make_demo: ModuleType, built: Path
) -> None:
    assert sorted(p.name for p in COMMITTED.iterdir()) == sorted(p.name for p in built.iterdir())
    for name in make_demo.TEXT_FILES:
        path = built / name
        committed = COMMITTED / name
        assert committed.is_file(), f"{committed} is missing: run resources/make_demo.py"
        assert committed.read_bytes() == path.read_bytes(), (
            f"{committed} differs from resources/make_demo.py's output: edit the script and "
            "regenerate instead of editing the file"
        )


def test_slides_are_landscape_pages_with_a_text_layer(make_demo: ModuleType, built: Path) -> None:
    document = pdfium.PdfDocument(built / "slides.pdf")
    try:
        assert len(document) == len(make_demo.SLIDES) == 8
        for i in range(len(document)):
            width, height = document[i].get_size()
            assert width > height
    finally:
        document.close()
    for text, slide in zip(_pdf_pages(built / "slides.pdf"), make_demo.SLIDES, strict=True):
        lines = text.splitlines()
        assert lines[0] == slide.title
        assert 3 <= len(slide.bullets) <= 6
        for bullet in slide.bullets:
            assert bullet in lines


def test_lecture_video_is_a_few_minutes_of_narrated_slides(
    make_demo: ModuleType, built: Path
) -> None:
    """The video's bytes depend on the ffmpeg and espeak-ng builds; what it holds does not."""
    for video in (built / make_demo.VIDEO_FILE, COMMITTED / make_demo.VIDEO_FILE):
        info = probe(video)
        assert info.has_audio and info.has_video
        assert (info.width, info.height) == (1280, 720)
        assert 4 * 60_000 <= info.duration_ms <= 8 * 60_000
        assert video.stat().st_size <= 5 * 1024**2
    fresh = probe(built / make_demo.VIDEO_FILE).duration_ms
    assert abs(probe(COMMITTED / make_demo.VIDEO_FILE).duration_ms - fresh) <= 2000
    # One scene per slide: the cuts are where the narration moves on.
    spans, _ = detect_cuts(
        COMMITTED / make_demo.VIDEO_FILE, threshold=MediaConfig().scene_threshold, min_scene_ms=2000
    )
    assert len(spans) == len(make_demo.SLIDES)


def test_code_archive_holds_correct_commented_python(built: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(built / "code.zip") as archive:
        names = sorted(archive.namelist())
        assert names == [
            "README.md",
            "searching/binary_search.py",
            "sorting/merge_sort.py",
            "sorting/quicksort.py",
        ]
        archive.extractall(tmp_path)
    for name in names:
        if name.endswith(".py"):
            source = (tmp_path / name).read_text(encoding="utf-8")
            assert 20 <= len(source.splitlines()) <= 70, name
            assert "#" in source, f"{name} has no comments"

    merge_sort = _load(tmp_path / "sorting" / "merge_sort.py", "demo_merge_sort")
    quicksort = _load(tmp_path / "sorting" / "quicksort.py", "demo_quicksort")
    search = _load(tmp_path / "searching" / "binary_search.py", "demo_binary_search")
    rng = random.Random(101)
    cases = [[], [1], [2, 1], list(range(50)), list(range(50, 0, -1)), [7] * 20]
    cases += [[rng.randrange(30) for _ in range(rng.randrange(60))] for _ in range(200)]
    for case in cases:
        expected = sorted(case)
        assert merge_sort.merge_sort(case) == expected
        in_place = list(case)
        quicksort.quicksort(in_place)
        assert in_place == expected
        for target in range(-1, 32):
            found = search.binary_search(expected, target)
            assert (found >= 0 and expected[found] == target) == (target in expected)
            assert search.lower_bound(expected, target) == bisect.bisect_left(expected, target)
        sorted_list = search.SortedList(case[:5])
        for item in case[5:]:
            sorted_list.add(item)
        assert list(sorted_list) == expected
        assert sorted_list.between(10, 20) == [x for x in expected if 10 <= x < 20]
    # Equal keys keep their input order: the property the lecture explains.
    pairs = [(rng.randrange(5), i) for i in range(100)]
    assert merge_sort.merge_sort(pairs, key=lambda p: p[0]) == sorted(pairs, key=lambda p: p[0])


def test_each_example_query_has_its_evidence_in_one_file_only(
    make_demo: ModuleType, built: Path
) -> None:
    texts = {name: _file_text(built / name, make_demo).lower() for name in make_demo.COURSE_FILES}
    queries = (built / "queries.txt").read_text(encoding="utf-8").splitlines()
    assert queries == [q.text for q in make_demo.QUERIES]
    assert len(queries) == 7  # one a kind of material (two for the lecture)
    assert {q.best_file for q in make_demo.QUERIES} == set(make_demo.COURSE_FILES)
    for query in make_demo.QUERIES:
        holders = [name for name, text in texts.items() if query.evidence.lower() in text]
        assert holders == [query.best_file], query.text


def test_notes_have_week_headings(built: Path) -> None:
    lines = (built / "notes.md").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# ")
    weeks = [line for line in lines if line.startswith("## Week ")]
    assert len(weeks) >= 3


def test_the_stable_answer_starts_where_the_script_says(
    make_demo: ModuleType, built_timed: tuple[Path, list[int]]
) -> None:
    """tests/engine/test_demo_lecture.py plays "why is merge sort stable" from
    STABLE_ANSWER_MS: the sentence must start there in a video built from the script."""
    _, starts = built_timed
    sentences = [s for _, section in make_demo.LECTURE for s in section]
    assert len(starts) == len(sentences)
    at = starts[sentences.index(make_demo.STABLE_ANSWER)]
    assert abs(at - make_demo.STABLE_ANSWER_MS) <= 1000, at
    # Sentences are spoken one by one, with a pause after each: their starts only grow.
    assert all(a < b for a, b in itertools.pairwise(starts))
