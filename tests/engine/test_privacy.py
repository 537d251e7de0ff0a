"""Nothing leaves the machine: an import and a search open no network connection, make no
name lookup and leave no telemetry behind (issue 18, item 1).

onnxruntime's Microsoft telemetry made a device id under ~/.cache/Microsoft/DeveloperTools on
import and, after about ten seconds of work, looked up mobile.events.data.microsoft.com. The
check runs the real command line in a child process with an empty HOME under strace, which
records every socket the process and its children (speech recognition) open.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import DEMO_DIR

ROOT = Path(__file__).resolve().parents[2]
# A socket of an internet family, or a connect/send to an internet address (DNS included).
_INTERNET = re.compile(r"AF_INET6?\b|sin6?_port")


def _traced(home: Path, trace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
    }
    command = [
        "strace", "-f", "--seccomp-bpf", "-qq",
        "-e", "trace=socket,connect,sendto,sendmsg",
        "-o", str(trace),
        sys.executable, "-m", "engine.cli", *args,
    ]  # fmt: skip
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is installed by scripts/setup")
def test_import_and_search_make_no_connection_and_leave_no_telemetry(
    tmp_path: Path, models_dir: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    library = tmp_path / "library"
    common = ["--library", str(library), "--models", str(models_dir)]
    # The demo lecture: speech recognition (the child loads onnxruntime for voice activity),
    # scenes and on-screen text (OCR on onnxruntime), embeddings: 20-50 s of work.
    files = [str(DEMO_DIR / "lecture-01-sorting.mp4"), str(DEMO_DIR / "notes.md")]
    ingest_trace = tmp_path / "ingest.strace"
    ingest = _traced(home, ingest_trace, *common, "ingest", *files)
    assert ingest.returncode == 0, ingest.stderr[-2000:]
    assert "2 indexed" in ingest.stdout, ingest.stdout[-2000:]
    search_trace = tmp_path / "search.strace"
    search = _traced(home, search_trace, *common, "search", "why is merge sort stable")
    assert search.returncode == 0, search.stderr[-2000:]
    assert "lecture-01-sorting" in search.stdout

    for trace in (ingest_trace, search_trace):
        lines = trace.read_text(encoding="utf-8", errors="replace").splitlines()
        internet = [line for line in lines if _INTERNET.search(line)]
        assert not internet, f"{trace.name}: network use:\n" + "\n".join(internet[:10])
    left = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    assert not any("Microsoft" in p or "onnxruntime" in p for p in left), left
