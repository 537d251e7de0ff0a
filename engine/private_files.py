"""A library is private: its folders 0700, its files 0600, as browsers keep their profiles.

It holds a person's courses and notes. Made under a umask of 022, its database, thumbnails and
downloads would be readable by every user of the machine. Folders are made 0700 (so what
SQLite or yt-dlp creates inside is out of others' reach from the start), files written by
Coursedex are made 0600, and :func:`tighten` takes the group and other bits off what an
older version (or a copy) left open. Only those bits are taken off: a file the user made
read-only stays read-only. Nothing is done on Windows, where these bits mean nothing.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
_OTHERS = 0o077  # group and other: read, write, search

_POSIX = os.name == "posix"


def private_dir(path: Path) -> None:
    """Make the folder ``path`` (and missing parents), private; an existing one is
    tightened, its contents not.

    Raises:
        OSError: it cannot be created.
    """
    path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    _take_off_others(path)


def open_private(path: Path, flags: int = os.O_RDWR | os.O_CREAT) -> int:
    """``os.open`` that creates ``path`` 0600 (not umask's 0644), and tightens it if it
    was there. Returns the file descriptor (binary on Windows too: a thumbnail's bytes are
    not text)."""
    # Never through a link: a library's files are its own (engine/own_folders.py).
    flags |= getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, PRIVATE_FILE)
    if _POSIX:
        try:
            mode = os.fstat(fd).st_mode
            if mode & _OTHERS:
                os.fchmod(fd, stat.S_IMODE(mode) & ~_OTHERS)
        except OSError as e:
            log.info("cannot make %s private: %s", path, e)
    return fd


def tighten(path: Path) -> int:
    """Take the group and other bits off ``path`` and, for a folder, everything in it.
    Links are not followed (their targets are not ours). Returns how many were changed."""
    if not _POSIX:
        return 0
    path = path.resolve()  # a library reached through a link is the folder it leads to
    changed = int(_take_off_others(path))
    if path.is_dir():
        for root, dirs, files in os.walk(path):
            for name in (*dirs, *files):
                changed += _take_off_others(Path(root) / name)
    if changed:
        log.info("made %d files and folders of %s private (0700/0600)", changed, path)
    return changed


def _take_off_others(path: Path) -> bool:
    if not _POSIX:
        return False
    try:
        st = path.lstat()
        if stat.S_ISLNK(st.st_mode) or not st.st_mode & _OTHERS:
            return False
        path.chmod(stat.S_IMODE(st.st_mode) & ~_OTHERS)
    except FileNotFoundError:
        return False
    except OSError as e:  # not ours (another user's file in the folder): left as it is
        log.info("cannot make %s private: %s", path, e)
        return False
    return True
