"""A script of the repository (installer/, resources/: not packages) loaded as a module, so
its functions can be tested; a wheel recipe run with nothing to build with."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType


def load_script(path: Path, name: str | None = None) -> ModuleType:
    """The script at ``path`` run as module ``name`` (its file's stem by default)."""
    name = name or path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class body runs
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


def printed_wheel(recipe: Path, cache: Path) -> str:
    """What a wheel recipe (installer/*/build_wheel.py) prints with ``--cache cache`` and no
    uv, make or compiler on PATH: a build would fail there, so a path printed is the cached
    wheel, taken without one being attempted."""
    run = subprocess.run(
        [sys.executable, str(recipe), "--cache", str(cache)],
        capture_output=True,
        text=True,
        env={"PATH": str(cache / "nothing")},
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()
