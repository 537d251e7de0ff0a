"""Builds a locked release of a PyPI package from its sdist for the installer, and keeps the
wheel: what the recipes of installer/opencv/, installer/numpy/ and installer/pyav/ share.

A recipe names the package, what its build does differently from the PyPI wheel (patches,
environment, build command) and how to check the installed result; this module takes the
sdist of the release uv.lock pins (checked against the lock's sha256), builds it once into
the cache folder under a key made of the sdist's sha256 and the recipe, and gives every recipe
the same command line:

    python installer/<name>/build_wheel.py [--cache DIR] [--jobs N]   prints the wheel's path
    python installer/<name>/build_wheel.py --key     the cache key (CI's actions/cache)
    python installer/<name>/build_wheel.py --check   the environment's package is this build

The wheels go into build/venv only (installer/build.sh and the other OS's recipes); tests and
development keep the PyPI wheels.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
# (file in the sdist's tree, text it has exactly once, text to put instead)
Patch = tuple[str, str, str]


class Sdist(NamedTuple):
    version: str
    url: str
    sha256: str


def _admits(markers: Sequence[str], python: tuple[int, int, int]) -> bool:
    """Whether one of uv.lock's resolution markers (python_full_version < '3.12', == '3.12.*',
    >= '3.13': the only forms a lock split by Python version has) admits this Python."""
    if not markers:
        return True
    for marker in markers:
        found = re.fullmatch(r"python_full_version (<|<=|==|>=|>) '([\d.]+)(\.\*)?'", marker)
        if found is None:
            raise SystemExit(f"build_wheel: uv.lock has a marker this script cannot read: {marker}")
        op, text, wildcard = found.groups()
        wanted = tuple(int(part) for part in text.split("."))
        have = python[: len(wanted)] if wildcard else python
        if {
            "<": have < wanted,
            "<=": have <= wanted,
            "==": have == wanted,
            ">=": have >= wanted,
            ">": have > wanted,
        }[op]:
            return True
    return False


def locked_sdist(lock: Path, package: str, python: tuple[int, int, int] | None = None) -> Sdist:
    """The sdist of the release uv.lock pins for this Python (a lock may pin one release per
    Python version, as it does numpy's), so the installer's build is of the tested release."""
    python = python or (sys.version_info.major, sys.version_info.minor, sys.version_info.micro)
    text = lock.read_text(encoding="utf-8")
    for entry in text.split("\n[[package]]\n"):
        if not entry.startswith(f'name = "{package}"\n'):
            continue
        markers = re.search(r"\nresolution-markers = \[\n((?:    .*\n)*)\]", entry)
        listed = re.findall(r'"(.*)",', markers.group(1)) if markers else []
        found = re.search(
            r'\nversion = "([^"]+)"\n(?:.*\n)*?'
            r'sdist = \{ url = "([^"]+)", hash = "sha256:([0-9a-f]{64})"',
            entry,
        )
        if found and _admits(listed, python):
            return Sdist(*found.groups())
    raise SystemExit(f"build_wheel: uv.lock has no sdist of {package} for Python {python}")


def cache_key(sdist: Sdist, recipe: Iterable[object]) -> str:
    """The sdist and what the build does with it: the same key, the same wheel (comments and
    docstrings of the recipes may change freely)."""
    parts = [sdist.sha256, *recipe]
    return hashlib.sha256("\n".join(map(str, parts)).encode()).hexdigest()[:16]


def fetch(sdist: Sdist, folder: Path) -> Path:
    """The sdist, downloaded into ``folder`` once and checked against uv.lock's sha256."""
    path = folder / sdist.url.rsplit("/", 1)[1]
    if not path.exists():
        print(f"build_wheel: downloading {sdist.url}", file=sys.stderr)
        partial = path.with_suffix(".part")
        folder.mkdir(parents=True, exist_ok=True)
        with urllib.request.urlopen(sdist.url) as response, partial.open("wb") as out:
            shutil.copyfileobj(response, out)
        partial.replace(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sdist.sha256:
        path.unlink()
        raise SystemExit(f"build_wheel: {path.name} has sha256 {digest}, not {sdist.sha256}")
    return path


def unpack(sdist: Path, into: Path, patches: Iterable[Patch] = ()) -> Path:
    """The sdist's tree with the patches applied; each must match exactly once, so a new
    release that moved the text stops the build instead of building something else."""
    with tarfile.open(sdist) as archive:
        archive.extractall(into, filter="data")
    (tree,) = into.iterdir()
    for name, old, new in patches:
        path = tree / name
        text = path.read_text(encoding="utf-8")
        if text.count(old) != 1:
            raise SystemExit(f"build_wheel: {name} no longer has {old!r}: check PATCHES")
        path.write_text(text.replace(old, new), encoding="utf-8")
    return tree


def build(
    sdist: Path,
    out: Path,
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    patches: Iterable[Patch] = (),
) -> Path:
    """Runs ``command`` (e.g. uv build --wheel ...) on the patched tree; the wheel goes to
    ``out``. The build's log goes to stderr: stdout is the wheel's path alone."""
    with tempfile.TemporaryDirectory(prefix="sdist-build-") as tmp:
        tree = unpack(sdist, Path(tmp) / "src", patches)
        full = [*command, "--out-dir", tmp, str(tree)]
        subprocess.run(full, env={**os.environ, **(env or {})}, check=True, stdout=sys.stderr)
        (wheel,) = Path(tmp).glob("*.whl")
        out.mkdir(parents=True, exist_ok=True)
        return Path(shutil.move(str(wheel), out / wheel.name))


@dataclass(frozen=True)
class Recipe:
    """What a recipe's script gives to main(): ``key`` and ``build`` read the recipe's
    module-level settings when called, so a changed setting changes the key."""

    name: str  # the cache folder's prefix: <name>-<key>
    package: str  # as uv.lock names it
    title: str  # says what is built, in the build's log
    key: Callable[[Sdist], str]
    build: Callable[[Path, Path, int], Path]  # (sdist file, out folder, jobs) -> wheel
    check: Callable[[], None]


def main(recipe: Recipe, argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=f"Builds the installer's {recipe.title}.")
    parser.add_argument("--cache", type=Path, default=ROOT / "build" / "wheels")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--key", action="store_true", help="print the cache key and exit")
    parser.add_argument("--check", action="store_true", help="check the installed package")
    args = parser.parse_args(argv)
    sdist = locked_sdist(ROOT / "uv.lock", recipe.package)
    if args.key:
        print(f"{recipe.name}-{recipe.key(sdist)}")
        return
    if args.check:
        recipe.check()
        return
    folder = args.cache / f"{recipe.name}-{recipe.key(sdist)}"
    built = sorted(folder.glob("*.whl"))
    if not built:
        print(
            f"build_wheel: building {recipe.package} {sdist.version}: {recipe.title}",
            file=sys.stderr,
        )
        built = [recipe.build(fetch(sdist, args.cache), folder, args.jobs)]
    print(built[0])
