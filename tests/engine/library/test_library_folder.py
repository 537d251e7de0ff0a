"""engine.library.folder on its own: the checks a library folder passes as it opens
(prepare_folder, refuse_lost_database), the clean-ups of an interrupted writer, and
LibraryLock, one writer at a time across processes (a real second process holds it)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.errors import LibraryDamagedError, LibraryError
from engine.library.folder import (
    LibraryLock,
    LockFileError,
    prepare_folder,
    refuse_lost_database,
    remove_stale_temporaries,
    remove_unused_thumbnails,
)
from tests.engine.lock_holder import end, hold, try_to_hold

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0  # root may write to a read-only folder


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding ``tmp_path/library.lock``."""
    proc = hold(tmp_path / "library.lock")
    yield proc
    proc.kill()
    proc.wait(timeout=10)


class Calls:
    """What a lock's ``taken`` and ``leaving`` saw."""

    def __init__(self) -> None:
        self.taken = 0
        self.leaving = 0

    def on_taken(self) -> None:
        self.taken += 1

    def on_leaving(self) -> None:
        self.leaving += 1


def _lock(path: Path, calls: Calls | None = None) -> LibraryLock:
    calls = calls or Calls()
    return LibraryLock(path, calls.on_taken, calls.on_leaving)


# --- LibraryLock --------------------------------------------------------------------------


def test_lock_is_counted_within_one_object(tmp_path: Path) -> None:
    calls = Calls()
    lock = _lock(tmp_path / "library.lock", calls)
    assert not lock.held
    assert lock.acquire() and lock.acquire()
    assert (calls.taken, lock.held) == (1, True)  # taken once, not at every acquire
    lock.release()
    assert (calls.leaving, lock.held) == (0, True)  # still held by the outer one
    lock.release()
    assert (calls.leaving, lock.held) == (1, False)
    assert _lock(tmp_path / "library.lock").acquire()  # and the OS lock was let go


def test_another_process_holding_the_lock_refuses_it_without_waiting(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    calls = Calls()
    lock = _lock(tmp_path / "library.lock", calls)
    assert not lock.acquire()
    assert (lock.held, calls.taken, calls.leaving) == (False, 0, 0)
    end(holder)
    assert lock.acquire()
    assert calls.taken == 1
    lock.release()


def test_a_killed_holder_leaves_the_lock_free(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    lock = _lock(tmp_path / "library.lock")
    assert not lock.acquire()
    holder.kill()  # no release: the OS lets go of a dead process's lock
    holder.wait(timeout=10)
    assert lock.acquire()
    lock.release()


def test_a_holder_in_this_process_keeps_another_process_out(tmp_path: Path) -> None:
    lock = _lock(tmp_path / "library.lock")
    assert lock.acquire()
    assert try_to_hold(tmp_path / "library.lock") == "busy"
    lock.release()


def test_taken_and_leaving_run_under_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "library.lock"
    other = _lock(path)
    seen: list[bool] = []
    lock = LibraryLock(
        path, lambda: seen.append(other.acquire()), lambda: seen.append(other.acquire())
    )
    assert lock.acquire()
    lock.release()
    assert seen == [False, False]
    assert other.acquire()  # free after leaving
    other.release()


def test_a_failing_taken_lets_the_lock_go(tmp_path: Path) -> None:
    path = tmp_path / "library.lock"

    def taken() -> None:
        raise RuntimeError("reading the index failed")

    lock = LibraryLock(path, taken, lambda: None)
    with pytest.raises(RuntimeError):
        lock.acquire()
    assert not lock.held
    assert _lock(path).acquire()  # not left locked by the failed acquire


def test_a_failing_leaving_still_lets_the_lock_go(tmp_path: Path) -> None:
    path = tmp_path / "library.lock"

    def leaving() -> None:
        raise OSError("disk full")

    lock = LibraryLock(path, lambda: None, leaving)
    assert lock.acquire()
    with pytest.raises(OSError):
        lock.release()
    assert not lock.held
    assert _lock(path).acquire()


def test_a_lock_file_that_cannot_be_opened_is_a_library_error(tmp_path: Path) -> None:
    (tmp_path / "library.lock").mkdir()  # a folder by its name
    with pytest.raises(LockFileError, match="cannot write to the library") as caught:
        _lock(tmp_path / "library.lock").acquire()
    assert isinstance(caught.value, LibraryError)


# --- prepare_folder -----------------------------------------------------------------------


def test_prepare_folder_makes_a_new_library_folder(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b" / "library"
    assert prepare_folder(folder) is None
    assert (folder / "thumbs").is_dir()
    assert prepare_folder(folder) is None  # an existing one is fine too


def test_prepare_folder_refuses_a_file(tmp_path: Path) -> None:
    file = tmp_path / "library"
    file.write_text("not a folder")
    with pytest.raises(LibraryError, match="is a file"):
        prepare_folder(file)
    assert file.read_text() == "not a folder"


def test_prepare_folder_says_when_the_folder_cannot_be_created(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(LibraryError, match="cannot create the library folder"):
        prepare_folder(tmp_path / "file" / "library")


@pytest.mark.skipif(AS_ROOT or os.name == "nt", reason="root may write to a read-only folder")
def test_prepare_folder_read_only(tmp_path: Path) -> None:
    with_db, empty = tmp_path / "with_db", tmp_path / "empty"
    with_db.mkdir()
    empty.mkdir()
    (with_db / "library.db").write_bytes(b"x")
    for folder in (with_db, empty):
        folder.chmod(0o555)
    try:
        assert prepare_folder(with_db) == "its folder is read-only"
        assert not (with_db / "thumbs").exists()
        with pytest.raises(LibraryError, match="read-only and has no database"):
            prepare_folder(empty)
    finally:
        for folder in (with_db, empty):
            folder.chmod(0o755)


@pytest.mark.skipif(AS_ROOT or os.name == "nt", reason="root may write to a read-only file")
def test_prepare_folder_read_only_database(tmp_path: Path) -> None:
    (tmp_path / "library.db").write_bytes(b"x")
    (tmp_path / "library.db").chmod(0o444)
    assert prepare_folder(tmp_path) == "its database file is read-only"


# --- refuse_lost_database -----------------------------------------------------------------


def _with_vectors(folder: Path) -> Path:
    (folder / "vectors").mkdir(parents=True)
    (folder / "vectors" / "e5-small.hnsw").write_bytes(b"index")
    return folder / "library.db"


def test_a_missing_database_beside_vectors_is_refused(tmp_path: Path) -> None:
    db = _with_vectors(tmp_path)
    with pytest.raises(LibraryDamagedError, match="is missing"):
        refuse_lost_database(tmp_path, db, empty=True)
    assert not db.exists()  # nothing was changed
    assert (tmp_path / "vectors" / "e5-small.hnsw").read_bytes() == b"index"


def test_an_empty_database_beside_vectors_is_refused(tmp_path: Path) -> None:
    db = _with_vectors(tmp_path)
    db.write_bytes(b"")
    with pytest.raises(LibraryDamagedError, match="is empty"):
        refuse_lost_database(tmp_path, db, empty=True)


def test_a_new_database_beside_vectors_is_refused(tmp_path: Path) -> None:
    db = _with_vectors(tmp_path)
    db.write_bytes(b"SQLite format 3\x00")  # SQLite read it: it never held vectors
    with pytest.raises(LibraryDamagedError, match="is new"):
        refuse_lost_database(tmp_path, db, empty=False)


def test_a_database_with_content_or_a_wal_is_left_to_sqlite(tmp_path: Path) -> None:
    db = _with_vectors(tmp_path)
    db.write_bytes(b"SQLite format 3\x00")
    refuse_lost_database(tmp_path, db, empty=True)
    db.write_bytes(b"")
    db.with_name("library.db-wal").write_bytes(b"frames")  # its content is in the WAL yet
    refuse_lost_database(tmp_path, db, empty=True)


def test_a_folder_without_vectors_is_a_new_library(tmp_path: Path) -> None:
    db = tmp_path / "library.db"
    (tmp_path / "thumbs").mkdir()
    (tmp_path / "thumbs" / "0123456789abcdef-0000.jpg").write_bytes(b"jpg")  # a stopped import
    (tmp_path / "vectors").mkdir()
    refuse_lost_database(tmp_path, db, empty=True)
    db.write_bytes(b"")
    refuse_lost_database(tmp_path, db, empty=True)
    refuse_lost_database(tmp_path, db, empty=False)


# --- clean-ups of an interrupted writer ---------------------------------------------------


def test_remove_stale_temporaries(tmp_path: Path) -> None:
    (tmp_path / "vectors").mkdir()
    (tmp_path / "thumbs").mkdir()
    stale = [tmp_path / "vectors" / ".e5-small.hnsw.tmp", tmp_path / "thumbs" / "abc-0001.tmp"]
    kept = [
        tmp_path / "vectors" / "e5-small.hnsw",
        tmp_path / "thumbs" / "0123456789abcdef-0001.jpg",
        tmp_path / "library.db",
    ]
    for path in stale + kept:
        path.write_bytes(b"x")
    remove_stale_temporaries(tmp_path)
    assert [p.exists() for p in stale] == [False, False]
    assert all(p.exists() for p in kept)
    remove_stale_temporaries(tmp_path / "not-there")  # nothing to do, no error


def test_remove_unused_thumbnails_keeps_used_and_foreign_files(tmp_path: Path) -> None:
    thumbs = tmp_path / "thumbs"
    thumbs.mkdir()
    used, unused = "0123456789abcdef-0001.jpg", "0123456789abcdef-0002.jpg"
    foreign = ["cover.jpg", "0123456789ABCDEF-0003.jpg", "0123456789abcdef-0004.png"]
    for name in [used, unused, *foreign]:
        (thumbs / name).write_bytes(b"x")
    assert remove_unused_thumbnails(tmp_path, {used}) == 1
    assert sorted(p.name for p in thumbs.iterdir()) == sorted([used, *foreign])
    assert remove_unused_thumbnails(tmp_path, {used}) == 0
