"""The peak memory of this process, for tests and scripts that bound it.

``resource.getrusage(RUSAGE_SELF).ru_maxrss`` is no measure for a child of a big process:
Linux keeps the high-water mark across fork and exec, so a child that pytest starts late in
a run reports pytest's own size (3 GB for an import that peaked at 0.5 GB). ``VmHWM`` in
/proc/self/status belongs to the process's own memory map, made anew at exec.
"""

from __future__ import annotations

import resource
from pathlib import Path


def peak_rss_mb() -> int:
    """The most resident memory this process has used, in MB."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024  # kB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024  # KiB elsewhere
