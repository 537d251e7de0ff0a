"""installer/slim_linux.py on the environment's real PyAV libraries: the trimmed copies decode
video, and an encoder that was cut fails to open with PyAV's error instead of crashing."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("gcc") is None,
    reason="the Linux bundle's cuts (readelf, gcc)",
)


def _slim_module() -> ModuleType:
    return load_script(ROOT / "installer" / "slim_linux.py")


@pytest.fixture(scope="module")
def slimmed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """av as the bundle has it: the package copied, its libraries from slim()."""
    import av

    slim = _slim_module()
    site = Path(av.__file__).parent.parent
    binaries: list[tuple[str, str, str]] = []
    for folder in ("av", "av.libs"):
        for path in sorted((site / folder).rglob("*.so*")):
            kind = "EXTENSION" if folder == "av" else "BINARY"
            binaries.append((path.relative_to(site).as_posix(), str(path), kind))
    out = slim.slim(binaries, tmp_path_factory.mktemp("work"))
    target = tmp_path_factory.mktemp("site")
    shutil.copytree(Path(av.__file__).parent, target / "av", ignore=shutil.ignore_patterns("*.so*"))
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
import av
assert av.__file__.startswith({site!r})
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
"""


def test_pyav_decodes_and_a_cut_encoder_fails_to_open(slimmed: Path, tmp_path: Path) -> None:
    video = tmp_path / "in.mp4"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=1:size=320x180:rate=25",
         "-pix_fmt", "yuv420p", str(video)],
        check=True,
    )  # fmt: skip
    run = _run(slimmed, _USE.format(site=str(slimmed), video=str(video)), tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert "frames 25" in lines
    assert "encoder fails: ExternalError" in lines  # x264 is a stub: no crash, an error


def test_pillows_own_libraries_are_not_stubbed(tmp_path: Path) -> None:
    """Pillow's libraries (its libavif reads AVIF pictures the user may add) are kept: only
    av.libs' encoders are cut."""
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
