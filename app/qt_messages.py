"""Qt's log lines, read back without a message handler written in Python.

A Python message handler must take the GIL. Qt Multimedia's threads log ("No audio device
detected") while the UI thread, which holds the GIL inside ``QMediaPlayer.stop()`` or
``setSource()``, waits for them: with a Python handler installed, the two wait for each other
for good (the test suite hung in tests/app/player/test_player_controls.py under pytest-qt's log
capture, which is such a handler; gdb showed the audio thread in ``PyGILState_Ensure`` from
``QMessageLogger::warning`` and the UI thread in the player's ``stop()``). So Qt keeps its own
handler, which writes to stderr, and :func:`qt_messages` points stderr at a file while it is
open and reads the lines back when it closes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def qt_messages(said: list[str]) -> Iterator[None]:
    """Collect in ``said`` what is written to stderr (file descriptor 2: Qt's handler,
    libraries in C) while the block runs; the lines are added when the block ends, even by an
    exception.

    Python's logging keeps writing to the real stderr meanwhile. Without a usable stderr (a
    windowed build on Windows has none) nothing is collected."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    real = os.fdopen(os.dup(saved), "w", encoding="utf-8", errors="backslashreplace")
    moved = [
        handler
        for handler in logging.getLogger().handlers
        if isinstance(handler, logging.StreamHandler) and handler.stream is sys.stderr
    ]
    with tempfile.TemporaryFile() as sink:
        for handler in moved:
            handler.setStream(real)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()  # what Python itself wrote meanwhile goes to the sink too
            os.dup2(saved, 2)
            os.close(saved)
            for handler in moved:
                handler.setStream(sys.stderr)
            real.close()
            sink.seek(0)
            text = sink.read().decode("utf-8", errors="replace")
            said.extend(line.rstrip() for line in text.splitlines() if line.strip())


__all__ = ["qt_messages"]
