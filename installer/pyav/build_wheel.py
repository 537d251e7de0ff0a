"""Builds the Linux installer's PyAV: the locked release from its PyPI sdist, against an FFmpeg
that only reads media (installer/sdist_build.py's command line):

    python installer/pyav/build_wheel.py [--cache DIR] [--jobs N]   prints the wheel's path
    python installer/pyav/build_wheel.py --key     the cache key (CI's actions/cache)
    python installer/pyav/build_wheel.py --check   the environment's av is this build

PyAV is how the engine reads every audio and video file: faster-whisper's decode_audio (a
demuxer, a decoder, and the abuffer -> aformat -> abuffersink graph of AudioResampler, into
which FFmpeg puts aresample), and engine/media's probing and frame reading (demuxers,
decoders, swscale through VideoFrame.to_ndarray). It never writes media: no encoder, muxer,
network protocol or device is used, and URL import downloads with yt-dlp, not through FFmpeg.
The PyPI wheel's FFmpeg has all of those, with x264, x265, SVT-AV1, LAME, libvpx, gnutls
(and nettle, gmp, ...), libvpl, ALSA and xcb beside it: av.libs is 43 MB in the bundle even
with the encoders stubbed. This FFmpeg is the same release as the wheel's (8.1.2, so the
same decoders give the same samples and pictures) with every one of FFmpeg's own decoders,
demuxers, parsers and bitstream filters, AV1 through dav1d (built here, the release Debian
sid has, 1.5.4: FFmpeg 8.1 needs dav1d >= 1.0 and Ubuntu 22.04, where the release workflow
builds, has 0.9.2; FFmpeg prefers it to its own AV1 decoder, which only drives hardware),
the file and pipe protocols, the filters PyAV's AudioResampler and Graph use (FILTERS), and
nothing else (CONFIGURE).

The sources are Debian's copies of the release tarballs (the wheel's own build downloads
FFmpeg's from ffmpeg.org): their sha256 are pinned below, as Debian sid's Sources index gives
them for ffmpeg 7:8.1.2-2 and dav1d 1.5.4-1 (that index's InRelease verified with gpgv
against debian-archive-keyring's trixie key), and each release's own signature (the .asc
beside the tarball) verified against the signing key in Debian's debian/upstream/
signing-key.asc (FFmpeg's release key, VideoLAN's release key), on 2026-11-26. dav1d builds
with meson and ninja from PyPI (uvx, versions pinned); FFmpeg's and dav1d's assembly with the
system's nasm (scripts/setup build installs it).

The FFmpeg libraries get a build suffix (libavcodec_coursedex.so.62, ...): the player's
libVLC loads the system's libavcodec into the same process, and a library of the same name
already loaded would be used in its place (the PyPI wheel renames its copies for the same
reason). They sit in av.libs/ beside the package, found through an $ORIGIN run path, as the
PyPI wheel's are. The wheel is kept in DIR (default build/wheels) under a key made of the two
tarballs' sha256 and the recipe. Windows and macOS keep PyPI's PyAV (their own FFmpeg).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script

from installer import sdist_build
from installer.sdist_build import Sdist

PACKAGE = "av"
FFMPEG = Sdist(
    version="8.1.2",
    url="http://deb.debian.org/debian/pool/main/f/ffmpeg/ffmpeg_8.1.2.orig.tar.xz",
    sha256="464beb5e7bf0c311e68b45ae2f04e9cc2af88851abb4082231742a74d97b524c",
)
DAV1D = Sdist(
    version="1.5.4",
    url="http://deb.debian.org/debian/pool/main/d/dav1d/dav1d_1.5.4.orig.tar.xz",
    sha256="686616b7c69eb88d44459391ab25cac13b6647a3b288835c5784e71c1514a5c5",
)
MESON = ["uvx", "--from", "meson==1.12.1", "--with", "ninja==1.13.0", "meson"]
# A shared library of the 8- and 10-bit decoders, stripped, without the dav1d program.
DAV1D_OPTIONS = [
    "--buildtype=release", "--default-library=shared", "--libdir=lib",
    "-Denable_tools=false", "-Denable_tests=false", "-Denable_examples=false",
]  # fmt: skip
SUFFIX = "_coursedex"
# The filters PyAV builds graphs of: AudioResampler's abuffer -> aformat -> abuffersink, with
# aresample (inserted by FFmpeg, or named when resampler options are given); Graph's video
# buffer/buffersink with format and scale, and null/anull where a graph passes frames through.
# abuffer and buffer name the sources and the sinks (configure names both so), and FFmpeg 8
# builds them into every libavfilter.
FILTERS = ("abuffer", "buffer", "aformat", "aresample", "anull", "format", "scale", "null")
# fmt: off
CONFIGURE = [
    "--enable-shared", "--disable-static", "--disable-programs", "--disable-doc",
    "--disable-debug",  # no DWARF: the bundle would strip it anyway
    f"--build-suffix={SUFFIX}",
    # No library found on the build machine by chance (xcb, ALSA, SDL, VA-API, Vulkan, ...):
    # only what is named here. pthreads (frame threads), zlib (PNG, zlib-compressed tracks)
    # and iconv (glibc's; subtitle text) as in the wheel; libdav1d for AV1.
    "--disable-autodetect", "--enable-pthreads", "--enable-zlib", "--enable-iconv",
    "--enable-libdav1d",  # the one DAV1D builds, found by pkg-config in the same prefix
    "--disable-encoders", "--disable-muxers", "--disable-devices", "--disable-hwaccels",
    "--disable-network", "--disable-protocols", "--enable-protocol=file,pipe",
    "--disable-filters", f"--enable-filter={','.join(FILTERS)}",
    # Each library finds the others (and libdav1d) beside it. configure evaluates the value
    # once and make twice more (library.mak's link rule is expanded in an eval): the linker
    # gets -rpath,$ORIGIN.
    r"--extra-ldflags=-Wl,-rpath,\\\$\$\$\$ORIGIN",
]
# fmt: on
# The extension modules are in av/ and one or two folders below it; av.libs is beside av/.
PYAV_LDFLAGS = "-Wl,-rpath,$ORIGIN/../av.libs:$ORIGIN/../../av.libs:$ORIGIN/../../../av.libs"
BUILD_COMMAND = ["uv", "build", "--wheel"]
# Decoders and demuxers of what lectures come in, which --check opens by name.
# fmt: off
DECODERS = (
    "h264", "hevc", "vp8", "vp9", "libdav1d", "mpeg4", "mpeg2video", "mpeg1video", "wmv3",
    "vc1", "mjpeg", "theora", "prores", "aac", "mp3", "opus", "vorbis", "flac", "ac3", "eac3",
    "wmav2", "alac", "amrnb", "pcm_s16le", "pcm_f32le",
)
DEMUXERS = ("mov", "matroska", "avi", "asf", "mp3", "aac", "wav", "flac", "ogg", "mpegts", "flv")
# fmt: on


def locked_sdist(lock: Path) -> Sdist:
    return sdist_build.locked_sdist(lock, PACKAGE)


def cache_key(sdist: Sdist) -> str:
    """PyAV's sdist, FFmpeg's tarball and what the build does with them."""
    recipe = [FFMPEG.sha256, DAV1D.sha256, *MESON, *DAV1D_OPTIONS, *CONFIGURE, PYAV_LDFLAGS]
    recipe += [*BUILD_COMMAND, SUFFIX]
    return sdist_build.cache_key(sdist, recipe)


def build(sdist: Path, out: Path, jobs: int) -> Path:
    """dav1d and FFmpeg (configured with CONFIGURE) installed into a scratch prefix; PyAV built
    against them; their libraries put into the wheel's av.libs/."""
    ffmpeg = sdist_build.fetch(FFMPEG, sdist.parent)
    dav1d = sdist_build.fetch(DAV1D, sdist.parent)
    with tempfile.TemporaryDirectory(prefix="pyav-wheel-") as tmp:
        prefix = Path(tmp) / "prefix"
        build_dav1d(dav1d, Path(tmp), prefix)
        build_ffmpeg(ffmpeg, Path(tmp), prefix, jobs)
        env = {
            "PKG_CONFIG_PATH": str(prefix / "lib" / "pkgconfig"),
            "LDFLAGS": PYAV_LDFLAGS,
            "MAKEFLAGS": f"-j{jobs}",
        }
        plain = sdist_build.build(sdist, Path(tmp) / "plain", BUILD_COMMAND, env=env)
        out.mkdir(parents=True, exist_ok=True)
        return graft(plain, _libraries(prefix / "lib"), out)


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    """A build step, its log on stderr (stdout is the wheel's path alone)."""
    subprocess.run(
        command, cwd=cwd, env={**os.environ, **(env or {})}, check=True, stdout=sys.stderr
    )


def build_dav1d(tarball: Path, work: Path, prefix: Path) -> None:
    """libdav1d built with meson and installed, stripped, into ``prefix``."""
    tree = sdist_build.unpack(tarball, work / tarball.name.split("_")[0])
    _run([*MESON, "setup", str(work / "dav1d-build"), f"--prefix={prefix}", *DAV1D_OPTIONS], tree)
    _run([*MESON, "install", "--strip", "-C", str(work / "dav1d-build")], tree)


def build_ffmpeg(tarball: Path, work: Path, prefix: Path, jobs: int) -> None:
    """FFmpeg built and installed into ``prefix``, where it finds dav1d."""
    tree = sdist_build.unpack(tarball, work / tarball.name.split("_")[0])
    env = {"PKG_CONFIG_PATH": str(prefix / "lib" / "pkgconfig")}
    _run(["./configure", f"--prefix={prefix}", *CONFIGURE], tree, env)
    _run(["make", f"-j{jobs}"], tree)
    _run(["make", "install"], tree)  # installs the libraries stripped
    # PyAV asks pkg-config for libavcodec, ...: the same files under the names without the
    # suffix (their -l flags and Requires keep it, so PyAV links the suffixed libraries).
    pkgconfig = prefix / "lib" / "pkgconfig"
    for pc in pkgconfig.glob(f"*{SUFFIX}.pc"):
        shutil.copy(pc, pkgconfig / pc.name.replace(SUFFIX, ""))


def _soname(path: Path) -> str:
    dynamic = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True)
    found = re.search(r"\(SONAME\)\s+Library soname: \[(.+)\]", dynamic.stdout)
    if found is None:
        raise SystemExit(f"build_wheel: {path} has no SONAME")
    return found.group(1)


def _libraries(libdir: Path) -> dict[str, Path]:
    """The FFmpeg libraries and libdav1d, by SONAME (the name their users load)."""
    files = [*libdir.glob(f"lib*{SUFFIX}.so.*"), *libdir.glob("libdav1d.so.*")]
    return {_soname(path): path for path in sorted(files) if not path.is_symlink()}


def _record_row(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def graft(wheel: Path, libraries: dict[str, Path], out: Path) -> Path:
    """A copy of ``wheel`` in ``out`` with ``libraries`` in av.libs/ and RECORD rewritten."""
    target = out / wheel.name
    rows: list[str] = []
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        record = next(n for n in src.namelist() if n.endswith(".dist-info/RECORD"))
        for info in src.infolist():
            if info.filename == record:
                continue
            data = src.read(info)
            dst.writestr(info, data)
            rows.append(_record_row(info.filename, data))
        for soname, path in sorted(libraries.items()):
            info = zipfile.ZipInfo(f"av.libs/{soname}", date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = 0o755 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            data = path.read_bytes()
            dst.writestr(info, data)
            rows.append(_record_row(info.filename, data))
        dst.writestr(record, "\n".join([*rows, f"{record},,"]) + "\n")
    return target


def check() -> None:
    """The environment's av is this build: FFmpeg 8.1.2 from av.libs, the decoders, demuxers
    and filters the app needs, no encoder or muxer; and a resample and a picture conversion
    (the filter graph and swscale faster-whisper and engine/media use) work."""
    import av

    problems = []
    if av.ffmpeg_version_info != FFMPEG.version:
        problems.append(f"FFmpeg {av.ffmpeg_version_info}, not {FFMPEG.version}")
    maps = Path("/proc/self/maps").read_text()
    for library in (f"libavcodec{SUFFIX}.so", "libdav1d.so"):
        if f"av.libs/{library}" not in maps:
            problems.append(f"{library} is not loaded from av.libs")
    problems += [f"no {name} decoder" for name in DECODERS if not _opens(av.Codec, name, "r")]
    problems += [f"no {name} demuxer" for name in DEMUXERS if not _opens(av.ContainerFormat, name)]
    encoders = [name for name in av.codecs_available if _opens(av.Codec, name, "w")]
    muxers = [name for name in av.formats_available if _opens(av.ContainerFormat, name, "w")]
    problems += [f"encoders {encoders}"] * bool(encoders) + [f"muxers {muxers}"] * bool(muxers)
    problems += _converts()
    if problems:
        raise SystemExit(f"build_wheel: {av.__file__}: {'; '.join(problems)}")
    print(f"build_wheel: {av.__file__} is PyAV {av.__version__} on the read-only FFmpeg")


def _opens(kind: type, name: str, mode: str = "r") -> bool:
    import av.error

    try:
        kind(name, mode)
    except (av.error.FFmpegError, ValueError):
        return False
    return True


def _converts() -> list[str]:
    """A second of 44.1 kHz stereo resampled as decode_audio does, and a picture scaled to RGB
    as engine/media/frames.py does; the problems found."""
    import av
    import numpy as np

    problems = []
    resampler = av.AudioResampler(format="s16", layout="mono", rate=16000)
    frame = av.AudioFrame.from_ndarray(
        np.zeros((1, 2 * 44100), np.int16), format="s16", layout="stereo"
    )
    frame.sample_rate = 44100
    samples = sum(f.samples for f in [*resampler.resample(frame), *resampler.resample(None)])
    if samples != 16000:
        problems.append(f"resampled 1 s of audio to {samples} samples, not 16000")
    picture = av.VideoFrame.from_ndarray(np.zeros((180, 320, 3), np.uint8), format="rgb24")
    picture = picture.reformat(format="yuv420p")
    rgb = picture.to_ndarray(format="rgb24", width=160, height=90, interpolation="AREA")
    if rgb.shape != (90, 160, 3):
        problems.append(f"a 320x180 picture scaled to {rgb.shape}, not (90, 160, 3)")
    return problems


RECIPE = sdist_build.Recipe(
    name="pyav",
    package=PACKAGE,
    title=f"PyAV on FFmpeg {FFMPEG.version} with decoders and demuxers only",
    key=cache_key,
    build=build,
    check=check,
)


if __name__ == "__main__":
    if not sys.platform.startswith("linux"):
        raise SystemExit("build_wheel: the read-only PyAV is the Linux installer's only")
    sdist_build.main(RECIPE)
