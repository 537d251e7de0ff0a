"""Where a pack's files are on this computer: found by their content (sha256), never by
their names alone, so a renamed copy is found and a different file of the same name is not.

A source's content hash is the library's (:func:`engine.importing.files.sha256_of`): a
lecture read through its subtitle file hashes both, so a candidate is hashed with the
subtitle file beside it. Only files of the right size are hashed.
"""

from __future__ import annotations

import logging
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from engine.errors import UnreadableFileError
from engine.importing.files import sha256_of
from engine.ingest import find_sidecar
from engine.packs.format import PackSource
from engine.store import Source
from engine.types import SourceKind

log = logging.getLogger(__name__)

_MEDIA = (SourceKind.VIDEO, SourceKind.AUDIO)
_MAX_WALKED = 100_000  # files looked at in a media folder (a whole disk given by mistake)
_UNSAFE = re.compile(r'[\\/:*?"<>|\x00-\x1f]')


def content_hash(path: Path, kind: SourceKind) -> str:
    sidecar = find_sidecar(path) if kind in _MEDIA else None
    return sha256_of(path, [sidecar] if sidecar else [])


def same_content(path: Path, sha256: str, size: int, kind: SourceKind) -> bool:
    """Whether the file at ``path`` is the one with this content (sizes first: cheap)."""
    try:
        if not path.is_file() or path.stat().st_size != size:
            return False
        return content_hash(path, kind) == sha256
    except (OSError, UnreadableFileError) as e:
        log.info("cannot read %s: %s", path, e)
        return False


def folder_name(course: str) -> str:
    """A course's name as a folder name (no separator, drive or control character)."""
    return _UNSAFE.sub("_", course).strip(" .") or "course"


@dataclass(frozen=True, slots=True)
class Place:
    """Where a pack's source goes: its path in the library, whether the file is here, and
    the library's record of the same content (the user's own copy), if any."""

    path: Path
    here: bool
    twin: Source | None = None


class MediaFinder:
    """Finds each source's file: the user's own copy in the library, else one in the media
    folder (at its place in the course, else any file of its size and content)."""

    def __init__(self, folder: Path | None, fallback: Path) -> None:
        self.folder = folder
        self.fallback = fallback  # where a missing file is expected without a media folder
        self._sizes: dict[int, list[Path]] | None = None

    def place(self, source: PackSource, twins: list[Source], course: str) -> Place:
        own = [t for t in twins if t.course.casefold() == course.casefold()]
        for twin in [*own, *(t for t in twins if t not in own)]:
            path = Path(twin.path)
            if same_content(path, source.sha256, source.size, source.kind):
                return Place(path, True, twin)
        twin = own[0] if own else None
        if self.folder is not None:
            found = self._in_folder(self.folder, source)
            if found is not None:
                return Place(found, True, twin)
        if twin is not None:  # imported before, still missing: where it was expected
            return Place(Path(twin.path), False, twin)
        if self.folder is not None:  # looked for there already
            return Place(self.folder / Path(*source.path.split("/")), False, None)
        at = self.fallback / Path(*source.path.split("/"))  # beside the pack, as exported
        return Place(at, same_content(at, source.sha256, source.size, source.kind), None)

    def _in_folder(self, folder: Path, source: PackSource) -> Path | None:
        at = folder / Path(*source.path.split("/"))
        if same_content(at, source.sha256, source.size, source.kind):
            return at.resolve()
        for candidate in self._by_size(folder).get(source.size, []):
            if candidate != at and same_content(candidate, source.sha256, source.size, source.kind):
                return candidate.resolve()
        return None

    def _by_size(self, folder: Path) -> dict[int, list[Path]]:
        """The media folder's files by size, read once (links to folders not followed)."""
        if self._sizes is None:
            self._sizes = defaultdict(list)
            seen = 0
            for top, folders, files in os.walk(folder):
                folders.sort()
                for name in sorted(files):
                    path = Path(top) / name
                    try:
                        self._sizes[path.stat().st_size].append(path)
                    except OSError:
                        continue
                    seen += 1
                if seen > _MAX_WALKED:
                    log.warning("stopped looking in %s after %d files", folder, seen)
                    break
        return self._sizes
