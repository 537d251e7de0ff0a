"""The import graph of engine/ and app/: every import counted (lazy ones inside functions and
``TYPE_CHECKING`` ones too), its cycles, how many modules sit at each package's top level,
and module sizes. Prints figures only; exit 0.

    uv run python tools/import_graph.py [--edges] [--sizes N]

A cycle is a strongly connected component of more than one module (or a module importing
itself). ``from pkg import name`` counts as an import of ``pkg.name`` when that is a module,
else of ``pkg``; importing ``pkg.sub`` also runs ``pkg/__init__.py``, so it counts as an
import of ``pkg`` too, as Python executes it.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "app")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the packages, by dotted name."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            found[module_name(path, root)] = path
    return found


def imported_names(tree: ast.AST, name: str, is_package: bool) -> Iterator[str]:
    """Dotted names a module imports, anywhere in its body, relative imports resolved."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield f"{base}.{alias.name}"
                yield base


def with_parents(target: str, known: dict[str, Path]) -> Iterator[str]:
    """``target`` (or its nearest known module) and every package above it."""
    parts = target.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            yield candidate


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the project modules it imports (not itself)."""
    known = modules(root)
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        targets: set[str] = set()
        for imported in imported_names(tree, name, is_package):
            targets.update(with_parents(imported, known))
        # A package's own parents are executed before it; that is not an import it makes.
        targets.discard(name)
        targets -= {p for p in with_parents(name, known) if p != name and name.startswith(p)}
        edges[name] = targets
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def top_level(package: str, root: Path = ROOT) -> tuple[list[str], list[str]]:
    """The loose modules and the subpackages directly in ``package``."""
    folder = root / package
    loose = sorted(p.stem for p in folder.glob("*.py") if p.name != "__init__.py")
    packages = sorted(p.name for p in folder.iterdir() if (p / "__init__.py").is_file())
    return loose, packages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--edges", action="store_true", help="print every import edge")
    parser.add_argument("--sizes", type=int, default=15, help="largest N modules (0: all)")
    args = parser.parse_args(argv)

    edges = graph()
    found = cycles(edges)
    print(f"modules: {len(edges)}, imports between them: {sum(map(len, edges.values()))}")
    print(f"import cycles: {len(found)}")
    for component in found:
        print(f"  cycle of {len(component)}: {', '.join(component)}")
        inside = set(component)
        for name in component:
            back = sorted(edges[name] & inside)
            print(f"    {name} -> {', '.join(back)}")
    for package in PACKAGES:
        loose, packages = top_level(package)
        print(
            f"{package}/ top level: {len(loose)} modules + {len(packages)} packages "
            f"({len(loose) + len(packages)} entries)"
        )
        print(f"  modules: {', '.join(loose)}")
        print(f"  packages: {', '.join(packages)}")
    sizes = sorted(
        (
            (len(path.read_text(encoding="utf-8").splitlines()), name)
            for name, path in modules().items()
        ),
        reverse=True,
    )
    lines = [n for n, _ in sizes]
    print(
        f"module sizes (lines): {len(lines)} modules, median {sorted(lines)[len(lines) // 2]}, "
        f"largest {lines[0]}, over 500: {sum(n > 500 for n in lines)}"
    )
    for length, name in sizes[: args.sizes or None]:
        print(f"  {length:5d}  {name}")
    if args.edges:
        for name in sorted(edges):
            print(f"{name} -> {', '.join(sorted(edges[name]))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
