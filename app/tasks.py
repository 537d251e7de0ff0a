"""Work off the UI thread: run a function on a pool, get its result back on the UI thread.

The window never calls the engine from the UI thread: a search, a refresh of the library
panel or the text of a file to show may wait behind an import's write transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from engine.api import CoursedexError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Failure:
    """What a task that raised hands back: one line for the user."""

    message: str


class _Relay(QObject):
    done = Signal(object, object)  # callback, result or Failure

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.done.connect(self._deliver)  # queued: emitted on a worker, delivered on the UI

    @staticmethod
    def _deliver(callback: Callable[[Any], None], payload: object) -> None:
        callback(payload)


class _Task(QRunnable):
    def __init__(self, fn: Callable[[], object], done: Callable[[Any], None], relay: _Relay):
        super().__init__()
        self.fn = fn
        self.done = done
        self.relay = relay

    def run(self) -> None:
        payload: object
        try:
            payload = self.fn()
        except CoursedexError as e:
            payload = Failure(str(e))
        except Exception as e:  # a worker reports every failure; it never dies silently
            log.warning("background task failed", exc_info=True)
            payload = Failure(f"{type(e).__name__}: {e}")
        self.relay.done.emit(self.done, payload)


class Tasks(QObject):
    """A thread pool whose results arrive on the UI thread, in the callback given."""

    def __init__(self, parent: QObject, threads: int = 1) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(threads)
        self._relay = _Relay(self)
        self._closed = False

    def run(self, fn: Callable[[], object], done: Callable[[Any], None]) -> None:
        """Run ``fn`` on the pool; ``done`` gets its result, or a Failure, on the UI thread.
        Once closed, nothing new starts (the library may be closing behind it)."""
        if self._closed:
            log.debug("task not started: the pool is closed")
            return
        self.pool.start(_Task(fn, done, self._relay))

    def close(self, ms: int) -> bool:
        """Start nothing more, drop what is queued, and wait up to ``ms`` for what runs."""
        self._closed = True
        self.pool.clear()
        return self.pool.waitForDone(ms)

    def wait(self, ms: int) -> bool:
        return self.pool.waitForDone(ms)
