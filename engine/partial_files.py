"""Partial files that say whose they are, so the next writer removes what a killed one left
and never what a live one is writing.

A file replaced whole is written under a temp name beside it first, then renamed over it.
A process killed in between (``kill -9``, a crash, power off) leaves the temp file: a pack
export once left ``.out.cdxpack.XXXX.tmp`` in the user's folder, a download a 3.7 GB
``.part`` in the library's ``media/``. The next writer of the same place removes such a
file only when it is sure its writer is gone: its name matches what this writer makes
(``.<target>.<pid>.<token>.tmp``), the process of that pid is not running, and no one holds
the lock (``flock``) its writer held on it from the moment it was made. Any one of the three
failing keeps the file: one of another program, or a live writer's (another process, or a
thread of this one).

Downloads (yt-dlp names their partial files itself) are kept apart by a lock per page
folder instead: :func:`hold` / :func:`try_hold` on ``media/.<page>.fetching``.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from engine.errors import Cancelled
from engine.own_folders import Folder, LinkedFolderError

log = logging.getLogger(__name__)

if os.name == "nt":
    import msvcrt

    def _lock(fd: int, *, wait: bool) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _alive(pid: int) -> bool:
        return False  # the lock alone tells (and Windows removes no file a process has open)

else:
    import fcntl

    def _lock(fd: int, *, wait: bool) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        return True

    def _alive(pid: int) -> bool:
        if pid == os.getpid():
            return True  # a thread of this process may be writing it
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # another user's process
            return True
        return True


def _temp_pattern(target: str) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(target)}\.([0-9]+)\.[0-9a-f]{{8}}\.tmp")


def make_temp(folder: Folder, target: str) -> tuple[str, int]:
    """A new temp file for ``target`` in ``folder`` (0600, never through a link), locked
    for as long as the returned descriptor is open. Returns its name and descriptor."""
    while True:
        name = f".{target}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        try:
            fd = folder.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            continue
        _lock(fd, wait=True)  # free: no one else has it open yet
        return name, fd


def remove_stale_temps(folder: Folder, target: str) -> int:
    """Remove the temp files of ``target`` in ``folder`` that killed writers left (see the
    module's note); returns how many."""
    pattern = _temp_pattern(target)
    removed = 0
    try:
        names = folder.names()
    except OSError:
        return 0
    for name in names:
        found = pattern.fullmatch(name)
        if found is None or _alive(int(found[1])):
            continue
        if _remove_unlocked(folder, name):
            removed += 1
    if removed:
        log.info("removed %d temp files of %s left by killed writers", removed, target)
    return removed


def _remove_unlocked(folder: Folder, name: str) -> bool:
    """Remove ``name`` if no one holds its lock (taken while it is removed)."""
    try:
        fd = folder.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False  # gone already, or not a file we may open (a link: not ours)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or not _lock(fd, wait=False):
            return False
        folder.unlink(name)
        return True
    except OSError as e:
        log.info("cannot remove %s, left by a killed writer: %s", folder.path / name, e)
        return False
    finally:
        os.close(fd)


# --- locks held while writing a place ---------------------------------------------------


def _open_lock(folder: Folder, name: str) -> int:
    return folder.open(name, os.O_RDWR | os.O_CREAT)


def _still_there(folder: Folder, name: str, fd: int) -> bool:
    """Whether ``fd`` is still the file named ``name`` (not removed by the one who held it
    before: then the lock taken is on a file no one else will open)."""
    try:
        now, held = folder.lstat(name), os.fstat(fd)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


@contextmanager
def hold(folder: Folder, name: str, cancel: threading.Event | None = None) -> Iterator[None]:
    """Hold the lock file ``name`` in ``folder`` for the ``with`` (waiting while another
    process holds it; its removal at the end is safe: a waiter notices and makes it anew).

    Raises:
        Cancelled: ``cancel`` was set while waiting.
    """
    while True:
        fd = _open_lock(folder, name)
        while not _lock(fd, wait=False):
            if cancel is not None and cancel.is_set():
                os.close(fd)
                raise Cancelled("cancelled while another process wrote the same place")
            time.sleep(0.1)
        if _still_there(folder, name, fd):
            break
        os.close(fd)
    try:
        yield
    finally:
        with suppress(OSError):
            folder.unlink(name)
        os.close(fd)


@contextmanager
def try_hold(folder: Folder, name: str) -> Iterator[bool]:
    """Hold the lock file ``name`` in ``folder`` for the ``with`` if no one holds it now
    (True), else do nothing (False)."""
    try:
        fd = _open_lock(folder, name)
    except OSError:
        yield False
        return
    if not _lock(fd, wait=False) or not _still_there(folder, name, fd):
        os.close(fd)
        yield False
        return
    try:
        yield True
    finally:
        with suppress(OSError):
            folder.unlink(name)
        os.close(fd)


# --- downloads: yt-dlp names their partial files ---------------------------------------

# yt-dlp's partial files: title.mp4.part, title.f137.mp4.part, title.mp4.part-Frag12(.part),
# title.mp4.ytdl (a fragmented download's state).
_DOWNLOADING = re.compile(r".+\.(part(-Frag[0-9]+(\.part)?)?|ytdl)")
_FETCH_LOCK = re.compile(r"\.(.+)\.fetching")


def fetch_lock(page: str) -> str:
    """The lock file a fetch holds in the media folder while it writes the page folder
    ``page`` (beside it: removing a page folder never removes a lock someone holds)."""
    return f".{page}.fetching"


def remove_stale_downloads(media: Path) -> int:
    """Remove what downloads killed mid-way left in the library's ``media`` folder: in each
    page folder whose fetch lock no one holds, the files yt-dlp names as partial, and the
    folder when that empties it. A download running (in any process) holds its page's lock,
    so its files are kept. Returns how many files were removed."""
    try:
        folder = Folder(media)
    except FileNotFoundError:
        return 0
    except (OSError, LinkedFolderError) as e:
        log.info("cannot look for downloads left in %s: %s", media, e)
        return 0
    removed = 0
    with folder:
        names = folder.names()
        for page in names:
            lock = _FETCH_LOCK.fullmatch(page)
            if lock is not None and lock[1] not in names:  # its page folder is gone
                with try_hold(folder, page):
                    pass
            elif not page.startswith("."):
                removed += _remove_partial_downloads(folder, page)
    if removed:
        log.info("removed %d partial files of downloads that were stopped", removed)
    return removed


def _remove_partial_downloads(media: Folder, page: str) -> int:
    try:
        sub = media.sub(page)
    except OSError:  # a file, or a link: not a page folder of ours
        return 0
    removed = 0
    with sub:
        partial = [n for n in sub.names() if _DOWNLOADING.fullmatch(n)]
        if not partial:
            return 0
        with try_hold(media, fetch_lock(page)) as held:
            if not held:
                return 0
            for name in partial:
                try:
                    sub.unlink(name)
                    removed += 1
                except OSError as e:
                    log.info("cannot remove %s, left by a download: %s", sub.path / name, e)
            if not sub.names():
                with suppress(OSError):
                    media.rmdir(page)
    return removed
