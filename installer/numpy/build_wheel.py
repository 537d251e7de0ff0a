"""Builds the installer's numpy: the locked release from its PyPI sdist without BLAS and LAPACK
(numpy's documented meson options -Dblas=none -Dlapack=none -Dallow-noblas=true), so the
frozen app carries no OpenBLAS:

    python installer/numpy/build_wheel.py [--cache DIR] [--jobs N]   prints the wheel's path
    python installer/numpy/build_wheel.py --key     the cache key
    python installer/numpy/build_wheel.py --check   the environment's numpy is this build

The PyPI wheel for Linux bundles libscipy_openblas64_ (25.4 MB), libgfortran (2.8 MB) and
libquadmath in numpy.libs: 28 of numpy's 40.6 MB in the bundle. The app's products are small
(slide alignment, MMR, a result's sentence scores) or one per five minutes of speech
(faster-whisper's mel filters); numpy's own loops do them, and numpy.linalg falls back to its
bundled lapack_lite. Sums are taken in another order than OpenBLAS's kernels take them, so
results differ in the last bits (as they do between CPUs with OpenBLAS):
bench/numpy_blas.py measures what that does to transcripts and speed. Download, cache and
command line are installer/sdist_build.py's; the build needs a C/C++ compiler (uv fetches
meson-python, meson, ninja and Cython into the build's own environment).

installer/build.sh (Linux) installs it into build/venv: 26 MB of the 400 MB the installed app
may take. Why, though bench/numpy_blas.py's two runs put WER 0.8 and 1.3 points over the PyPI
wheel's: the log-mel values are as close to float64 without BLAS as with it (3.5e-8 against
3.1e-8), so nothing makes the transcripts systematically worse; they change by rounding, as
they do between CPUs: OpenBLAS's own Haswell kernel (what Zen and older Intel CPUs run) gave
33.49% against its SkylakeX kernel's 32.85%, the level of the runs without BLAS (33.15%,
33.55%), and the same wheel run twice differed by 0.6 points. Transcription costs 1.3% more
wall time (median of 7 runs): the mel product, 0.3 s per five minutes of speech.
The Windows and macOS wheels bundle OpenBLAS too (scipy-openblas in numpy.libs / .dylibs);
the same recipe would build there with MSVC or Xcode's clang, untried, so build.ps1 and
build_dmg.sh keep the PyPI wheel. Tests and development keep the PyPI wheel everywhere.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script

from installer import sdist_build
from installer.sdist_build import Sdist

PACKAGE = "numpy"
SETUP_ARGS = ("-Dblas=none", "-Dlapack=none", "-Dallow-noblas=true")
BUILD_COMMAND = ["uv", "build", "--wheel", *(f"-Csetup-args={arg}" for arg in SETUP_ARGS)]
# The wheel is for one Python (cp311-...): the key has its version, since 3.12 and 3.13
# build the same locked sdist.
PYTHON = f"cp{sys.version_info.major}{sys.version_info.minor}"


def cache_key(sdist: Sdist) -> str:
    return sdist_build.cache_key(sdist, [PYTHON, *BUILD_COMMAND])


def locked_sdist(lock: Path) -> Sdist:
    return sdist_build.locked_sdist(lock, PACKAGE)


def build(sdist: Path, out: Path, jobs: int) -> Path:
    """numpy's meson build through uv, for the Python running this script."""
    command = [*BUILD_COMMAND, "--python", sys.executable, f"-Ccompile-args=-j{jobs}"]
    return sdist_build.build(sdist, out, command)


def check() -> None:
    """The environment's numpy is the locked release built without BLAS: no OpenBLAS beside
    it, its linear algebra answers from lapack_lite, and what the app computes with numpy
    imports and runs (faster-whisper's features, OpenCV, onnxruntime and hnswlib, built
    against numpy's C API)."""
    import numpy as np

    config: dict = np.show_config(mode="dicts")  # type: ignore[assignment]
    blas = config["Build Dependencies"]["blas"]
    folder = Path(np.__file__).parent
    bundled = sorted(p.name for p in folder.parent.glob("numpy.libs/*"))
    if blas.get("found") or bundled:
        raise SystemExit(f"build_wheel: {folder} has BLAS {blas}, libraries {bundled}")
    locked = locked_sdist(Path(__file__).resolve().parents[2] / "uv.lock")
    if np.__version__ != locked.version:
        raise SystemExit(f"build_wheel: numpy {np.__version__} is not the locked {locked.version}")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((40, 40))
    if not np.allclose(a @ np.linalg.inv(a), np.eye(40), atol=1e-8):
        raise SystemExit("build_wheel: numpy.linalg.inv gives a wrong inverse")
    import cv2
    import hnswlib  # noqa: F401
    import onnxruntime  # noqa: F401
    from faster_whisper.feature_extractor import FeatureExtractor

    mel = FeatureExtractor(feature_size=80)(rng.standard_normal(16_000).astype(np.float32))
    if mel.shape != (80, 101) or not np.isfinite(mel).all():
        raise SystemExit(f"build_wheel: log-mel features of shape {mel.shape}")
    cv2.resize(np.zeros((8, 8), np.uint8), (4, 4))
    print(f"build_wheel: {folder} is numpy {np.__version__} without BLAS ({blas.get('name')})")


RECIPE = sdist_build.Recipe(
    name="numpy",
    package=PACKAGE,
    title="numpy without BLAS/LAPACK",
    key=cache_key,
    build=build,
    check=check,
)


if __name__ == "__main__":
    sdist_build.main(RECIPE)
