"""installer/pyav/build_wheel.py, the Linux installer's PyAV on an FFmpeg that only reads
media: its FFmpeg is the release PyPI's PyAV bundles (so the decoders are the same), it enables
every filter PyAV builds a graph of, the app never asks PyAV to write media (there are no
encoders or muxers), and a wheel in its cache is used as it is, built again only when the
recipe changes. The build itself (30-40 min) runs in installer/build.sh, never here."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.scripts import load_script, printed_wheel

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "installer" / "pyav" / "build_wheel.py"
# configure names a source filter and its sink by one name
_CONFIGURE_NAME = {"abuffersink": "abuffer", "buffersink": "buffer"}
# What writing media with PyAV looks like: an output container, a stream to encode, a muxer.
_WRITES = re.compile(
    r"av\.open\([^\n]*['\"]w['\"]|\badd_stream\w*\(|\.mux\(|CodecContext\.create\("
)


def _recipe() -> ModuleType:
    return load_script(RECIPE)


def test_ffmpeg_is_the_release_the_locked_pyav_wheel_bundles() -> None:
    """Same FFmpeg release, same decoders: the installer's samples and pictures are the ones
    the tests see with PyPI's wheel. A PyAV upgrade in uv.lock that moves FFmpeg fails here."""
    import av

    recipe = _recipe()
    assert av.ffmpeg_version_info == recipe.FFMPEG.version
    assert av.__version__ == recipe.locked_sdist(ROOT / "uv.lock").version
    assert recipe.FFMPEG.url.endswith(f"ffmpeg_{recipe.FFMPEG.version}.orig.tar.xz")


def test_every_filter_pyav_builds_a_graph_of_is_enabled() -> None:
    """AudioResampler (faster-whisper's decode_audio) and Graph add filters by name; one
    missing from the build fails only when a file is read. Read from the installed PyAV."""
    import av

    added: set[str] = set()
    for path in Path(av.__file__).parent.rglob("*.py"):
        added.update(re.findall(r"\.add\(\s*\"(\w+)\"", path.read_text(encoding="utf-8")))
    assert {"abuffer", "aformat", "abuffersink"} <= added  # the resampler's graph is found
    missing = {_CONFIGURE_NAME.get(name, name) for name in added} - set(_recipe().FILTERS)
    assert not missing, f"PyAV adds filters {missing}: enable them in FILTERS"


def test_the_app_never_writes_media_with_pyav() -> None:
    """The installer's FFmpeg has no encoders or muxers: writing media through PyAV would
    fail there only. Extracted audio and thumbnails go through other means."""
    found = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for folder in ("engine", "app")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for match in _WRITES.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not found, found


def test_the_write_pattern_finds_writing() -> None:
    examples = [
        'av.open(str(out), "w")',
        "av.open(path, mode='w')",
        "out.add_stream('aac', rate=16000)",
        "container.mux(packet)",
    ]
    assert all(_WRITES.search(text) for text in examples)
    assert not _WRITES.search('av.open(str(video))  # "r"') and not _WRITES.search("x.encode()")


def test_a_cached_wheel_is_used_and_a_changed_recipe_builds_anew(tmp_path: Path) -> None:
    recipe = _recipe()
    sdist = recipe.locked_sdist(ROOT / "uv.lock")
    key = recipe.cache_key(sdist)
    folder = tmp_path / f"pyav-{key}"
    folder.mkdir()
    wheel = folder / "av-18.1.0-cp311-abi3-linux_x86_64.whl"
    wheel.write_bytes(b"")
    assert printed_wheel(RECIPE, tmp_path) == str(wheel)  # no build attempted
    recipe.CONFIGURE.append("--enable-encoder=aac")
    assert recipe.cache_key(sdist) != key
    recipe.CONFIGURE.pop()
    assert recipe.cache_key(sdist) == key
    assert recipe.cache_key(sdist._replace(sha256="0" * 64)) != key
    for source in ("FFMPEG", "DAV1D"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(recipe, source, getattr(recipe, source)._replace(sha256="0" * 64))
            assert recipe.cache_key(sdist) != key
    assert recipe.cache_key(sdist) == key


def test_the_key_printed_for_ci_caches_is_the_cache_folder() -> None:
    run = subprocess.run(
        [sys.executable, str(RECIPE), "--key"], capture_output=True, text=True, check=True
    )
    recipe = _recipe()
    assert run.stdout.strip() == f"pyav-{recipe.cache_key(recipe.locked_sdist(ROOT / 'uv.lock'))}"
