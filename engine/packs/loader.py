"""``coursedex pack import``: a course made searchable from a pack, with no transcription.

The pack is read and checked whole first (:mod:`engine.packs.reader`); then each file is
looked for by its content (:mod:`engine.packs.media`); a pack made with another embedding
model is embedded again from its text; and everything is written in one transaction by the
indexer, so a failure leaves the library as it was. A file that is not on this computer is
imported all the same, at the place it is expected: searchable, its hits say it is not
here, and importing or locating the file later links it (the pipeline moves a source whose
file is gone to a new path with the same content). What the library indexed already is
never replaced (:mod:`engine.packs.ownership`): the pack's file is kept as the library has
it, or left out as a conflict that the summary names.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from engine.changes import NOTHING, Changes
from engine.errors import Cancelled, CoursedexError
from engine.library import Library
from engine.packs.contents import source_contents
from engine.packs.format import Pack, PackLimits, PackProgress, PackSource, Progress
from engine.packs.media import MediaFinder, Place, folder_name
from engine.packs.ownership import Decision, decide
from engine.packs.reader import read_pack
from engine.packs.storing import Placed, Stored, store_pack

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PackFile:
    title: str
    path: str  # where the library has it
    here: bool  # False: not on this computer (a hit on it says so)
    kept_in: str | None = None  # the same file, indexed in this course of the library: kept
    conflict: str | None = None  # other content where it goes: left out (why, in one line)


@dataclass(frozen=True, slots=True)
class ImportSummary:
    course: str
    files: tuple[PackFile, ...]
    segments: int
    notes: int
    reembedded: bool  # the pack's model was not the library's: embedded again from its text
    seconds: float
    # A line for each note or slide link at a place its file does not have, not imported.
    left_out: tuple[str, ...] = ()
    # What the import changed in the library: files added (and moved), changed, notes
    # added; a new course is told whole (the library's courses are read again).
    changes: Changes = NOTHING

    @property
    def missing(self) -> list[PackFile]:
        return [f for f in self.files if not f.here and f.conflict is None]

    @property
    def conflicts(self) -> list[PackFile]:
        """The pack's files left out: the library's own at their places are kept."""
        return [f for f in self.files if f.conflict is not None]


def import_pack(
    library: Library,
    path: Path,
    *,
    media: Path | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    limits: PackLimits | None = None,
) -> ImportSummary:
    """Import the pack at ``path``; ``media`` is a folder holding the course's files. What
    it changed is the summary's ``changes``.

    Raises:
        PackError: the pack is damaged, tampered, unsafe, too large or too new (nothing
            was written).
        LibraryError: the library is read-only or another process is importing.
        Cancelled: ``cancel`` was set (nothing was written).
    """
    started = time.monotonic()
    report = progress or (lambda _p: None)
    report(PackProgress("checking", 0, 1))
    port = library.pack_port
    port.refuse_if_read_only("import a course pack")
    if media is not None and not media.is_dir():
        raise CoursedexError(f"the media folder {media} is not a folder")
    pack = read_pack(path, limits)
    course = pack.manifest.course
    fallback = path.resolve().parent / folder_name(course)
    finder = MediaFinder(media.resolve() if media is not None else None, fallback)
    with port.writing("import a course pack"):
        new_course = all(c.name != course for c in library.courses())
        placed = _places(library, pack, finder, report, cancel)
        # A pack in another language switches an English-only library first.
        port.fit_languages((source.language for source in pack.sources), cancel)
        embedder = library.embedder()
        contents, reembedded = source_contents(
            library.config, pack, placed.places, placed.fates, embedder, report, cancel
        )
        if cancel is not None and cancel.is_set():  # the last moment nothing is written yet
            raise Cancelled("pack import cancelled; the library is unchanged")
        report(PackProgress("writing", 0, 1))
        stored = store_pack(library, placed, contents, embedder, media)
    report(PackProgress("writing", 1, 1))
    fates = zip(pack.sources, placed.places, placed.fates, strict=True)
    files = tuple(_file(s, p, f) for s, p, f in fates)
    for f in files:
        if f.conflict is not None:
            log.warning("a file of the pack left out: %s", f.conflict)
    seconds, changes = time.monotonic() - started, _changes(placed, stored, new_course)
    notes = len(stored.notes)
    return ImportSummary(
        course, files, stored.segments, notes, reembedded, seconds, pack.left_out, changes
    )


def _file(source: PackSource, place: Place, fate: Decision) -> PackFile:
    twin = place.twin
    kept_in = twin.course if fate.keeps and twin is not None else None
    return PackFile(source.title, str(place.path), place.here, kept_in, fate.why or None)


def _places(
    library: Library,
    pack: Pack,
    finder: MediaFinder,
    report: Progress,
    cancel: threading.Event | None,
) -> Placed:
    """Where each source goes, and what becomes of it there (written, kept as the library
    has it, or left out as a conflict)."""
    course = pack.manifest.course
    places: list[Place] = []
    fates: list[Decision] = []
    taken: list[bool] = []
    for i, source in enumerate(pack.sources):
        if cancel is not None and cancel.is_set():
            raise Cancelled("pack import cancelled; the library is unchanged")
        report(PackProgress("finding files", i, len(pack.sources)))
        # Any kind: the same bytes are one file (an import counts a copy a duplicate), and a
        # course holding one content twice could not be exported again.
        twins = library.sources_with_content(source.sha256)
        place = finder.place(source, twins, course)
        places.append(place)
        there = library.source(str(place.path))
        fates.append(decide(source, place, there))
        taken.append(there is not None)
    return Placed(pack, places, fates, taken)


def _changes(placed: Placed, stored: Stored, new_course: bool) -> Changes:
    """What the import changed: each file written is added (changed, when the library had
    a record at its path), a record that followed its file to a new path is removed from
    the old one; the notes added; a new course is told whole."""
    added: list[str] = []
    changed: list[str] = []
    removed: list[str] = []
    for place, fate, taken in zip(placed.places, placed.fates, placed.taken, strict=True):
        path, twin = str(place.path), place.twin
        follows = fate.keeps and place.here and not taken
        moved = twin is not None and twin.path != path and (fate.writes or follows)
        if moved and twin is not None:
            removed.append(twin.path)
        if fate.writes or moved:
            (changed if taken else added).append(path)
    return Changes(
        added=tuple(added),
        changed=tuple(changed),
        removed=tuple(removed),
        notes_added=stored.notes,
        notes_moved=stored.notes_moved,
        results=True,
        whole=new_course,
    )
