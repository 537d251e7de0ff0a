"""Which player plays: libVLC only where the user has a VLC that loads, Qt Multimedia
otherwise, and never an exit from python-vlc. No build carries libVLC, so on Windows and
macOS the user's VLC is looked for in its usual install places (laid out here in a
temporary folder, with a file that is not a library where a broken install has one)."""

from __future__ import annotations

import ctypes.util
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.player import libvlc
from app.player.libvlc import LibVlc, PlayerUnavailable
from app.player.view import PlayerView

NOT_A_LIBRARY = b"MZ this is no library\n"


def place(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(NOT_A_LIBRARY)
    return path


def system_libvlc() -> str:
    """The path of the system's libvlc5 (scripts/setup test installs it), from where the
    loader mapped it."""
    name = ctypes.util.find_library("vlc")
    assert name, "libvlc5 is missing: scripts/setup test installs it"
    ctypes.CDLL(name)
    maps = Path("/proc/self/maps").read_text(encoding="utf-8").splitlines()
    return next(line.split()[-1] for line in maps if f"/{name}" in line)


def test_windows_vlc_is_found_in_the_registry_program_files_and_per_user(tmp_path: Path) -> None:
    registry = tmp_path / "D" / "Tools" / "VLC"
    program_files = tmp_path / "Program Files"
    local = tmp_path / "Local"
    environ = {"ProgramFiles": str(program_files), "LOCALAPPDATA": str(local)}
    assert libvlc.installed("win32", environ, registry=iter([str(registry)])) is None

    per_user = place(local / "Programs" / "VideoLAN" / "VLC" / "libvlc.dll")
    found = libvlc.installed("win32", environ, registry=iter([str(registry)]))
    assert found == LibVlc(per_user, per_user.parent / "plugins")

    system_wide = place(program_files / "VideoLAN" / "VLC" / "libvlc.dll")
    assert libvlc.installed("win32", environ, registry=iter([])) == LibVlc(
        system_wide, system_wide.parent / "plugins"
    )
    chosen = place(registry / "libvlc.dll")  # where VLC's installer says it put itself
    found = libvlc.installed("win32", environ, registry=iter([str(registry)]))
    assert found is not None and found.library == chosen
    assert libvlc.installed("linux", environ) is None  # python-vlc finds the system's


def test_macos_vlc_is_found_in_the_users_applications(tmp_path: Path) -> None:
    assert libvlc.installed("darwin", {}, home=tmp_path) is None
    lib = tmp_path / "Applications" / "VLC.app" / "Contents" / "MacOS" / "lib"
    place(lib / "libvlccore.dylib")
    place(lib / "libvlc.dylib")
    found = libvlc.installed("darwin", {}, home=tmp_path)
    assert found == LibVlc(
        lib / "libvlc.dylib", lib.parent / "plugins", (lib / "libvlccore.dylib",)
    )


def test_without_vlc_or_with_a_broken_one_windows_and_macos_get_no_libvlc(
    tmp_path: Path,
) -> None:
    with pytest.raises(PlayerUnavailable, match="VLC is not installed"):
        libvlc.load("win32", {"ProgramFiles": str(tmp_path)})
    broken = place(tmp_path / "VideoLAN" / "VLC" / "libvlc.dll")  # e.g. 32-bit beside 64-bit
    environ = {"ProgramFiles": str(tmp_path)}
    with pytest.raises(PlayerUnavailable, match="cannot be loaded") as caught:
        libvlc.load("win32", environ)
    assert str(broken) in str(caught.value) and "\n" not in str(caught.value)
    assert environ == {"ProgramFiles": str(tmp_path)}  # python-vlc is not pointed at it
    place(tmp_path / "Applications" / "VLC.app" / "Contents" / "MacOS" / "lib" / "libvlc.dylib")
    with pytest.raises(PlayerUnavailable, match="cannot be loaded"):
        libvlc.load("darwin", {}, home=tmp_path)


def test_auto_plays_with_qt_when_the_named_libvlc_does_not_load(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """python-vlc exits the process (sys.exit(1)) on a PYTHON_VLC_LIB_PATH that does not load;
    the window must play with Qt Multimedia instead."""
    monkeypatch.setenv("PYTHON_VLC_LIB_PATH", str(place(tmp_path / "libvlc.so.5")))
    with pytest.raises(PlayerUnavailable, match="cannot be loaded"):
        PlayerView(backend="vlc", vlc_args=("--vout=dummy", "--aout=dummy"))
    player = PlayerView(backend="auto", vlc_args=("--vout=dummy", "--aout=dummy"))
    qtbot.addWidget(player)
    assert player.backend_name == "qt"
    player.shutdown()


def test_auto_plays_with_the_libvlc_named_when_it_loads(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHON_VLC_LIB_PATH", system_libvlc())
    player = PlayerView(backend="auto", vlc_args=("--vout=dummy", "--aout=dummy"))
    qtbot.addWidget(player)
    assert player.backend_name == "vlc"
    player.shutdown()
