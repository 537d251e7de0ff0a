"""tools/code_sizes.py: module line counts and long functions, with qualified names."""

from __future__ import annotations

import re

import pytest

from tools.code_sizes import functions, main, modules


def test_functions_are_named_by_class_and_outer_function_and_measured_def_to_end() -> None:
    source = "\n".join(
        [
            "def top():",  # 1
            "    def inner():",
            "        return 1",
            "    return inner",  # 4
            "class Box:",
            "    @property",
            "    def size(self):",  # 7
            "        x = 1",
            "        return x",  # 9
            "    async def fill(self): ...",
        ]
    )
    found = [(f.name, f.line, f.length) for f in functions(source, "m.py")]
    assert found == [("top", 1, 4), ("top.inner", 2, 2), ("Box.size", 7, 3), ("Box.fill", 10, 1)]


def test_prints_every_module_and_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--function-limit", "60"]) == 0
    out = capsys.readouterr().out
    sizes = modules()
    assert {p for p, _ in sizes} >= {"engine/api.py", "app/window.py", "engine/ingest/text.py"}
    for path, lines in sizes:
        assert re.search(rf"^\s*{lines}  {re.escape(path)}\b", out, re.MULTILINE), path
    summary = out.strip().splitlines()[-1]
    assert re.fullmatch(
        rf"{len(sizes)} modules, \d+ lines: \d+ over 500 lines, \d+ functions over 60 lines",
        summary,
    )
