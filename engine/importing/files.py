"""What the import pipeline asks of a file on disk: its content's hash, whether it changed
while read, and a reason a user can act on for a failure
nobody foresaw."""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from engine.regular_files import open_regular
from engine.store.database import database_full


def failure_reason(error: Exception) -> str:
    """One line a user can act on for an error nobody foresaw."""
    if database_full(error):
        return "disk full: the library database cannot grow; free some space and import again"
    if isinstance(error, OSError) and error.errno == errno.ENOSPC:
        where = f" writing {error.filename}" if error.filename else ""
        return f"disk full{where}; free some space and import again"
    text = str(error).splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}"[:200]


def exists(path: Path) -> bool:
    """Whether ``path`` (or, for a link, its target) is still there."""
    try:
        path.stat()
    except FileNotFoundError:
        return False
    except OSError:
        return True  # there, but unreadable: its own error says so
    return True


def changed(path: Path, before: os.stat_result) -> bool:
    """Whether ``path`` was written (or went) since ``before``."""
    try:
        now = path.stat()
    except OSError:
        return True
    return (now.st_size, now.st_mtime_ns) != (before.st_size, before.st_mtime_ns)


def sha256_of(path: Path, extra: Sequence[Path] = ()) -> str:
    digest = hashlib.sha256()
    for p in (path, *extra):
        with open_regular(p) as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
    return digest.hexdigest()
