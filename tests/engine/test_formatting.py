"""The shared helpers the CLI and the window print with (times, where a hit is, progress,
sizes), the default folders, the demo course, and the source kind every result carries."""

from __future__ import annotations

import sys
from pathlib import Path

from _pytest.capture import CaptureFixture

from engine.api import (
    DEMO_COURSE,
    DEMO_DIR,
    FileResult,
    IngestProgress,
    IngestReport,
    Library,
    Outcome,
    SourceKind,
    clock,
    copies_line,
    default_library,
    default_models,
    default_models_dir,
    demo_files,
    demo_queries,
    location,
    outcome_counts,
    plural,
    progress_line,
    stage_text,
    time_left,
)
from engine.cli.output import print_report
from tests.conftest import HIPPO_MS, LOMUTO_LINE, MixedCourse
from tests.places import at_lines

REPO = Path(__file__).resolve().parents[2]


def test_clock_is_mm_ss_then_h_mm_ss() -> None:
    assert clock(0) == "00:00"
    assert clock(-5_000) == "00:00"
    assert clock(31_999) == "00:31"
    assert clock(59 * 60_000 + 59_999) == "59:59"
    assert clock(3_600_000 + 2 * 60_000 + 5_000) == "1:02:05"
    assert clock(95_000.7) == "01:35"


def test_progress_line_names_file_stage_share_detail_and_time_left() -> None:
    p = IngestProgress("/x/lecture.mp4", 1, 3, "transcribing", 0.4, 95.0, None, 0.43, "0.04x")
    assert stage_text(p) == "transcribing 43%"
    assert progress_line(p) == "2/3 lecture.mp4: transcribing 43% (0.04x), about 2 min left"
    done = IngestProgress(
        "/x/a.md", 0, 1, "done", 1.0, None, FileResult("/x/a.md", Outcome.INDEXED)
    )
    assert stage_text(done) == "done"
    assert progress_line(done) == "1/1 a.md: done"


def test_time_left_is_said_coarsely_and_never_as_zero() -> None:
    assert time_left(None) == ""
    assert time_left(1.0) == "less than a minute left"
    assert time_left(59.9) == "less than a minute left"
    assert time_left(61) == "about 2 min left"
    assert time_left(3600 + 20 * 60 + 10) == "about 1 h 25 min left"
    assert time_left(2 * 3600) == "about 2 h left"


def test_location_of_each_kind_of_hit(built_library: Library, mixed_course: MixedCourse) -> None:
    def first(query: str) -> str:
        return location(built_library.search(query).results[0])

    assert first("hippopotamus") == clock(HIPPO_MS) == "00:31"
    assert first("mitochondria") == "page 2"
    assert first("Lomuto") == f"src/sorting.py:{LOMUTO_LINE}"
    notes = built_library.search("axolotl").results[0]
    assert location(notes) == f"line {at_lines(notes).line}"


def test_results_carry_the_kind_of_their_source(
    built_library: Library, mixed_course: MixedCourse
) -> None:
    expected = {
        "hippopotamus": (mixed_course.lecture, SourceKind.SUBTITLES),
        "mitochondria": (mixed_course.slides, SourceKind.SLIDES),
        "Lomuto": (mixed_course.code, SourceKind.CODE),
        "axolotl": (mixed_course.notes, SourceKind.NOTES),
    }
    for query, (path, kind) in expected.items():
        hit = built_library.search(query).results[0]
        assert (hit.source, hit.source_kind) == (str(path), kind), query
        assert built_library.source(hit.source).kind == kind  # type: ignore[union-attr]


def test_default_folders_come_from_the_environment_passed_in(tmp_path: Path) -> None:
    env = {"COURSEDEX_LIBRARY": str(tmp_path / "lib"), "COURSEDEX_MODELS": "~/m"}
    assert default_library(env) == tmp_path / "lib"
    assert default_models(env) == Path.home() / "m"
    assert default_models({}) == default_models_dir()
    assert default_library({}).parent == default_models_dir().parent
    assert default_library({}).name == "library" and default_models_dir().name == "models"


def test_demo_course_is_found_beside_the_engine_package() -> None:
    assert DEMO_DIR == REPO / "resources" / "demo"
    names = [p.name for p in demo_files()]
    assert "lecture-01-sorting.mp4" in names
    assert "README.md" not in names and "queries.txt" not in names
    assert demo_queries() and all(q == q.strip() and q for q in demo_queries())
    assert DEMO_COURSE == "Algorithms 101 (demo)"


def test_printable_masked_and_valid_text() -> None:
    from engine.plain_text import masked, printable, valid_text

    assert printable("lecture 1.mp4 é") == "lecture 1.mp4 é"
    assert printable("a\x1b[2Jb\nc\u2028d\x7f") == "a\\x1b[2Jb\\nc\\u2028d\\x7f"
    text = "a\x1b\tb\nc"
    assert masked(text) == "a\ufffd b c" and len(masked(text)) == len(text)
    assert valid_text("x\udcff\ud800y") == "x\ufffd\ufffdy"
    assert valid_text("plain") == "plain"


def test_counts_are_said_in_words_with_plurals() -> None:
    """Issue 14, item 15 ("1 files", "3 error"), in the CLI's summary as in the window."""
    assert [plural(1, "file"), plural(3, "file"), plural(2, "match", "matches")] == [
        "1 file",
        "3 files",
        "2 matches",
    ]
    report = IngestReport(
        [FileResult("a.md", Outcome.INDEXED), FileResult("b.md", Outcome.ERROR, "bad")]
        + [FileResult(f"{n}.pdf", Outcome.ERROR, "bad") for n in range(2)]
        + [FileResult("c.md", Outcome.DUPLICATE)]
    )
    assert outcome_counts(report) == ["1 indexed", "1 duplicate", "3 errors"]


def test_the_cli_summary_says_where_a_duplicate_is(capsys: CaptureFixture[str]) -> None:
    """Issue 36, item 9: a copy imported into another course is not listed there; the
    summary says which course has it, as the window's status line does."""
    copy = FileResult("/r/Review/b.md", Outcome.DUPLICATE, "same content as /c/a.md", kept_in="C")
    print_report(IngestReport([copy], 0.5), sys.stdout)
    assert capsys.readouterr().out == (
        "1 file in 0.5 s: 1 duplicate\n  b.md is already in the library, in the course “C” "
        "(same content as /c/a.md): it is listed there, once\n"
    )
    others = [FileResult(f"/r/{n}.md", Outcome.DUPLICATE, "", kept_in=n) for n in "BA"]
    assert copies_line(IngestReport([copy, *others])) == (
        "3 files already in the library, in the courses “A”, “B”, “C”: each is listed there, once"
    )


def test_the_cli_summary_of_one_file_says_file(capsys: CaptureFixture[str]) -> None:
    print_report(IngestReport([FileResult("a.md", Outcome.INDEXED)], 0.5), sys.stdout)
    assert capsys.readouterr().out == "1 file in 0.5 s: 1 indexed\n"
