"""installer/slim_linux.py on the environment's real OpenCV and PyAV libraries: the trimmed
copies load in either order, share one FFmpeg, read and write pictures and video, and what
was cut fails loudly instead of giving a wrong result."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("gcc") is None,
    reason="the Linux bundle's cuts (readelf, gcc)",
)


def _slim_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "slim_linux", ROOT / "installer" / "slim_linux.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def slimmed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """cv2 and av as the bundle has them: packages copied, libraries from slim()."""
    import av
    import cv2

    slim = _slim_module()
    site = Path(cv2.__file__).parent.parent
    binaries: list[tuple[str, str, str]] = []
    for folder in ("cv2", "av", "av.libs", "opencv_python_headless.libs"):
        for path in sorted((site / folder).rglob("*.so*")):
            kind = "EXTENSION" if folder in ("cv2", "av") else "BINARY"
            binaries.append((path.relative_to(site).as_posix(), str(path), kind))
    out = slim.slim(binaries, tmp_path_factory.mktemp("work"))
    target = tmp_path_factory.mktemp("site")
    for package in (Path(cv2.__file__).parent, Path(av.__file__).parent):
        shutil.copytree(package, target / package.name, ignore=shutil.ignore_patterns("*.so*"))
    for dest, source, kind in out:
        assert kind != "SYMLINK"
        (target / dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / dest)
    return target


def _run(site: Path, code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )


_USE = """
import re, sys
import numpy as np
first = sys.argv[1] if len(sys.argv) > 1 else "{first}"
if first == "cv2":
    import cv2, av
else:
    import av, cv2
assert cv2.__file__.startswith({site!r}) and av.__file__.startswith({site!r})
picture = np.zeros((90, 160, 3), np.uint8)
picture[20:40, 30:120] = 255
assert cv2.imencode(".jpg", picture)[0] and cv2.imencode(".png", picture)[0]
grey = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
mask = (grey > 128).astype(np.uint8)
contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
print("box", cv2.minAreaRect(contours[0])[1])
with av.open({video!r}) as container:
    print("frames", sum(1 for _ in container.decode(video=0)))
out = av.open("out.mkv", "w")
stream = out.add_stream("libx264", rate=25)
stream.width, stream.height, stream.pix_fmt = 64, 64, "yuv420p"
try:
    stream.codec_context.open()
    print("encoder opened")
except av.error.FFmpegError as e:
    print("encoder fails:", type(e).__name__)
maps = open("/proc/self/maps").read()
print("ffmpeg", sorted(set(re.findall(r"/([^/]+)/libavcodec[^/\\n]*", maps))))
"""


@pytest.mark.parametrize("first", ["cv2", "av"])
def test_opencv_and_pyav_share_pyavs_ffmpeg_and_work(
    slimmed: Path, first: str, tmp_path: Path
) -> None:
    video = tmp_path / "in.mp4"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=1:size=320x180:rate=25",
         "-pix_fmt", "yuv420p", str(video)],
        check=True,
    )  # fmt: skip
    code = _USE.format(first=first, site=str(slimmed), video=str(video))
    run = _run(slimmed, code, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert "box (89.0, 19.0)" in lines or "box (19.0, 89.0)" in lines, lines
    assert "frames 25" in lines
    assert "encoder fails: ExternalError" in lines  # x264 is a stub: no crash, an error
    assert "ffmpeg ['av.libs']" in lines  # one libavcodec, PyAV's
    assert not (slimmed / "opencv_python_headless.libs").exists()


def test_a_cut_library_stops_the_app_with_a_message(slimmed: Path, tmp_path: Path) -> None:
    """OpenCV solves a system of 200 equations with OpenBLAS, which is not in the bundle:
    the app stops and says so rather than return a wrong answer."""
    code = (
        "import numpy as np, cv2\n"
        "a = np.eye(200, dtype=np.float32) * 2; b = np.ones((200, 1), np.float32)\n"
        "print(cv2.solve(a, b)[1][:3].ravel())\n"
    )
    run = _run(slimmed, code, tmp_path)
    assert run.returncode != 0
    assert re.search(r"coursedex: \w+ of libopenblas\S+ is not in this build", run.stderr)


def test_pillows_own_libraries_are_not_stubbed(tmp_path: Path) -> None:
    """Pillow's libavif reads AVIF pictures the user may add; only av.libs' copies (PyAV's
    encoders, OpenCV's OpenBLAS and libavif) are cut."""
    import PIL

    site = Path(PIL.__file__).parent.parent
    binaries = [
        (path.relative_to(site).as_posix(), str(path), "BINARY")
        for path in sorted((site / "pillow.libs").glob("lib*.so*"))
    ] + [(f"PIL/{p.name}", str(p), "EXTENSION") for p in (site / "PIL").glob("_avif*.so")]
    assert any("libavif-" in dest for dest, _, _ in binaries)
    assert _slim_module().stub_libraries(binaries, tmp_path) == binaries


def test_system_libraries_nothing_loads_go_and_loaded_ones_stay(tmp_path: Path) -> None:
    """Python's _ssl loads libssl, which loads libcrypto: both stay at the top of the bundle;
    libbz2 there, which nothing bundled loads any more, goes; libpython and the Python
    modules there (hnswlib's) always stay."""
    import _ssl
    import sysconfig

    system = Path("/usr/lib/x86_64-linux-gnu")
    libpython = Path(sysconfig.get_config_var("LIBDIR")) / str(
        sysconfig.get_config_var("INSTSONAME")
    )
    needed = [system / "libssl.so.3", system / "libcrypto.so.3", system / "libbz2.so.1.0"]
    if not all(p.is_file() for p in [*needed, libpython]):
        pytest.skip("not a Debian-style system library layout")
    import hnswlib

    binaries = [
        ("python3.11/lib-dynload/_ssl.so", str(_ssl.__file__), "EXTENSION"),
        *((p.name, str(p), "BINARY") for p in needed),
        (libpython.name, str(libpython), "BINARY"),
        ("libbz2.so.1", "libbz2.so.1.0", "SYMLINK"),
        # A top-level Python module, which nothing loads but the program's imports.
        (Path(str(hnswlib.__file__)).name, str(hnswlib.__file__), "EXTENSION"),
    ]
    kept = _slim_module().drop_orphans(binaries)
    assert [e[0] for e in kept] == [
        "python3.11/lib-dynload/_ssl.so", "libssl.so.3", "libcrypto.so.3", libpython.name,
        "libbz2.so.1", Path(str(hnswlib.__file__)).name,
    ]  # fmt: skip


def test_unused_qt_plugins_go_by_file_and_by_folder() -> None:
    plugins = "PySide6/Qt/plugins/"
    binaries = [
        (plugins + name, "/nowhere/" + name, "BINARY")
        for name in (
            "platforms/libqxcb.so", "platforms/libqvnc.so", "platforms/libqwayland.so",
            "generic/libqevdevmouseplugin.so", "networkinformation/libqglib.so",
            "platforminputcontexts/libqtvirtualkeyboardplugin.so",
            "platforminputcontexts/libcomposeplatforminputcontextplugin.so",
            "imageformats/libqjpeg.so",
        )
    ]  # fmt: skip
    kept = [e[0].removeprefix(plugins) for e in _slim_module().drop_plugins(binaries)]
    assert kept == [
        "platforms/libqxcb.so", "platforms/libqwayland.so",
        "platforminputcontexts/libcomposeplatforminputcontextplugin.so",
        "imageformats/libqjpeg.so",
    ]  # fmt: skip


def test_libraries_every_system_has_come_from_the_system() -> None:
    """The build machine's libstdc++ needs a newer glibc than Ubuntu 22.04's: the top-level
    copy goes (the .deb depends on libstdc++6); a wheel's own copy in its .libs folder stays."""
    binaries = [
        ("libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "BINARY"),
        ("libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1", "BINARY"),
        ("libsqlite3.so.0", "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0", "BINARY"),
        ("pillow.libs/libz-1.so.1", "/nowhere/libz-1.so.1", "BINARY"),
    ]
    kept = [e[0] for e in _slim_module().from_the_system(binaries)]
    assert kept == ["libsqlite3.so.0", "pillow.libs/libz-1.so.1"]
