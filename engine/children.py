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

JOIN_S = 10.0  # a child that is not a daemon gets this long to finish its work


def end_children(join_s: float = JOIN_S) -> None:
    """Stop the children still running and wait until each has exited, then stop the
    resource tracker and wait for it. Safe to call when there are none.

    As multiprocessing does at exit: a daemon child (the recognition child is one; a finished
    import has already told it to exit and waited) is stopped at once, since nothing will
    read its work (the window quit during an import); another gets ``join_s`` to finish."""
    for child in multiprocessing.active_children():
        if not child.daemon:
            child.join(join_s)
        if child.is_alive():
            log.info("stopping child process %s", child.pid)
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
