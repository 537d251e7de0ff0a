"""The one way the app runs background work: results and failures come back on the UI
thread, long jobs report progress and stop when cancelled, and the inline pool runs it all
before ``run`` returns."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import ClassVar

import pytest
from pytestqt.qtbot import QtBot

from app.tasks import Failure, Task, Tasks
from app.window import MainWindow
from engine.api import Cancelled, Library, NotFoundError
from tests.places import at_lines


def test_results_and_failures_arrive_on_the_ui_thread(
    qtbot: QtBot, caplog: pytest.LogCaptureFixture
) -> None:
    tasks = Tasks()
    ui = threading.get_ident()
    ran_on: list[int] = []
    done: list[tuple[int, object]] = []

    def work() -> int:
        ran_on.append(threading.get_ident())
        return 42

    def broken() -> int:
        raise ValueError("no such thing")

    def ours() -> int:
        raise NotFoundError("no course named “Botany”")

    def record(value: object) -> None:
        done.append((threading.get_ident(), value))

    tasks.run(work, record)
    tasks.run(broken, record, record)
    tasks.run(ours, record, record)
    qtbot.waitUntil(lambda: len(done) == 3)
    assert ran_on and ran_on[0] != ui
    assert [thread for thread, _ in done] == [ui, ui, ui]
    (_, value), (_, other), (_, mine) = done
    assert value == 42
    assert isinstance(other, Failure) and other.message == "ValueError: no such thing"
    assert isinstance(other.error, ValueError)
    assert isinstance(mine, Failure) and mine.message == "no course named “Botany”"
    # A surprise keeps its traceback in the log; our own errors are only the message.
    logged = [r for r in caplog.records if r.exc_info]
    assert len(logged) == 1 and logged[0].exc_info and logged[0].exc_info[0] is ValueError


def test_a_long_job_reports_progress_in_order_and_stops_when_cancelled(qtbot: QtBot) -> None:
    tasks = Tasks()
    seen: list[int] = []
    ended: list[object] = []

    def work(job: Task[int]) -> str:
        for step in range(10_000):
            if job.cancelled.wait(0.001):
                raise Cancelled("stopped")
            job.report(step)
        return "ran to the end"

    def progress(step: int) -> None:
        seen.append(step)
        if step == 3:
            handle.cancel()

    handle = tasks.start(work, ended.append, ended.append, progress)
    qtbot.waitUntil(lambda: bool(ended), timeout=10_000)
    (failed,) = ended
    assert isinstance(failed, Failure) and isinstance(failed.error, Cancelled)
    assert seen == list(range(len(seen))) and 4 <= len(seen) < 10_000


def test_the_inline_pool_runs_everything_before_run_returns() -> None:
    tasks = Tasks(inline=True)
    ui = threading.get_ident()
    events: list[object] = []

    def work(job: Task[str]) -> int:
        events.append(threading.get_ident())
        job.report("half")
        return 7

    tasks.start(work, events.append, events.append, events.append)
    assert events == [ui, "half", 7]
    tasks.run(lambda: 1 / 0, events.append, lambda f: events.append(f.message))
    assert events[-1] == "ZeroDivisionError: division by zero"
    # Once closed nothing starts, inline or not.
    assert tasks.close(1000)
    tasks.run(lambda: 1, events.append)
    assert events[-1] == "ZeroDivisionError: division by zero"


def test_the_window_searches_deterministically_on_the_inline_pool(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Giraffes\n\nThe giraffe has a long neck and eats acacia leaves.\n")
    library.ingest([notes])
    window = MainWindow(library, tasks=Tasks(inline=True))
    qtbot.addWidget(window)
    # The panel and the filter read the library inline.
    assert window.search_pane.course_box.count() == 2
    window.search_pane.search.setText("what do giraffes eat")
    window.search_pane.start_search()  # not waiting for the debounce
    assert re.fullmatch(r"1 result \(\d+ ms\)", window.search_pane.status.text())
    first = window.result_at(0)
    assert first is not None and first.source == str(notes)
    window.open_current()
    assert window.preview_pane.stack.currentWidget() is window.preview_pane.code_view
    assert window.preview_pane.code_view.editor.marked_line == at_lines(first).line


class _Cycle:
    """Garbage only the cyclic collector frees; says in which thread it was freed."""

    freed_in: ClassVar[list[str]] = []

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        _Cycle.freed_in.append(threading.current_thread().name)


def test_garbage_made_on_the_pool_is_collected_on_the_ui_thread(qtbot: QtBot) -> None:
    """A search on the pool once ran the collector there, which destroyed Qt objects off the
    UI thread and crashed the process: collection happens on the UI thread only."""
    tasks = Tasks()
    _Cycle.freed_in.clear()

    def make_garbage() -> None:
        for _ in range(5_000):  # far past the youngest generation's threshold (700)
            _Cycle()

    done: list[object] = []
    tasks.run(make_garbage, done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=10_000)
    qtbot.waitUntil(lambda: len(_Cycle.freed_in) >= 4_000, timeout=10_000)
    assert set(_Cycle.freed_in) == {threading.main_thread().name}
    tasks.close(5_000)
