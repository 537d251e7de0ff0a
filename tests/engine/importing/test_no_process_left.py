"""No process left behind: when `coursedex ingest` of a video returns, nothing it started
(the speech-recognition child, Python's resource tracker, ffmpeg) is still running in its
session. The command runs for real, in a session of its own, on a generated lecture."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.english import ENGLISH_INGEST
from tools.factories import make_narrated_slides

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").is_file(), reason="reads the session of processes in /proc"
)


def session_members(session: int) -> list[str]:
    """'pid (command) state' of every process (zombies too) in ``session``."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text(encoding="utf-8", errors="replace")
        except OSError:  # it ended while we looked
            continue
        name_end = text.rindex(")")
        fields = text[name_end + 2 :].split()
        if int(fields[3]) == session:  # state, ppid, pgrp, session, ...
            members.append(f"{text[: name_end + 1]} {fields[0]}")
    return members


def test_ingest_of_a_video_leaves_no_process_in_its_session(
    tmp_path: Path, models_dir: Path
) -> None:
    course = tmp_path / "course"
    course.mkdir()
    make_narrated_slides(
        course / "talk.mp4",
        [(["Rocks"], "Basalt is a dark volcanic rock that cools from lava.")],
        tmp_path / "pictures",
    )
    command = [
        sys.executable, "-m", "engine.cli", "--library", str(tmp_path / "lib"),
        "--models", str(models_dir), "--threads", "1",
        "ingest", *ENGLISH_INGEST, str(course), "--json",
    ]  # fmt: skip
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its session id is its pid
    )
    out, err = proc.communicate(timeout=600)
    left = session_members(proc.pid)
    assert proc.returncode == 0, err
    assert '"indexed"' in out, out  # the video went through recognition
    assert left == [], left
