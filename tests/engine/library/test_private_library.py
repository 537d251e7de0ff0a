"""A library is private (issue 25, item 9): under a umask of 022 its folders are 0700 and its
files 0600 (library.db and its WAL files, library.lock, vectors/, thumbs/, a download in
media/), also after files are replaced; an existing library with loose modes is tightened
when opened for writing, and left as it is when opened read-only."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.integrations.url_import import import_url
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from tests.web_site import clear_proxies, serve_site

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's")

Opener = Callable[[Path], Library]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_site(tmp_path_factory.mktemp("site")) as url:
        yield url


@pytest.fixture(autouse=True)
def _umask_022(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The usual umask: what a process makes is readable by all unless we say otherwise."""
    clear_proxies(monkeypatch)
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


@pytest.fixture
def open_library(models_dir: Path, embedder: OnnxEmbedder) -> Iterator[Opener]:
    opened: list[Library] = []

    def open_(folder: Path) -> Library:
        library = Library.open(
            folder, EngineConfig(), lambda: embedder, models=ModelRegistry(models_dir)
        )
        opened.append(library)
        return library

    yield open_
    for library in opened:
        library.close()


def _modes(folder: Path) -> dict[str, str]:
    """Every folder and file under ``folder`` (and itself) with its mode, ``ls``'s way."""
    paths = [folder, *folder.rglob("*")]
    return {str(p.relative_to(folder)): stat.filemode(p.lstat().st_mode) for p in paths}


def _loose(folder: Path) -> dict[str, str]:
    return {
        name: mode
        for name, mode in _modes(folder).items()
        if mode not in ("drwx------", "-rw-------")
    }


def _notes(tmp_path: Path) -> Path:
    notes = tmp_path / "in" / "notes.md"
    notes.parent.mkdir(exist_ok=True)
    notes.write_text("# Giraffes\n\nThe giraffe eats acacia leaves.\n")
    return notes


def test_a_new_library_is_private(tmp_path: Path, site: str, open_library: Opener) -> None:
    """It was: library.db, its WAL files and the download 0644, thumbs/ and media/ 0755."""
    folder = tmp_path / "lib"
    library = open_library(folder)
    report = import_url(library, f"{site}/lecture-3.html")  # media/, thumbs/, vectors/
    assert [f.outcome.value for f in report.files] == ["indexed"], report.files
    assert library.ingest([_notes(tmp_path)]).files[0].outcome.value == "indexed"
    names = set(_modes(folder))
    for made in ("library.db", "library.db-wal", "library.db-shm", "library.lock"):
        assert made in names, names
    for sub in ("media", "thumbs", "vectors"):
        assert any(Path(n).parent == Path(sub) for n in names), (sub, names)
    assert _loose(folder) == {}


def test_files_replaced_later_stay_private(tmp_path: Path, site: str, open_library: Opener) -> None:
    """The vector index is replaced whole (a temp file renamed over it) at each save, the
    WAL files are made again by SQLite at each open, thumbnails are renamed into place."""
    folder = tmp_path / "lib"
    library = open_library(folder)
    library.ingest([_notes(tmp_path)])
    library.close()
    library = open_library(folder)  # new WAL files, made by SQLite
    import_url(library, f"{site}/lecture-3.html")  # vectors saved again, thumbnails
    library.save()
    assert _loose(folder) == {}


def test_a_loose_library_is_tightened_when_opened_for_writing_not_read_only(
    tmp_path: Path, open_library: Opener
) -> None:
    folder = tmp_path / "lib"
    open_library(folder).ingest([_notes(tmp_path)])
    (folder / "thumbs" / "kept.jpg").write_bytes(b"\xff\xd8")
    for path in [folder, *folder.rglob("*")]:  # as an older version, or a copy, left it
        path.chmod(0o755 if path.is_dir() else 0o644)
    # A folder by the lock file's name: this process cannot write (it searches only).
    (folder / "library.lock").unlink()
    (folder / "library.lock").mkdir(mode=0o755)
    loose = _modes(folder)
    assert _loose(folder) == loose
    read_only = open_library(folder)
    assert read_only.read_only is not None
    assert _modes(folder) == loose
    read_only.close()

    (folder / "library.lock").rmdir()
    writable = open_library(folder)
    assert writable.read_only is None
    assert _loose(folder) == {}
    assert stat.S_IMODE((folder / "thumbs" / "kept.jpg").stat().st_mode) == 0o600
