"""The layers keep to their parts, read from the source text (nothing is imported): only
engine/store/ speaks SQL to a database, and course packs and integrations use the library
through its facade or a named port, never its store, indexer or write access."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SQL_CALLS = {"execute", "executemany", "executescript"}
# Outside engine/store/ on purpose, and never the library's database:
SQLITE_ELSEWHERE = {
    # writes Anki's own collection file (another program's format) for an .apkg
    "engine/integrations/anki.py",
}
LIBRARY_INTERNALS = {"store", "indexer", "access"}


def _modules(*tops: str) -> list[Path]:
    return sorted(p for top in tops for p in (ROOT / top).rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _sql_uses(tree: ast.AST) -> list[str]:
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "sqlite3"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlite3":
            found.append(f"from {node.module}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in SQL_CALLS
        ):
            found.append(f".{node.func.attr}() at line {node.lineno}")
    return found


def test_only_the_store_runs_sql() -> None:
    """engine/library/recovery.py read a damaged database with sqlite3 itself: its
    salvage reads are the store's now (engine/store/salvage.py)."""
    modules = [p for p in _modules("engine", "app") if not _name(p).startswith("engine/store/")]
    assert len(modules) > 100
    uses = {
        _name(p): found
        for p in modules
        if _name(p) not in SQLITE_ELSEWHERE and (found := _sql_uses(ast.parse(p.read_text())))
    }
    assert uses == {}


def _internals(tree: ast.AST) -> list[str]:
    return [
        f".{node.attr} at line {node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in LIBRARY_INTERNALS
    ]


def test_packs_and_integrations_use_the_library_not_its_internals() -> None:
    """Packs read and wrote through ``library.store`` / ``library.indexer`` /
    ``library.access`` (about twenty places); they use the library's ports now."""
    modules = _modules("engine/packs", "engine/integrations")
    assert len(modules) > 10
    uses = {_name(p): found for p in modules if (found := _internals(ast.parse(p.read_text())))}
    assert uses == {}


def test_the_scans_find_what_they_look_for() -> None:
    tree = ast.parse("import sqlite3\nconn.execute('SELECT 1')\nx = library.store.catalog\n")
    assert len(_sql_uses(tree)) == 2
    assert _internals(tree) == [".store at line 3"]
