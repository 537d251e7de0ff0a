"""``coursedex --self-test`` from the source tree, in a child process as a user runs it: it
imports the demo course (speech recognition in its own child process), searches, plays a hit
and exits 0; a truncated model makes it exit 1, naming the check and the file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from app.selftest import EXPECTED, build_parser
from engine.types import SegmentKind
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
CHECK = re.compile(r"^(ok  |FAIL) (.+?) \((?:(.*), )?(\d+\.\d) s\)(?:: (.*))?$")
ENGINE_CHECKS = [
    "find the models",
    "open a temporary library",
    "load the search model",
    "import the demo course",
    "recognise the lecture's speech",
]


def self_test(
    *args: str, tmp: Path, models: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "XDG_RUNTIME_DIR")}
    env["TMPDIR"] = str(tmp)  # where the self-test makes its temporary library
    if models is not None:
        env["COURSEDEX_MODELS"] = str(models)  # the folder the app would use
    return subprocess.run(
        [sys.executable, "-m", "app.launcher", "--self-test", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
        check=False,
    )


def checks(stdout: str) -> list[tuple[str, str, str, str]]:
    """(status, name, detail, reason) of each check line, in order."""
    found = []
    for line in stdout.splitlines():
        match = CHECK.match(line)
        if match:
            status, name, detail, _, reason = match.groups()
            found.append((status.strip(), name, detail or "", reason or ""))
    return found


def test_self_test_imports_searches_plays_and_exits_0(tmp_path: Path, models_dir: Path) -> None:
    run = self_test("--keep", tmp=tmp_path, models=models_dir)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = checks(run.stdout)
    searches = [f'search "{e.query}"' for e in EXPECTED]
    players = ["play a lecture hit with libVLC", "play a lecture hit with Qt Multimedia"]
    names = [*ENGINE_CHECKS, *searches, *players]
    assert [name for _, name, _, _ in lines] == names, run.stdout
    assert all(status == "ok" for status, _, _, _ in lines), run.stdout
    detail = {name: detail for _, name, detail, _ in lines}
    assert detail["find the models"].endswith(f"in {models_dir}")
    for model in ("faster-whisper-base", "multilingual-e5-small-int8"):  # other languages'
        assert model in detail["find the models"], detail
    assert detail["import the demo course"] == "6 files"
    assert re.fullmatch(
        r"\d+ sentences up to 0[5-6]:\d\d", detail["recognise the lecture's speech"]
    )
    assert detail[searches[0]].startswith("lecture-01-sorting.mp4 at 00:")
    assert detail['search "when should a hash table resize"'] == "slides.pdf page 6"
    assert detail['search "binary search midpoint overflow"'].startswith(
        "code.zip searching/binary_search.py:"
    )
    for player in players:
        assert re.fullmatch(r"from 00:\d\d", detail[player]), detail[player]
    assert f"self-test passed: {len(names)} checks in " in run.stdout
    # --keep: the temporary library stays, with the demo course in it; nothing else is made.
    kept = re.search(r"^library kept in (.+)$", run.stdout, re.MULTILINE)
    assert kept is not None, run.stdout
    library = Path(kept.group(1))
    assert library.parent.parent == tmp_path and (library / "library.db").is_file()
    assert str(library) in detail["open a temporary library"]


def test_a_truncated_model_fails_the_self_test_naming_the_check_and_file(
    tmp_path: Path, models_dir: Path
) -> None:
    """As a bundle whose embedder was cut short (a broken download or copy) would be."""
    models = tmp_path / "models"
    embedder = models / "all-minilm-l6-v2-int8"
    embedder.mkdir(parents=True)
    for file in (models_dir / embedder.name).iterdir():
        (embedder / file.name).write_bytes(file.read_bytes())
    onnx = embedder / "model.onnx"
    size = onnx.stat().st_size
    with onnx.open("r+b") as f:
        f.truncate(size // 2)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    run = self_test("--models", str(models), tmp=scratch)
    assert run.returncode == 1, run.stdout + run.stderr
    assert checks(run.stdout) == [
        (
            "FAIL",
            "find the models",
            "",
            f"model all-minilm-l6-v2-int8 in {models} is damaged (model.onnx: {size // 2} "
            f"bytes, expected {size}): run `coursedex models remove all-minilm-l6-v2-int8`, "
            "then `coursedex models install all-minilm-l6-v2-int8`",
        )
    ], run.stdout
    assert run.stdout.splitlines()[-1] == "self-test FAILED: find the models"
    assert list(scratch.iterdir()) == []  # the temporary library is gone


def test_the_expected_hits_are_what_the_demo_course_says() -> None:
    """The self-test's answers follow resources/make_demo.py (not bundled: copied here)."""
    make_demo = load_script(ROOT / "resources/make_demo.py")
    by_query = {e.query: e for e in EXPECTED}
    for query in make_demo.QUERIES:
        assert by_query[query.text].file == query.best_file, query.text
    slide = next(e for e in EXPECTED if e.kind == SegmentKind.SLIDE)
    pages = [s for s in make_demo.SLIDES if any(slide.evidence in b.lower() for b in s.bullets)]
    assert slide.page == 1 + make_demo.SLIDES.index(pages[0]) and len(pages) == 1
    code = next(e for e in EXPECTED if e.kind == SegmentKind.CODE)
    members = [m for m, text in make_demo.CODE_MEMBERS if code.evidence in text]
    assert members == [code.member]
    kinds = {e.kind for e in EXPECTED}
    assert {SegmentKind.TRANSCRIPT, SegmentKind.SLIDE, SegmentKind.CODE} <= kinds


def test_self_test_help_names_its_options() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "app.launcher", "--self-test", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    for option in ("--models", "--keep", "--player"):
        assert option in run.stdout


def test_self_test_and_its_options_are_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = next(
        (line for line in readme.splitlines() if line.startswith("| `coursedex --self-test")), ""
    )
    options = [o for a in build_parser()._actions for o in a.option_strings if o.startswith("--")]
    assert options and row, "README.md does not document coursedex --self-test"
    assert [o for o in options if o != "--help" and o not in row] == []
