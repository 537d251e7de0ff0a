"""No process of ours outlives the program: its entry points call :func:`end_children` last.

The speech-recognition child is a ``multiprocessing`` "spawn" process, and starting one also
starts Python's resource tracker, a helper process that lives until its parent has exited
and then exits by itself a moment later. Left to that, a finished ``coursedex ingest``
leaves a process behind in its group (reparented to init): a script that waits for the
command, a service manager or a test that checks the session is empty sees it. So the
program waits for its children and stops the tracker, the way the tracker expects to be
stopped (its pipe closed, then waited for), before it returns.
"""

from __future__ import annotations

import logging
import multiprocessing
from multiprocessing import resource_tracker

log = logging.getLogger(__name__)

JOIN_S = 10.0  # a child told to finish (a recognition child given its last job) exits in this


def end_children(join_s: float = JOIN_S) -> None:
    """Wait for every child process to exit (stopping one that does not within ``join_s``),
    then stop the resource tracker and wait for it. Safe to call when there are none."""
    for child in multiprocessing.active_children():
        child.join(join_s)
        if child.is_alive():
            log.warning("child process %s did not exit: stopping it", child.pid)
            child.terminate()
            child.join(3)
        if child.is_alive():
            child.kill()
            child.join(3)
    # The tracker has no public stop; _stop() closes its pipe and waits for it (3.8-3.13).
    tracker = getattr(resource_tracker, "_resource_tracker", None)
    stop = getattr(tracker, "_stop", None)
    if callable(stop):
        stop()
