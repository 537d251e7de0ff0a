"""installer/opencv/build_wheel.py, the installer's minimal OpenCV: it knows every cv2 name the
app and its libraries use (its --check then finds each in the built cv2), and a wheel in its
cache is used as it is, built again only when the recipe changes. The build itself (20-40
min) runs in installer/build.sh, never here."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.scripts import load_script, printed_wheel

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "installer" / "opencv" / "build_wheel.py"
_CV2_NAME = re.compile(r"\bcv2\.([A-Za-z_][A-Za-z0-9_]*)")


def _recipe() -> ModuleType:
    return load_script(RECIPE)


def _names_used(folder: Path) -> set[str]:
    """cv2.<name> in the folder's Python files; a name ending in _ is a doc's cv2.INTER_*."""
    found: set[str] = set()
    for path in folder.rglob("*.py"):
        found.update(_CV2_NAME.findall(path.read_text(encoding="utf-8", errors="replace")))
    return {name for name in found if not name.endswith("_")}


@pytest.mark.parametrize("package", ["engine", "app", "rapidocr_onnxruntime", "scenedetect"])
def test_every_cv2_name_the_app_and_its_libraries_use_is_checked(package: str) -> None:
    if package in ("engine", "app"):
        folder = ROOT / package
    else:
        found = importlib.util.find_spec(package)
        assert found is not None and found.origin is not None
        folder = Path(found.origin).parent
    used = _names_used(folder)
    missing = sorted(used - set(_recipe().CALLED))
    assert not missing, f"{package} uses cv2.{missing}: add them to CALLED (and the module)"


def test_a_cached_wheel_is_used_and_a_changed_recipe_builds_anew(tmp_path: Path) -> None:
    recipe = _recipe()
    sdist = recipe.locked_sdist(ROOT / "uv.lock")
    folder = tmp_path / f"opencv-{recipe.cache_key(sdist)}"
    folder.mkdir()
    wheel = folder / "opencv_python_headless-5.0.0.93-cp37-abi3-linux_x86_64.whl"
    wheel.write_bytes(b"")
    assert printed_wheel(RECIPE, tmp_path) == str(wheel)  # no build attempted
    key = recipe.cache_key(sdist)
    recipe.CMAKE_ARGS.append("-DWITH_TIFF=ON")
    assert recipe.cache_key(sdist) != key
    assert recipe.cache_key(sdist._replace(sha256="0" * 64)) != key


def test_the_key_printed_for_ci_caches_is_the_cache_folder() -> None:
    run = subprocess.run(
        [sys.executable, str(RECIPE), "--key"], capture_output=True, text=True, check=True
    )
    recipe = _recipe()
    assert run.stdout.strip() == f"opencv-{recipe.cache_key(recipe.locked_sdist(ROOT / 'uv.lock'))}"


def test_the_sdist_is_the_one_uv_lock_pins() -> None:
    sdist = _recipe().locked_sdist(ROOT / "uv.lock")
    import cv2

    assert cv2.__version__ == ".".join(sdist.version.split(".")[:3])
    assert sdist.url.endswith(f"opencv_python_headless-{sdist.version}.tar.gz")
    assert re.fullmatch("[0-9a-f]{64}", sdist.sha256)
