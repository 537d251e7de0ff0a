"""The demo course: reproducible from resources/make_demo.py, and it says what it claims."""

from __future__ import annotations

import bisect
import importlib.util
import itertools
import random
import re
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pypdfium2 as pdfium
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "resources" / "make_demo.py"
COMMITTED = ROOT / "resources" / "demo"

_SRT_TIME = re.compile(r"(\d\d):(\d\d):(\d\d),(\d\d\d) --> (\d\d):(\d\d):(\d\d),(\d\d\d)")


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    # dataclasses look their module up in sys.modules while the class body runs.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


@pytest.fixture(scope="module")
def make_demo() -> ModuleType:
    return _load(SCRIPT, "coursedex_make_demo")


@pytest.fixture(scope="module")
def built(make_demo: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo")
    make_demo.build_demo(out)
    return out


def _pdf_pages(path: Path) -> list[str]:
    document = pdfium.PdfDocument(path)
    try:
        return [document[i].get_textpage().get_text_range() for i in range(len(document))]
    finally:
        document.close()


def _srt_cues(path: Path) -> list[tuple[int, int, int, str]]:
    cues: list[tuple[int, int, int, str]] = []
    for block in path.read_text(encoding="utf-8").strip().split("\n\n"):
        index, times, *lines = block.split("\n")
        match = _SRT_TIME.fullmatch(times)
        assert match is not None, times
        h1, m1, s1, ms1, h2, m2, s2, ms2 = (int(g) for g in match.groups())
        start = ((h1 * 60 + m1) * 60 + s1) * 1000 + ms1
        end = ((h2 * 60 + m2) * 60 + s2) * 1000 + ms2
        cues.append((int(index), start, end, " ".join(lines)))
    return cues


def _file_text(path: Path) -> str:
    """What a reader of the file sees, whatever its format."""
    if path.suffix == ".pdf":
        return "\n".join(_pdf_pages(path))
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            return "\n".join(archive.read(n).decode("utf-8") for n in archive.namelist())
    return path.read_text(encoding="utf-8")


def test_build_is_byte_for_byte_deterministic(make_demo: ModuleType, tmp_path: Path) -> None:
    first = make_demo.build_demo(tmp_path / "a")
    second = make_demo.build_demo(tmp_path / "b")
    assert [p.name for p in first] == [p.name for p in second]
    assert len(first) == 6
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_committed_files_are_exactly_what_the_script_writes(built: Path) -> None:
    for path in sorted(built.iterdir()):
        committed = COMMITTED / path.name
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


def test_subtitles_are_a_continuous_lecture_of_six_to_eight_minutes(built: Path) -> None:
    cues = _srt_cues(built / "lecture-01-sorting.srt")
    assert 60 <= len(cues) <= 90
    assert [c[0] for c in cues] == list(range(1, len(cues) + 1))
    assert cues[0][1] == 0
    for (_, _, end, _), (_, next_start, _, _) in itertools.pairwise(cues):
        assert next_start == end
    for _, start, end, text in cues:
        assert 3000 <= end - start <= 6000
        assert text
    assert 6 * 60_000 <= cues[-1][2] <= 8 * 60_000


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
    texts = {name: _file_text(built / name).lower() for name in make_demo.COURSE_FILES}
    queries = (built / "queries.txt").read_text(encoding="utf-8").splitlines()
    assert queries == [q.text for q in make_demo.QUERIES]
    assert len(queries) == 5
    assert {q.best_file for q in make_demo.QUERIES} == set(make_demo.COURSE_FILES)
    for query in make_demo.QUERIES:
        holders = [name for name, text in texts.items() if query.evidence.lower() in text]
        assert holders == [query.best_file], query.text


def test_notes_have_week_headings(built: Path) -> None:
    lines = (built / "notes.md").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# ")
    weeks = [line for line in lines if line.startswith("## Week ")]
    assert len(weeks) >= 3
