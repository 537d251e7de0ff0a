"""installer/sdist_build.py, what the installer's wheel recipes share: it takes the sdist uv.lock
pins for the Python that runs it (the lock pins numpy 2.4.6 for 3.11 and 2.5.5 for 3.12+), and
a patch that no longer matches stops the build. No download and no build here."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from installer import sdist_build

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "uv.lock"


@pytest.mark.parametrize(
    ("python", "version"), [((3, 11, 7), "2.4.6"), ((3, 12, 1), "2.5.5"), ((3, 13, 0), "2.5.5")]
)
def test_the_sdist_is_the_release_locked_for_that_python(
    python: tuple[int, int, int], version: str
) -> None:
    sdist = sdist_build.locked_sdist(LOCK, "numpy", python)
    assert sdist.version == version
    assert sdist.url.endswith(f"/numpy-{version}.tar.gz")


def test_the_running_pythons_release_is_the_installed_one() -> None:
    import numpy

    assert sdist_build.locked_sdist(LOCK, "numpy").version == numpy.__version__


def test_a_package_without_an_sdist_in_the_lock_is_an_error() -> None:
    with pytest.raises(SystemExit, match="no sdist of no-such-package"):
        sdist_build.locked_sdist(LOCK, "no-such-package")


def _sdist(folder: Path, text: str) -> Path:
    path = folder / "pkg-1.0.tar.gz"
    data = text.encode()
    with tarfile.open(path, "w:gz") as archive:
        member = tarfile.TarInfo("pkg-1.0/setup.py")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    return path


def test_patches_apply_once_and_a_moved_text_stops_the_build(tmp_path: Path) -> None:
    sdist = _sdist(tmp_path, "a = 1\nb = 2\n")
    tree = sdist_build.unpack(sdist, tmp_path / "one", [("setup.py", "b = 2\n", "b = 3\n")])
    assert (tree / "setup.py").read_text() == "a = 1\nb = 3\n"
    with pytest.raises(SystemExit, match="no longer has"):
        sdist_build.unpack(sdist, tmp_path / "two", [("setup.py", "c = 2\n", "c = 3\n")])


def test_the_key_changes_with_the_sdist_and_the_recipe() -> None:
    sdist = sdist_build.Sdist("1.0", "https://x/pkg-1.0.tar.gz", "a" * 64)
    key = sdist_build.cache_key(sdist, ["-Dblas=none"])
    assert key == sdist_build.cache_key(sdist, ["-Dblas=none"])
    assert key != sdist_build.cache_key(sdist, ["-Dblas=auto"])
    assert key != sdist_build.cache_key(sdist._replace(sha256="b" * 64), ["-Dblas=none"])
