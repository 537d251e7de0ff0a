"""What another process changes in the library reaches the window: courses and files that a
terminal's ``coursedex ingest`` (or a second window, or ``coursedex remove``) added, changed
or removed show in the library panel and the course filter without a restart (issue 24).

Cheaply, as the window's own changes do (issue 23 was a window that re-read everything on
every event): each second the database's files are ``stat``-ed on the UI thread (no lock);
only when they moved, SQLite is asked on the window's pool whether another connection
committed (``PRAGMA data_version``), and only then does the library say what changed since
its last marks (``Library.changes_since``: each file's course, state and content compared).
That is relayed through the window's one ``library_changed`` notification, so the panel
updates only those rows (app/library/changes.py), the results and the notes follow. While
the window imports, it waits: no other process can import then, and the window's own
commits are not outside ones. Checks never overlap, so a long outside import is followed
about once a second.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer

from app.tasks import Failure, Tasks
from engine.api import Changes, Library, LibraryMarks

log = logging.getLogger(__name__)
LOOK_MS = 1000  # how often the database's files are looked at


class OutsideChanges(QObject):
    """Follows another process's commits for a window: ``changed`` gets what the library
    says they changed (the window's ``library_changed.emit``; notes included, which a
    ``coursedex notes add`` changes alone)."""

    def __init__(
        self,
        library: Library,
        tasks: Tasks,
        changed: Callable[[Changes], None],
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

        def check() -> tuple[int, Changes, LibraryMarks] | None:
            outside = library.outside_commits()
            if outside == seen:  # only this process wrote
                return None
            return outside, *library.changes_since(before)

        self.tasks.run(check, self._checked, self._failed)

    def _checked(self, got: tuple[int, Changes, LibraryMarks] | None) -> None:
        self._checking = False
        if got is None:
            return
        self._seen, changes, self._marks = got
        if changes.files or changes.removed or changes.whole:
            log.info("another process changed the library: %s", _summary(changes))
        self.changed(changes)

    def _failed(self, failed: Failure) -> None:
        self._checking = False
        log.warning("cannot read what another process changed: %s", failed.message)


def _summary(changes: Changes) -> str:
    if changes.whole:
        return "the whole library read again"
    return f"{len(changes.files)} files new or changed, {len(changes.removed)} gone"
