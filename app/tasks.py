"""Work off the UI thread, the one way the window does it: run a function on a pool and get
``on_done(result)`` or ``on_error(failure)`` back on the UI thread. Workers never touch
widgets; they hand back values, and long jobs report progress and watch a cancel event.

The window never calls the engine from the UI thread: a search, a refresh of the library
panel or the text of a file to show may wait behind an import's write transaction.

Tests can make the pool run tasks inline (``Tasks(parent, inline=True)``): the callbacks
then run before ``run``/``start`` returns, so threaded code is tested deterministically.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from app.main_thread_gc import collect_on_the_ui_thread
from engine.api import CoursedexError

log = logging.getLogger(__name__)

T = TypeVar("T")
P = TypeVar("P")


@dataclass(frozen=True, slots=True)
class Failure:
    """What a task that raised hands back: one line for the user, and the exception (its
    traceback is in the log when it was not one of ours)."""

    message: str
    error: Exception


def failure(error: Exception) -> Failure:
    """Our errors carry a message meant for the user; anything else names its type."""
    if isinstance(error, CoursedexError):
        return Failure(str(error), error)
    return Failure(f"{type(error).__name__}: {error}", error)


class _Relay(QObject):
    """Lives on the UI thread: what a worker emits here is delivered there (queued)."""

    call = Signal(object, object)  # callback, its argument

    def __init__(self, parent: QObject | None) -> None:
        super().__init__(parent)
        self.call.connect(self._deliver)

    def _deliver(self, callback: Callable[[Any], None], argument: object) -> None:
        callback(argument)


class Task(Generic[P]):
    """The handle of a long task: the work checks ``cancelled`` between steps and calls
    ``report`` with its progress; the UI calls ``cancel``. (Not the engine's pipeline
    ``Job``, a planned file registered for an import.)"""

    def __init__(
        self,
        post: Callable[[Callable[[Any], None], object], None],
        on_progress: Callable[[P], None] | None,
    ) -> None:
        self.cancelled = threading.Event()
        self._post = post
        self._on_progress = on_progress

    def cancel(self) -> None:
        self.cancelled.set()

    def report(self, progress: P) -> None:
        """Called on the worker: ``on_progress`` gets ``progress`` on the UI thread."""
        if self._on_progress is not None:
            self._post(self._on_progress, progress)


class _Runnable(QRunnable):
    def __init__(self, body: Callable[[], None]) -> None:
        super().__init__()
        self.body = body

    def run(self) -> None:
        self.body()


class Tasks(QObject):
    """A thread pool whose results arrive on the UI thread, in the callbacks given."""

    def __init__(
        self, parent: QObject | None = None, threads: int = 1, *, inline: bool = False
    ) -> None:
        super().__init__(parent)
        collect_on_the_ui_thread()  # work on the pool must never collect Qt objects
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(threads)
        self.inline = inline
        self._relay = _Relay(self)
        self._closed = False

    def run(
        self,
        fn: Callable[[], T],
        on_done: Callable[[T], None],
        on_error: Callable[[Failure], None] | None = None,
    ) -> None:
        """Run ``fn`` on the pool; ``on_done`` gets its result, ``on_error`` a Failure if it
        raised (without one the failure is only logged). Once closed, nothing new starts
        (the library may be closing behind it)."""
        self.start(lambda _job: fn(), on_done, on_error)

    def start(
        self,
        work: Callable[[Task[P]], T],
        on_done: Callable[[T], None],
        on_error: Callable[[Failure], None] | None = None,
        on_progress: Callable[[P], None] | None = None,
    ) -> Task[P]:
        """Run a long job: ``work`` gets the Task to report progress on and to check for a
        cancel; ``on_progress`` gets each report on the UI thread, before ``on_done``."""
        job: Task[P] = Task(self._post, on_progress)

        def body() -> None:
            try:
                result = work(job)
            except Exception as e:  # a worker reports every failure; it never dies silently
                if not isinstance(e, CoursedexError):
                    log.warning("background task failed", exc_info=True)
                self._post(on_error or _log_failure, failure(e))
            else:
                self._post(on_done, result)

        if self._closed:
            log.debug("task not started: the pool is closed")
        elif self.inline:
            body()
        else:
            self.pool.start(_Runnable(body))
        return job

    def _post(self, callback: Callable[[Any], None], argument: object) -> None:
        if self.inline:
            callback(argument)
        else:
            self._relay.call.emit(callback, argument)

    def close(self, ms: int) -> bool:
        """Start nothing more, drop what is queued, and wait up to ``ms`` for what runs."""
        self._closed = True
        self.pool.clear()
        return self.pool.waitForDone(ms)

    def wait(self, ms: int) -> bool:
        return self.pool.waitForDone(ms)


def _log_failure(failed: Failure) -> None:
    if isinstance(failed.error, CoursedexError):  # any other error is logged with its traceback
        log.warning("background task failed: %s", failed.message)
