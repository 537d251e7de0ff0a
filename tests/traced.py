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


def strace(trace: Path, command: list[str]) -> list[str]:
    """``command`` under strace: every socket, connect and send of it and of any process it
    starts (-f), written to ``trace``."""
    return [
        "strace", "-f", "--seccomp-bpf", "-qq",
        "-e", "trace=socket,connect,sendto,sendmsg",
        "-o", str(trace),
        *command,
    ]  # fmt: skip


def network_use(trace: Path) -> list[str]:
    """The lines of a trace that use an internet family (a socket, a connect, a DNS query)."""
    lines = trace.read_text(encoding="utf-8", errors="replace").splitlines()
    return [line for line in lines if _INTERNET.search(line)]
