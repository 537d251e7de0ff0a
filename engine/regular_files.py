"""The one check every path the engine reads goes through: it must be a regular file.

A link to ``/dev/zero`` read whole takes all the memory there is; a named pipe opened to read
waits for a writer forever; a folder or a socket cannot be read at all. So a path is looked
at before it is opened (``stat``, which follows links as opening would), and
:func:`open_regular` opens without waiting (``O_NONBLOCK``) and looks again at what it
opened (``fstat``): a file swapped for a pipe in between is refused too.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from engine.errors import UnreadableFileError
from engine.plain_text import printable

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # Windows has no named pipes in the file system


def not_a_file(path: Path) -> str:
    """Why ``path`` cannot be read as a file; found without opening it (a named pipe would
    wait for a writer forever)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "broken link: its target is gone" if path.is_symlink() else "file not found"
    except OSError as e:
        return f"cannot read it: {e.strerror or e}"
    return _kind(mode)


def file_kind(mode: int) -> str:
    """What a path that is not a regular file is, in words: "a folder", "a named pipe"..."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _kind(mode: int) -> str:
    kind = file_kind(mode)
    if kind == "a folder":
        return "a folder, not a file"
    return "not a regular file" if kind == "a special file" else f"not a regular file ({kind})"


def _refusal(path: Path, reason: str, named: bool) -> UnreadableFileError:
    """'PATH is a folder, not a file', 'PATH: file not found'; ``named`` False: the reason
    alone (where the path is shown beside it, as in an import's report)."""
    if not named:
        return UnreadableFileError(reason)
    joined = f" is {reason}" if reason.startswith(("not ", "a ")) else f": {reason}"
    return UnreadableFileError(f"{printable(str(path))}{joined}")


def regular_file(path: Path, *, named: bool = True) -> os.stat_result:
    """``path``'s ``stat`` (links followed) when it is a regular file.

    Raises:
        UnreadableFileError: one line naming ``path`` and what it is instead (a folder, a
            named pipe, a device, a socket, a broken link, missing, unreadable).
    """
    try:
        st = path.stat()
    except OSError:
        raise _refusal(path, not_a_file(path), named) from None
    if not stat.S_ISREG(st.st_mode):
        raise _refusal(path, _kind(st.st_mode), named)
    return st


def open_regular(path: Path, *, named: bool = True) -> BinaryIO:
    """``path`` opened to read, binary, when it is a regular file: checked before opening
    and again on what was opened, without ever waiting on a named pipe.

    Raises:
        UnreadableFileError: as :func:`regular_file`, or the OS refuses to open it.
    """
    regular_file(path, named=named)
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | getattr(os, "O_BINARY", 0))
    except OSError as e:
        raise _refusal(path, f"cannot read file: {e.strerror or e}", named) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # swapped since the check above
            raise _refusal(path, _kind(mode), named)
        if _NONBLOCK:
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
