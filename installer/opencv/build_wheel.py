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
build/venv only). The download, cache and command line are installer/sdist_build.py's.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script

from installer import sdist_build
from installer.sdist_build import Sdist

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


def cache_key(sdist: Sdist) -> str:
    """The sdist and what the build does with it (the key OpenCV's recipe had before
    installer/sdist_build.py, so a wheel already in build/wheels is still found)."""
    return sdist_build.cache_key(sdist, [*CMAKE_ARGS, *PATCHES, *BUILD_ENV.items(), *BUILD_COMMAND])


def locked_sdist(lock: Path) -> Sdist:
    return sdist_build.locked_sdist(lock, PACKAGE)


def build(sdist: Path, out: Path, jobs: int) -> Path:
    """opencv-python's documented manual build (ENABLE_HEADLESS, CMAKE_ARGS), through uv."""
    env = {**BUILD_ENV, "CMAKE_BUILD_PARALLEL_LEVEL": str(jobs), "MAKEFLAGS": f"-j{jobs}"}
    return sdist_build.build(sdist, out, BUILD_COMMAND, env=env, patches=PATCHES)


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


RECIPE = sdist_build.Recipe(
    name="opencv",
    package=PACKAGE,
    title=f"OpenCV with only {MODULES}",
    key=cache_key,
    build=build,
    check=check,
)


if __name__ == "__main__":
    sdist_build.main(RECIPE)
