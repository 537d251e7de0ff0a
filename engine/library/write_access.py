"""Who may write to a library folder, and when: never when it is read-only, one import at a
time in this process, and no other process while one holds the folder's write lock.

Reads never wait for any of this: a search runs while another process imports.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.errors import LibraryBusyError, LibraryError
from engine.importing.progress import IngestProgress, Stage
from engine.index.indexer import Indexer
from engine.library.folder import (
    LibraryLock,
    LockFileError,
    remove_stale_temporaries,
    remove_unused_thumbnails,
)
from engine.private_files import tighten

log = logging.getLogger(__name__)


def permission_denied(folder: Path, error: PermissionError) -> LibraryError:
    """The one line for a library this user may not open: another user's (its folder is
    private, 0700), or one whose modes were changed."""
    where = f" ({error.filename})" if error.filename and str(error.filename) != str(folder) else ""
    return LibraryError(
        f"cannot open the library {folder}: permission denied{where}; it belongs to another "
        "user, or its permissions were changed"
    )


class WriteAccess:
    """The write lock of one library folder as the library uses it.

    ``read_only`` says why this process cannot write (None: it can). While another process
    holds the lock it saves its own vector index; this one reads it again when it takes
    the lock and saves its own before letting it go.
    """

    def __init__(self, folder: Path, read_only: str | None, indexer: Indexer) -> None:
        self.folder = folder
        self.read_only = read_only
        self.indexer = indexer
        self._lock = LibraryLock(folder / "library.lock", self._taken, self._leaving)
        self._run_lock = threading.Lock()  # one import at a time in this process
        self._tightened = False
        self._sound = False  # the database passed SQLite's check in this process

    @property
    def writing_here(self) -> bool:
        """Whether this process holds the write lock (no other process can write now)."""
        return self._lock.held

    def open_index(self) -> None:
        """Reconcile the vector index with the database and save it, when this process may
        write now; else only read it (read only, or another process is importing)."""
        try:
            writable = self.read_only is None and self._lock.acquire()
        except LockFileError as e:  # e.g. a folder by its name
            log.warning("%s: the library is opened read-only", e)
            self.read_only, writable = str(e), False
        if writable:
            self._lock.release()
        else:
            self.indexer.open(quiet=True)

    def _taken(self) -> None:
        """This process may write now: clear what a killed or stopped writer left (temporary
        files, thumbnails no scene shows), and read the index again if another process saved
        it since."""
        if not self._tightened:
            # Files SQLite made as it opened (library.db, -wal, -shm: umask's 0644), and
            # whatever an older version or a copy left open. Only when writing: a library
            # opened read-only is not changed.
            tighten(self.folder)
            self._tightened = True
        remove_stale_temporaries(self.folder)
        remove_unused_thumbnails(self.folder, self.indexer.store.recordings.thumbnail_names())
        self._requeue_stale()
        self.indexer.open()

    def _requeue_stale(self) -> None:
        """Files marked as being indexed while this process takes the lock: no process is
        at them (one that held the lock was killed, or its disk filled before it could say
        so). They are queued again, as a stopped import leaves them; the next import or
        resume takes them up. When the database is damaged or the disk full, it waits for a
        later writer: this process only reads, or its own write says why it cannot."""
        store = self.indexer.store
        stale = store.catalog.indexing()
        if not stale:
            return
        try:
            self.refuse_if_damaged()
            with store.transaction():
                store.catalog.requeue(list(stale))
        except LibraryError as e:
            log.info("files left being indexed are not queued again now: %s", e)
            return
        log.info("%d files a stopped process was indexing are queued again", len(stale))

    def _leaving(self) -> None:
        """Save the index before another process may write, so it starts from all of it."""
        self.indexer.save_or_say()

    def save(self) -> None:
        """Save the vector index, unless another process is importing: it saves its own,
        and what this one holds beyond that came from the database. One that cannot be
        written (a full disk) is said once and rebuilt from the database at the next open."""
        if self.read_only is not None:
            return
        if self._lock.held:
            self.indexer.save_or_say()
        elif self._lock.acquire():
            self._lock.release()

    def try_locked(self, work: Callable[[], None]) -> bool:
        """Run ``work`` under the lock if it is free now; False when it is not (or read only)."""
        if self.read_only is not None or not self._lock.acquire():
            return False
        try:
            work()
        finally:
            self._lock.release()
        return True

    def refuse_if_read_only(self, what: str) -> None:
        """Raises:
        LibraryError: the library is read-only (the message names ``what`` was refused).
        """
        if self.read_only is not None:
            raise LibraryError(
                f"the library {self.folder} is read-only ({self.read_only}): searching works, "
                f"but Coursedex cannot {what}"
            )

    def refuse_if_damaged(self) -> None:
        """Before the first write of this process: SQLite's quick check of the database
        (Database.refuse_if_damaged). A damaged library is refused every time, a sound one
        is checked once: what this process writes after that is SQLite's to keep sound.

        Raises:
            LibraryDamagedError: the database is damaged; nothing was written.
        """
        if not self._sound:
            self.indexer.store.db.refuse_if_damaged()
            self._sound = True

    def refuse_unwritable(self, what: str) -> None:
        """Raises:
        LibraryError: the library is read-only (the message names ``what`` was refused).
        LibraryDamagedError: its database is damaged.
        """
        self.refuse_if_read_only(what)
        self.refuse_if_damaged()

    @contextmanager
    def writing(self, what: str) -> Iterator[None]:
        """Hold the write lock for a change that does not wait for another process's import.

        Raises:
            LibraryBusyError: another process is importing into this library.
            LibraryError: the library is read-only.
            LibraryDamagedError: its database is damaged (nothing is written).
        """
        self.refuse_if_read_only(what)
        if not self._lock.acquire():
            raise LibraryBusyError(
                f"another Coursedex is importing into this library: {what} when it has finished"
            )
        try:
            self.refuse_if_damaged()
            yield
        finally:
            self._lock.release()

    @contextmanager
    def importing(
        self, progress: Callable[[IngestProgress], None] | None, cancel: threading.Event | None
    ) -> Iterator[bool]:
        """Hold the write lock for an import, waiting while another process imports (and
        saying so once); False when ``cancel`` was set while waiting.

        Raises:
            LibraryError: the library is read-only.
            LibraryDamagedError: its database is damaged (nothing is written).
        """
        self.refuse_if_read_only("import")
        with self._run_lock:
            said = False
            while not self._lock.acquire():
                if cancel is not None and cancel.is_set():
                    yield False
                    return
                if progress is not None and not said:
                    folder = str(self.folder)
                    progress(IngestProgress(folder, 0, 1, Stage.WAITING, 0.0, None))
                    said = True
                time.sleep(0.2)
            try:
                self.refuse_if_damaged()
                yield True
            finally:
                self._lock.release()
