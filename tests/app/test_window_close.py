"""Closing the window while a search still runs on the pool: the library is closed only
after it (app.main closes the library once the window has closed)."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.tasks import Failure
from engine.library import Library
from engine.search import SearchOutcome
from tests.app.ui import giraffe_window


def test_closing_waits_for_a_search_still_running(
    qtbot: QtBot, library: Library, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    window = giraffe_window(qtbot, library, tmp_path)
    started, go = threading.Event(), threading.Event()
    outcomes: list[object] = []

    def search() -> SearchOutcome:
        started.set()
        go.wait(10)  # still running when close() begins
        return library.search("what do giraffes eat")

    window.tasks.run(search, outcomes.append, outcomes.append)
    assert started.wait(10)
    threading.Timer(0.3, go.set).start()  # released while close() is waiting
    window.close()
    library.close()  # as app.main does once the event loop ends
    qtbot.waitUntil(lambda: bool(outcomes), timeout=10_000)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    (outcome,) = outcomes
    assert not isinstance(outcome, Failure), outcome
    assert isinstance(outcome, SearchOutcome) and outcome.results
