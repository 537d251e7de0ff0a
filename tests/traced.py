"""A command run as a user with nothing but an empty HOME, under strace, which records every
socket, connect and send of the command and of any process it starts (issue 18, item 1).

tests/conftest.py imports the demo course this way once a run (the demo library every demo
test copies), and tests/engine/test_privacy.py reads that import's trace: the course's
transcription is the slowest thing a test does, and it was done twice, once traced.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

# A socket of an internet family, or a connect/send to an internet address (DNS included).
_INTERNET = re.compile(r"AF_INET6?\b|sin6?_port")


def has_strace() -> bool:
    return shutil.which("strace") is not None


def offline_env(home: Path) -> dict[str, str]:
    """A user with nothing but an empty HOME: no cache, no settings, no models of their own."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }


# What the trace is for, and set_robust_list besides. strace 6.1 (Debian 12) stops a new
# thread or process at each of its system calls, entry and exit, until the first call the
# filter traces: only then does it learn that the task has the seccomp filter and let it run
# to the next traced call. A thread that never opens a socket (onnxruntime's and CTranslate2's
# workers, ffmpeg's, the recognition child) stayed stopped at every call: the demo import
# took 36 s of CPU traced against 22 s untraced. glibc calls set_robust_list as it starts every
# new thread, forked child and started program, so each task is stopped once and then runs.
# The trace holds the same sockets, connects and sends: strace writes each either way.
_CALLS = "trace=socket,connect,sendto,sendmsg,set_robust_list"


def strace(trace: Path, command: list[str]) -> list[str]:
    """``command`` under strace: every socket, connect and send of it and of any process it
    starts (-f), written to ``trace``."""
    return ["strace", "-f", "--seccomp-bpf", "-qq", "-e", _CALLS, "-o", str(trace), *command]


def traced_lines(trace: Path) -> list[str]:
    """The lines of a trace about sockets, connects and sends (not set_robust_list)."""
    lines = trace.read_text(encoding="utf-8", errors="replace").splitlines()
    return [line for line in lines if "set_robust_list" not in line]


def network_use(trace: Path) -> list[str]:
    """The lines of a trace that use an internet family (a socket, a connect, a DNS query)."""
    return [line for line in traced_lines(trace) if _INTERNET.search(line)]
