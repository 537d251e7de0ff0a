"""The files removed from the library while an import runs, as the run sees them: it stops
the one it reads and skips the queued ones, and goes on with the rest (a removed file's
minutes of speech recognition are not spent for nothing). Asked from any thread; the run
checks between its files and its file's stages check at their next step. The import's
owner (:class:`~engine.importing.session.ImportSession`) fills it."""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager

from engine.importing.seeing import EitherSet


class Removals:
    """The paths removed from the run under way, and the stop of the file it reads."""

    def __init__(self) -> None:
        self._removed: set[str] = set()
        self._current: tuple[str, threading.Event] | None = None
        self._lock = threading.Lock()

    def stop(self, paths: Collection[str]) -> None:
        """Stop work on ``paths``: the file read now stops at its next check."""
        with self._lock:
            self._removed.update(paths)
            if self._current is not None and self._current[0] in self._removed:
                self._current[1].set()

    def __contains__(self, path: object) -> bool:
        with self._lock:
            return path in self._removed

    @contextmanager
    def reading(self, path: str, cancel: threading.Event | None) -> Iterator[threading.Event]:
        """The stop of ``path`` while it is read: set by the run's ``cancel`` or a removal."""
        stop = EitherSet(cancel)
        with self._lock:
            self._current = (path, stop)
            if path in self._removed:
                stop.set()
        try:
            yield stop
        finally:
            with self._lock:
                self._current = None

    def clear(self) -> None:
        """The run is over: what was removed from it applies to no later run."""
        with self._lock:
            self._removed.clear()
