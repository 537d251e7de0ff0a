"""The folders and files a library writes, and writing in them without following a link.

A library's folder holds what Coursedex makes and writes: the folders ``thumbs/``,
``vectors/`` and ``media/``, and the files ``library.db`` (with its ``-wal`` and ``-shm``)
and ``library.lock``. One of them made a link (``thumbs`` -> ``/etc``) would carry what
Coursedex writes out of the library: a pack's pictures once landed in ``/etc``. So each is
checked as the library opens (:func:`check_library_folder`): a link, or a file where a
folder belongs, refuses the library in one line. And every write opens its folder without
following a link (``O_NOFOLLOW``) and the file relative to that open folder (``openat``, by
``dir_fd``), so a folder swapped for a link after the check is refused too, not written
through (:class:`Folder`). The library's folder itself may be reached through a link: that
is where the user keeps it.

On Windows (no ``dir_fd``, no ``O_NOFOLLOW``) the same checks are made on the paths.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from engine.errors import LibraryError
from engine.private_files import PRIVATE_DIR, PRIVATE_FILE

log = logging.getLogger(__name__)

OWN_FOLDERS = ("thumbs", "vectors", "media")
OWN_FILES = ("library.db", "library.db-wal", "library.db-shm", "library.lock")

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BY_FD = os.open in os.supports_dir_fd and bool(_DIRECTORY)
# What opening a link with O_NOFOLLOW fails with: Linux says ELOOP, the BSDs EMLINK or ENOTDIR.
_LINKED = {errno.ELOOP, errno.EMLINK, errno.ENOTDIR}
_PROC_FD = Path("/proc/self/fd")


class LinkedFolderError(LibraryError):
    """A library's own folder or file is a link (or a file where a folder belongs)."""


def check_library_folder(folder: Path) -> None:
    """Refuse a library whose own folders or files are links, or whose folders are files.

    Raises:
        LinkedFolderError: one line naming the entry and where it leads.
    """
    for name in (*OWN_FOLDERS, *OWN_FILES):
        why = _not_own(folder / name, folder=name in OWN_FOLDERS)
        if why is not None:
            raise LinkedFolderError(why)


def _not_own(path: Path, *, folder: bool) -> str | None:
    """Why ``path`` is not the library's own folder (or file); None when it is, or is not
    there yet."""
    try:
        st = path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return None  # not there yet, or the library's path is a file: its open says so
    except PermissionError:
        raise  # another user's library: the library's open says so in its own words
    except OSError as e:
        return f"cannot look at {path}: {e.strerror or e}"
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "somewhere else"
        return (
            f"{path} is a link to {target}: Coursedex writes only in the library's own "
            "folders, never through a link out of it (replace the link with a folder)"
        )
    if folder and not stat.S_ISDIR(st.st_mode):
        return f"{path} is a file, not a folder: the library keeps its {path.name} there"
    return None


def own_folder(path: Path) -> Path:
    """``path``, a folder of a library's own, made (0700) if it is not there.

    Raises:
        LinkedFolderError: it is a link or a file.
        OSError: it cannot be made.
    """
    with suppress(FileExistsError):
        path.mkdir(mode=PRIVATE_DIR, parents=True)
    why = _not_own(path, folder=True)
    if why is not None:
        raise LinkedFolderError(why)
    return path


class Folder:
    """A folder opened once, without following a link at its last step (unless
    ``follow``); the files in it are opened, renamed and removed relative to it (never
    through a link either). ``within``: ``path`` is a folder of that open folder, opened
    relative to it.

    Raises:
        LinkedFolderError: it is a link (or a file) and ``follow`` is not set.
        OSError: it cannot be opened (not there, no permission).
    """

    def __init__(self, path: Path, *, follow: bool = False, within: Folder | None = None) -> None:
        self.path = path
        self.fd: int | None = None
        if not _BY_FD:
            why = None if follow else _not_own(path, folder=True)
            if why is not None:
                raise LinkedFolderError(why)
            return
        at, dir_fd = (within._at(path.name), within.fd) if within is not None else (path, None)
        try:
            flags = os.O_RDONLY | _DIRECTORY | (0 if follow else NOFOLLOW)
            self.fd = os.open(at, flags, dir_fd=dir_fd)
        except OSError as e:
            why = None if follow or e.errno not in _LINKED else _not_own(path, folder=True)
            if why is not None:
                raise LinkedFolderError(why) from None
            raise

    def close(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _at(self, name: str) -> str:
        if not name or os.sep in name or (os.altsep and os.altsep in name) or name in (".", ".."):
            raise ValueError(f"not a file name: {name!r}")
        return name if self.fd is not None else str(self.path / name)

    def open(self, name: str, flags: int, mode: int = PRIVATE_FILE) -> int:
        """``os.open`` of ``name`` in the folder, never following a link (binary)."""
        flags |= NOFOLLOW | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
        return os.open(self._at(name), flags, mode, dir_fd=self.fd)

    def replace(self, name: str, new: str) -> None:
        os.replace(self._at(name), self._at(new), src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def link(self, name: str, new: str) -> None:
        """A second name ``new`` for ``name``; fails (EEXIST) when ``new`` is there."""
        os.link(
            self._at(name), self._at(new), src_dir_fd=self.fd, dst_dir_fd=self.fd,
            follow_symlinks=False,
        )  # fmt: skip

    def unlink(self, name: str) -> None:
        os.unlink(self._at(name), dir_fd=self.fd)

    def rmdir(self, name: str) -> None:
        os.rmdir(self._at(name), dir_fd=self.fd)

    def lstat(self, name: str) -> os.stat_result:
        return os.stat(self._at(name), dir_fd=self.fd, follow_symlinks=False)

    def path_of(self, name: str) -> Path:
        """A path to ``name`` for code that opens files only by path (hnswlib): through
        the open folder where the system has one (``/proc/self/fd``), so a folder swapped
        for a link meanwhile is not where it writes."""
        self._at(name)
        if self.fd is not None and _PROC_FD.is_dir():
            return _PROC_FD / str(self.fd) / name
        return self.path / name

    def names(self) -> list[str]:
        return os.listdir(self.fd if self.fd is not None else self.path)

    def sync(self) -> None:
        """Make what was renamed in the folder durable (nothing to do on Windows)."""
        if self.fd is not None:
            os.fsync(self.fd)

    def sub(self, name: str) -> Folder:
        """The folder ``name`` in this one, opened relative to it without following a link."""
        return Folder(self.path / name, within=self)


@contextmanager
def open_folder(path: Path, *, follow: bool = False) -> Iterator[Folder]:
    """:class:`Folder` ``path`` for the time of the ``with``."""
    folder = Folder(path, follow=follow)
    try:
        yield folder
    finally:
        folder.close()


def write_whole(path: Path, data: bytes) -> None:
    """``data`` as the file ``path`` in a library's own folder, whole or not at all (a temp
    file renamed over it), never through a link. Not made durable (a thumbnail is made again).

    Raises:
        LinkedFolderError: the folder is a link.
        OSError: it cannot be written.
    """
    with open_folder(path.parent) as folder:
        temp = f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        fd = folder.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            folder.replace(temp, path.name)
        except BaseException:
            with suppress(OSError):
                folder.unlink(temp)
            raise


def remove_files(folder: Path, names: Iterable[str]) -> None:
    """Remove the files ``names`` (missing ones are no matter) of a library's own
    ``folder``, never through a link: a folder made a link removes nothing (logged).

    Raises:
        OSError: one cannot be removed (a permission, a folder by its name).
    """
    try:
        own = Folder(folder)
    except FileNotFoundError:
        return
    except LinkedFolderError as e:
        log.warning("%s: nothing removed from it", e)
        return
    with own:
        for name in names:
            with suppress(FileNotFoundError):
                own.unlink(name)
