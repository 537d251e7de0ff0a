"""The one owner of the import running in a library (issue 37, item 2): its courses and
files, those it has ended, those removed from the library during it (the run stops them:
:class:`~engine.importing.removals.Removals`) and what is removed as it ends. The library
fills it as its import runs; a window asks it (what a quit leaves to resume, what waits
for the end, a removal to carry out then) and keeps no copy. Thread-safe: the import runs on
one thread, removals and questions come from others.

:func:`import_changes` says what an import changed, from its jobs and report."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from enum import Enum

from engine.changes import Changes
from engine.importing.file_rows import ImportJob
from engine.importing.progress import IngestReport, Outcome
from engine.importing.removals import Removals

_GONE = (Outcome.REMOVED, Outcome.DUPLICATE)  # their row went (a copy is not a second source)
_SAME = (Outcome.UNCHANGED, Outcome.CANCELLED)  # what is found did not change


class _State(Enum):
    IDLE = "idle"
    STARTING = "starting"  # an import was asked for: its files are not known yet
    RUNNING = "running"


class ImportSession:
    """What the import running in this process holds, and what is removed from it."""

    def __init__(self) -> None:
        self.removals = Removals()  # what the pipeline stops and skips
        self._lock = threading.Lock()
        self._state = _State.IDLE
        self._courses: set[str] = set()  # case-folded
        self._files: set[str] = set()
        self._ended: set[str] = set()  # the run's files that have their result
        self._stopped: set[str] = set()  # its files removed from the library during it
        self._after: list[str] = []  # courses and files removed as it ends
        self._held: set[str] = set()  # those of them whose files it stopped

    @contextmanager
    def asked(self) -> Iterator[None]:
        """An import (or a resume) runs within: until :meth:`begin`, what it holds is not
        known yet (it may wait for another process, or take a zip's files out first). What
        :meth:`remove_after` queued stays for :meth:`end` (the library's import calls it
        also when no run began)."""
        with self._lock:
            self._state = _State.STARTING
        try:
            yield
        finally:
            with self._lock:
                self._state = _State.IDLE

    def begin(self, jobs: Sequence[ImportJob]) -> None:
        with self._lock:
            self._state = _State.RUNNING
            self._courses = {job.file.course.casefold() for job in jobs}
            self._files = {str(job.file.path) for job in jobs}
            self._ended, self._stopped = set(), set()

    def file_ended(self, path: str) -> None:
        with self._lock:
            self._ended.add(path)

    def end(self) -> list[tuple[str, bool]]:
        """The run is over: the courses and files to remove now, each with whether the run
        stopped some of its files."""
        with self._lock:
            if self._state is _State.RUNNING:
                self._state = _State.STARTING  # until the import call returns
            self._courses, self._files, self._ended, self._stopped = set(), set(), set(), set()
            after = [(target, target in self._held) for target in self._after]
            self._after, self._held = [], set()
            self.removals.clear()
        return after

    def remove_after(self, target: str) -> bool:
        """Remove ``target`` once the import asked for ends (it cannot be now: the import
        waits for another process's); False when no import is asked for."""
        with self._lock:
            if self._state is _State.IDLE:
                return False
            self._after.append(target)
            return True

    def stop(self, target: str, paths: Sequence[str], course: str) -> list[str]:
        """``target`` (a course, or a file, of ``course``, with ``paths``) is removed: the
        run stops its files it holds, and it is removed as the run ends. Returns the paths
        stopped; [] also when the run holds none of them but imports ``course`` (it is
        removed as the run ends: :meth:`pending_removals` names it) or does not."""
        with self._lock:
            stopped = [p for p in paths if p in self._files]
            if stopped:
                self.removals.stop(stopped)
                self._stopped.update(stopped)
                self._held.add(target)
            if stopped or course.casefold() in self._courses:
                self._after.append(target)
        return stopped

    def holds(self, course: str) -> bool:
        """Whether the run imports into ``course`` (in any case)."""
        with self._lock:
            return course.casefold() in self._courses

    def courses(self) -> frozenset[str]:
        """The courses the run imports into, case-folded."""
        with self._lock:
            return frozenset(self._courses)

    def pending_removals(self) -> tuple[str, ...]:
        """The courses and files removed as the run ends (those it stopped included)."""
        with self._lock:
            return tuple(self._after)

    def left(self) -> int | None:
        """How many of the run's files a quit now leaves for resuming: not ended and not
        removed during it; None while an import is asked for but its files not known yet."""
        with self._lock:
            if self._state is _State.STARTING:
                return None
            return len(self._files - self._ended - self._stopped)


def import_changes(jobs: Sequence[ImportJob], report: IngestReport) -> Changes:
    """What an import of ``jobs`` that ended with ``report`` changed: the files new to the
    library, those whose row went (removed during the import, or a copy of another), and
    every other file it went through (its row shows its stored state again)."""
    new = {str(job.file.path) for job in jobs if job.new}
    gone = tuple(f.path for f in report.files if f.outcome in _GONE)
    added = tuple(f.path for f in report.files if f.path in new and f.path not in gone)
    changed = tuple(f.path for f in report.files if f.path not in new and f.path not in gone)
    different = any(f.outcome not in _SAME for f in report.files)
    return Changes(
        added=added,
        changed=changed,
        removed=gone,
        notes_moved=different,  # a note's file indexed again, moved or gone
        results=different,
    )
