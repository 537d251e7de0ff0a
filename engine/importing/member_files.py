"""Writing a zip's members into the library's storage, each one whole: a ``.part`` file
renamed into place, never more than the member declares nor than the zip's budget, with the
zip's time on it so that importing the zip again finds it unchanged. What an opening wrote is
remembered, so a failed or cancelled import removes it again. Also the check that the disk
has room before anything is written. engine/importing/unpacking.py decides what to write.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
import zipfile
from pathlib import Path

from engine.config import IngestLimits
from engine.errors import Cancelled, UnreadableFileError
from engine.ingest.safezip import ZIP_ERRORS
from engine.plain_text import human_size
from engine.private_files import open_private, private_dir

_CHUNK = 1 << 20
_CORRUPT = "corrupt in the archive (its data is not what the archive says of it)"
# Room left on the disk after taking a zip out: the library's database and index grow too.
DISK_RESERVE = 256 * 1024**2


def check_room(folder: Path, needed: int, reserve: int = DISK_RESERVE) -> None:
    """Refuse to write ``needed`` bytes under ``folder`` when the disk has not that much
    free, and ``reserve`` more.

    Raises:
        UnreadableFileError: with both sizes.
    """
    probe = folder
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    if needed + reserve > free:
        raise UnreadableFileError(
            f"not enough free disk space to take its files out: {human_size(needed)} "
            f"needed, {human_size(free)} free"
        )


def _zip_time_ns(info: zipfile.ZipInfo) -> int:
    try:
        return int(time.mktime((*info.date_time, 0, 0, -1))) * 1_000_000_000
    except (OverflowError, ValueError):
        return 0


def is_current(target: Path, info: zipfile.ZipInfo) -> bool:
    """Whether ``target`` already holds this member (written from it before)."""
    try:
        st = target.stat()
    except OSError:
        return False
    return st.st_size == info.file_size and st.st_mtime_ns == _zip_time_ns(info)


class MemberFiles:
    """The files one zip's opening writes under ``root``; ``limits.max_file_bytes`` is what
    all its members together may expand to."""

    def __init__(self, root: Path, limits: IngestLimits, cancel: threading.Event | None) -> None:
        self.root = root
        self.limits = limits
        self.cancel = cancel
        self._written: list[Path] = []  # new files, removed again if the import fails
        self.budget = limits.max_file_bytes  # bytes all its members may expand to

    def keep(self, path: Path, info: zipfile.ZipInfo, target: Path) -> None:
        """A nested code archive, read out to ``path``, moved to its place ``target``."""
        if not is_current(target, info):
            private_dir(target.parent)
            new = not target.exists()
            os.replace(path, target)
            if new:
                self._written.append(target)

    def forget(self, path: Path) -> None:
        """``path`` is gone already (a nested zip read from a file of its own)."""
        if path in self._written:
            self._written.remove(path)

    def write(self, zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path) -> None:
        """Write one member to ``target``, never more than it declares nor than the zip's
        budget left; a file already holding it is left as it is.

        Raises:
            UnreadableFileError: it expands past its declared size, or is corrupt.
            OSError: it cannot be written.
        """
        if is_current(target, info):
            return
        if info.file_size > self.budget:
            raise UnreadableFileError(
                f"zip bomb: its files expand beyond {human_size(self.limits.max_file_bytes)}"
            )
        private_dir(target.parent)
        part = target.with_name(target.name + ".part")
        try:
            size = self._copy(zf, info, part)
            new = not target.exists()
            os.replace(part, target)
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        when = _zip_time_ns(info)
        os.utime(target, ns=(when, when))
        self.budget -= size
        if new:
            self._written.append(target)

    def _copy(self, zf: zipfile.ZipFile, info: zipfile.ZipInfo, part: Path) -> int:
        size = 0
        with os.fdopen(open_private(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "wb") as out:
            try:
                source = zf.open(info)
            except ZIP_ERRORS as e:
                raise UnreadableFileError(_CORRUPT) from e
            with source:
                while True:
                    if self.cancel is not None and self.cancel.is_set():
                        raise Cancelled("cancelled")
                    try:
                        chunk = source.read(_CHUNK)
                    except ZIP_ERRORS as e:
                        raise UnreadableFileError(_CORRUPT) from e
                    if not chunk:
                        return size
                    size += len(chunk)
                    if size > info.file_size:
                        raise UnreadableFileError(
                            f"zip bomb: it holds more than the {human_size(info.file_size)} "
                            "the archive says"
                        )
                    out.write(chunk)

    def remove_written(self) -> None:
        """Remove what this import wrote, and the folders it leaves empty."""
        for path in reversed(self._written):
            path.unlink(missing_ok=True)
            for folder in path.parents:
                if folder == self.root.parent or not folder.is_relative_to(self.root):
                    break
                try:
                    folder.rmdir()
                except OSError:
                    break
