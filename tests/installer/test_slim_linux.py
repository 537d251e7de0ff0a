"""installer/slim_linux.py's cuts of the Linux bundle, on real system libraries and lists of
PyInstaller's entries."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("readelf") is None,
    reason="the Linux bundle's cuts (readelf)",
)


def _slim_module() -> ModuleType:
    return load_script(ROOT / "installer" / "slim_linux.py")


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
