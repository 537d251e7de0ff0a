"""What a library folder holds, checked as it opens, and its one writer at a time.

A library is a folder of ``library.db``, ``vectors/`` and ``thumbs/``, and ``library.lock``;
private (folders 0700, files 0600: :mod:`engine.private_files`).
A database that lost what the folder shows it held is refused (:func:`refuse_lost_database`).

One writer per library at a time, across processes (:class:`LibraryLock`).

SQLite keeps the database consistent between processes, but the vector index is a file each
process holds in memory and saves whole: two processes importing at once each save their
own, and two imports of one video each append its on-screen text. So every import, removal
and re-index holds ``library.lock`` (an OS file lock, released by the OS if the process
dies). Within one :class:`~engine.library.Library` it is counted, not exclusive: the window
may remove a file from one thread while it imports on another.

Whoever takes it first reloads the vector index if another process saved it meanwhile; the
last to let it go saves it, so the next writer starts from everything this one wrote.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from engine.errors import LibraryDamagedError, LibraryError
from engine.own_folders import (
    Folder,
    LinkedFolderError,
    check_library_folder,
    open_folder,
    own_folder,
)
from engine.partial_files import remove_stale_downloads
from engine.private_files import PRIVATE_DIR, open_private
from engine.store import Store

log = logging.getLogger(__name__)

if os.name == "nt":
    import msvcrt

    def _try_lock(f: BinaryIO) -> bool:
        f.seek(0)  # the same byte for every process ("a+b" opens at the end)
        try:
            msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(f: BinaryIO) -> None:
        f.seek(0)
        msvcrt.locking(f.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(f: BinaryIO) -> bool:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(f: BinaryIO) -> None:
        fcntl.flock(f.fileno(), fcntl.LOCK_UN)


class LockFileError(LibraryError):
    """The lock file cannot be made or opened (a read-only folder, a folder by its name)."""


class LibraryLock:
    """The write lock of one library folder. ``taken`` runs when this object takes the OS
    lock, ``leaving`` just before it lets it go (both under the lock)."""

    def __init__(self, path: Path, taken: Callable[[], None], leaving: Callable[[], None]) -> None:
        self.path = path
        self._taken = taken
        self._leaving = leaving
        self._guard = threading.Lock()
        self._file: BinaryIO | None = None
        self._depth = 0

    @property
    def held(self) -> bool:
        """Whether this object holds the lock (some thread of this process is writing)."""
        return self._depth > 0

    def acquire(self) -> bool:
        """Take the lock if no other process holds it; never waits.

        Raises:
            LockFileError: the lock file cannot be created (the folder is read-only).
        """
        with self._guard:
            if self._depth == 0:
                try:
                    f = os.fdopen(open_private(self.path, os.O_RDWR | os.O_CREAT), "a+b")
                except OSError as e:
                    folder = self.path.parent
                    raise LockFileError(f"cannot write to the library {folder}: {e}") from e
                if not _try_lock(f):
                    f.close()
                    return False
                self._file = f
                try:
                    self._taken()
                except BaseException:
                    self._let_go()
                    raise
            self._depth += 1
            return True

    def release(self) -> None:
        with self._guard:
            self._depth -= 1
            if self._depth == 0:
                try:
                    self._leaving()
                finally:
                    self._let_go()

    def _let_go(self) -> None:
        f, self._file = self._file, None
        if f is not None:
            try:
                _unlock(f)
            finally:
                f.close()


def remove_stale_temporaries(folder: Path) -> None:
    """Remove what a writer killed in the middle of a write left: the temporary file of a
    vector index save (``vectors/.*.tmp``) or of a thumbnail (``thumbs/*.tmp``), only while
    holding the write lock (no other writer can be making one now); and the partial files
    of downloads killed mid-way (``media/``), which are fetched without it, so only those
    no running fetch holds (:func:`~engine.partial_files.remove_stale_downloads`).
    Never through a link: what a folder made a link leads to is not the library's."""
    for name in ("vectors", "thumbs"):
        try:
            with open_folder(folder / name) as own:
                for temp in own.names():
                    if not temp.endswith(".tmp"):
                        continue
                    try:
                        own.unlink(temp)
                    except OSError as e:
                        log.info("cannot remove %s, left by an interrupted write: %s", temp, e)
        except (OSError, LinkedFolderError) as e:  # not there, or a link (refused in writing)
            log.debug("no temporary files looked for in %s: %s", folder / name, e)
    remove_stale_downloads(folder / "media")


# The thumbnails a video's scan writes: the first 16 hex digits of its sha256, the scene.
_THUMBNAIL = re.compile(r"[0-9a-f]{16}-[0-9]{4}\.jpg")


def remove_unused_thumbnails(folder: Path, used: set[str]) -> int:
    """Remove the thumbnails no scene shows: those of a video whose import was stopped (or
    failed) while its frames were read, before its scenes were written. Only while holding
    the write lock, as a scan of this or another process writes them before its commit.
    Files of other names are not ours to judge. Returns how many were removed."""
    removed = 0
    try:
        thumbs = Folder(folder / "thumbs")
    except (OSError, LinkedFolderError) as e:  # not there, or a link (refused in writing)
        log.debug("no thumbnails looked for in %s: %s", folder / "thumbs", e)
        return 0
    with thumbs:
        for name in thumbs.names():
            if name in used or not _THUMBNAIL.fullmatch(name):
                continue
            try:
                thumbs.unlink(name)
                removed += 1
            except OSError as e:
                log.info("cannot remove %s, a thumbnail no scene shows: %s", name, e)
    if removed:
        log.info("removed %d thumbnails that no scene shows (an import stopped)", removed)
    return removed


def refuse_lost_database(folder: Path, db: Path, *, empty: bool) -> None:
    """Refuse a library whose database lost what its folder shows it held: a vector index
    beside a database that is missing, empty (``empty``: checked before SQLite touches it,
    which would make a 0-byte file a new library) or never held vectors. Opening it would
    make an empty library, and its first write would delete the vectors of everything it
    held; the user should restore the database instead. Thumbnails are no sign of it: they
    are made while a video is read, before anything is written, so a first import
    interrupted (Ctrl+C) leaves some beside a database that rightly holds nothing yet.

    Raises:
        LibraryError: naming the database and what to do.
    """
    if empty:
        wal = db.with_name(db.name + "-wal")
        if _size(db) > 0 or _size(wal) > 0:
            return  # SQLite reads it; a damaged one is refused with SQLite's reason
    if not any((folder / "vectors").glob("*.hnsw")):
        return
    state = "missing" if not db.exists() else "empty" if _size(db) == 0 else "new"
    raise LibraryDamagedError(
        f"the library database {db} is {state}, but the folder still holds the search index "
        "(vectors/) of an earlier library: the database was truncated, "
        "deleted or replaced. Restore library.db from a backup, or start over with a new "
        "library (the old index is kept aside). Nothing was changed"
    )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def prepare_folder(folder: Path) -> str | None:
    """Make ``folder`` ready to be a library; return why this process cannot write to it
    (a read-only folder, mount or database file), or None when it can.

    Raises:
        LibraryError: ``folder`` is a file, cannot be created, or is read-only and empty.
    """
    if folder.exists() and not folder.is_dir():
        raise LibraryError(f"{folder} is a file, not a library folder")
    db = folder / "library.db"
    if folder.is_dir():
        reason = None
        if not os.access(folder, os.W_OK):
            reason = "its folder is read-only"
        elif db.exists() and not os.access(db, os.W_OK):
            reason = "its database file is read-only"
        if reason is not None and not db.exists():
            raise LibraryError(f"the library {folder} is read-only and has no database yet")
        if reason is not None:
            return reason
    try:
        # New folders are private from the start; an existing one is tightened when this
        # process takes the write lock (WriteAccess), not when it only reads.
        folder.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
        own_folder(folder / "thumbs")
    except OSError as e:
        raise LibraryError(f"cannot create the library folder {folder}: {e.strerror or e}") from e
    return None


def open_store(folder: Path) -> tuple[Store, str | None]:
    """The library's database, opened read-only when this process cannot write to the
    folder (and why: None when it can). A database that lost what the folder shows it held
    is refused.

    Raises:
        LibraryError: the folder cannot be used as a library, or its database was lost.
    """
    db = folder / "library.db"
    check_library_folder(folder)  # no link out of it: nothing written through one
    refuse_lost_database(folder, db, empty=True)
    read_only = prepare_folder(folder)
    store = Store(db, read_only=read_only is not None)
    if store.meta.get("embedder_id") is None:
        try:
            refuse_lost_database(folder, db, empty=False)
        except LibraryError:
            store.close()
            raise
    return store, read_only
