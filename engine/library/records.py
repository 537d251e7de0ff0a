"""What a library holds, read back and kept: its courses and files, a file's segments and
documents (transcript, chapters, slide pages, text), and the few facts integrations keep
with it (the folders followed, the pages files came from, one-time flags).

:class:`Records` is the part of :class:`~engine.library.facade.Library` that needs no model
and no import (the library's methods of the same names hand their calls to it): the
window's panels and viewers, the MCP server, links and watch folders read through it.
Writes here are single rows in their own short transaction, refused on a read-only library.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from engine.changes import Changes
from engine.config import EngineConfig
from engine.errors import NotFoundError
from engine.importing.planning import resolved, storable
from engine.integrations import documents
from engine.library.marks import changes_between
from engine.library.write_access import WriteAccess
from engine.store import Course, LibraryMarks, SegmentRow, Source, Store
from engine.types import Timing

# What integrations keep in the library's meta table, per course or file.
FOLLOW_KEY = "follow:"  # + course name, case-folded: "1" while it follows its folder
ORIGIN_KEY = "origin:"  # + a fetched file's path: the page it came from


class Records:
    """The library's records, read from its store; the few writes here go through its
    write access. ``config`` gives the library's settings of the moment."""

    def __init__(
        self, store: Store, access: WriteAccess, config: Callable[[], EngineConfig]
    ) -> None:
        self.store = store
        self.access = access
        self._config = config

    # --- management ---------------------------------------------------------------------

    def courses(self) -> list[Course]:
        return self.store.catalog.courses()

    def sources(self, course: str | None = None) -> list[Source]:
        return self.store.catalog.sources(self.store.catalog.course_id(course) if course else None)

    # --- what another process changed ---------------------------------------------------

    def disk_stamp(self) -> tuple[int, ...]:
        """The size and modification time of the database and its write-ahead log: they
        move whenever anyone commits (this process too). Read without any lock, so a window
        can look each second and ask :meth:`outside_commits`, which waits for the
        database, only when they moved."""
        path = str(self.store.db.path)
        stamp: list[int] = []
        for name in (path, path + "-wal"):
            try:
                info = os.stat(name)
            except OSError:  # no log (yet), or an in-memory library
                stamp += [-1, -1]
            else:
                stamp += [info.st_size, info.st_mtime_ns]
        return tuple(stamp)

    def outside_commits(self) -> int:
        """How many times another process (a terminal's ``coursedex ingest``) was seen to
        commit to the library since it was opened here (SQLite's data_version): when it
        moves, :meth:`marks` compared with an earlier read tells what changed."""
        return self.store.db.outside_commits()

    def marks(self) -> LibraryMarks:
        """Every course's name and each file's course, state and content, in one light read
        (no record is built): two reads compared tell what was added, changed or removed."""
        return self.store.catalog.marks()

    def changes_since(self, marks: LibraryMarks) -> tuple[Changes, LibraryMarks]:
        """What another process committed since the library read ``marks`` (see
        :meth:`outside_commits`), and the marks now. Notes are not marked: they may differ."""
        now = self.marks()
        return changes_between(marks, now) | Changes(notes_moved=True), now

    def flag(self, name: str) -> bool:
        """A one-time fact stored with the library, e.g. that the demo course was offered."""
        return self.store.meta.get(f"flag:{name}") == "1"

    def set_flag(self, name: str) -> None:
        """Raises:
        LibraryDamagedError: the database is damaged (nothing is written).
        """
        if self.access.read_only is None:  # a read-only library asks again next time
            self.access.refuse_if_damaged()
            self.store.meta.set(f"flag:{name}", "1")

    def source(self, path: str) -> Source | None:
        """The library's record of a file (by the path search results carry)."""
        return self.store.catalog.source_by_path(path)

    def course(self, name: str) -> Course:
        """The course named ``name``, in any case.

        Raises:
            NotFoundError: no such course.
        """
        found = next((c for c in self.courses() if c.name.casefold() == name.casefold()), None)
        if found is None:
            raise NotFoundError(f"no course named {name!r}")
        return found

    def segment(self, segment_id: int) -> SegmentRow | None:
        """A stored segment by the id a search result carries (None: gone since)."""
        return self.store.segments.by_ids([segment_id]).get(segment_id)

    def segments_of(self, path: str) -> list[SegmentRow]:
        """A file's segments in their order.

        Raises:
            NotFoundError: no such file in the library.
        """
        return self.store.segments.of_source(self.source_or_raise(path).id)

    def sources_with_content(self, sha256: str) -> list[Source]:
        """The indexed files whose content has this hash (a moved or copied file)."""
        return self.store.catalog.sources_by_sha256(sha256)

    # --- what integrations keep: the folders followed, the pages files came from ---------

    def follows(self, course: str) -> bool:
        """Whether a course follows its folder (watch folders import what is added there)."""
        return self.store.meta.get(FOLLOW_KEY + course.casefold()) == "1"

    def follow(self, course: str, on: bool = True) -> Changes:
        """Make a course follow its folder (or stop). Returns what it changed that a view
        shows: nothing (the folders followed are read by the watcher and the dialog that
        sets them).

        Raises:
            NotFoundError: no such course, or it was not imported as a folder.
            LibraryError: the library is read-only.
        """
        found = self.course(course)
        if on and not found.root:
            raise NotFoundError(
                f"the course {found.name!r} was not imported as a folder: "
                "there is no folder to follow"
            )
        value = "1" if on else "0"
        self._keep(FOLLOW_KEY + found.name.casefold(), value, "follow a folder")
        return Changes()

    def origin(self, path: Path | str) -> str | None:
        """The page an imported file came from (None for a file of the user's own)."""
        return self.store.meta.get(ORIGIN_KEY + str(path))

    def set_origin(self, path: Path | str, url: str) -> None:
        """Record the page a file was fetched from.

        Raises:
            LibraryError: the library is read-only.
        """
        self._keep(ORIGIN_KEY + str(path), url, "import from a web page")

    def _keep(self, key: str, value: str, what: str) -> None:
        # One row, written alone: it waits for no import (another process's included),
        # as SQLite serialises it with their transactions.
        self.access.refuse_unwritable(what)
        with self.store.transaction():
            self.store.meta.set(key, value)

    # --- a file's documents -------------------------------------------------------------

    def transcript(self, path: str) -> list[Timing]:
        """The spoken sentences (or subtitle cues) of a lecture in time order, once each.

        Raises:
            NotFoundError: no such file in the library.
        """
        return documents.transcript(self.store, self.source_or_raise(path))

    def chapters(self, path: str) -> list[documents.Chapter]:
        """A lecture's chapters: where its slide (or the text on its screen) changes, titled.

        Raises:
            NotFoundError: no such file in the library.
        """
        return documents.chapters(self.store, self.source_or_raise(path))

    def slide_pages(self, path: str) -> list[documents.SlidePage]:
        """A deck's pages as its import read them (titles and text), for showing a slide
        without reading the file again.

        Raises:
            NotFoundError: no such file in the library.
        """
        return documents.slide_pages(self.store, self.source_or_raise(path))

    def source_text(self, path: str, member: str | None = None) -> str:
        """The text of a code or notes file, or of a file inside an imported archive,
        decoded the way the import decoded it (for showing it at the matched line).

        Raises:
            NotFoundError: the file is not in the library, or the archive has no such member.
            UnreadableFileError: the file is gone or changed so it cannot be read as text.
        """
        return documents.source_text(self.source_or_raise(path), self._config().limits, member)

    def file_named(self, target: str) -> Source | None:
        """The file at ``target`` as a user names it: the path imported (a link keeps its
        own name), or the file it resolves to, relative or with ``~``. None when the library
        has no such file (a link loop or a name that is not UTF-8 is in no library)."""
        if not storable(Path(target)):
            return None
        given = resolved(Path(target), expand=True, resolve=False)
        named = [resolved(given.absolute().parent) / given.name, resolved(given)]
        paths = (str(p) for p in named if storable(p))
        return next(filter(None, map(self.store.catalog.source_by_path, paths)), None)

    def doomed(self, target: str) -> tuple[int | None, list[Source]]:
        """The course ``target`` names (its id and sources), or the one source at that path.

        Raises:
            NotFoundError: nothing in the library has that name or path.
        """
        doomed: list[Source]
        if not storable(Path(target)):  # invalid UTF-8 from a command line
            raise NotFoundError(f"no course or file named {target!r} in the library")
        try:
            course_id = self.store.catalog.course_id(target)
            doomed = self.store.catalog.sources(course_id)
        except NotFoundError:
            course_id = None
            found = self.file_named(target)
            if found is None:
                raise NotFoundError(f"no course or file named {target!r} in the library") from None
            doomed = [found]
        return course_id, doomed

    def source_or_raise(self, path: str) -> Source:
        source = self.store.catalog.source_by_path(path)
        if source is None:
            raise NotFoundError(f"{path} is not in the library")
        return source
