"""Starting a damaged library over: its files are kept aside, and what it held is re-imported.

A library is an index of the user's own files: nothing in it is lost for good when its
database is damaged or lost, as long as the files it indexed are still on disk. A student
has no backup to restore, so the window and ``coursedex start-over`` offer this instead:
:func:`start_over` moves the library's own files (``library.db`` with its ``-wal`` and
``-shm``, ``vectors/``, ``thumbs/``) into a ``damaged-<date>`` folder inside the library,
and reads which files the database listed, course by course, as far as SQLite can still
read it. The caller opens the library again, which makes a new database, and imports those
files. Files fetched from the web (``media/``) stay where they are. The user's notes are not
an index of anything: those SQLite can still read are written into the new database, and
show again under their files as these are imported (a note is kept by its file's content).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from engine.errors import LibraryBusyError, LibraryError
from engine.library import Library
from engine.library.folder import LibraryLock
from engine.library.records import FOLLOW_KEY
from engine.private_files import PRIVATE_DIR
from engine.store import NoteRow
from engine.store.salvage import HeldCourse, HeldFile, fails_check, read_held, read_notes

DATABASE = "library.db"
# The library's own files, from the database to what is made from it.
OWN_FILES = (DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm", "vectors", "thumbs")


@dataclass(frozen=True, slots=True)
class SetAside:
    """What :func:`start_over` did: where the damaged files went, and what they listed."""

    folder: Path
    held: tuple[HeldFile, ...]
    courses: tuple[HeldCourse, ...]
    complete: bool  # False: the database could not be read to its end (or at all)
    notes: tuple[NoteRow, ...] = ()  # the user's notes it held, as far as they could be read

    def prepare(self, library: Library) -> None:
        """Make the courses again in the new library, with their folders (those still there)
        and whether they follow them, and keep the user's notes, before their files are
        imported (each note shows again as its file is)."""
        for course in self.courses:
            root = course.root if course.root and Path(course.root).is_dir() else None
            library.store.catalog.ensure_course(course.name, root)
            if root is not None and course.follows:
                library.follow(course.name)
        with library.store.transaction():
            for note in self.notes:
                library.store.notes.insert(note)

    def by_course(self) -> dict[str | None, list[Path]]:
        """The files to import again (those still on disk), by course, in the order the
        library listed them."""
        courses: dict[str | None, list[Path]] = {}
        for held in self.held:
            path = Path(held.path)
            if path.exists():
                courses.setdefault(held.course, []).append(path)
        return courses

    @property
    def missing(self) -> list[str]:
        """The files listed that are no longer on disk."""
        return [h.path for h in self.held if not Path(h.path).exists()]


def needs_start_over(folder: Path) -> bool:
    """Whether the library in ``folder`` is damaged or lost: its database fails SQLite's
    quick check or cannot be opened, or is missing or empty while its vector index remains
    (as :func:`~engine.library.folder.refuse_lost_database` refuses). A sound library, or a
    folder that never was one, needs nothing."""
    db = folder / DATABASE
    if not db.exists() or db.stat().st_size == 0:
        return any((folder / "vectors").glob("*.hnsw"))
    return fails_check(db)


def start_over(folder: Path, *, now: float | None = None) -> SetAside:
    """Move the damaged library's own files in ``folder`` aside, into
    ``folder/damaged-YYYYMMDD-HHMMSS``, and return which files it listed.

    Raises:
        LibraryError: the library is not damaged (nothing is moved), or a file cannot be
            moved (what was moved is put back).
        LibraryBusyError: another process has the library open for writing.
    """
    lock = LibraryLock(folder / "library.lock", lambda: None, lambda: None)
    if not folder.is_dir():
        raise LibraryError(f"{folder} is not a library folder")
    if not lock.acquire():
        raise LibraryBusyError(f"the library {folder} is in use by another Coursedex: close it")
    try:
        if not needs_start_over(folder):
            raise LibraryError(f"the library {folder} is not damaged: nothing to start over")
        held, courses, complete = read_held(folder / DATABASE, FOLLOW_KEY)
        notes = read_notes(folder / DATABASE)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
        aside = folder / f"damaged-{stamp}"
        aside.mkdir(mode=PRIVATE_DIR)
        _move_all(folder, aside)
        return SetAside(aside, tuple(held), tuple(courses), complete, tuple(notes))
    finally:
        lock.release()


def _move_all(folder: Path, aside: Path) -> None:
    moved: list[str] = []
    for name in OWN_FILES:
        if not (folder / name).exists():
            continue
        try:
            (folder / name).rename(aside / name)
        except OSError as e:
            for back in reversed(moved):
                (aside / back).rename(folder / back)
            aside.rmdir()
            raise LibraryError(f"cannot move {name} of the library {folder} aside: {e}") from e
        moved.append(name)


__all__ = ["HeldCourse", "HeldFile", "SetAside", "needs_start_over", "start_over"]
