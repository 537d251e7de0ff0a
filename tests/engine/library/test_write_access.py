"""engine.library.write_access on its own: when this process may write to a library folder
(never when read-only, one import at a time here, no other process while one holds the lock)
and the clean-ups it runs as it takes the lock. A real second process holds the lock."""

from __future__ import annotations

import logging
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.errors import LibraryBusyError, LibraryError
from engine.importing.progress import IngestProgress, Stage
from engine.index.indexer import Indexer
from engine.library.folder import prepare_folder
from engine.library.write_access import WriteAccess
from engine.store import Store
from engine.types import SourceKind, SourceStatus
from tests.engine.lock_holder import end, hold

USED, UNUSED = "0123456789abcdef-0000.jpg", "fedcba9876543210-0001.jpg"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / "library"
    assert prepare_folder(folder) is None
    return folder


@pytest.fixture
def store(folder: Path) -> Iterator[Store]:
    store = Store(folder / "library.db")
    yield store
    store.close()


def _access(folder: Path, store: Store, read_only: str | None = None) -> WriteAccess:
    return WriteAccess(folder, read_only, Indexer(store, folder))


@pytest.fixture
def holder(folder: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the library's write lock."""
    proc = hold(folder / "library.lock")
    yield proc
    proc.kill()
    proc.wait(timeout=10)


def _leftovers(folder: Path, store: Store) -> list[Path]:
    """What a killed writer leaves: a save's temporary files and a thumbnail no scene shows,
    beside a thumbnail a scene shows. Returns the paths, those to remove first."""
    with store.transaction():
        course = store.catalog.ensure_course("Course")
        video = store.catalog.upsert_source(
            course_id=course,
            path="/videos/a.mp4",
            kind=SourceKind.VIDEO,
            title="a.mp4",
            status=SourceStatus.INDEXED,
        )
        store.recordings.put_scenes(video, [(0, 1000, 500, USED)])
    (folder / "vectors").mkdir(exist_ok=True)
    paths = [
        folder / "vectors" / ".e5-small.hnsw.tmp",
        folder / "thumbs" / "0123456789abcdef-0002.tmp",
        folder / "thumbs" / UNUSED,
        folder / "thumbs" / USED,
    ]
    for path in paths:
        path.write_bytes(b"x")
    return paths


# --- read only ----------------------------------------------------------------------------


def test_a_read_only_library_refuses_every_write(folder: Path, store: Store) -> None:
    access = _access(folder, store, "its folder is read-only")
    ran: list[str] = []
    refused = r"read-only \(its folder is read-only\).*cannot remove"
    with pytest.raises(LibraryError, match=refused), access.writing("remove a file"):
        ran.append("writing")
    with pytest.raises(LibraryError, match="cannot import"), access.importing(None, None):
        ran.append("importing")
    assert not access.try_locked(lambda: ran.append("try_locked"))
    access.save()
    access.open_index()
    assert ran == []
    assert not access.writing_here
    assert not (folder / "library.lock").exists()  # it never even tried the lock


def test_a_read_only_library_leaves_what_a_writer_left(folder: Path, store: Store) -> None:
    paths = _leftovers(folder, store)
    _access(folder, store, "its database file is read-only").open_index()
    assert all(p.exists() for p in paths)  # clean-ups are a writer's, under the lock


def test_a_lock_file_that_cannot_be_made_opens_read_only(
    folder: Path, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    (folder / "library.lock").mkdir()  # a folder by its name
    access = _access(folder, store)
    with caplog.at_level(logging.WARNING, logger="engine.library.write_access"):
        access.open_index()
    assert access.read_only is not None and "cannot write to the library" in access.read_only
    assert any("opened read-only" in r.getMessage() for r in caplog.records)
    with pytest.raises(LibraryError, match="is read-only"), access.writing("remove a file"):
        pass


# --- the lock, in this process ------------------------------------------------------------


def test_writing_holds_the_lock_only_while_it_runs(folder: Path, store: Store) -> None:
    access = _access(folder, store)
    assert not access.writing_here
    with access.writing("remove a file"):
        assert access.writing_here
        with access.writing("rename a course"):  # counted, not exclusive, in one library
            assert access.writing_here
        assert access.writing_here
    assert not access.writing_here
    assert access.try_locked(lambda: None)  # free again


def test_a_failing_write_lets_the_lock_go(folder: Path, store: Store) -> None:
    access = _access(folder, store)

    def work() -> None:
        raise ValueError("bad")

    with pytest.raises(ValueError):
        access.try_locked(work)
    assert not access.writing_here
    with pytest.raises(ValueError), access.writing("remove a file"):
        raise ValueError("bad")
    assert not access.writing_here


def test_open_index_leaves_the_lock_free(folder: Path, store: Store) -> None:
    access = _access(folder, store)
    access.open_index()
    assert access.read_only is None
    assert not access.writing_here
    other = _access(folder, store)
    assert other.try_locked(lambda: None)  # a second object, its own OS lock: it was let go


def test_one_import_at_a_time_in_this_process(folder: Path, store: Store) -> None:
    access = _access(folder, store)
    first_in, first_may_end, second_in = threading.Event(), threading.Event(), threading.Event()
    removed: list[bool] = []

    def first() -> None:
        with access.importing(None, None) as go:
            assert go
            first_in.set()
            first_may_end.wait(10)

    def second() -> None:
        with access.importing(None, None) as go:
            assert go
            second_in.set()

    def remove() -> None:
        with access.writing("remove a file"):  # a removal does not wait for the import
            removed.append(access.writing_here)

    a = threading.Thread(target=first)
    a.start()
    assert first_in.wait(10)
    b = threading.Thread(target=second)
    b.start()
    r = threading.Thread(target=remove)
    r.start()
    r.join(10)
    assert removed == [True]
    assert not second_in.wait(0.5)  # waits for the first import
    first_may_end.set()
    a.join(10)
    assert second_in.wait(10)
    b.join(10)
    assert not access.writing_here


# --- the lock, held by another process ----------------------------------------------------


def test_writes_are_refused_while_another_process_imports(
    folder: Path, store: Store, holder: subprocess.Popen[str]
) -> None:
    access = _access(folder, store)
    busy = "another Coursedex is importing"
    with pytest.raises(LibraryBusyError, match=busy), access.writing("remove a file"):
        pass
    ran: list[bool] = []
    assert not access.try_locked(lambda: ran.append(True))
    access.save()  # the other process saves its own
    access.open_index()  # reads only
    assert (ran, access.writing_here, access.read_only) == ([], False, None)
    end(holder)
    assert access.try_locked(lambda: ran.append(access.writing_here))
    assert ran == [True]


def test_an_import_waits_for_another_process_and_says_so_once(
    folder: Path, store: Store, holder: subprocess.Popen[str]
) -> None:
    access = _access(folder, store)
    reports: list[IngestProgress] = []
    waiting = threading.Event()
    got: list[tuple[bool, bool]] = []

    def progress(p: IngestProgress) -> None:
        reports.append(p)
        waiting.set()

    def run() -> None:
        with access.importing(progress, None) as go:
            got.append((go, access.writing_here))

    t = threading.Thread(target=run)
    t.start()
    assert waiting.wait(10)
    threading.Event().wait(0.6)  # a few rounds of waiting for the lock
    assert got == []  # still waiting
    end(holder)
    t.join(10)
    assert got == [(True, True)]
    assert [(r.stage, r.path) for r in reports] == [(Stage.WAITING, str(folder))]
    assert not access.writing_here


def test_a_cancelled_wait_yields_false_without_the_lock(
    folder: Path, store: Store, holder: subprocess.Popen[str]
) -> None:
    access = _access(folder, store)
    cancel = threading.Event()
    cancel.set()
    with access.importing(None, cancel) as go:
        assert go is False
        assert not access.writing_here
    end(holder)
    with access.importing(None, cancel) as go:  # a free lock is taken even so
        assert go is True


def test_another_process_holding_the_lock_keeps_what_it_is_writing(
    folder: Path, store: Store, holder: subprocess.Popen[str]
) -> None:
    paths = _leftovers(folder, store)  # to a writer now running, they are not left over
    access = _access(folder, store)
    access.open_index()
    assert not access.try_locked(lambda: None)
    assert all(p.exists() for p in paths)
    end(holder)
    assert access.try_locked(lambda: None)
    assert [p.exists() for p in paths] == [False, False, False, True]


# --- clean-ups as it takes the lock -------------------------------------------------------


@pytest.mark.parametrize("take", ["open_index", "writing", "importing", "try_locked"])
def test_taking_the_lock_clears_what_a_killed_writer_left(
    folder: Path, store: Store, take: str
) -> None:
    paths = _leftovers(folder, store)
    access = _access(folder, store)
    if take == "open_index":
        access.open_index()
    elif take == "writing":
        with access.writing("remove a file"):
            pass
    elif take == "importing":
        with access.importing(None, None):
            pass
    else:
        assert access.try_locked(lambda: None)
    assert [p.exists() for p in paths] == [False, False, False, True]  # the used one stays
