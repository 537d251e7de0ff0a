"""Another process holding a library's write lock (library.lock), for the tests of the lock
and of write access: it takes the lock, says "held" (or "busy"), and holds it until its
stdin closes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HOLDER = """
import sys
from pathlib import Path
from engine.library.folder import LibraryLock
lock = LibraryLock(Path(sys.argv[1]), lambda: None, lambda: None)
print("held" if lock.acquire() else "busy", flush=True)
sys.stdin.read()
"""


def hold(lock: Path) -> subprocess.Popen[str]:
    """A process that holds ``lock`` once this returns."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc


def try_to_hold(lock: Path) -> str:
    """What another process says when it tries ``lock`` once: "held" or "busy"."""
    out = subprocess.run(
        [sys.executable, "-c", HOLDER, str(lock)],
        cwd=ROOT,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return out.stdout.strip()


def end(proc: subprocess.Popen[str]) -> None:
    """Let the holder go and check it ended cleanly."""
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
