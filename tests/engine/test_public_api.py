"""app/ uses the engine only through its declared public API, ``engine.api``: a module of
app/ that imports any other engine module (at the top, inside a function, under
TYPE_CHECKING, or by name through importlib) fails here. Parsed with ``ast``, so no Qt."""

from __future__ import annotations

import ast
from pathlib import Path

import engine.api

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "app"
PUBLIC = "engine.api"
# The launcher starts the window or the CLI. The CLI is built on engine.api, so the API cannot
# hand it out without an import cycle (engine.api -> engine.cli -> engine.api): the launcher,
# and no other module of app/, imports engine.cli itself.
LAUNCHER = APP / "launcher.py"
CLI = "engine.cli"


def allowed(path: Path, what: str) -> bool:
    return path == LAUNCHER and what.startswith(f"from {CLI} import ")


def engine_imports(source: str) -> list[tuple[int, str]]:
    """(line, what) for every import of an engine module other than ``engine.api``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_engine(alias.name) and alias.name != PUBLIC:
                    found.append((node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "engine":  # ``from engine import api`` is the one allowed
                names = [a.name for a in node.names if a.name != "api"]
                if names:
                    found.append((node.lineno, f"from engine import {', '.join(names)}"))
            elif _is_engine(node.module) and node.module != PUBLIC:
                names = ", ".join(a.name for a in node.names)
                found.append((node.lineno, f"from {node.module} import {names}"))
        elif isinstance(node, ast.Call) and node.args:
            first = node.args[0]
            called = node.func
            name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
            if (
                name in ("import_module", "__import__")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
                and _is_engine(first.value)
                and first.value != PUBLIC
            ):
                found.append((node.lineno, f"{name}({first.value!r})"))
    return found


def _is_engine(module: str) -> bool:
    return module == "engine" or module.startswith("engine.")


def _api_names(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == PUBLIC:
            names.update(a.name for a in node.names)
    return names


def test_app_imports_the_engine_only_through_engine_api() -> None:
    offenders = [
        f"{path.relative_to(REPO)}:{line}: {what}"
        for path in sorted(APP.rglob("*.py"))
        for line, what in engine_imports(path.read_text(encoding="utf-8"))
        if not allowed(path, what)
    ]
    assert offenders == [], "\n".join(offenders)


def test_only_the_launcher_may_start_the_cli_and_only_the_cli() -> None:
    assert allowed(LAUNCHER, "from engine.cli import main")
    assert not allowed(LAUNCHER, "from engine.library import Library")
    assert not allowed(LAUNCHER, "import engine.cli")
    assert not allowed(APP / "main.py", "from engine.cli import main")
    launcher = engine_imports(LAUNCHER.read_text(encoding="utf-8"))
    assert launcher, "app/launcher.py no longer starts the CLI: drop its exception here"


def test_the_check_finds_every_way_to_reach_past_the_api() -> None:
    source = "\n".join(
        [
            "import engine",
            "import engine.library as lib",
            "from engine import __version__, api",
            "from engine.store import Source",
            "from engine.api import Library",  # allowed
            "from engine import api",  # allowed
            "import engine.api",  # allowed
            "from .engine import x",  # relative: app's own package, not the engine
            "from typing import TYPE_CHECKING",
            "if TYPE_CHECKING:",
            "    from engine.search import SearchResult",
            "def f():",
            "    from engine.cli import main",
            "    importlib.import_module('engine.cli')",
            "    importlib.import_module('engine.api')",  # allowed
        ]
    )
    assert engine_imports(source) == [
        (1, "import engine"),
        (2, "import engine.library"),
        (3, "from engine import __version__"),
        (4, "from engine.store import Source"),
        (11, "from engine.search import SearchResult"),
        (13, "from engine.cli import main"),
        (14, "import_module('engine.cli')"),
    ]


def test_what_app_imports_is_declared_in_the_api() -> None:
    declared = set(engine.api.__all__)
    assert all(hasattr(engine.api, name) for name in declared)
    used = set().union(*(_api_names(p.read_text(encoding="utf-8")) for p in APP.rglob("*.py")))
    assert used, "app/ imports nothing from engine.api"
    assert used <= declared, sorted(used - declared)
