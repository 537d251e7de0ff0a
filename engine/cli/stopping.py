"""Ctrl+C (SIGINT) and SIGTERM stop a command the same way.

A long command (ingest, reindex, start-over, demo) runs inside :func:`stopping`: the first
signal sets its cancel event, the work stops at its next check (between batches of texts,
between files, while a recording is transcribed), leaves the library as it was or
resumable, and the command exits 128 + the signal's number: 130 for SIGINT, 143 for
SIGTERM, the status a shell gives a process those signals end. A second signal stops at
once (KeyboardInterrupt, caught by :func:`engine.cli.main`). Any other command stops at the
first signal the same way.

The handlers replace an ignored SIGINT too. A script's ``coursedex reindex &`` starts with
SIGINT ignored (POSIX, for background jobs), and Python then raises nothing: the re-index
went on after ``kill -INT`` and exited 0. A signal sent to this process is meant for it.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)


_Handler = Callable[[int, FrameType | None], None]
_seen: list[int] = []  # the signals this process took, in order


@dataclass
class Stop:
    """What a signal asked: ``cancel`` is set by the first one, ``signum`` says which."""

    cancel: threading.Event = field(default_factory=threading.Event)
    signum: int | None = None

    @property
    def exit_status(self) -> int:
        """128 + the signal's number (130 for SIGINT, 143 for SIGTERM)."""
        return 128 + (self.signum or signal.SIGINT)


def status_after_signal() -> int:
    """The exit status of a command a signal stopped: 143 after SIGTERM, else 130 (Ctrl+C
    reaches Python's own handler before any of ours is installed)."""
    return 128 + (_seen[-1] if _seen else signal.SIGINT)


@contextmanager
def stopping(note: str = "stopping", cancel: threading.Event | None = None) -> Iterator[Stop]:
    """Within: SIGINT and SIGTERM set ``cancel`` (and say ``note`` on stderr) the first time,
    raise KeyboardInterrupt the second."""
    stop = Stop(cancel or threading.Event())

    def first(signum: int, _frame: FrameType | None) -> None:
        _seen.append(signum)
        if stop.signum is not None:
            raise KeyboardInterrupt
        stop.signum = signum
        stop.cancel.set()
        print(f"\ncoursedex: {note} ({signal.Signals(signum).name})", file=sys.stderr, flush=True)

    with _handled(first):
        yield stop


@contextmanager
def stops_at_once() -> Iterator[None]:
    """Within: SIGTERM, like SIGINT, raises KeyboardInterrupt, so the command's ``finally``
    closes the library as it does after Ctrl+C."""

    def now(signum: int, _frame: FrameType | None) -> None:
        _seen.append(signum)
        raise KeyboardInterrupt

    with _handled(now):
        yield


@contextmanager
def _handled(handler: _Handler) -> Iterator[None]:
    """``handler`` for both signals, the previous ones back after. Only the main thread can
    take signals: elsewhere (a test driving ``main`` from a worker) nothing is installed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, handler) for s in SIGNALS}
    try:
        yield
    finally:
        for s, was in previous.items():
            signal.signal(s, was)
