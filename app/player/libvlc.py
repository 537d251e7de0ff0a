"""Finding the user's own VLC, so python-vlc plays with it, and never exits the app.

No build of Coursedex carries libVLC: on Windows and macOS the player is Qt Multimedia (its
FFmpeg backend ships inside the PySide6 wheels), and libVLC plays only where the user
installed VLC: in the usual places on Windows (the registry's InstallDir, Program Files, a
per-user install) and macOS (VLC.app in /Applications or ~/Applications), the system's libvlc5
on Linux (python-vlc finds it itself).

python-vlc calls ``sys.exit(1)`` when ``PYTHON_VLC_LIB_PATH`` names a library that does not
load (a 32-bit VLC beside a 64-bit app, a broken install), so the library is loaded here
first, and a failure is a ``PlayerUnavailable`` the player falls back from.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType


class PlayerUnavailable(Exception):
    """The backend asked for cannot play here; the message is one line saying why."""


@dataclass(frozen=True)
class LibVlc:
    """An installed libVLC: the library to load and the plugin folder beside it."""

    library: Path
    plugins: Path | None
    preload: tuple[Path, ...] = ()  # loaded before ``library`` (macOS: libvlccore)


def _windows_install_dirs(environ: Mapping[str, str], registry: Iterator[str]) -> Iterator[Path]:
    yield from (Path(folder) for folder in registry)
    for variable in ("ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"):
        if environ.get(variable):
            yield Path(environ[variable]) / "VideoLAN" / "VLC"
    if environ.get("LOCALAPPDATA"):
        yield Path(environ["LOCALAPPDATA"]) / "Programs" / "VideoLAN" / "VLC"


def _registry_install_dirs() -> Iterator[str]:
    """VLC's installer writes its folder under HKLM (all users) or HKCU (one user)."""
    if sys.platform != "win32":
        return
    import winreg

    for root in (winreg.HKEY_LOCAL_MACHINE, winreg.HKEY_CURRENT_USER):
        try:
            with winreg.OpenKey(root, "Software\\VideoLAN\\VLC") as key:
                folder, _kind = winreg.QueryValueEx(key, "InstallDir")
        except OSError:
            continue
        if isinstance(folder, str) and folder:
            yield folder


def installed(
    system: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
    home: Path | None = None,
    registry: Iterator[str] | None = None,
) -> LibVlc | None:
    """The first VLC installed in the usual places of ``system`` (win32 or darwin); None
    when there is none, and on Linux, where python-vlc finds the system's libvlc5 itself."""
    if system == "win32":
        for folder in _windows_install_dirs(environ, registry or _registry_install_dirs()):
            if (folder / "libvlc.dll").is_file():
                return LibVlc(folder / "libvlc.dll", folder / "plugins")
    elif system == "darwin":
        home = home if home is not None else Path.home()
        for app in (Path("/Applications/VLC.app"), home / "Applications" / "VLC.app"):
            lib = app / "Contents" / "MacOS" / "lib"
            if (lib / "libvlc.dylib").is_file():
                core = (lib / "libvlccore.dylib",)
                return LibVlc(lib / "libvlc.dylib", app / "Contents" / "MacOS" / "plugins", core)
    return None


def _load(found: LibVlc, environ: MutableMapping[str, str]) -> None:
    """Load the library (dependencies first); python-vlc then takes it from the environment."""
    try:
        for library in (*found.preload, found.library):
            ctypes.CDLL(str(library))
    except OSError as e:
        raise PlayerUnavailable(f"libVLC at {found.library} cannot be loaded: {e}") from e
    environ["PYTHON_VLC_LIB_PATH"] = str(found.library)
    if found.plugins is not None and found.plugins.is_dir():
        environ["PYTHON_VLC_MODULE_PATH"] = str(found.plugins)
    else:  # python-vlc exits on a missing plugin folder too
        environ.pop("PYTHON_VLC_MODULE_PATH", None)


def load(
    system: str = sys.platform,
    environ: MutableMapping[str, str] = os.environ,
    home: Path | None = None,
) -> ModuleType:
    """python-vlc bound to a libVLC that loads: the one ``PYTHON_VLC_LIB_PATH`` names, else
    the user's VLC (Windows, macOS) or the system's (Linux).

    Raises:
        PlayerUnavailable: no VLC is installed, or its library does not load.
    """
    named = environ.get("PYTHON_VLC_LIB_PATH")
    if named:
        plugins = environ.get("PYTHON_VLC_MODULE_PATH")
        _load(LibVlc(Path(named), Path(plugins) if plugins else None), environ)
    elif system in ("win32", "darwin"):
        found = installed(system, environ, home)
        if found is None:
            raise PlayerUnavailable("VLC is not installed")
        _load(found, environ)
    if "vlc" in sys.modules:
        return sys.modules["vlc"]  # a library loads once per process
    try:
        import vlc
    except (ImportError, OSError, NotImplementedError) as e:  # python-vlc without libVLC
        raise PlayerUnavailable(f"libVLC cannot be loaded: {e}") from e
    version = vlc.libvlc_get_version().decode(errors="replace")
    if not version.startswith("3."):
        raise PlayerUnavailable(f"libVLC {version} is installed; this player needs VLC 3")
    return vlc
