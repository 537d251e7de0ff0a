"""Files removed from the library while an import runs: the run stops the one it reads and
skips the queued ones, and goes on with the rest (a removed file's minutes of speech
recognition are not spent for nothing). Asked from any thread; the run checks between its
files and its file's stages check at their next step."""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager

from engine.importing.seeing import EitherSet


class Drops:
    """The paths dropped from the run under way, and the stop of the file it reads."""

    def __init__(self) -> None:
        self._dropped: set[str] = set()
        self._current: tuple[str, threading.Event] | None = None
        self._lock = threading.Lock()

    def drop(self, paths: Collection[str]) -> None:
        """Stop work on ``paths``: the file read now stops at its next check."""
        with self._lock:
            self._dropped.update(paths)
            if self._current is not None and self._current[0] in self._dropped:
                self._current[1].set()

    def __contains__(self, path: object) -> bool:
        with self._lock:
            return path in self._dropped

    @contextmanager
    def reading(self, path: str, cancel: threading.Event | None) -> Iterator[threading.Event]:
        """The stop of ``path`` while it is read: set by the run's ``cancel`` or a drop."""
        stop = EitherSet(cancel)
        with self._lock:
            self._current = (path, stop)
            if path in self._dropped:
                stop.set()
        try:
            yield stop
        finally:
            with self._lock:
                self._current = None

    def clear(self) -> None:
        """The run is over: what was dropped from it applies to no later run."""
        with self._lock:
            self._dropped.clear()
