"""Files replaced whole or not at all: a crash or a full disk leaves the old file (the
vector index and its sidecar are saved this way)."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def fingerprint(path: Path) -> tuple[int, str]:
    """A file's size and sha256, read through one open file (so they describe one file)."""
    with path.open("rb") as f:
        return os.fstat(f.fileno()).st_size, hashlib.file_digest(f, "sha256").hexdigest()


def atomic_write(target: Path, write: Callable[[Path], object]) -> None:
    """Replace ``target`` with what ``write(temp)`` puts in a temp file beside it: written,
    fsynced, renamed, and the rename made durable. A failure leaves ``target`` as it was.

    Raises:
        OSError: from ``write`` or the file system (the temp file is removed).
    """
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        with tmp.open("rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    if hasattr(os, "O_DIRECTORY"):  # make the rename durable; not available on Windows
        dir_fd = os.open(target.parent, os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
