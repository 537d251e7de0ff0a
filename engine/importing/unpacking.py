"""Zips of course material opened member by member into the library's own storage.

A "Download all" zip (:func:`engine.ingest.members.holds_course_material`) is not one
source: each member is taken out to ``<library>/archives/<zip name>~<key>/<place>`` and
imported as a file of its own kind, the way a folder's files are. A zip of code stays one
source, read in memory as before.

- **Identity.** ``key`` is the first 12 hex digits of the sha256 of the zip's absolute path, and
  ``place`` the member's path in the zip: a member is its archive's path plus its own. For a
  zip given on its own, the one top folder all its files share (Moodle's "Course name/")
  names the course and is left out of the place ("Week 3/lecture.pdf"); a zip found in a
  course folder keeps its name in front ("labs.zip/Week 3/lecture.pdf") and the folder's
  course. :func:`member_place` reads the place back from a source's path.
- **Why every member is taken out**, not only recordings: a hit opens its file in the preview
  (a slide's page, a code file's line) and a lecture plays from a file; each reader and the
  player read files, and a kind added to :mod:`engine.ingest.kinds` is read the same way
  with no change here. Sidecar subtitles land beside their video, so
  :func:`engine.ingest.find_sidecar` finds them as in a folder.
- **Unchanged.** A member is written with the time the zip gives it; one already there with
  its size and time is not written again, so importing the same zip again says "unchanged"
  for each file, and a changed member is written and indexed again.
- **Protections.** The zip is checked as a code archive is (escaping names, bombs by ratio
  and by total, member count); every nested zip is checked again, at most
  :data:`~engine.ingest.members.MAX_NESTING` deep; nothing is written past the size a
  member declares, nor past the zip's total; a symlink, a locked member, one of no known
  kind or one that cannot be read is left out and named (a result of its own, ``error``,
  at the path it would have had). The free disk is counted before anything is written, and
  whatever this import wrote is removed again when it fails or is cancelled.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import posixpath
import shutil
import threading
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from engine.config import IngestLimits
from engine.errors import Cancelled, UnreadableFileError
from engine.importing.member_files import MemberFiles, check_room, is_current
from engine.importing.places import ARCHIVES_FOLDER, member_place
from engine.importing.planning import PlannedFile, arranged
from engine.importing.progress import FileResult, IngestProgress, Outcome, Stage
from engine.ingest.kinds import ARCHIVE_EXTENSIONS
from engine.ingest.members import (
    MAX_NESTING,
    Member,
    common_folder,
    holds_course_material,
    members,
)
from engine.ingest.safezip import (
    READABLE_COMPRESSION,
    check_archive,
    count_entries,
    is_symlink,
    open_zip,
)
from engine.ingest.text import check_file
from engine.plain_text import human_size
from engine.private_files import private_dir
from engine.regular_files import open_regular
from engine.types import SourceKind

_OPENING = ".opening"  # nested zips while they are read
_SYSTEM_FILES = frozenset({"thumbs.db", "desktop.ini", "ehthumbs.db"})


log = logging.getLogger(__name__)


@dataclass(slots=True)
class Unpacked:
    """The files to import (zips of course material replaced by their members), and a
    result for each member left out and each zip that could not be opened."""

    files: list[PlannedFile] = field(default_factory=list)
    results: list[FileResult] = field(default_factory=list)
    # Files an earlier import took out of a zip that no longer holds them: their rows and
    # copies go (forget_gone), so a search never finds what the course took back.
    gone: list[Path] = field(default_factory=list)


def unpack(
    planned: list[PlannedFile],
    storage: Path,
    limits: IngestLimits,
    *,
    course: str | None = None,
    progress: Callable[[IngestProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> Unpacked:
    """Take every zip of course material in ``planned`` out into ``storage`` (the library's
    ``archives/`` folder); ``course``: the one the user named, if any. ``progress`` hears
    the share of each zip's files taken out."""
    done = Unpacked()
    for item in planned:
        if item.path.suffix.lower() not in ARCHIVE_EXTENSIONS:
            done.files.append(item)
            continue
        opening = _Opening(item, storage, limits, course, cancel)
        if progress is not None:
            opening.report = _reporter(progress, str(item.path))
        try:
            material = opening.run()
        except Cancelled:
            done.results.append(FileResult(str(item.path), Outcome.CANCELLED))
            continue
        except UnreadableFileError as e:
            done.results.append(FileResult(str(item.path), Outcome.ERROR, str(e)))
            continue
        except Exception:
            # A zip odd in a way nobody foresaw (zipfile on a nameless entry): what was
            # written is gone again, and the zip goes on to the code archive reader, inside
            # the import's guard of each file, which names the failure on its row.
            log.warning("unexpected failure opening %s", item.path, exc_info=True)
            material = False
        if not material:
            done.files.append(item)  # a code archive: one source, as before
            if opening.code:  # what an earlier import took out of it, when it held slides
                done.gone += opening.gone()
            continue
        done.files += opening.files
        done.results += opening.left_out
        done.gone += opening.gone()
    done.files = arranged(done.files)
    return done


def _reporter(progress: Callable[[IngestProgress], None], path: str) -> Callable[[float], None]:
    def report(share: float) -> None:
        stage = Stage.UNPACKING.value
        progress(IngestProgress(path, 0, 1, stage, 0.0, None, None, share, "", share))

    return report


def _litter(name: str) -> bool:
    """What a system leaves in a folder, skipped as a folder's import skips it: hidden
    files (".DS_Store") and Windows' picture caches."""
    parts = name.split("/")
    return any(p.startswith(".") for p in parts) or parts[-1].lower() in _SYSTEM_FILES


def _refusal(member: Member, limits: IngestLimits) -> str | None:
    """Why a member is left out before it is read, or None."""
    info = member.info
    if is_symlink(info):
        return "a symbolic link"
    if member.kind is None and not member.is_archive:
        suffix = PurePosixPath(member.name).suffix
        return f"not a kind of file Coursedex reads ({suffix or 'no extension'})"
    if info.flag_bits & 0x1:
        return "password-protected"
    if info.compress_type not in READABLE_COMPRESSION:
        return "compressed in a way Coursedex does not read"
    if info.file_size == 0:
        return "empty file"
    if info.file_size > limits.max_file_bytes:
        return f"too large ({human_size(info.file_size)})"
    return None


class _Opening:
    """One zip given to an import, opened member by member."""

    def __init__(
        self,
        item: PlannedFile,
        storage: Path,
        limits: IngestLimits,
        course: str | None,
        cancel: threading.Event | None,
    ) -> None:
        self.item = item
        self.limits = limits
        self.cancel = cancel
        key = hashlib.sha256(str(item.path).encode("utf-8", "surrogateescape")).hexdigest()
        self.root = storage / f"{item.path.name[:100]}~{key[:12]}"
        self.given = course
        self.course = item.course
        self.files: list[PlannedFile] = []
        self.left_out: list[FileResult] = []
        self.member_files = MemberFiles(self.root, limits, cancel)
        self.report: Callable[[float], None] = lambda _share: None  # the share taken out
        self.code = False  # read, and found to be a code archive

    def run(self) -> bool:
        """Take the zip's members out; False (nothing written) for a code archive.

        Raises:
            UnreadableFileError: the zip is unsafe, or the disk has no room for it.
            Cancelled.
        """
        cap = self.limits.max_archive_members
        try:
            size = check_file(self.item.path, self.limits.max_file_bytes)
            with open_regular(self.item.path, named=False) as f:
                # Counted in the file before zipfile makes an object for each entry.
                many = count_entries(f, size, cap) > cap
            zf = open_zip(self.item.path)
        except (UnreadableFileError, OSError):
            return False  # the code archive reader says why, on its row
        if many:
            zf.close()
            return False  # refused by the code archive reader: "too many files"
        with zf:
            found = members(zf)
            if not holds_course_material(found):
                self.code = True
                return False
            check_archive(zf, size, self.limits, total_bytes=self.limits.max_file_bytes)
            loose = self.item.course_root is None
            top = common_folder(found) if loose else None
            if loose:
                self.course = self.given or top or self.item.path.stem
            prefix = "" if loose else self.item.path.name + "/"
            places = [prefix + _place(m.name, top) for m in found]
            needed = sum(
                m.info.file_size
                for m, p in zip(found, places, strict=True)
                if not is_current(self.root / p, m.info)
            )
            check_room(self.root, needed)
            try:
                private_dir(self.root)
                self._open(zf, list(zip(found, places, strict=True)), 1)
                shutil.rmtree(self.root / _OPENING, ignore_errors=True)
            except BaseException:
                self.member_files.remove_written()
                raise
        return True

    def gone(self) -> list[Path]:
        """The files in this zip's folder that this opening did not take (nor keep)."""
        taken = {f.path for f in self.files}
        return sorted(
            p
            for p in self.root.rglob("*")
            if p.is_file() and p not in taken and _OPENING not in p.relative_to(self.root).parts
        )

    def _open(self, zf: zipfile.ZipFile, found: list[tuple[Member, str]], depth: int) -> None:
        for i, (member, place) in enumerate(found):
            if depth == 1:
                self.report(i / len(found))
            if self.cancel is not None and self.cancel.is_set():
                raise Cancelled("cancelled")
            if _litter(member.name):
                continue
            reason = _refusal(member, self.limits)
            if reason is not None:
                self._leave(place, reason)
                continue
            # A zip in the zip is read from a file of its own first: it may become a folder.
            target = self.root / _OPENING / f"{depth}.zip" if member.is_archive else None
            try:
                self.member_files.write(zf, member.info, target or self.root / place)
            except (UnreadableFileError, OSError) as e:
                if isinstance(e, OSError) and e.errno == errno.ENOSPC:
                    raise  # no other member fits either
                self._leave(place, str(e) if isinstance(e, UnreadableFileError) else _os(e))
                continue
            if target is not None:
                try:
                    self._nested(target, member.info, place, depth)
                finally:
                    target.unlink(missing_ok=True)
                    self.member_files.forget(target)
            elif member.kind is not None:
                self.files.append(PlannedFile(self.root / place, self.course, None, member.kind))

    def _nested(self, path: Path, info: zipfile.ZipInfo, place: str, depth: int) -> None:
        """A zip in the zip: opened member by member too when it is course material, else
        kept whole as a code archive (one source, as a zip in a folder is)."""
        try:
            with open_zip(path) as zf:
                found = members(zf)
                if not holds_course_material(found):
                    self.member_files.keep(path, info, self.root / place)
                    self.files.append(
                        PlannedFile(self.root / place, self.course, None, SourceKind.CODE)
                    )
                    return
                if depth >= MAX_NESTING:
                    raise UnreadableFileError(
                        f"an archive inside {depth} archives: deeper than {MAX_NESTING} "
                        "is not opened"
                    )
                check_archive(
                    zf, path.stat().st_size, self.limits, total_bytes=self.member_files.budget
                )
                inner = [(m, f"{place}/{_place(m.name, None)}") for m in found]
                check_room(self.root, sum(m.info.file_size for m, _ in inner))
                self._open(zf, inner, depth + 1)
        except UnreadableFileError as e:
            self._leave(place, str(e))

    def _leave(self, place: str, reason: str) -> None:
        self.left_out.append(FileResult(str(self.root / place), Outcome.ERROR, reason))


def _place(name: str, top: str | None) -> str:
    """A member's place: its path in the zip, tidied, without the shared ``top`` folder."""
    tidy = posixpath.normpath(name).lstrip("/")
    if top is not None and tidy.startswith(top + "/"):
        tidy = tidy[len(top) + 1 :]
    return tidy


def _os(error: OSError) -> str:
    return f"cannot be written: {error.strerror or error}"


__all__ = ["ARCHIVES_FOLDER", "Unpacked", "check_room", "member_place", "unpack"]
