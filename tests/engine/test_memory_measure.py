"""The memory bounds of the tests measure the process they bound (tests/memory.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_CHILD = """
import sys
from tests.memory import peak_rss_mb
held = bytearray(int(sys.argv[1]) * 1024 * 1024)
for i in range(0, len(held), 4096):
    held[i] = 1
print(peak_rss_mb())
"""


def _child_peak(megabytes: int) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(megabytes)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return int(done.stdout)


def test_a_child_of_a_big_process_reports_its_own_peak() -> None:
    """ru_maxrss kept the parent's size across fork and exec: a child pytest started late
    in a run reported 3 GB for an import that peaked at 0.5 GB."""
    big = bytearray(800 * 1024 * 1024)
    for i in range(0, len(big), 4096):
        big[i] = 1  # resident in this (the parent) process
    small = _child_peak(0)
    grown = _child_peak(300)
    del big
    assert small < 200, small
    assert 300 <= grown < 500, grown
