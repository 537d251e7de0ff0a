"""``coursedex ingest``'s exit status: what a script that runs it can rely on (issue 25,
item 8). The command runs in-process through ``engine.cli.main`` on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import build_parser, main


def _ingest(
    library: Path, models: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--library", str(library), "--models", str(models), "ingest", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _bad_files(folder: Path) -> list[str]:
    folder.mkdir(exist_ok=True)
    (folder / "empty.txt").write_text("")
    (folder / "corrupt.pdf").write_bytes(b"%PDF-1.4 this is not a pdf")
    return [str(folder / "empty.txt"), str(folder / "corrupt.pdf")]


def test_ingest_exits_1_when_every_file_failed(
    tmp_path: Path, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It exited 0: a script saw success when nothing at all was imported."""
    bad = _bad_files(tmp_path / "in")
    code, out, err = _ingest(tmp_path / "lib", models_dir, capsys, *bad)
    assert code == 1, (out, err)
    assert out.splitlines()[0].endswith("2 errors"), out
    assert "coursedex: nothing was imported" in err
    code, out, _ = _ingest(tmp_path / "lib", models_dir, capsys, *bad, "--json")
    assert code == 1
    assert [f["outcome"] for f in json.loads(out)["files"]] == ["error", "error"]


def test_ingest_exits_0_when_some_files_are_in_the_library(
    tmp_path: Path, models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Some failed, others were indexed now or before: 0, each error listed (``--strict``
    makes it 1, as before)."""
    bad = _bad_files(tmp_path / "in")
    notes = tmp_path / "in" / "notes.md"
    notes.write_text("# Giraffes\n\nThe giraffe eats acacia leaves.\n")
    library = tmp_path / "lib"
    code, out, err = _ingest(library, models_dir, capsys, str(notes), *bad)
    assert (code, err.count("nothing was imported")) == (0, 0), (out, err)
    assert out.count("  error: ") == 2
    code, out, _ = _ingest(library, models_dir, capsys, str(notes), *bad)  # notes unchanged
    assert code == 0 and "1 unchanged" in out.splitlines()[0], out
    assert _ingest(library, models_dir, capsys, str(notes), *bad, "--strict")[0] == 1
    assert _ingest(library, models_dir, capsys, str(notes), "--strict")[0] == 0


def test_ingest_help_documents_its_exit_statuses() -> None:
    parser = build_parser()
    (sub,) = (a for a in parser._actions if a.dest == "command")
    help_text = sub.choices["ingest"].format_help()  # type: ignore[attr-defined]
    assert "exit status" in help_text
    for line in ("0 ", "1 ", "2 ", "130 "):
        assert any(row.strip().startswith(line) for row in help_text.splitlines()), line
    assert "none of the files given" in help_text and "--strict" in help_text


def test_model_help_names_the_embedder_for_any_language(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # argparse wraps long names at their hyphens
    parser = build_parser()
    (sub,) = (a for a in parser._actions if a.dest == "command")
    for command in ("ingest", "reindex"):
        help_text = sub.choices[command].format_help()  # type: ignore[attr-defined]
        (line,) = (row for row in help_text.splitlines() if "--model" in row.split()[:2])
        assert "multilingual-e5-small-int8 understands about 100 languages" in line, command
        assert "all-minilm-l6-v2-int8" in line and "understands English" in line, command
