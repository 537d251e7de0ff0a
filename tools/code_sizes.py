"""Module and function sizes in engine/ and app/, biggest first, against the limits the
project keeps (no module over 400 lines, no function over 60: tests/tools/test_code_sizes.py
holds the code to them). Prints figures only; exit 0.

    uv run python tools/code_sizes.py [--module-limit 400] [--function-limit 60]
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "app")
MODULE_LIMIT = 400  # lines: a module past it holds more than one responsibility
FUNCTION_LIMIT = 60  # lines, from ``def`` to its last line


@dataclass(frozen=True, slots=True)
class Function:
    name: str  # qualified: ``Class.method``, ``outer.inner``
    path: str
    line: int
    length: int


def modules(root: Path = ROOT) -> list[tuple[str, int]]:
    """(path relative to ``root``, line count) of every module in the packages."""
    out = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            out.append((path.relative_to(root).as_posix(), lines))
    return out


def functions(source: str, path: str) -> Iterator[Function]:
    """Every function and method in ``source``, nested ones too, from ``def`` to last line."""

    def walk(node: ast.AST, prefix: str) -> Iterator[Function]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                end = child.end_lineno or child.lineno
                yield Function(name, path, child.lineno, end - child.lineno + 1)
                yield from walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, prefix + child.name + ".")
            else:
                yield from walk(child, prefix)

    yield from walk(ast.parse(source), "")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Module and function sizes in engine/ and app/.")
    parser.add_argument("--module-limit", type=int, default=MODULE_LIMIT)
    parser.add_argument("--function-limit", type=int, default=FUNCTION_LIMIT)
    args = parser.parse_args(argv)

    sizes = sorted(modules(), key=lambda m: (-m[1], m[0]))
    long: list[Function] = []
    for path, _ in sizes:
        source = (ROOT / path).read_text(encoding="utf-8")
        long += [f for f in functions(source, path) if f.length > args.function_limit]
    long.sort(key=lambda f: (-f.length, f.path, f.line))

    print(f"modules in {', '.join(PACKAGES)} (lines), biggest first:")
    for path, lines in sizes:
        mark = "  over" if lines > args.module_limit else ""
        print(f"{lines:6d}  {path}{mark}")
    print(f"\nfunctions over {args.function_limit} lines, biggest first:")
    for f in long:
        print(f"{f.length:6d}  {f.path}:{f.line}  {f.name}")
    if not long:
        print("  none")
    big = sum(1 for _, lines in sizes if lines > args.module_limit)
    total = sum(lines for _, lines in sizes)
    print(
        f"\n{len(sizes)} modules, {total} lines: {big} over {args.module_limit} lines, "
        f"{len(long)} functions over {args.function_limit} lines"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
