"""Nothing leaves the machine: an import and a search open no network connection, make no
name lookup and leave no telemetry behind (issue 18, item 1).

onnxruntime's Microsoft telemetry made a device id under ~/.cache/Microsoft/DeveloperTools on
import and, after about ten seconds of work, looked up mobile.events.data.microsoft.com. The
check runs the real command line in a child process with an empty HOME under strace, which
records every socket the process and its children (speech recognition) open.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.main import DEMO_FLAG, STARTUP_REPORT_ENV  # Qt-free: it imports Qt when it runs
from engine.config import EngineConfig
from engine.demo import demo_files
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from tests.conftest import DemoImport, copy_library
from tests.traced import has_strace, network_use, offline_env, strace, traced_lines

ROOT = Path(__file__).resolve().parents[2]


def _traced(home: Path, trace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = strace(trace, [sys.executable, "-m", "engine.cli", *args])
    return subprocess.run(
        command,
        cwd=ROOT,
        env=offline_env(home),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


needs_strace = pytest.mark.skipif(not has_strace(), reason="strace is installed by scripts/setup")


@needs_strace
def test_import_and_search_make_no_connection_and_leave_no_telemetry(
    tmp_path: Path, models_dir: Path, demo_import: DemoImport
) -> None:
    """The import is the run's demo import (tests/conftest.py), traced: the demo lecture's
    speech recognition (the child loads onnxruntime for voice activity), scenes and on-screen
    text (OCR on onnxruntime), embeddings: 20-50 s of work. The search runs on a copy of its
    library, as the same user."""
    home, ingest_trace = demo_import.home, demo_import.trace
    assert ingest_trace is not None
    assert f"{len(demo_files())} indexed" in demo_import.stdout, demo_import.stdout[-2000:]
    library = copy_library(demo_import.library, tmp_path / "library")
    common = ["--library", str(library), "--models", str(models_dir)]
    search_trace = tmp_path / "search.strace"
    search = _traced(home, search_trace, *common, "search", "why is merge sort stable")
    assert search.returncode == 0, search.stderr[-2000:]
    assert "lecture-01-sorting" in search.stdout

    for trace in (ingest_trace, search_trace):
        internet = network_use(trace)
        assert not internet, f"{trace.name}: network use:\n" + "\n".join(internet[:10])
    left = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    assert not any("Microsoft" in p or "onnxruntime" in p for p in left), left


# --- the checker itself: it must see a connection, also one made by a child process ---------


@needs_strace
@pytest.mark.parametrize("by", ["the process", "its child"])
def test_the_trace_sees_a_connection(tmp_path: Path, by: str) -> None:
    """Without this, a trace that records nothing (a wrong filter, a child not followed)
    would pass every test above."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port})).close()"
        code = (
            connect
            if by == "the process"
            else (
                "import os, subprocess, sys; print(os.getpid(), flush=True); "
                f"subprocess.run([sys.executable, '-c', {connect!r}], check=True)"
            )
        )
        trace = tmp_path / "connect.strace"
        done = subprocess.run(
            strace(trace, [sys.executable, "-c", code]),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        server.accept()[0].close()  # it did connect
    used = network_use(trace)
    connects = [line.split()[0] for line in used if f"htons({port})" in line and "connect(" in line]
    assert connects, used
    if by == "its child":  # the connection came from the child, and was seen
        assert done.stdout.strip() not in connects, (done.stdout, used)


# --- the window's start-up -------------------------------------------------------------------


@pytest.fixture
def demo_text_library_dir(tmp_path: Path, demo_text_template: Path, embedder: OnnxEmbedder) -> Path:
    """A closed library of the demo course's slides, notes and code, its demo offered."""
    folder = copy_library(demo_text_template, tmp_path / "library")
    with Library.open(folder, EngineConfig(), lambda: embedder) as lib:
        lib.set_flag(DEMO_FLAG)
    return folder


def _children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(x) for x in text.split()]


@needs_strace
def test_the_windows_start_up_makes_no_connection(
    tmp_path: Path, models_dir: Path, demo_text_library_dir: Path
) -> None:
    """The window offscreen, as a user starts it, until its search model has loaded: Qt,
    libVLC's probe, the single-instance socket, the folder watcher and the model load."""
    home = tmp_path / "home"
    runtime = tmp_path / "runtime"
    for folder in (home, runtime):
        folder.mkdir(mode=0o700)
    report = tmp_path / "started.txt"
    env = offline_env(home) | {
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_RUNTIME_DIR": str(runtime),
        "COURSEDEX_SETTINGS": str(home / "settings.json"),
        STARTUP_REPORT_ENV: str(report),
    }
    trace = tmp_path / "window.strace"
    window = [
        sys.executable, "-m", "app.launcher", "gui",
        "--library", str(demo_text_library_dir), "--models", str(models_dir), "--no-demo",
    ]  # fmt: skip
    tracer = subprocess.Popen(
        strace(trace, window), cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        started = _wait_for_model(report, tracer)
        time.sleep(2)  # what the window does just after (no check of time: only more to trace)
        for pid in _children(tracer.pid):  # the app, which strace started
            os.kill(pid, signal.SIGTERM)
        output = tracer.communicate(timeout=60)[0].decode(errors="replace")
    finally:
        if tracer.poll() is None:
            tracer.kill()
            tracer.wait(30)
    assert started == ["shown", "model"], output[-3000:]
    assert "could not load" not in output, output[-3000:]
    internet = network_use(trace)
    assert not internet, "network use:\n" + "\n".join(internet[:10])
    sockets = [line for line in traced_lines(trace) if " socket(" in line]
    assert sockets, traced_lines(trace)  # the trace did record the app (its local sockets)
    left = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    assert not any("Microsoft" in p or "onnxruntime" in p for p in left), left


def _wait_for_model(report: Path, tracer: subprocess.Popen[bytes]) -> list[str]:
    """The start-up events the window reported ("shown", "model") once the model loaded."""
    deadline = time.monotonic() + 180  # a hang guard only
    events: list[str] = []
    while time.monotonic() < deadline and tracer.poll() is None:
        if report.exists():
            events = [line.split()[0] for line in report.read_text().splitlines()]
            if "model" in events:
                break
        time.sleep(0.1)
    return events
