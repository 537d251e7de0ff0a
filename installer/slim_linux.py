"""Cuts the Linux bundle without changing what the app does (installer/coursedex.spec).

Each function takes PyInstaller's binaries list ((dest, source, typecode) entries) and returns
the trimmed one; files that need a change are written under ``work`` first, so the
environment's own copies stay as they are. (PyAV's FFmpeg needs no cut here: the Linux
build's PyAV is installer/pyav/build_wheel.py's, without encoders and the libraries they load.)

- what only a dropped file loads: the GTK platform theme (Qt's own dialogs and style serve
  instead) pulls in the build machine's GTK, Cairo and Pango (18 MB) which would also
  shadow the user's own; so do the Qt plugins of PLUGINS_UNUSED, and the system libraries
  that only Qt libraries cut earlier (in the spec) loaded.
- system libraries every Debian and Ubuntu has (libstdc++, zlib, ...) and the desktop's own
  (GLib, X11, FreeType, D-Bus, OpenSSL, ...: FROM_THE_SYSTEM) come from the user's system,
  as the .deb declares.
- Qt's ICU data: libicudata (31 MB, every ICU item for every locale) rebuilt with the items
  Qt Core reads (collation, the common converters, time zones), 4 MB
  (installer/icu_subset.py says what goes and why).
"""

from __future__ import annotations

import functools
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

Entry = tuple[str, str, str]

# Qt plugins (a folder of plugins/, or one file) nothing in the app asks for on a desktop.
PLUGINS_UNUSED = (
    "platformthemes/libqgtk3.so",  # see above
    # Platforms of devices without a desktop (framebuffer, EGL full screen, VNC, a Vulkan
    # display) and the input and EGL plugins only they load: xcb, Wayland, offscreen stay.
    "platforms/libqlinuxfb.so",
    "platforms/libqeglfs.so",
    "platforms/libqminimalegl.so",
    "platforms/libqvnc.so",
    "platforms/libqvkkhrdisplay.so",
    "egldeviceintegrations/",
    "generic/",
    # Qt's on-screen keyboard for kiosks (it alone would pull Qt Quick and QML back, 17 MB).
    "platforminputcontexts/libqtvirtualkeyboardplugin.so",
    # QNetworkInformation and TLS for Qt's sockets: the app's one Qt socket is a local one
    # (app/single_instance.py); downloads go through Python. The GLib plugin pulls GIO.
    "networkinformation/",
    "tls/",
)


@functools.cache
def _symbols(path: str | Path, *options: str) -> list[list[str]]:
    """readelf's lines, split; none for a file that is not ELF."""
    run = subprocess.run(
        ["readelf", "-W", *options, str(path)], capture_output=True, text=True, check=False
    )
    return [line.split() for line in run.stdout.splitlines()]


def drop_plugins(binaries: list[Entry], unused: Iterable[str] = PLUGINS_UNUSED) -> list[Entry]:
    """Qt plugins the app does not use (the libraries only they load go in drop_unreached)."""
    unused = tuple(unused)

    def is_unused(dest: str) -> bool:
        plugin = dest.replace("\\", "/").partition("/plugins/")[2]
        return any(plugin == u or (u.endswith("/") and plugin.startswith(u)) for u in unused)

    return [e for e in binaries if not is_unused(e[0])]


def _needed(path: str) -> list[str]:
    return [f[-1].strip("[]") for f in _symbols(path, "-d") if "(NEEDED)" in f]


def _loaded(roots: Iterable[Entry], binaries: list[Entry]) -> set[str]:
    """Source paths of every bundled library the roots load, directly or not."""
    by_name: dict[str, Entry] = {}
    for entry in binaries:
        if entry[2] != "SYMLINK":
            by_name.setdefault(Path(entry[0]).name, entry)
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        entry = todo.pop()
        for name in _needed(entry[1]):
            lib = by_name.get(name)
            if lib is not None and lib[1] not in seen:
                seen.add(lib[1])
                todo.append(lib)
    return seen


def drop_unreached(before: list[Entry], after: list[Entry]) -> list[Entry]:
    """Drops the libraries that something loaded before the cuts and nothing loads after
    (told by their source file, as a library may have moved); one loaded by name at run time
    (ctypes) was never loaded by anything, and stays."""
    files = [e for e in after if e[2] != "SYMLINK"]
    once = _loaded([e for e in before if e[2] != "SYMLINK"], before)
    gone = once - _loaded([e for e in files if e[1] not in once], after)
    saved = sum(Path(e[1]).stat().st_size for e in files if e[1] in gone)
    print(
        f"slim_linux: dropped {len(gone)} libraries nothing loads any more ({saved / 1e6:.0f} MB)"
    )
    return [e for e in after if e[2] == "SYMLINK" or e[1] not in gone]


# System libraries taken from the user's system, not the build machine's copy: every Debian
# and Ubuntu has them (dpkg and apt need all but expat, which fontconfig needs), and the .deb
# depends on their packages (installer/linux/make_deb.sh). The build machine's libstdc++ and
# expat (Debian 12) need glibc 2.36, so bundled they stopped the app on Ubuntu 22.04 (2.35);
# and a bundled libstdc++ older than the user's would break the system's GL drivers and VLC
# plugins that the app loads.
# The desktop's own libraries, which Qt's libraries and plugins load (a PySide6 installed from
# PyPI takes every one of them from the system too): GLib, X11 and XCB with xkbcommon,
# FreeType and Fontconfig (with libpng, Brotli, PCRE2), D-Bus (with systemd's client, gcrypt,
# lz4, libcap), Kerberos' GSSAPI (Qt Network), and OpenSSL (Python's ssl and hashlib, built
# against OpenSSL 3, whose ABI is kept across 3.x), libffi (ctypes). Each has kept its
# soname for a decade; a bundled copy from the build machine would shadow a newer one the
# user's GL drivers, input methods and themes load. 16 MB.
DESKTOP = (
    "libglib-2.0.so.0", "libgthread-2.0.so.0", "libpcre2-8.so.0",
    "libX11.so.6", "libX11-xcb.so.1", "libxkbcommon.so.0", "libxkbcommon-x11.so.0",
    "libfreetype.so.6", "libfontconfig.so.1", "libpng16.so.16",
    "libbrotlicommon.so.1", "libbrotlidec.so.1",
    "libdbus-1.so.3", "libsystemd.so.0", "libgcrypt.so.20", "libgpg-error.so.0",
    "liblz4.so.1", "libcap.so.2",
    "libgssapi_krb5.so.2", "libkrb5.so.3", "libk5crypto.so.3", "libkrb5support.so.0",
    "libcom_err.so.2", "libkeyutils.so.1",
    "libssl.so.3", "libcrypto.so.3", "libffi.so.8", "libuuid.so.1",
)  # fmt: skip
FROM_THE_SYSTEM = (
    "libstdc++.so.6",
    "libgcc_s.so.1",
    "libexpat.so.1",
    "libz.so.1",
    "liblzma.so.5",
    "libzstd.so.1",
    "libbz2.so.1.0",
    *DESKTOP,
)


def from_the_system(binaries: list[Entry], names: Iterable[str] = FROM_THE_SYSTEM) -> list[Entry]:
    """Drops the FROM_THE_SYSTEM libraries at the top of the bundle (the wheels' own copies,
    under hashed names in their .libs folders, stay)."""
    names = set(names)
    return [e for e in binaries if not ("/" not in e[0] and e[0] in names and e[2] == "BINARY")]


def drop_orphans(binaries: list[Entry]) -> list[Entry]:
    """Drops the system libraries at the top of the bundle that no bundled file loads: they
    were collected for the Qt libraries and plugins cut since (WebEngine's NSS, ALSA, udev,
    ...). libVLC's plugins, which load some of them too, take the system's own then, as the
    VLC packages provide them. libpython is loaded by the program itself and stays."""
    files = [e for e in binaries if e[2] != "SYMLINK"]
    top = [  # not the Python modules there (hnswlib's, cffi's): the program imports them
        e for e in files
        if "/" not in e[0].replace("\\", "/") and e[2] == "BINARY" and e[0].startswith("lib")
    ]  # fmt: skip
    roots = [e for e in files if e not in top or Path(e[0]).name.startswith("libpython")]
    loaded = _loaded(roots, binaries) | {e[1] for e in roots}
    gone = {e[1] for e in top if e[1] not in loaded}
    names = sorted(Path(e[0]).name for e in top if e[1] in gone)
    saved = sum(Path(e).stat().st_size for e in gone)
    print(f"slim_linux: dropped {len(gone)} system libraries nothing loads ({saved / 1e6:.0f} MB)")
    print(f"slim_linux: {' '.join(names)}")
    return [e for e in binaries if e[2] == "SYMLINK" or e[1] not in gone]


def small_icu(binaries: list[Entry], work: Path) -> list[Entry]:
    """Qt's libicudata replaced by the subset Qt Core uses (installer/icu_subset.py, which
    the spec finds beside this file)."""
    out: list[Entry] = []
    for entry in binaries:
        if re.fullmatch(r"libicudata\.so\.\d+", Path(entry[0]).name) and entry[2] != "SYMLINK":
            import icu_subset

            entry = (entry[0], str(icu_subset.subset(Path(entry[1]), work / "icu")), entry[2])
        out.append(entry)
    return out


def slim(binaries: list[Entry], work: Path) -> list[Entry]:
    """All the cuts above, in order, with their sizes printed."""
    before = _size(binaries)
    out = drop_plugins(binaries)
    out = small_icu(out, work)
    out = drop_orphans(from_the_system(drop_unreached(binaries, out)))
    print(f"slim_linux: the libraries went from {before / 1e6:.0f} MB to {_size(out) / 1e6:.0f} MB")
    return out


def _size(binaries: list[Entry]) -> int:
    return sum(Path(e[1]).stat().st_size for e in binaries if e[2] != "SYMLINK")
