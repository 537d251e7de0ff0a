"""tools/code_sizes.py: module line counts and long functions, with qualified names."""

from __future__ import annotations

import re

import pytest

from tools.code_sizes import FUNCTION_LIMIT, MODULE_LIMIT, ROOT, functions, main, modules


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
    assert main([]) == 0
    out = capsys.readouterr().out
    sizes = modules()
    assert {p for p, _ in sizes} >= {"engine/api.py", "app/window.py", "engine/ingest/text.py"}
    for path, lines in sizes:
        assert re.search(rf"^\s*{lines}  {re.escape(path)}\b", out, re.MULTILINE), path
    summary = out.strip().splitlines()[-1]
    assert re.fullmatch(
        rf"{len(sizes)} modules, \d+ lines: \d+ over 400 lines, \d+ functions over 60 lines",
        summary,
    )


def test_no_module_passes_400_lines_and_no_function_60() -> None:
    """The house's size rule (issue 37): split by responsibility before a module or a
    function grows past it."""
    big = [f"{path}: {lines} lines" for path, lines in modules() if lines > MODULE_LIMIT]
    long = [
        f"{f.path}:{f.line} {f.name}: {f.length} lines"
        for path, _ in modules()
        for f in functions((ROOT / path).read_text(encoding="utf-8"), path)
        if f.length > FUNCTION_LIMIT
    ]
    assert (MODULE_LIMIT, FUNCTION_LIMIT) == (400, 60)
    assert big == [] and long == [], big + long
