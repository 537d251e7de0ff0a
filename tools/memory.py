"""Peak memory of a process and of its children, for tests and bench scripts that bound or
print it.

``resource.getrusage(RUSAGE_SELF).ru_maxrss`` is no measure for a child of a big process:
Linux keeps the high-water mark across fork and exec, so a child that pytest starts late in
a run reports pytest's own size (3 GB for an import that peaked at 0.5 GB). ``RUSAGE_CHILDREN``
is the largest of those inflated figures over all children waited for. ``VmHWM`` in
/proc/self/status belongs to the process's own memory map, made anew at exec: a process
reads its own peak with ``peak_rss_mb``; a test runs code in a new Python to learn its peak
with ``child_peak_rss_mb``. The children of a process (the recognition child of
an import) are sampled from outside with psutil by ``TreePeaks``.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import psutil

REPO = Path(__file__).resolve().parents[1]
RECOGNITION_CHILD = "recognition child"


def high_water_kb(pid: int | str = "self") -> int | None:
    """A process's VmHWM in kB, or None where Linux's /proc has none.

    Raises:
        FileNotFoundError: the process has ended.
    """
    status = Path(f"/proc/{pid}/status")
    if not Path("/proc/self/status").exists():
        return None
    for line in status.read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


def peak_rss_mb() -> int:
    """The most resident memory this process has used, in MB."""
    kb = high_water_kb()
    if kb is None:
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB elsewhere
    return kb // 1024


class ChildPeak(NamedTuple):
    mb: int  # the child's peak RSS at its end
    printed: str  # what it printed before


def child_peak_rss_mb(code: str, *args: str, timeout: float = 300) -> ChildPeak:
    """Runs ``code`` with ``args`` in a new Python (``sys.executable -c`` in the repo, so
    engine/ and tests/ import) and returns its own peak RSS, which it prints as it ends,
    with what it printed before. A child pytest starts has no pytest-sized peak of its own.

    Raises:
        AssertionError: the child failed; the message ends with its stderr.
    """
    script = f"{code}\nfrom tools.memory import peak_rss_mb as _peak\nprint(_peak())\n"
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"the child failed ({done.returncode}):\n{done.stderr[-3000:]}")
    *printed, peak = done.stdout.splitlines()
    return ChildPeak(int(peak), "\n".join(printed))


def role_of(process: psutil.Process) -> str:
    """What a child of an import is: the engine's only ``multiprocessing`` spawn child is the
    speech recognition child; others (ffmpeg, multiprocessing's resource tracker) by name."""
    command = " ".join(process.cmdline())
    if "spawn_main" in command:
        return RECOGNITION_CHILD
    if "resource_tracker" in command:
        return "resource tracker"
    return f"child {process.name()}"


class TreePeaks:
    """Peak RSS of a process (``root_role``) and of each of its descendants by role (the
    largest process of a role), read every ``interval`` seconds from a thread until
    ``stop``. On Linux each read is the process's own high-water mark (VmHWM), so only what
    a process takes in its last ``interval`` is missed; elsewhere it is its RSS at the time.
    A child not yet past exec (its command line is still its parent's) is passed over: the
    memory it shows is its parent's. A process keeps the role it was first seen with: one
    that is exiting shows an empty command line (in CI the recognition child, killed, was
    read again as 'child python')."""

    def __init__(self, pid: int, root_role: str, interval: float = 0.05) -> None:
        import psutil  # here: importing it takes 8 MB, which children that read their peak skip

        self.error = psutil.Error
        self.root = psutil.Process(pid)
        self.root_role = root_role
        self.interval = interval
        self._peaks: dict[int, tuple[str, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def sample(self) -> None:
        """Reads the peak of the root and of every descendant alive now."""
        try:
            processes = [self.root, *self.root.children(recursive=True)]
        except self.error:
            return  # the root has ended
        for p in processes:
            try:
                parent = p.parent()
                command = p.cmdline()
                if p.pid in self._peaks:
                    role = self._peaks[p.pid][0]
                elif p.pid == self.root.pid:
                    role = self.root_role
                elif not command or (parent is not None and command == parent.cmdline()):
                    continue
                else:
                    role = role_of(p)
                kb = high_water_kb(p.pid)
                mb = p.memory_info().rss / 2**20 if kb is None else kb / 1024
            except (self.error, FileNotFoundError):
                continue  # ended since it was listed
            old = self._peaks.get(p.pid, ("", 0.0))[1]
            self._peaks[p.pid] = (role, max(old, mb))

    def _poll(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def stop(self) -> dict[str, float]:
        """{role: peak MB} of every role seen, the root's first."""
        self._stop.set()
        self._thread.join()
        out: dict[str, float] = {}
        for role, mb in self._peaks.values():
            out[role] = max(out.get(role, 0.0), mb)
        return out
