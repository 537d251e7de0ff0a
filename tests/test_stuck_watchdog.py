"""A test stuck in C code with the GIL held (a deadlock inside Qt or libVLC) ends the run with
every thread's stack (tests/conftest.py), where pytest-timeout's signal never runs and CI
would wait for its own time limit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STUCK = """
import ctypes


def test_waits_in_c_holding_the_gil():
    libc = ctypes.PyDLL(None)  # PyDLL keeps the GIL during its calls
    mutex = ctypes.create_string_buffer(64)  # zeroed: an unlocked mutex (glibc)
    libc.pthread_mutex_lock(mutex)
    libc.pthread_mutex_lock(mutex)  # waits for itself, as Qt's threads did for each other
"""


def _pytest(folder: Path, test_file: str, *options: str) -> subprocess.CompletedProcess[str]:
    """pytest on one file of ``folder`` with this suite's conftest, a stuck test ending at 3 s."""
    env = {**os.environ, "COURSEDEX_TEST_STUCK_S": "3", "PYTHONPATH": str(ROOT)}
    env.pop("PYTEST_XDIST_WORKER", None)  # a run of its own, not a worker of this one
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider",
         f"--rootdir={folder}", "-c", os.devnull, *options, "-q", test_file],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )  # fmt: skip


def test_a_test_stuck_in_c_ends_the_run_with_the_stacks(tmp_path: Path) -> None:
    (tmp_path / "test_stuck.py").write_text(STUCK, encoding="utf-8")
    run = _pytest(tmp_path, "test_stuck.py", "-o", "timeout=1")
    assert run.returncode != 0, run.stdout + run.stderr
    report = (tmp_path / ".pytest-stuck.txt").read_text(encoding="utf-8")
    assert report.startswith("test_stuck.py::test_waits_in_c_holding_the_gil was stuck for 3 s")
    assert 'test_stuck.py", line 9 in test_waits_in_c_holding_the_gil' in report


def test_a_run_that_ends_normally_leaves_no_report(tmp_path: Path) -> None:
    (tmp_path / "test_fine.py").write_text("def test_fine():\n    pass\n", encoding="utf-8")
    run = _pytest(tmp_path, "test_fine.py")
    assert run.returncode == 0, run.stdout + run.stderr
    assert not (tmp_path / ".pytest-stuck.txt").exists()
