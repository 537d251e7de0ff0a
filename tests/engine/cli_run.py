"""The real `coursedex` command line run two ways: in a child process, as a user runs it,
where what is checked is the process's (its exit status, all it prints, what it leaves); and
in-process through ``engine.cli.main`` (~1 s of CPU less a call), for the steps that prepare
or follow the one under test, and for checks that read only the status and the words."""

from __future__ import annotations

import logging
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.cli import main

ROOT = Path(__file__).resolve().parents[2]
# How the command line's log handler writes a record on stderr (engine/cli/__init__.py).
LOG_LINE = logging.Formatter("%(levelname)s %(name)s: %(message)s")


def child_cli(library: Path, models: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command line in a child process, as a user runs it."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "engine.cli",
            "--library",
            str(library),
            "--models",
            str(models),
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@dataclass(frozen=True)
class Said:
    """An in-process run: its exit status, stdout, and the lines a child process would
    have printed on stderr."""

    returncode: int
    stdout: str
    lines: list[str]


class InProcessCli:
    """``coursedex --library L --models M ...`` through ``engine.cli.main``. Its stderr is
    read at file descriptor 2 (native libraries' output too) plus each record logged at
    WARNING or above, formatted as the command line's handler writes it there."""

    def __init__(self, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
        self.capfd, self.caplog = capfd, caplog

    def __call__(self, library: Path, models: Path, *args: str) -> Said:
        self.capfd.readouterr()
        self.caplog.clear()
        code = main(["--library", str(library), "--models", str(models), *args])
        out, err = self.capfd.readouterr()
        records = [r for r in self.caplog.records if r.levelno >= logging.WARNING]
        return Said(code, out, err.splitlines() + [LOG_LINE.format(r) for r in records])


def library_files(folder: Path) -> dict[str, bytes]:
    """Each file of a library's folder and its bytes (SQLite's -wal and -shm aside)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and not p.name.endswith(("-wal", "-shm"))
    }
