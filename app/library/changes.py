"""What changed in the library, told once, and the panel and course filter kept in step.

The window relays on its one ``library_changed`` notification the engine's own
:class:`~engine.changes.Changes` of each call that wrote (an import's end, a removal, a
language set, a followed folder's import, another process's commits); an import's live
state of each file (:class:`FileState`) is progress, not a change, and comes apart.
:class:`LibraryFollower` applies both: the panel updates only the rows concerned (the
records of the courses touched are read on a worker, their files ``stat``-ed there too), and
the whole library is read only at the start and for a change it cannot apply row by row.
The search runs again only when its results can change (a file indexed or removed), and at
most once every few seconds while an import runs: a folder of 300 notes must not mean 300
re-reads of the library on the UI thread and 300 searches behind them (issue 23).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer, Signal

from app.library.panel import LibraryPanel
from app.library.rows import WORKING, missing_paths
from app.tasks import Failure, Tasks
from engine.api import Changes, Course, IngestProgress, Library, Outcome, Source

SEARCH_AGAIN_MS = 3000  # while an import runs, the results follow it at most this often


@dataclass(frozen=True, slots=True)
class FileState:
    """An import's live state of one file ("transcribing 43%"), then its outcome."""

    path: str
    state: str
    outcome: Outcome | None = None  # the file is done
    share: float | None = None  # while it is worked on: its share done (WORKING: not known)

    @classmethod
    def of(cls, p: IngestProgress, state: str) -> FileState:
        """The file ``p`` reports on, ``state`` in words: while not done, its share done
        across all its stages (the import's progress model), or WORKING when not known."""
        if p.result is not None:
            return cls(p.path, state, p.result.outcome)
        return cls(p.path, state, share=WORKING if p.file_fraction is None else p.file_fraction)


@dataclass(frozen=True, slots=True)
class CoursesRead:
    """The records of some courses, read on a worker."""

    courses: list[Course]
    sources: list[Source]  # their files
    missing: set[str]  # those of them gone from disk
    gone: list[str]  # the paths asked about that are no longer in the library


def read_courses_of(library: Library, paths: Sequence[str]) -> CoursesRead:
    """On a worker: the records of the courses holding ``paths`` (their other files may have
    been queued with them), and which of their indexed files are gone from disk."""
    names: set[str] = set()
    gone: list[str] = []
    for path in paths:
        source = library.source(path)
        if source is None:
            gone.append(path)
        else:
            names.add(source.course)
    courses = [c for c in library.courses() if c.name in names]
    sources = [s for c in courses for s in library.sources(c.name)]
    return CoursesRead(courses, sources, missing_paths(sources), gone)


class LibraryFollower(QObject):
    """Applies each change to the panel; reads what a change needs on the window's pool, one
    read at a time (requests made meanwhile are merged into the next)."""

    courses_read = Signal(object, int)  # the library's courses (list[Course]), its files
    search_due = Signal()  # the results may have changed: search again
    failed = Signal(str)  # a read failed: what to tell the user

    def __init__(
        self,
        library: Library,
        tasks: Tasks,
        panel: LibraryPanel,
        importing: Callable[[], bool],
        parent: QObject | None = None,
    ) -> None:
        """``importing``: whether an import runs or waits its turn (the results follow it
        at most every few seconds)."""
        super().__init__(parent)
        self.library = library
        self.tasks = tasks
        self.panel = panel
        self.importing = importing
        self._reading = False
        self._whole = False  # the whole library is to be read next
        self._paths: dict[str, None] = {}  # the files whose courses are to be read next
        self._asked: set[str] = set()  # files not in the panel, read or to be read
        self._search = QTimer(self, singleShot=True, interval=SEARCH_AGAIN_MS)
        self._search.timeout.connect(self.search_due)

    def apply(self, changes: Changes) -> None:
        """Follow what a call that wrote to the library says it changed."""
        if changes.whole or changes.courses_renamed:
            self.reread()
        else:
            for name in changes.courses_removed:
                self.panel.remove_course(name)
            for path in changes.removed:  # a course's files went with its row
                self.panel.remove_file(path)
            if changes.courses_removed or changes.removed:
                self._announce()
            if changes.files:
                self._read(paths=changes.files)
        if changes.results:
            self._results_changed()

    def progress(self, state: FileState) -> None:
        """An import's live state of a file; a file new to the panel has its course read."""
        self.panel.set_file_state(state.path, state.state, state.share)
        if self.panel.item_of(state.path) is None and state.path not in self._asked:
            self._asked.add(state.path)
            self._read(paths=[state.path])
        if state.outcome == Outcome.INDEXED:
            self._results_changed()

    def recheck(self, paths: Sequence[str] = ()) -> None:
        """Read the rows of ``paths`` again (none: the whole library): nothing was written,
        but what the disk holds may have changed (a file found gone)."""
        self._read(paths=paths, whole=not paths)

    def reread(self) -> None:
        """Read the whole library again (at the start, and for what rows cannot follow)."""
        self._read(whole=True)

    def flush_search(self) -> None:
        """The import ended: the search it delayed runs now."""
        if self._search.isActive():
            self._search.stop()
            self.search_due.emit()

    def _results_changed(self) -> None:
        if not self.importing():
            self._search.stop()  # a search delayed by the import is this one
            self.search_due.emit()
        elif not self._search.isActive():  # not restarted: the results follow the import
            self._search.start()

    # --- reading, one read at a time ------------------------------------------------------

    def _read(self, *, paths: Sequence[str] = (), whole: bool = False) -> None:
        self._whole = self._whole or whole
        self._paths.update(dict.fromkeys(paths))
        if self._reading:
            return
        library = self.library
        if self._whole:
            self._whole, self._paths = False, {}

            def read_all() -> CoursesRead:
                sources = library.sources()
                return CoursesRead(library.courses(), sources, missing_paths(sources), [])

            self._start(read_all, self._whole_read)
        elif self._paths:
            asked, self._paths = list(self._paths), {}
            self._start(lambda: read_courses_of(library, asked), self._courses_read)

    def _start(self, read: Callable[[], CoursesRead], done: Callable[[CoursesRead], None]) -> None:
        self._reading = True

        def failed(failure: Failure) -> None:
            self._reading = False
            self.failed.emit(failure.message)
            self._read()

        def finish(got: CoursesRead) -> None:
            self._reading = False
            done(got)
            self._read()  # what was asked for meanwhile

        self.tasks.run(read, finish, failed)

    def _whole_read(self, got: CoursesRead) -> None:
        self.panel.refresh(got.courses, got.sources, got.missing)
        self._asked.clear()
        self._announce()

    def _courses_read(self, got: CoursesRead) -> None:
        self.panel.update_courses(got.courses, got.sources, got.missing)
        for path in got.gone:
            self.panel.remove_file(path)
        self._asked.difference_update(s.path for s in got.sources)
        self._asked.difference_update(got.gone)
        self._announce()

    def _announce(self) -> None:
        self.courses_read.emit(self.panel.courses(), self.panel.file_count())
