"""Qt's log lines without a message handler in Python (app/qt_messages.py): such a handler,
pytest-qt's log capture included, deadlocked Qt Multimedia's threads against the UI thread
and hung the suite in CI."""

from __future__ import annotations

import logging
import sys

import pytest
from PySide6.QtCore import qInstallMessageHandler, qWarning

from app.qt_messages import qt_messages


def test_no_message_handler_in_python_is_installed_while_tests_run() -> None:
    previous = qInstallMessageHandler(None)
    qInstallMessageHandler(previous)
    assert previous is None, f"a Qt message handler in Python is installed: {previous!r}"


def test_qt_lines_are_collected_and_python_logs_still_reach_stderr(
    capfd: pytest.CaptureFixture[str],
) -> None:
    root = logging.getLogger()
    to_stderr = logging.StreamHandler(sys.stderr)
    root.addHandler(to_stderr)
    said: list[str] = []
    try:
        with qt_messages(said):
            qWarning("Qt says: no audio device")
            logging.getLogger("coursedex.test").warning("Python says: still here")
    finally:
        root.removeHandler(to_stderr)
    assert said == ["Qt says: no audio device"]
    err = capfd.readouterr().err
    assert "Python says: still here" in err
    assert "no audio device" not in err
    qWarning("Qt says: after the block")
    assert "after the block" in capfd.readouterr().err  # stderr is back
    assert said == ["Qt says: no audio device"]


def test_lines_are_collected_when_the_block_raises(capfd: pytest.CaptureFixture[str]) -> None:
    said: list[str] = []
    with pytest.raises(RuntimeError), qt_messages(said):
        qWarning("No QtMultimedia backends found")
        raise RuntimeError("the player failed")
    assert said == ["No QtMultimedia backends found"]
    assert "backends" not in capfd.readouterr().err
