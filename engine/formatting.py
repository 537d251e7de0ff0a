"""Text a user reads, written once for the CLI and the window: times, where a hit is, an
import's progress, sizes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.library import IngestProgress
    from engine.search import SearchResult


def clock(ms: int | float) -> str:
    """``mm:ss``, or ``h:mm:ss`` from an hour on; negative times read ``00:00``."""
    seconds = max(0, int(ms)) // 1000
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def location(result: SearchResult) -> str:
    """Where in its file a hit is: ``mm:ss``, ``page N``, ``member:line`` inside an archive,
    ``line N``, or nothing for a hit that is the whole file."""
    line = result.line or result.line_start
    if result.start_ms is not None:
        return clock(result.start_ms)
    if result.page is not None:
        return f"page {result.page}"
    if result.path_in_archive is not None:
        return f"{result.path_in_archive}:{line}" if line else result.path_in_archive
    if line is not None:
        return f"line {line}"
    return ""


def stage_text(p: IngestProgress) -> str:
    """The file's stage, with its share while the stage knows it: ``transcribing 43%``."""
    if p.file_fraction is not None and p.result is None:
        return f"{p.stage} {p.file_fraction:.0%}"
    return p.stage


def progress_line(p: IngestProgress) -> str:
    """Which file of how many, its stage, share and detail, and the time left:
    ``2/3 lecture.mp4: transcribing 43% (0.04x), 01:35 left``."""
    stage = stage_text(p) + (f" ({p.detail})" if p.detail else "")
    left = "" if p.eta_s is None else f", {clock(p.eta_s * 1000)} left"
    return f"{p.index + 1}/{p.total} {Path(p.path).name}: {stage}{left}"


def human_size(n: int) -> str:
    """``1536`` -> ``"1.5 KB"``: sizes in messages a user reads."""
    size = float(n)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            if unit == "bytes":
                return f"{int(size)} bytes"
            return f"{size:.1f}".rstrip("0").rstrip(".") + f" {unit}"
        size /= 1024
    return f"{n} bytes"  # pragma: no cover - loop always returns
