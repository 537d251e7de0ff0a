"""Files replaced whole or not at all: a crash or a full disk leaves the old file (the
vector index and its sidecar are saved this way, and every export).

The temp file is made beside the target, never through a link (``O_EXCL | O_NOFOLLOW``,
relative to the folder opened once), under a name that carries this process's id and a lock
held while it is written: the next writer of the same target removes what a killed one left
(:mod:`engine.partial_files`), never what a live one is writing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from engine.own_folders import Folder, open_folder
from engine.partial_files import make_temp, remove_stale_temps


def fingerprint(path: Path) -> tuple[int, str]:
    """A file's size and sha256, read through one open file (so they describe one file)."""
    with path.open("rb") as f:
        return os.fstat(f.fileno()).st_size, hashlib.file_digest(f, "sha256").hexdigest()


def atomic_write(
    target: Path,
    write: Callable[[Path], object],
    *,
    follow: bool = False,
    exclusive: bool = False,
    in_folder: Callable[[Folder], None] | None = None,
) -> None:
    """Replace ``target`` with what ``write(temp)`` puts in a temp file beside it: written,
    fsynced, renamed, and the rename made durable. A failure leaves ``target`` as it was.

    The folder holding ``target`` is opened without following a link unless ``follow``
    (an export's folder, checked by ``in_folder`` once it is open). ``exclusive``: fail with
    FileExistsError rather than replace a ``target`` that is there (where the file system
    can say so atomically).

    Raises:
        OSError: from ``write`` or the file system (the temp file is removed).
        LinkedFolderError: the folder is a link (and ``follow`` is not set).
    """
    with open_folder(target.parent, follow=follow) as folder:
        if in_folder is not None:
            in_folder(folder)
        remove_stale_temps(folder, target.name)
        name, fd = make_temp(folder, target.name)
        try:
            write(folder.path_of(name))
            _same_file(folder, name, fd)
            os.fsync(fd)
            _rename(folder, name, target.name, exclusive=exclusive)
        except BaseException:
            with contextlib.suppress(OSError):
                folder.unlink(name)
            raise
        finally:
            os.close(fd)
        folder.sync()


def _same_file(folder: Folder, name: str, fd: int) -> None:
    """The temp file is still the one made (not swapped for a link or another file while
    it was written by its name)."""
    now, made = folder.lstat(name), os.fstat(fd)
    if (now.st_dev, now.st_ino) != (made.st_dev, made.st_ino):
        raise OSError(f"{folder.path / name} was replaced while it was written")


def _rename(folder: Folder, name: str, target: str, *, exclusive: bool) -> None:
    if exclusive:
        try:
            folder.link(name, target)  # EEXIST rather than replace what came meanwhile
        except FileExistsError:
            raise
        except OSError:  # no hard links here (FAT, some network shares): rename
            pass
        else:
            folder.unlink(name)
            return
    folder.replace(name, target)
