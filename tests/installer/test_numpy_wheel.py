"""installer/numpy/build_wheel.py, the installer's numpy without BLAS: it builds the release
uv.lock pins for the running Python, a wheel in its cache is used as it is, and a changed recipe
or Python builds anew. The build itself (10-20 min) runs in installer/build.sh, never here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

from tests.scripts import load_script, printed_wheel

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "installer" / "numpy" / "build_wheel.py"


def _recipe() -> ModuleType:
    return load_script(RECIPE, "numpy_build_wheel")


def test_the_sdist_is_the_installed_release() -> None:
    import numpy

    sdist = _recipe().locked_sdist(ROOT / "uv.lock")
    assert sdist.version == numpy.__version__
    assert sdist.url.endswith(f"/numpy-{numpy.__version__}.tar.gz")


def test_the_build_turns_blas_and_lapack_off() -> None:
    command = " ".join(_recipe().BUILD_COMMAND)
    assert "-Csetup-args=-Dblas=none" in command
    assert "-Csetup-args=-Dlapack=none" in command


def test_a_cached_wheel_is_used_and_a_changed_recipe_builds_anew(tmp_path: Path) -> None:
    recipe = _recipe()
    sdist = recipe.locked_sdist(ROOT / "uv.lock")
    folder = tmp_path / f"numpy-{recipe.cache_key(sdist)}"
    folder.mkdir()
    wheel = folder / f"numpy-{sdist.version}-cp311-cp311-linux_x86_64.whl"
    wheel.write_bytes(b"")
    assert printed_wheel(RECIPE, tmp_path) == str(wheel)  # no build attempted
    key = recipe.cache_key(sdist)
    recipe.BUILD_COMMAND.append("-Csetup-args=-Dblas=openblas")
    assert recipe.cache_key(sdist) != key
    recipe.BUILD_COMMAND.pop()
    recipe.__dict__["PYTHON"] = "cp312"  # as a Python 3.12 would run it
    assert recipe.cache_key(sdist) != key


def test_the_key_printed_is_the_cache_folder() -> None:
    run = subprocess.run(
        [sys.executable, str(RECIPE), "--key"], capture_output=True, text=True, check=True
    )
    recipe = _recipe()
    assert run.stdout.strip() == f"numpy-{recipe.cache_key(recipe.locked_sdist(ROOT / 'uv.lock'))}"


def test_the_check_refuses_the_pypi_numpy_with_its_openblas() -> None:
    """Tests run on the PyPI wheel: --check must say it is not the build without BLAS."""
    run = subprocess.run(
        [sys.executable, str(RECIPE), "--check"], capture_output=True, text=True, check=False
    )
    assert run.returncode != 0
    assert "scipy_openblas" in run.stderr or "openblas" in run.stderr.lower()


def test_the_linux_build_freezes_with_this_numpy() -> None:
    """installer/build.sh installs the wheel into build/venv and checks it before PyInstaller
    runs (Windows and macOS keep the PyPI wheel: their recipes do not name this one)."""
    script = ROOT / "installer" / "build.sh"
    code = "\n".join(
        line
        for line in script.read_text(encoding="utf-8").splitlines()
        if not line.lstrip().startswith("#")
    )
    built = code.find('numpy/build_wheel.py --cache "$root/build/wheels"')
    installed = code.find('--no-deps --reinstall "$np_wheel"')
    checked = code.find("numpy/build_wheel.py --check")
    frozen = code.find("pyinstaller installer/coursedex.spec")
    assert code.find("UV_PROJECT_ENVIRONMENT=") < built
    assert -1 < built < installed < checked < frozen
    for other in ("windows/build.ps1", "macos/build_dmg.sh"):
        assert "numpy/build_wheel.py" not in (ROOT / "installer" / other).read_text("utf-8")
