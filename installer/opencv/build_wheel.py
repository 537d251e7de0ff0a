"""Builds the installer's OpenCV: the locked opencv-python-headless release from its PyPI
sdist, with only the modules the app calls, by opencv-python's documented manual build
(ENABLE_HEADLESS=1 and CMAKE_ARGS):

    python installer/opencv/build_wheel.py [--cache DIR] [--jobs N]   prints the wheel's path
    python installer/opencv/build_wheel.py --key     the cache key (CI's actions/cache)
    python installer/opencv/build_wheel.py --check   the environment's cv2 is this build

The PyPI wheel's cv2 is 74 MB (dnn, ml, objdetect, calib, FFmpeg for videoio, OpenBLAS, ...)
with 60 MB more of libraries beside it; the app reads frames with PyAV and calls only
imgproc/imgcodecs functions, and RapidOCR and scenedetect a few more (CALLED). The wheel is
kept in DIR (default build/wheels) under a key made of the sdist's sha256 and the build's
arguments, so a second run, or a CI job restoring DIR, builds nothing; a changed recipe
builds anew. Tests and development keep the PyPI wheel (the recipes install this one into
build/venv only).
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
from pathlib import Path
from typing import NamedTuple

PACKAGE = "opencv-python-headless"

# core, imgproc, imgcodecs: what engine/ and RapidOCR call (resize, cvtColor, warpPerspective,
# findContours, imencode, ...); geometry (with flann, its dependency): minAreaRect, boxPoints
# and getPerspectiveTransform, which OpenCV 5 moved there and RapidOCR calls; videoio with no
# backend: scenedetect's OpenCV backend names cv2.VideoCapture and cv2.CAP_* when imported,
# though the engine gives it frames from PyAV.
MODULES = "core,imgproc,imgcodecs,videoio,flann,geometry,python_bindings_generator,python3"
# fmt: off
OFF = (
    # videoio backends: frames come from PyAV
    "FFMPEG", "GSTREAMER", "V4L", "1394", "AVFOUNDATION", "DSHOW", "MSMF", "OBSENSOR", "ARAVIS",
    "XIMEA", "UEYE", "PVAPI", "GPHOTO2",
    # picture formats other than JPEG and PNG, which are all the app writes or reads
    "TIFF", "WEBP", "OPENJPEG", "JASPER", "OPENEXR", "AVIF", "JPEGXL", "SPNG", "GDAL", "GDCM",
    "IMGCODEC_GIF", "IMGCODEC_HDR", "IMGCODEC_SUNRASTER", "IMGCODEC_PXM", "IMGCODEC_PFM",
    # BLAS/LAPACK, GPU and vendor accelerations (IPP and KleidiCV download at configure time)
    "LAPACK", "EIGEN", "OPENCL", "VA", "VA_INTEL", "CUDA", "VULKAN", "OPENGL", "OPENVINO",
    "ONNXRUNTIME", "IPP", "ITT", "KLEIDICV", "FASTCV", "TBB", "OPENMP", "PROTOBUF", "FLATBUFFERS",
    # windows of any kind
    "QT", "GTK", "WAYLAND", "FRAMEBUFFER", "WIN32UI",
    # putText's Unicode font (downloaded at configure time); its Hershey fonts stay
    "UNIFONT",
)
# fmt: on
CMAKE_ARGS = [
    "-DPYTHON3_LIMITED_API=ON",  # one cv2 for every Python 3, as the PyPI wheel
    f"-DBUILD_LIST={MODULES}",
    *(f"-DWITH_{name}=OFF" for name in OFF),
    "-DWITH_JPEG=ON",
    "-DWITH_PNG=ON",
    # zlib, libjpeg-turbo and libpng from OpenCV's own 3rdparty, linked in: no system copy
    "-DBUILD_ZLIB=ON",
    "-DBUILD_JPEG=ON",
    "-DBUILD_PNG=ON",
    "-DBUILD_OPENEXR=OFF",
    "-DBUILD_JAVA=OFF",
    "-DBUILD_opencv_apps=OFF",
]
# Every name engine/, app/, RapidOCR and scenedetect take from cv2 (tests/engine/
# test_opencv_wheel.py keeps the list whole); --check finds each in the installed cv2.
# fmt: off
CALLED = (
    "BORDER_CONSTANT", "BORDER_REPLICATE", "CAP_ANY", "CAP_IMAGES", "CAP_PROP_FOURCC",
    "CAP_PROP_FPS", "CAP_PROP_FRAME_COUNT", "CAP_PROP_FRAME_HEIGHT", "CAP_PROP_FRAME_WIDTH",
    "CAP_PROP_ORIENTATION_AUTO", "CAP_PROP_POS_FRAMES", "CAP_PROP_POS_MSEC", "CAP_PROP_SAR_DEN",
    "CAP_PROP_SAR_NUM", "CHAIN_APPROX_SIMPLE", "COLOR_BGR2GRAY", "COLOR_BGR2HSV", "COLOR_BGR2RGB",
    "COLOR_BGR2YUV", "COLOR_GRAY2BGR", "COLOR_RGB2BGR", "COLOR_RGB2GRAY", "Canny",
    "FONT_HERSHEY_SIMPLEX", "HISTCMP_CORREL", "IMWRITE_JPEG_QUALITY", "IMWRITE_PNG_COMPRESSION",
    "INTER_AREA", "INTER_CUBIC", "INTER_LANCZOS4", "INTER_LINEAR", "INTER_NEAREST", "LUT",
    "RETR_LIST", "VideoCapture", "absdiff", "add", "bitwise_and", "bitwise_not", "boxPoints",
    "calcHist", "compareHist", "copyMakeBorder", "cvtColor", "dct", "dilate", "erode", "fillPoly",
    "findContours", "getPerspectiveTransform", "imencode", "imread", "imwrite", "invert", "mean",
    "merge", "minAreaRect", "normalize", "polylines", "putText", "resize", "rotate", "split",
    "warpPerspective",
)
# fmt: on
# OpenCV 5.0's typing stubs name classes of every module (Feature2D, ...) and are not made
# without them; opencv-python's setup.py then stops on the missing py.typed. The frozen app
# needs no stubs: the wheel goes without them.
PATCHES = (
    (
        "setup.py",
        '        [ r"python/cv2/py.typed" ] if sys.version_info >= (3, 6) else []\n',
        "        []  # no typing stubs (installer/opencv/build_wheel.py)\n",
    ),
    (
        "setup.py",
        '        rearrange_cmake_output_data["cv2.typing"] = ["python/cv2" + r"/typing/.*\\.py"]\n',
        "        pass  # cv2.typing is made with the stubs\n",
    ),
)
BUILD_ENV = {"ENABLE_HEADLESS": "1", "CMAKE_ARGS": " ".join(CMAKE_ARGS)}
BUILD_COMMAND = ["uv", "build", "--wheel"]


class Sdist(NamedTuple):
    version: str
    url: str
    sha256: str


def locked_sdist(lock: Path) -> Sdist:
    """The sdist of the release uv.lock pins, so the installer's cv2 is the tested one."""
    text = lock.read_text(encoding="utf-8")
    entry = re.search(
        rf'\nname = "{PACKAGE}"\nversion = "([^"]+)"\n(?:(?!\[\[package\]\]).*\n)*?'
        r'sdist = \{ url = "([^"]+)", hash = "sha256:([0-9a-f]{64})"',
        text,
    )
    if entry is None:
        raise SystemExit(f"build_wheel: uv.lock has no sdist of {PACKAGE}")
    return Sdist(*entry.groups())


def cache_key(sdist: Sdist) -> str:
    """The sdist and what the build does with it: the same key, the same wheel (comments and
    docstrings of this file may change freely)."""
    recipe = [sdist.sha256, *CMAKE_ARGS, *PATCHES, *BUILD_ENV.items(), *BUILD_COMMAND]
    return hashlib.sha256("\n".join(map(str, recipe)).encode()).hexdigest()[:16]


def fetch(sdist: Sdist, folder: Path) -> Path:
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


def unpack(sdist: Path, into: Path) -> Path:
    """The sdist's tree with PATCHES applied; each must match exactly once."""
    with tarfile.open(sdist) as archive:
        archive.extractall(into, filter="data")
    (tree,) = into.iterdir()
    for name, old, new in PATCHES:
        path = tree / name
        text = path.read_text(encoding="utf-8")
        if text.count(old) != 1:
            raise SystemExit(f"build_wheel: {name} no longer has {old!r}: check PATCHES")
        path.write_text(text.replace(old, new), encoding="utf-8")
    return tree


def build(sdist: Path, out: Path, jobs: int) -> Path:
    """opencv-python's documented manual build (ENABLE_HEADLESS, CMAKE_ARGS), through uv."""
    env = {**os.environ, **BUILD_ENV, "CMAKE_BUILD_PARALLEL_LEVEL": str(jobs)}
    env["MAKEFLAGS"] = f"-j{jobs}"
    with tempfile.TemporaryDirectory(prefix="opencv-wheel-") as tmp:
        tree = unpack(sdist, Path(tmp) / "src")
        # The build's log goes to stderr: stdout is the wheel's path alone.
        command = [*BUILD_COMMAND, "--out-dir", tmp, str(tree)]
        subprocess.run(command, env=env, check=True, stdout=sys.stderr)
        (wheel,) = Path(tmp).glob("*.whl")
        out.mkdir(parents=True, exist_ok=True)
        return Path(shutil.move(str(wheel), out / wheel.name))


def check() -> None:
    """The environment's cv2 is this build: every name in CALLED, none of the modules left
    out, and scenedetect and RapidOCR import with it."""
    import cv2

    missing = [name for name in CALLED if not hasattr(cv2, name)]
    extra = [name for name in ("dnn", "ml", "objdetect", "features", "photo") if hasattr(cv2, name)]
    if missing or extra:
        raise SystemExit(f"build_wheel: {cv2.__file__} lacks {missing}, has {extra}")
    import rapidocr_onnxruntime  # noqa: F401
    import scenedetect  # noqa: F401

    print(f"build_wheel: {cv2.__file__} is the minimal OpenCV {cv2.__version__}")


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description="Builds the installer's minimal OpenCV.")
    parser.add_argument("--cache", type=Path, default=root / "build" / "wheels")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--key", action="store_true", help="print the cache key and exit")
    parser.add_argument("--check", action="store_true", help="check the installed cv2")
    args = parser.parse_args()
    sdist = locked_sdist(root / "uv.lock")
    if args.key:
        print(f"opencv-{cache_key(sdist)}")
        return
    if args.check:
        check()
        return
    folder = args.cache / f"opencv-{cache_key(sdist)}"
    built = sorted(folder.glob("*.whl"))
    if not built:
        print(f"build_wheel: building OpenCV {sdist.version} ({MODULES})", file=sys.stderr)
        built = [build(fetch(sdist, args.cache), folder, args.jobs)]
    print(built[0])


if __name__ == "__main__":
    main()
