"""Issue 15, item 1 (queries): any text is a query. FTS5 syntax, unicode that breaks
tokenizers, control characters, 100,000 characters, and malformed ``--batch`` lines never
raise from ``Library.search`` and never print a traceback from ``coursedex search``; a bad
batch line ends the batch with one line that names it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main
from engine.config import EngineConfig
from engine.library import Library
from engine.models import Embedder
from engine.notes import NoteError
from engine.plain_text import valid_text
from engine.search import SearchFilters
from engine.types import SegmentKind
from tools.hostile.queries import BAD_BATCH_LINES, ODD_BATCH_LINES, QUERIES

REPO = Path(__file__).resolve().parents[3]
BOOKMARKS = SearchFilters(kinds=(SegmentKind.BOOKMARK,))


def test_there_are_at_least_forty_hostile_queries() -> None:
    assert len(set(QUERIES)) >= 40
    assert len(BAD_BATCH_LINES) + len(ODD_BATCH_LINES) >= 20


def test_library_search_takes_any_text(built_library: Library) -> None:
    """A lone surrogate inside a query ('merge \\udcff sort') raised TypeError from the
    tokenizer before; now it is U+FFFD, as the command line already made it."""
    for query in QUERIES:
        for typing in (False, True):
            outcome = built_library.search(query, limit=5, typing=typing)
            assert len(outcome.results) <= 5, query
    found = built_library.search("hippopotamus \udcff lecture", limit=3)
    assert found.results and "hippopotamus" in found.results[0].snippet.lower()


def test_fts_syntax_is_text(built_library: Library) -> None:
    """Operators and quotes typed by a user find the words, not an FTS5 error or nothing."""
    plain = [r.source for r in built_library.search("hippopotamus", limit=3).results]
    for wrapped in ('"hippopotamus', "hippopotamus NOT", "NEAR(hippopotamus", "hippopotamus*"):
        assert [r.source for r in built_library.search(wrapped, limit=3).results][:1] == plain[:1]


@pytest.mark.parametrize("line", BAD_BATCH_LINES, ids=range(len(BAD_BATCH_LINES)))
def test_a_malformed_batch_line_is_one_clear_error(
    built_library_dir: Path,
    models_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    line: str,
) -> None:
    """Before: 200,000 nested brackets escaped as RecursionError (a traceback), a null or
    an object query was searched as 'None' or its Python repr, and a NaN id was echoed as
    NaN, which is not JSON."""
    batch = tmp_path / "queries.jsonl"
    batch.write_text(json.dumps({"id": 1, "query": "hippopotamus"}) + "\n" + line + "\n")
    argv = ["--library", str(built_library_dir), "--models", str(models_dir)]
    code = main([*argv, "search", "--batch", str(batch), "--json"])
    out, err = capsys.readouterr()
    assert code == 2
    assert err.startswith(f'coursedex: {batch}:2: not a {{"id", "query"}} line (')
    assert err.count("\n") == 1 and "Traceback" not in err
    assert len(err) < 300
    assert [json.loads(x)["id"] for x in out.splitlines()] == [1]


def test_odd_but_valid_batch_lines_each_get_an_answer(
    built_library_dir: Path,
    models_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    batch = tmp_path / "queries.jsonl"
    batch.write_text("\n\n".join(ODD_BATCH_LINES) + "\n \n\t\n", encoding="utf-8")
    argv = ["--library", str(built_library_dir), "--models", str(models_dir)]
    code = main([*argv, "search", "--batch", str(batch), "--json"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    ids = [json.loads(x)["id"] for x in out.splitlines()]
    assert ids == [json.loads(line)["id"] for line in ODD_BATCH_LINES]


def test_the_command_never_prints_a_traceback(built_library_dir: Path, models_dir: Path) -> None:
    """One child process reads every hostile query, the odd lines and a bad line last, as
    one batch on stdin: an answer per query, then one line for the bad one."""
    base = [sys.executable, "-m", "engine.cli", "--library", str(built_library_dir)]
    base += ["--models", str(models_dir), "--threads", "2"]
    lines = [json.dumps({"id": i, "query": q}) for i, q in enumerate(QUERIES)]
    batch = subprocess.run(
        [*base, "search", "--batch", "-", "--json", "--limit", "3"],
        input="\n".join([*lines, *ODD_BATCH_LINES, BAD_BATCH_LINES[-1]]) + "\n",
        cwd=REPO,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
        timeout=300,
    )
    answers = [json.loads(x) for x in batch.stdout.splitlines()]
    assert len(answers) == len(QUERIES) + len(ODD_BATCH_LINES)
    assert batch.returncode == 2
    assert batch.stderr.count("\n") == 1 and "Traceback" not in batch.stderr, batch.stderr


PRINTED = ('"', "NEAR(", "\x00", "\x1b[31m\x7f", "\u202emerge sort\u202c", "\ud800", "x" * 10_000)


def test_printed_results_of_hostile_queries(
    built_library_dir: Path, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The plain-text output (not JSON) of queries with quotes, NUL, escape sequences, a
    right-to-left override and a lone surrogate: exit 0, nothing on stderr, and the query
    echoed without raw control characters."""
    argv = ["--library", str(built_library_dir), "--models", str(models_dir), "--threads", "2"]
    for query in PRINTED:
        code = main([*argv, "search", "--limit", "2", "--", query])
        out, err = capsys.readouterr()
        assert (code, err) == (0, ""), query
        assert "\x00" not in out and "\x1b" not in out and "\u202e" not in out, query


def test_course_names_that_are_not_valid_utf8(
    built_library_dir: Path, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A course name in Latin-1 bytes on the command line (lone surrogates in argv) raised
    UnicodeEncodeError from SQLite in search --course, list --course, rename and ingest
    --course; now it is U+FFFD, as in a query, and the course is not found."""
    bad = b"caf\xe9".decode("utf-8", "surrogateescape")
    argv = ["--library", str(built_library_dir), "--models", str(models_dir)]
    for command in (["search", "--course", bad, "hippopotamus"], ["list", "--course", bad]):
        assert main([*argv, *command]) == 1
        assert capsys.readouterr().err == "coursedex: no course named 'caf\ufffd'\n"
    assert main([*argv, "rename", bad, "Biology"]) == 1
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize(
    "link",
    [
        "http://x\n\x1b[31mred",  # urlsplit: 'Invalid IPv6 URL'
        "coursedex://[open",
        "coursedex://open?source=/x\n\x1b[2Jfake&t=1",
        "coursedex://open?source=" + "a" * 10_000,
    ],
)
def test_a_hostile_link_is_one_clear_line(
    built_library_dir: Path, models_dir: Path, capsys: pytest.CaptureFixture[str], link: str
) -> None:
    """``coursedex open`` of a link with an unclosed '[' printed a ValueError traceback
    (urlsplit), and a message quoting a link or name wrote its newline and escape sequences
    to the terminal as they were."""
    argv = ["--library", str(built_library_dir), "--models", str(models_dir)]
    assert main([*argv, "open", link]) == 1
    err = capsys.readouterr().err
    assert err.startswith("coursedex: ") and err.count("\n") == 1 and "\x1b" not in err


def test_any_text_is_a_note_or_one_clear_refusal(
    built_library_dir: Path,
    models_dir: Path,
    embedder: Embedder,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every hostile query as the text of a note (issue 27, item 1): kept, or refused with one
    line (blank, or longer than a note may be); then each kept note is found by search as a
    bookmark, and `coursedex notes list` prints them all without a raw control character."""
    with Library.open(built_library_dir, EngineConfig(), lambda: embedder) as library:
        lecture = next(s.path for s in library.sources() if s.path.endswith("lecture.srt"))
        kept = 0
        for text in QUERIES:
            stripped = valid_text(text).strip()
            try:
                note = library.add_note(lecture, text, at_ms=1000)
            except NoteError as e:
                assert "\n" not in str(e) and (not stripped or len(stripped) > 10_000), text
                continue
            kept += 1
            assert note.text == stripped
            found = library.search(text, limit=50, filters=BOOKMARKS)
            assert all(r.kind == SegmentKind.BOOKMARK for r in found.results), text
        assert kept >= len(QUERIES) // 2 and len(library.notes()) == kept
    argv = ["--library", str(built_library_dir), "--models", str(models_dir), "--threads", "2"]
    for listing in (["notes", "list"], ["notes", "list", "--json"]):
        code = main([*argv, *listing])
        out, err = capsys.readouterr()
        assert (code, err) == (0, "")
        assert "\x00" not in out and "\x1b" not in out and "\u202e" not in out
    assert len(json.loads(out)) == kept
