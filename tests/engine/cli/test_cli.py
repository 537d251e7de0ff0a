"""The real `coursedex` command, in-process through ``engine.cli.main`` and (twice) as a
subprocess, against libraries and models in temporary folders."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.cli import build_parser, main
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry
from engine.types import SegmentKind
from tests.conftest import HIPPO_MS, LECTURE_CUES, LOMUTO_LINE, SORTING_PY, MixedCourse

REPO = Path(__file__).resolve().parents[3]
RESULT_KEYS = frozenset(
    {
        "source",
        "kind",
        "course",
        "title",
        "start",
        "end",
        "page",
        "path_in_archive",
        "line_start",
        "line_end",
        "snippet",
        "score",
    }
)
CLI_QUERIES = (
    '"',
    "NOT",
    "a AND (",
    "*",
    "lecture " * 250,  # 2,000 characters
    "\N{GRINNING FACE}",
    "?!.,;:()[]{}",
    "",
    "'; DROP TABLE segments; --",
)


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str

    def json(self) -> object:
        return json.loads(self.out)


class Cli:
    """``coursedex --library L --models M ...`` run in-process, output captured."""

    def __init__(self, library: Path, models: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.library, self.models, self.capsys = library, models, capsys

    def __call__(self, *args: str) -> Run:
        self.capsys.readouterr()
        argv = ["--library", str(self.library), "--models", str(self.models), "--threads", "2"]
        code = main([*argv, *args])
        captured = self.capsys.readouterr()
        return Run(code, captured.out, captured.err)


@pytest.fixture
def cli(built_library_dir: Path, models_dir: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    """The command on a copy of the built library (Biology 101 + Chemistry)."""
    return Cli(built_library_dir, models_dir, capsys)


@pytest.fixture
def empty_cli(tmp_path: Path, models_dir: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "lib", models_dir, capsys)


def _search(cli: Cli, *args: str) -> list[dict[str, object]]:
    run = cli("search", *args, "--json")
    assert (run.code, run.err) == (0, ""), run
    payload = run.json()
    assert isinstance(payload, dict)
    results = payload["results"]
    assert isinstance(results, list)
    return results


# --- 1. ingest summary ----------------------------------------------------------------------

REASON_WORDS = {
    "corrupt.pdf": "pdf",
    "escape.zip": "escapes its folder",
    "bomb.zip": "zip bomb",
    "empty.txt": "empty",
    "binary.srt": "binary",
}


def _check_summary(out: str, course: MixedCourse) -> None:
    lines = out.splitlines()
    assert re.fullmatch(r"10 files in \d+\.\d s: 5 indexed, 5 errors", lines[0]), lines[0]
    errors, notes = {}, {}
    for line in lines[1:]:
        match = re.fullmatch(r"  (error|note): (.+?): (.+)", line)
        assert match, line
        (errors if match[1] == "error" else notes)[Path(match[2]).name] = match[3]
    assert set(errors) == set(REASON_WORDS)
    # The French subtitles switch the new library to the embedder that reads any language.
    assert list(notes) == ["french.srt"], notes
    switched = (
        r"meaning search now reads any language \(multilingual-e5-small-int8; \d passages? .+"
    )
    assert re.fullmatch(switched, notes["french.srt"]), notes
    for name, reason in errors.items():
        assert REASON_WORDS[name] in reason.lower(), (name, reason)
        assert str(course.folder / name) in out


def test_ingest_prints_a_summary_with_each_error(empty_cli: Cli, mixed_course: MixedCourse) -> None:
    run = empty_cli("ingest", str(mixed_course.folder))
    assert run.code == 0
    _check_summary(run.out, mixed_course)
    assert "Traceback" not in run.out + run.err
    progress = run.err.splitlines()
    assert len(progress) == 10
    assert "[1/10] error: binary.srt" in progress  # files go in name order

    again = empty_cli("ingest", str(mixed_course.folder), "--json")
    assert again.code == 0
    payload = again.json()
    assert isinstance(payload, dict)
    outcomes = {Path(f["path"]).name: f["outcome"] for f in payload["files"]}
    assert outcomes == {
        **{p.name: "unchanged" for p in mixed_course.good},
        **dict.fromkeys(REASON_WORDS, "error"),
    }


def test_ingest_strict_exits_1_on_errors(empty_cli: Cli, mixed_course: MixedCourse) -> None:
    run = empty_cli("ingest", "--strict", str(mixed_course.folder))
    assert run.code == 1
    _check_summary(run.out, mixed_course)
    good = empty_cli("ingest", "--strict", str(mixed_course.notes))
    assert (good.code, good.out.splitlines()[0].endswith("1 unchanged")) == (0, True)


def test_ingest_of_a_missing_path_fails(empty_cli: Cli, tmp_path: Path) -> None:
    """Only the error is said: a summary "0 files: nothing to do" beside it told a user
    who mistyped a name that all was well."""
    run = empty_cli("ingest", str(tmp_path / "nowhere"))
    assert run.code == 1
    assert f"coursedex: no such file or folder: {tmp_path / 'nowhere'}" in run.err.splitlines()
    assert run.out == ""


def test_subprocess_ingest_and_search(
    tmp_path: Path, models_dir: Path, mixed_course: MixedCourse
) -> None:
    base = [sys.executable, "-m", "engine.cli", "--library", str(tmp_path / "lib")]
    base += ["--models", str(models_dir), "--threads", "2"]
    ingest = subprocess.run(
        [*base, "ingest", str(mixed_course.folder)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ingest.returncode == 0, ingest.stderr
    _check_summary(ingest.stdout, mixed_course)

    search = subprocess.run(
        [*base, "search", "hippopotamus", "--json", "--limit", "3"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (search.returncode, search.stderr) == (0, "")
    payload = json.loads(search.stdout)
    assert payload["query"] == "hippopotamus"
    top = payload["results"][0]
    assert (top["source"], top["kind"], top["start"]) == (
        str(mixed_course.lecture),
        "transcript",
        HIPPO_MS / 1000,
    )
    assert len(payload["results"]) == 3


# --- 2. any text is a query -----------------------------------------------------------------


def test_any_text_is_a_valid_query(cli: Cli, mixed_course: MixedCourse) -> None:
    for query in CLI_QUERIES:
        for mode in ("hybrid", "fulltext", "dense"):
            run = cli("search", "--json", "--mode", mode, "--", query)
            assert (run.code, run.err) == (0, ""), (query, mode, run.err)
            payload = run.json()
            assert isinstance(payload, dict)
            assert payload["query"] == query
            assert isinstance(payload["results"], list)
    assert _search(cli, "") == []
    top = _search(cli, "hippopotamus")[0]
    assert top["source"] == str(mixed_course.lecture)
    stats = cli("stats", "--json").json()
    assert isinstance(stats, dict)
    assert stats["segments"] == stats["vectors"] > 0


# --- 6, 7, 8. seek, filters, the JSON contract ----------------------------------------------


def test_transcript_hit_seeks_to_the_word_in_seconds(cli: Cli, mixed_course: MixedCourse) -> None:
    top = _search(cli, "hippopotamus")[0]
    assert (top["source"], top["kind"], top["start"]) == (
        str(mixed_course.lecture),
        "transcript",
        31.5,
    )
    assert isinstance(top["end"], float) and top["end"] > 31.5
    code = _search(cli, "Lomuto")[0]
    assert (code["path_in_archive"], code["line"]) == ("src/sorting.py", LOMUTO_LINE)


def test_filters(cli: Cli, mixed_course: MixedCourse, chemistry_notes: Path) -> None:
    slides = _search(cli, "energy", "--kind", "slide", "--limit", "50")
    assert sorted((r["kind"], r["page"]) for r in slides) == [("slide", 1), ("slide", 2)]
    two = _search(cli, "energy", "--kind", "slide", "--kind", "note", "--limit", "50")
    assert {r["kind"] for r in two} == {"slide", "note"}
    # The window's words and plurals, as a user types them.
    assert _search(cli, "energy", "--kind", "Slides", "--kind", "notes", "--limit", "50") == two
    spoken = _search(cli, "hippopotamus", "--kind", "speech", "--limit", "50")
    assert spoken and {r["kind"] for r in spoken} == {"transcript"}
    with pytest.raises(SystemExit) as refused:  # argparse's usage error
        cli("search", "energy", "--kind", "videos")
    assert refused.value.code == 2
    assert "invalid choice: 'videos'" in cli.capsys.readouterr().err

    chem = _search(cli, "titrant drops", "--course", "Chemistry", "--limit", "50")
    assert [(r["source"], r["course"]) for r in chem] == [(str(chemistry_notes), "Chemistry")]
    # Nothing in Chemistry is close to a hippopotamus: no Biology hit leaks through.
    assert _search(cli, "hippopotamus", "--course", "Chemistry", "--limit", "50") == []
    bio = _search(cli, "energy", "--course", "Biology 101", "--limit", "50")
    listed = cli("list", "--course", "Biology 101", "--json").json()
    assert isinstance(listed, list)
    assert len(bio) == sum(s["segments"] for s in listed) == 10
    assert {r["course"] for r in bio} == {"Biology 101"}

    unknown = cli("search", "stars", "--course", "Astronomy", "--json")
    assert unknown.code == 1
    assert unknown.out == ""
    assert unknown.err.count("\n") == 1
    assert unknown.err.startswith("coursedex: ") and "Astronomy" in unknown.err


def test_json_contract(cli: Cli, mixed_course: MixedCourse, chemistry_notes: Path) -> None:
    # A note of the user's own (kind bookmark), so that every kind but on-screen text is here.
    note = cli("notes", "add", str(mixed_course.lecture), "--at", "0:31", "energy for the exam")
    assert note.code == 0, note.err
    results = _search(cli, "energy", "--limit", "50")
    assert {r["kind"] for r in results} == {k.value for k in SegmentKind} - {"screen"}
    for r in results:
        assert set(r) >= RESULT_KEYS, sorted(RESULT_KEYS - set(r))
        source = Path(str(r["source"]))
        assert source.is_absolute() and source.is_file(), source
        assert isinstance(r["score"], float) and isinstance(r["snippet"], str)
        assert r["course"] in ("Biology 101", "Chemistry")
        kind = r["kind"]
        if kind == "slide":
            assert r["source"] == str(mixed_course.slides)
            assert r["page"] in (1, 2)
            assert (r["start"], r["path_in_archive"]) == (None, None)
        elif kind == "code":
            assert (r["source"], r["path_in_archive"]) == (str(mixed_course.code), "src/sorting.py")
            assert isinstance(r["line_start"], int) and isinstance(r["line_end"], int)
            assert 1 <= r["line_start"] <= r["line_end"] <= len(SORTING_PY.splitlines())
            assert (r["start"], r["page"]) == (None, None)
        elif kind == "transcript":
            assert r["source"] in (str(mixed_course.lecture), str(mixed_course.latin1))
            assert isinstance(r["start"], float) and isinstance(r["end"], float)
            assert 0 <= r["start"] < r["end"] <= LECTURE_CUES[-1][1] / 1000
            assert r["page"] is None
        elif kind == "bookmark":
            assert (r["source"], r["start"], r["end"]) == (str(mixed_course.lecture), 31.0, 31.0)
            assert (r["page"], r["line_start"]) == (None, None)
    slide_titles = {r["page"]: r["title"] for r in results if r["kind"] == "slide"}
    assert slide_titles == {1: "Photosynthesis", 2: "Photosynthesis"}


def test_batch_search(cli: Cli, tmp_path: Path, mixed_course: MixedCourse) -> None:
    queries = [
        {"id": "q1", "query": "hippopotamus"},
        {"id": 2, "query": "chlorophyll"},
        {"id": "q3", "query": "Lomuto"},
        {"id": "empty", "query": ""},
        {"id": "odd", "query": "a AND ("},
    ]
    batch = tmp_path / "queries.jsonl"
    batch.write_text("\n".join(json.dumps(q) for q in queries) + "\n\n", encoding="utf-8")
    run = cli("search", "--batch", str(batch), "--json", "--limit", "2")
    assert (run.code, run.err) == (0, "")
    lines = [json.loads(line) for line in run.out.splitlines()]
    assert [line["id"] for line in lines] == ["q1", 2, "q3", "empty", "odd"]
    for line in lines:
        assert set(line) == {"id", "results", "gated", "took_ms"}
        assert line["gated"] is False
        assert isinstance(line["took_ms"], float)
    tops = [line["results"][0]["source"] for line in lines[:3]]
    assert tops == [str(mixed_course.lecture), str(mixed_course.slides), str(mixed_course.code)]
    assert [len(line["results"]) for line in lines] == [2, 2, 2, 0, 2]


@pytest.mark.parametrize(
    "bad_line", ["not json at all", '{"id": 1}', '["id", "query"]', '{"query": "x"}']
)
def test_batch_with_a_malformed_line_exits_2(cli: Cli, tmp_path: Path, bad_line: str) -> None:
    batch = tmp_path / "queries.jsonl"
    batch.write_text(json.dumps({"id": 1, "query": "axolotl"}) + "\n" + bad_line + "\n")
    run = cli("search", "--batch", str(batch), "--json")
    assert run.code == 2
    assert run.err.count("\n") == 1
    assert run.err.startswith(f"coursedex: {batch}:2: ")
    assert '"id", "query"' in run.err
    assert "Traceback" not in run.err


def test_queries_that_are_not_valid_unicode(cli: Cli, tmp_path: Path) -> None:
    """Invalid UTF-8 on the command line (lone surrogates in argv), a JSON ``\\ud800`` and raw
    invalid UTF-8 in a batch file each raised a traceback; they are queries with U+FFFD."""
    argv_query = b"\xff\xfe hippopotamus".decode("utf-8", "surrogateescape")
    run = cli("search", "--json", "--", argv_query)
    assert (run.code, run.err) == (0, ""), run.err
    payload = run.json()
    assert isinstance(payload, dict) and payload["query"] == "\ufffd\ufffd hippopotamus"
    run = cli("search", "--", argv_query)
    assert (run.code, run.err) == (0, "") and "hippopotamus" in run.out
    batch = tmp_path / "odd.jsonl"
    batch.write_bytes(
        b'{"id": 1, "query": "\\ud800 hippopotamus"}\n'
        b'{"id": 2, "query": "hippo\xffpotamus chlorophyll"}\n'
    )
    run = cli("search", "--batch", str(batch), "--json")
    assert (run.code, run.err) == (0, ""), run.err
    assert [json.loads(line)["id"] for line in run.out.splitlines()] == [1, 2]


@pytest.mark.parametrize("limit", ["0", "-5", "many"])
def test_a_limit_below_one_is_refused(cli: Cli, limit: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli("search", "--limit", limit, "hippopotamus")
    assert exit_.value.code == 2
    err = cli.capsys.readouterr().err
    assert "argument --limit" in err and "Traceback" not in err


def test_file_names_cannot_drive_the_terminal(empty_cli: Cli, tmp_path: Path) -> None:
    """A crafted name (escape sequences, a newline faking an output line) is printed with its
    control characters escaped, in the progress lines, the summary and the list."""
    folder = tmp_path / "course"
    folder.mkdir()
    name = "a\x1b[2Jb\nFAKE: indexed.md"
    (folder / name).write_text("# Okapi\n\nThe okapi is a giraffid.\n", encoding="utf-8")
    (folder / "bad\x07.pdf").write_bytes(b"not a pdf")
    run = empty_cli("ingest", str(folder))
    for text in (run.out, run.err):
        assert "\x1b" not in text and "\x07" not in text
        assert not any(line.startswith("FAKE") for line in text.splitlines())
    assert "a\\x1b[2Jb\\nFAKE: indexed.md" in run.err  # the progress line, escaped
    assert "bad\\x07.pdf" in run.out  # the error summary
    listed = empty_cli("list").out
    assert "\x1b" not in listed and "a\\x1b[2Jb\\nFAKE: indexed.md" in listed
    found = empty_cli("search", "okapi giraffid").out
    assert "\x1b" not in found and "FAKE" not in found.splitlines()[1][:6]


def test_batch_file_that_does_not_exist(cli: Cli, tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    run = cli("search", "--batch", str(missing), "--json")
    assert run.code in (1, 2)
    assert (run.out, run.err.count("\n")) == ("", 1)
    assert run.err.startswith("coursedex: ") and str(missing) in run.err


# --- 9. management commands -----------------------------------------------------------------


def test_list_and_stats(cli: Cli, mixed_course: MixedCourse, chemistry_notes: Path) -> None:
    run = cli("list")
    assert run.code == 0
    lines = run.out.splitlines()
    assert lines[0] == "Biology 101"
    assert "Chemistry" in lines
    for path in mixed_course.good:
        assert any(path.name in line and "indexed)" in line for line in lines), path.name
    bomb = next(line for line in lines if "bomb.zip" in line)
    assert "error: zip bomb" in bomb
    assert "(0 segments, error: zip bomb" in bomb
    titration = next(line for line in lines if "titration.md" in line)
    assert "(1 segment, indexed)" in titration, titration  # not "1 segments"

    listed = cli("list", "--json").json()
    assert isinstance(listed, list)
    assert len(listed) == 11
    by_name = {Path(s["path"]).name: s for s in listed}
    assert by_name["slides.pdf"]["status"] == "indexed" and by_name["slides.pdf"]["segments"] == 2
    assert by_name["escape.zip"]["status"] == "error"
    assert "escapes its folder" in by_name["escape.zip"]["error"]
    assert by_name["titration.md"]["course"] == "Chemistry"
    assert {s["speech_model"] for s in listed} == {None}  # nothing here was transcribed
    only_chem = cli("list", "--course", "Chemistry", "--json").json()
    assert [Path(s["path"]).name for s in only_chem] == ["titration.md"]  # type: ignore[union-attr]

    stats = cli("stats", "--json").json()
    assert isinstance(stats, dict)
    segments = sum(s["segments"] for s in listed)
    assert (stats["courses"], stats["sources"], stats["segments"]) == (2, 11, segments)
    assert stats["sources_by_status"] == {"indexed": 6, "error": 5}
    assert stats["vectors"] == segments
    text = cli("stats").out.splitlines()  # in words, not Python's dicts
    assert "files: 11 (6 indexed, 5 error)" in text, text
    kinds = ", ".join(
        f"{n} {kind}"
        for kind, n in sorted(stats["segments_by_kind"].items(), key=lambda kv: (-kv[1], kv[0]))
    )  # type: ignore[union-attr]
    assert f"segments: {segments} ({kinds})" in text, text
    assert f"search model: {stats['embedder']} ({segments} vectors)" in text, text
    assert not any("{" in line for line in text), text


def test_rename_and_remove(cli: Cli, chemistry_notes: Path) -> None:
    run = cli("rename", "Chemistry", "Analytical Chemistry")
    assert run.code == 0
    hits = _search(cli, "burette", "--course", "Analytical Chemistry")
    assert [(h["source"], h["course"]) for h in hits] == [
        (str(chemistry_notes), "Analytical Chemistry")
    ]
    old = cli("rename", "Chemistry", "Other")
    assert old.code == 1 and "Chemistry" in old.err and old.err.count("\n") == 1

    before = cli("stats", "--json").json()
    removed = cli("remove", "Analytical Chemistry")
    assert (removed.code, removed.out) == (0, "removed 1 file\n")
    after = cli("stats", "--json").json()
    assert isinstance(before, dict) and isinstance(after, dict)
    assert (after["courses"], after["sources"]) == (1, 10)
    assert after["segments"] == after["vectors"] == before["segments"] - 1  # type: ignore[operator]
    assert str(chemistry_notes) not in [h["source"] for h in _search(cli, "burette")]
    missing = cli("remove", "Analytical Chemistry")
    assert missing.code == 1 and missing.err.startswith("coursedex: ")


def test_rename_to_a_taken_name_is_a_clear_error(cli: Cli) -> None:
    taken = cli("rename", "Chemistry", "Biology 101")
    assert taken.code == 1 and taken.err.startswith("coursedex: ")
    assert "Biology 101" in taken.err and taken.err.count("\n") == 1
    listed = cli("list", "--json").json()
    assert isinstance(listed, list)
    assert {s["course"] for s in listed} == {"Biology 101", "Chemistry"}


def test_reindex(cli: Cli) -> None:
    stats = cli("stats", "--json").json()
    assert isinstance(stats, dict)
    run = cli("reindex")
    assert run.code == 0
    assert f"re-indexed {stats['segments']} segments with {DEFAULT_EMBEDDER}@" in run.out
    assert _search(cli, "hippopotamus")[0]["kind"] == "transcript"


def test_models_list_and_verify(
    cli: Cli, models_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = cli("models", "list", "--json").json()
    assert isinstance(listed, list)
    default = next(m for m in listed if m["name"] == DEFAULT_EMBEDDER)
    assert (default["role"], default["installed"]) == ("embedder", True)
    assert default["path"] == str(models_dir / DEFAULT_EMBEDDER)
    text = cli("models", "list")
    line = next(x for x in text.out.splitlines() if x.startswith(DEFAULT_EMBEDDER))
    assert "installed" in line.split()

    verify = cli("models", "verify", DEFAULT_EMBEDDER)
    assert (verify.code, verify.out) == (0, f"{DEFAULT_EMBEDDER}: ok\n")

    broken_root = tmp_path / "models"
    shutil.copytree(
        ModelRegistry(models_dir).path(DEFAULT_EMBEDDER), broken_root / DEFAULT_EMBEDDER
    )
    with (broken_root / DEFAULT_EMBEDDER / "tokenizer.json").open("ab") as f:
        f.write(b" ")
    broken = Cli(cli.library, broken_root, capsys)("models", "verify", DEFAULT_EMBEDDER)
    assert broken.code == 1
    assert broken.out.startswith(f"{DEFAULT_EMBEDDER}: ") and "tokenizer.json" in broken.out


# --- 10. every command is documented --------------------------------------------------------


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_every_command_is_documented_in_the_readme() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    commands = _subcommands(build_parser())
    assert {"ingest", "search", "list", "remove", "rename", "stats", "models"} <= set(commands)
    wanted = [f"coursedex {name}" for name in commands]
    wanted += [f"coursedex models {action}" for action in _subcommands(commands["models"])]
    assert len(wanted) > len(commands)
    missing = [w for w in wanted if not re.search(re.escape(w) + r"(?![\w-])", readme)]
    assert missing == [], f"not documented in README.md: {missing}"


def test_a_question_the_library_cannot_answer_says_so(cli: Cli) -> None:
    question = "how long should I knead bread dough"
    run = cli("search", "--", question)
    assert run.code == 0
    line = run.out.strip()
    assert re.fullmatch(
        rf"Nothing in your library is close to '{question}' "
        r"\(best similarity 0\.[0-3]\d, \d+ ms\)",
        line,
    ), line
    payload = cli("search", "--json", "--", question).json()
    assert isinstance(payload, dict) and payload["gated"] is True and payload["results"] == []
    answered = cli("search", "--json", "--", "hippopotamus").json()
    assert isinstance(answered, dict) and answered["gated"] is False and answered["results"]


def test_context_shows_the_text_around_each_hit(cli: Cli) -> None:
    plain = cli("search", "--limit", "1", "--", "hippopotamus")
    assert plain.code == 0 and "before:" not in plain.out
    run = cli("search", "--limit", "1", "--context", "--", "hippopotamus")
    lines = run.out.splitlines()
    assert run.code == 0 and len(lines) >= 5, run.out
    assert re.fullmatch(r"    before: (…\S.*|\(start of file\))", lines[3]), lines[3]
    assert re.fullmatch(r"    after:  (\S.*…|\(end of file\))", lines[4]), lines[4]
    payload = cli("search", "--json", "--limit", "1", "--context", "--", "hippopotamus").json()
    assert isinstance(payload, dict)
    context = payload["results"][0]["context"]
    assert set(context) == {"before", "after"} and (context["before"] or context["after"])
