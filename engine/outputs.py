"""Where an export may write: one check for every file a student takes away (a pack, a
handout, flashcards, a transcript), made before anything is written.

An export writes a temp file beside its target and renames it over the target, so whatever
is at the target is replaced whole: the library's own database, a file the library indexes, a
device node (``/dev/full``, as root) or a named pipe. So the target, links followed, must not
be inside the library's folder, must not be a file the library indexes, must not be anything
but a regular file if it is there, and is replaced only when the user said so (``--force``
on the command line, the save dialog's confirmation in the window).

The check is made again where the file is written (:func:`write_output`): the folder is
opened once, and what is found by that open folder (not by its path, which may have been
swapped for a link since) must not be the library's folder or inside it; a target that was
not there is written only if it still is not (a hard link, which fails rather than replace).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import CoursedexError, OutputExistsError
from engine.index.atomic_files import atomic_write
from engine.own_folders import Folder
from engine.plain_text import printable
from engine.regular_files import file_kind

if TYPE_CHECKING:
    from engine.library import Library

_FULL = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))


def check_output(dest: Path, library: Library | None = None, *, force: bool = False) -> Path:
    """The file an export of ``library`` may write for ``dest``: ``dest`` with its links
    followed (what is checked is what is replaced).

    Raises:
        CoursedexError: the target is inside the library's folder, is a file the library
            indexes, or is there and is not a regular file (a folder, device, pipe, socket);
            or its name holds a NUL character, or its links lead round in a loop.
        OutputExistsError: the target is a regular file and ``force`` is not set.
    """
    shown = printable(str(dest))  # one line, whatever the name holds
    if "\x00" in str(dest):  # no system takes it; os.path would raise ValueError
        raise CoursedexError(f"cannot write {shown}: a name cannot hold NUL")
    try:
        target = Path(os.path.abspath(dest.expanduser())).resolve()
    except (OSError, RuntimeError) as e:  # Python before 3.13: RuntimeError for a loop
        why = "its links lead round in a loop" if _loop(e) else getattr(e, "strerror", None)
        raise CoursedexError(f"cannot write {shown}: {why or e}") from e
    if library is not None:
        folder = library.folder.resolve()
        if target == folder or target.is_relative_to(folder):
            where = printable(str(folder))
            raise CoursedexError(
                f"will not write {shown}: it is inside the library's folder {where}"
            )
        if _indexed(library, {os.path.abspath(dest.expanduser()), str(target)}, target):
            raise CoursedexError(f"will not write {shown}: the library indexes that file")
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    except NotADirectoryError as e:
        blocking = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
        why = f"{printable(str(blocking))} is a file, not a folder" if blocking else e.strerror
        raise CoursedexError(f"cannot write {shown}: {why}") from e
    except OSError as e:
        raise CoursedexError(f"cannot write {shown}: {e.strerror or e}") from e
    if not stat.S_ISREG(mode):
        raise CoursedexError(f"will not write {shown}: it is {file_kind(mode)}, not a regular file")
    if not force:
        raise OutputExistsError(f"{shown} already exists")
    return target


def _loop(e: BaseException) -> bool:
    return isinstance(e, RuntimeError) or getattr(e, "errno", None) == errno.ELOOP


def _indexed(library: Library, names: set[str], target: Path) -> bool:
    """Whether ``target`` is a file ``library`` indexes: by the names it may be recorded
    under, else, when it is there, as the same file as one recorded (a file indexed through
    a link keeps the link's name)."""
    if any(library.source(name) is not None for name in names):
        return True
    try:
        st = target.stat()
    except OSError:
        return False
    for source in library.sources():
        try:
            other = os.stat(source.path)
        except OSError:  # a file not on this computer, or gone
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            return True
    return False


def write_failed(dest: Path, e: OSError) -> CoursedexError:
    """The one line for an export that could not be written: a full disk says so."""
    why = "the disk is full" if e.errno in _FULL else (e.strerror or str(e))
    return CoursedexError(f"cannot write {printable(str(dest))}: {why}")


def write_output(
    dest: Path,
    target: Path,
    write: Callable[[Path], object],
    library: Library | None = None,
    *,
    force: bool = False,
) -> None:
    """Write the export ``target`` (:func:`check_output`'s answer for ``dest``) whole, with
    ``write(temp)``, checking again by the open folder that it is not the library's.

    Raises:
        CoursedexError: the folder is now inside the library, the target is now not a
            regular file, or the file cannot be written (a full disk said so).
        OutputExistsError: the target was not there and is now (``force`` not set).
    """

    shown = printable(str(dest))  # one line, whatever the name holds

    def check(folder: Folder) -> None:
        if library is not None and _inside(folder, library.folder):
            raise CoursedexError(f"will not write {shown}: it is inside the library's folder")
        try:
            mode = folder.lstat(target.name).st_mode
        except FileNotFoundError:
            return
        if not stat.S_ISREG(mode) and not stat.S_ISLNK(mode):
            kind = file_kind(mode)
            raise CoursedexError(f"will not write {shown}: it is {kind}, not a regular file")

    try:
        atomic_write(target, write, follow=True, exclusive=not force, in_folder=check)
    except FileExistsError as e:
        raise OutputExistsError(f"{shown} already exists") from e
    except OSError as e:
        raise write_failed(dest, e) from e


def _inside(folder: Folder, library: Path) -> bool:
    """Whether the open ``folder`` is ``library`` or in it: its parents walked up by
    descriptor (``..``), so a path swapped for a link meanwhile is not what is judged."""
    try:
        own = os.stat(library)
    except OSError:
        return False
    if folder.fd is None:  # no descriptors for folders here (Windows): by its path
        path = folder.path.resolve()
        return path == library.resolve() or path.is_relative_to(library.resolve())
    fd = os.dup(folder.fd)
    try:
        while True:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino):
                return True
            parent = os.open("..", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0), dir_fd=fd)
            os.close(fd)
            fd = parent
            up = os.fstat(fd)
            if (up.st_dev, up.st_ino) == (st.st_dev, st.st_ino):
                return False  # the root
    finally:
        os.close(fd)
