"""Code files, notebooks and zip archives: definition chunks, lines, headings, archive safety."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from engine.api import Library, Outcome
from engine.config import ChunkingConfig, EngineConfig, IngestLimits
from engine.errors import UnreadableFileError
from engine.ingest.archive import parse_archive, parse_code_file
from engine.ingest.code import code_segments, identifier_words, split_identifier
from engine.ingest.notebook import notebook_segments
from engine.types import SegmentKind, SourceKind
from tools.factories import (
    make_code_zip,
    make_lying_zip,
    make_notebook,
    make_zip_bomb,
    make_zip_slip,
)

CFG = ChunkingConfig()
CONFIG = EngineConfig()

PYTHON = '''"""Subtitle tools."""
import re

MAX_SIZE = 10


# Parse one file.
def parse_srt(text):
    return text.split()


@dataclass
class Parser:
    x: int = 0

    def parse(self):
        return 1


if __name__ == "__main__":
    parse_srt("x")
'''


def _spans(segments: list) -> list[tuple[int | None, int | None, str]]:
    return [(s.line_start, s.line_end, s.heading) for s in segments]


def test_python_file_definitions(tmp_path: Path) -> None:
    path = tmp_path / "subs.py"
    path.write_text(PYTHON)
    parsed = parse_code_file(path, CONFIG)
    assert parsed.kind is SourceKind.CODE
    assert parsed.title == "subs.py"
    assert _spans(list(parsed.segments)) == [
        (1, 4, ""),  # docstring, imports, constants
        (7, 9, "def parse_srt"),  # the comment above belongs to the function
        (12, 17, "class Parser"),  # decorator included
        (20, 21, ""),
    ]
    lines = PYTHON.split("\n")
    for segment in parsed.segments:
        assert segment.kind is SegmentKind.CODE
        assert segment.path_in_archive == "subs.py"
        start, end = segment.line_start or 0, segment.line_end or 0
        assert segment.text == "\n".join(lines[start - 1 : end])
    assert parsed.segments[0].extra == "max size"
    assert parsed.segments[1].extra == "parse srt"


def test_big_class_split_into_methods_and_windows() -> None:
    methods = "".join(
        f"    def step_{i}(self):\n" + "".join(f"        v{j} = {j}\n" for j in range(10)) + "\n"
        for i in range(3)
    )
    source = "class Big:\n    '''Doc.'''\n    LIMIT = 1\n\n" + methods
    segments = code_segments(
        source, "big.py", ChunkingConfig(code_max_lines=20), grammar_name="python"
    )
    assert _spans(segments) == [
        (1, 3, "class Big"),
        (5, 15, "def Big.step_0"),
        (17, 27, "def Big.step_1"),
        (29, 39, "def Big.step_2"),
    ]
    long_function = "def f():\n" + "".join(f"    x{i} = {i}\n" for i in range(100))
    windows = code_segments(
        long_function, "f.py", ChunkingConfig(code_max_lines=30), grammar_name="python"
    )
    assert [(s.line_start, s.line_end) for s in windows] == [(1, 30), (31, 60), (61, 90), (91, 101)]
    assert all(s.heading == "def f" for s in windows)


@pytest.mark.parametrize(
    ("grammar", "source", "expected"),
    [
        (
            "javascript",
            'import x from "y";\n// helper\nexport function parseSrtFile(a) {\n  return a;\n}\n'
            "export const fooBar = (a) => a + 1;\nclass A {\n  m() {}\n}\n",
            [
                (1, 1, ""),
                (2, 5, "function parseSrtFile"),
                (6, 6, "function fooBar"),
                (7, 9, "class A"),
            ],
        ),
        (
            "typescript",
            "interface I { x: number }\ntype T = string;\nexport default function h() {}\n",
            [(1, 1, "interface I"), (2, 2, "type T"), (3, 3, "function h")],
        ),
        (
            "java",
            "package a;\n\n/** Doc */\npublic class Parser {\n  int x;\n}\n",
            [(1, 1, ""), (3, 6, "class Parser")],
        ),
        (
            "c",
            "#include <stdio.h>\nstatic int *add(int a) {\n  return a;\n}\nstruct P { int x; };\n",
            [(1, 1, ""), (2, 4, "add()"), (5, 5, "struct P")],
        ),
        (
            "cpp",
            "void A::g() {}\ntemplate<class T> T id(T a) { return a; }\n",
            [(1, 1, "A::g()"), (2, 2, "id()")],
        ),
        (
            "go",
            "package main\nfunc (p *P) Get() int { return 1 }\nfunc main() {}\n",
            [(1, 1, ""), (2, 2, "func P.Get"), (3, 3, "func main")],
        ),
        (
            "rust",
            "struct P { x: i32 }\nimpl Display for P {}\nfn main() {}\n",
            [(1, 1, "struct P"), (2, 2, "impl Display for P"), (3, 3, "fn main")],
        ),
    ],
)
def test_grammars(grammar: str, source: str, expected: list[tuple[int, int, str]]) -> None:
    assert _spans(code_segments(source, "f", CFG, grammar_name=grammar)) == expected


def test_java_methods_of_big_class() -> None:
    source = "public class Parser {\n  int x;\n  public Parser() {}\n  void parse() {}\n}\n"
    segments = code_segments(
        source, "P.java", ChunkingConfig(code_max_lines=3), grammar_name="java"
    )
    # The closing brace alone is not a segment.
    assert _spans(segments) == [
        (1, 2, "class Parser"),
        (3, 3, "Parser.Parser()"),
        (4, 4, "Parser.parse()"),
    ]


def test_no_grammar_blank_line_windows(tmp_path: Path) -> None:
    blocks = ["\n".join(f"puts {b}.{i}" for i in range(15)) for b in range(6)]
    path = tmp_path / "script.rb"
    path.write_text("\n\n".join(blocks) + "\n")
    parsed = parse_code_file(path, CONFIG)
    # ~40-line windows ending at a blank line (blocks: 15 lines + 1 blank; ties go short).
    assert [(s.line_start, s.line_end) for s in parsed.segments] == [(1, 31), (33, 63), (65, 95)]
    assert all(s.heading == "" for s in parsed.segments)


def test_identifier_words() -> None:
    assert split_identifier("parseSrtFile") == ["parse", "srt", "file"]
    assert split_identifier("MAX_SIZE") == ["max", "size"]
    assert split_identifier("HTTPServer2") == ["http", "server", "2"]
    assert identifier_words("snake_case_name = parseSrtFile(MAX_SIZE) + parseSrtFile(x)") == (
        "snake case name parse srt file max size"
    )


def test_code_file_errors(tmp_path: Path) -> None:
    binary = tmp_path / "x.py"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(200))
    with pytest.raises(UnreadableFileError, match=r"^not a source file \(binary data\)$"):
        parse_code_file(binary, CONFIG)
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * 1000)
    small = EngineConfig(limits=IngestLimits(max_code_file_bytes=1000))
    with pytest.raises(UnreadableFileError, match=r"^file too large \(5.9 KB, limit 1000 bytes\)$"):
        parse_code_file(big, small)
    braces = tmp_path / "b.js"
    braces.write_text("}\n;\n")
    with pytest.raises(UnreadableFileError, match="no code to index"):
        parse_code_file(braces, CONFIG)


def test_notebook_cells_and_line_numbers(tmp_path: Path) -> None:
    path = make_notebook(
        tmp_path / "lab.ipynb",
        [
            ("markdown", "# Lab 1\nSorting lab."),  # lines 1-2
            ("code", "import numpy as np\n\ndef bubbleSort(xs):\n    return sorted(xs)"),  # 3-6
            ("markdown", "## Timing"),  # line 7, a heading only
            ("code", "bubbleSort([3, 1])"),  # line 8
            ("code", ""),  # no lines
            ("code", "print('done')"),  # line 9
        ],
    )
    parsed = parse_code_file(path, CONFIG)
    assert parsed.title == "lab.ipynb"
    got = [(s.kind, s.line_start, s.line_end, s.heading, s.text) for s in parsed.segments]
    assert got == [
        (SegmentKind.NOTE, 2, 2, "Lab 1", "Sorting lab."),
        (SegmentKind.CODE, 3, 3, "Lab 1", "import numpy as np"),
        (SegmentKind.CODE, 5, 6, "def bubbleSort", "def bubbleSort(xs):\n    return sorted(xs)"),
        (SegmentKind.CODE, 8, 8, "Lab 1 > Timing", "bubbleSort([3, 1])"),
        (SegmentKind.CODE, 9, 9, "Lab 1 > Timing", "print('done')"),
    ]
    assert all(s.path_in_archive == "lab.ipynb" for s in parsed.segments)
    assert parsed.segments[2].extra == "bubble sort"


def test_notebook_invalid(tmp_path: Path) -> None:
    with pytest.raises(
        UnreadableFileError, match=r"^not a Jupyter notebook \(invalid JSON at line 1\)$"
    ):
        notebook_segments("{not json", "x.ipynb", CFG)
    with pytest.raises(UnreadableFileError, match=r"no cells"):
        notebook_segments('{"metadata": {}}', "x.ipynb", CFG)


def test_deeply_nested_notebook_is_a_one_line_error(tmp_path: Path, library: Library) -> None:
    """JSON nested 100,000 deep raised RecursionError, which ended the file with a traceback."""
    deep = '{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(UnreadableFileError, match=r"^not a Jupyter notebook \(JSON nested"):
        notebook_segments(deep, "deep.ipynb", CFG)
    path = tmp_path / "deep.ipynb"
    path.write_text(deep, encoding="utf-8")
    good = tmp_path / "ok.ipynb"
    make_notebook(good, [("code", "def okapi():\n    return 1")])
    report = library.ingest([path, good])
    assert [f.outcome for f in report.files] == [Outcome.ERROR, Outcome.INDEXED]
    reason = report.files[0].detail
    assert "nested too deeply" in reason and "\n" not in reason and "Traceback" not in reason


def _zip(path: Path, members: dict[str, str], compression: int) -> Path:
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, text in members.items():
            zf.writestr(name, text)
    return path


def test_bzip2_and_lzma_archives_are_read(tmp_path: Path) -> None:
    """They said "no code or notes files in the archive"; zipfile reads both."""
    for method in (zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        path = _zip(
            tmp_path / f"{method}.zip", {"src/okapi.py": "def okapi():\n    return 1\n"}, method
        )
        parsed = parse_archive(path, EngineConfig())
        assert [s.path_in_archive for s in parsed.segments] == ["src/okapi.py"]


def test_a_password_protected_archive_says_so(tmp_path: Path) -> None:
    path = _zip(tmp_path / "locked.zip", {"a.py": "x = 1\n", "b.md": "# B\n"}, zipfile.ZIP_DEFLATED)
    data = bytearray(path.read_bytes())
    # zipfile cannot write encrypted members: set the "encrypted" flag bit in every local
    # and central header, which is what a password-protected archive carries.
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        while at >= 0:
            data[at + offset] |= 0x1
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))
    with pytest.raises(UnreadableFileError, match=r"2 files are password-protected"):
        parse_archive(path, EngineConfig())


def test_archive_members(tmp_path: Path) -> None:
    path = make_code_zip(
        tmp_path / "course.zip",
        {
            "proj/src/main.py": "def main():\n    return 0\n",
            "proj/README.md": "# Project\nHow to run it.\n",
            "proj/notes/lab.ipynb": make_notebook(
                tmp_path / "n.ipynb", [("code", "x = 1")]
            ).read_text(),
            "proj/logo.png": "\x89PNG not really",
            "proj/data.bin.py": "\x00\x01\x02binary",
            "__MACOSX/proj/._main.py": "junk",
            "proj/node_modules/lib/index.js": "function lib() {}\n",
            "proj/.git/config": "[core]\n",
            "proj/inner.zip": "PK",
        },
    )
    parsed = parse_archive(path, CONFIG)
    assert parsed.kind is SourceKind.CODE
    assert parsed.title == "course"
    got = [
        (s.path_in_archive, s.kind, s.line_start, s.line_end, s.heading) for s in parsed.segments
    ]
    assert got == [
        ("proj/README.md", SegmentKind.NOTE, 2, 2, "Project"),
        ("proj/notes/lab.ipynb", SegmentKind.CODE, 1, 1, "cell 1"),
        ("proj/src/main.py", SegmentKind.CODE, 1, 2, "def main"),
    ]
    assert parsed.warnings == (
        "proj/data.bin.py: not a text file (binary data)",
        "proj/inner.zip: archive inside an archive skipped",
    )


def test_zip_slip_refused(tmp_path: Path) -> None:
    with pytest.raises(
        UnreadableFileError, match=r"^zip member escapes its folder: \.\./\.\./etc/passwd$"
    ):
        parse_archive(make_zip_slip(tmp_path / "slip.zip"), CONFIG)
    with pytest.raises(UnreadableFileError, match=r"^zip member escapes its folder: /etc/passwd$"):
        parse_archive(make_zip_slip(tmp_path / "abs.zip", member="/etc/passwd"), CONFIG)
    ok = make_code_zip(tmp_path / "ok.zip", {"a/../b.py": "x = 1\n"})  # stays inside
    assert parse_archive(ok, CONFIG).segments[0].path_in_archive == "a/../b.py"


def test_zip_bomb_refused(tmp_path: Path) -> None:
    bomb = make_zip_bomb(tmp_path / "bomb.zip", megabytes=300)
    assert bomb.stat().st_size < 1024**2
    with pytest.raises(
        UnreadableFileError, match=r"^zip bomb: bomb\.py expands 300 MB from 29\d(\.\d)? KB$"
    ):
        parse_archive(bomb, CONFIG)
    total = make_zip_bomb(tmp_path / "total.zip", megabytes=20)
    tight = EngineConfig(
        limits=IngestLimits(max_archive_total_bytes=10 * 1024**2, max_compression_ratio=2000)
    )
    with pytest.raises(
        UnreadableFileError, match=r"^zip bomb: 20 MB uncompressed from \d+(\.\d)? KB$"
    ):
        parse_archive(total, tight)


def test_zip_lying_sizes_never_inflate_past_cap(tmp_path: Path) -> None:
    path = make_lying_zip(tmp_path / "liar.zip")
    with zipfile.ZipFile(path) as zf:
        assert zf.infolist()[0].file_size == 100
    with pytest.raises(UnreadableFileError, match=r"^(corrupt zip member|zip bomb): .*small\.py"):
        parse_archive(path, CONFIG)


def test_archive_limits_and_symlinks(tmp_path: Path) -> None:
    many = make_code_zip(tmp_path / "many.zip", {f"f{i}.py": "x = 1\n" for i in range(5)})
    few = EngineConfig(limits=IngestLimits(max_archive_members=4))
    with pytest.raises(UnreadableFileError, match=r"^too many files in archive \(5, limit 4\)$"):
        parse_archive(many, few)
    path = tmp_path / "links.zip"
    with zipfile.ZipFile(path, "w") as zf:
        link = zipfile.ZipInfo("link.py")
        link.external_attr = 0o120777 << 16
        zf.writestr(link, "/etc/passwd")
        zf.writestr("real.py", "y = 2\n")
        zf.writestr("huge.py", "z = 3\n" * 1000)
    tight = EngineConfig(limits=IngestLimits(max_code_file_bytes=1000))
    parsed = parse_archive(path, tight)
    assert [s.path_in_archive for s in parsed.segments] == ["real.py"]
    assert parsed.warnings == (
        "huge.py: too large (5.9 KB) skipped",
        "link.py: symbolic link skipped",
    )
    nothing = make_code_zip(tmp_path / "img.zip", {"a.png": "x", "b.jpg": "y"})
    with pytest.raises(UnreadableFileError, match=r"^no code or notes files in the archive$"):
        parse_archive(nothing, CONFIG)
    not_zip = tmp_path / "bad.zip"
    not_zip.write_text("nope")
    with pytest.raises(UnreadableFileError, match=r"^not a zip file \(corrupt or truncated\)$"):
        parse_archive(not_zip, CONFIG)
