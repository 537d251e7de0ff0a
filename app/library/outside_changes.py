"""What another process changes in the library reaches the window: courses and files that a
terminal's ``coursedex ingest`` (or a second window, or ``coursedex remove``) added, changed
or removed show in the library panel and the course filter without a restart (issue 24).

Cheaply, as the window's own changes do (issue 23 was a window that re-read everything on
every event): each second the database's files are ``stat``-ed on the UI thread (no lock);
only when they moved, SQLite is asked on the window's pool whether another connection
committed (``PRAGMA data_version``), and only then are the library's marks read (one light
query: each file's course, state and content) and compared with the last ones. What differs
is told through the window's one ``library_changed`` notification, so the panel updates
only those rows (app/library/changes.py) and the results follow. While the window imports,
it waits: no other process can import then, and the window's own commits are not outside
ones. Checks never overlap, so a long outside import is followed about once a second.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer, Signal

from app.library.changes import FilesChanged, LibraryChange, Removed, Reread
from app.tasks import Failure, Tasks
from engine.api import Library, LibraryMarks, SourceStatus

log = logging.getLogger(__name__)
LOOK_MS = 1000  # how often the database's files are looked at
MANY_GONE = 20  # more files gone than this: one read of the whole library, not a row each


def what_changed(before: LibraryMarks, after: LibraryMarks) -> list[LibraryChange]:
    """The changes that bring a panel showing ``before`` to ``after``."""
    gone_courses = before.courses - after.courses
    gone = [
        path
        for path, mark in before.files.items()
        if path not in after.files and mark.course not in gone_courses
    ]
    changed = [path for path, mark in after.files.items() if before.files.get(path) != mark]
    empty_new = after.courses - before.courses - {m.course for m in after.files.values()}
    if empty_new or len(gone) > MANY_GONE:  # a course made empty or renamed, many removed
        return [Reread()]
    changes: list[LibraryChange] = [Removed(name, is_course=True) for name in sorted(gone_courses)]
    changes += [Removed(path, is_course=False) for path in gone]
    if changed:
        indexed = any(after.files[p].status == SourceStatus.INDEXED.value for p in changed)
        changes.append(FilesChanged(tuple(changed), indexed))
    return changes


class OutsideChanges(QObject):
    """Follows another process's commits for a window: ``changed`` gets each change (the
    window's ``library_changed.emit``); ``committed`` says another process committed at all
    (``coursedex notes add`` changes no file: the Notes panel reads its notes again)."""

    committed = Signal()

    def __init__(
        self,
        library: Library,
        tasks: Tasks,
        changed: Callable[[LibraryChange], None],
        importing: Callable[[], bool],
        window: QObject,
        look_ms: int = LOOK_MS,
    ) -> None:
        """It stops when ``window`` closes (the library closes right after)."""
        super().__init__(window)
        self.library = library
        self.tasks = tasks
        self.changed = changed
        self.importing = importing
        self._timer = QTimer(self, interval=look_ms)
        self._timer.timeout.connect(self._look)
        self._stamp: tuple[int, ...] = ()
        self._seen = -1  # outside commits seen
        self._marks = LibraryMarks(frozenset(), {})
        self._checking = False
        window.installEventFilter(self)

    def start(self) -> None:
        """Read the marks to compare with (before the panel first reads the library, on the
        same pool: a commit in between is then told once more, never missed)."""
        library = self.library
        self._checking = True
        self._stamp = library.disk_stamp()
        self.tasks.run(
            lambda: (library.outside_commits(), library.marks()), self._started, self._failed
        )
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parent() and event.type() == QEvent.Type.Close:
            self.stop()
        return super().eventFilter(watched, event)

    def _started(self, got: tuple[int, LibraryMarks]) -> None:
        self._seen, self._marks = got
        self._checking = False

    def _look(self) -> None:
        if self._checking or self.importing():
            return
        stamp = self.library.disk_stamp()
        if stamp == self._stamp:
            return
        self._stamp = stamp
        self._checking = True
        library, seen, before = self.library, self._seen, self._marks

        def check() -> tuple[int, LibraryMarks, list[LibraryChange]] | None:
            outside = library.outside_commits()
            if outside == seen:  # only this process wrote
                return None
            after = library.marks()
            return outside, after, what_changed(before, after)

        self.tasks.run(check, self._checked, self._failed)

    def _checked(self, got: tuple[int, LibraryMarks, list[LibraryChange]] | None) -> None:
        self._checking = False
        if got is None:
            return
        self._seen, self._marks, changes = got
        self.committed.emit()
        if changes:
            log.info("another process changed the library: %s", _summary(changes))
        for change in changes:
            self.changed(change)

    def _failed(self, failed: Failure) -> None:
        self._checking = False
        log.warning("cannot read what another process changed: %s", failed.message)


def _summary(changes: list[LibraryChange]) -> str:
    files = sum(len(c.paths) for c in changes if isinstance(c, FilesChanged))
    gone = sum(1 for c in changes if isinstance(c, Removed))
    whole = any(isinstance(c, Reread) for c in changes)
    return "the whole library read again" if whole else f"{files} files new or changed, {gone} gone"
