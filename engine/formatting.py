"""Text a user reads, written once for the CLI and the window: times, where a hit is, an
import's progress, sizes, and names made safe to print."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from engine.importing.progress import IngestReport, Outcome
from engine.types import SegmentKind

if TYPE_CHECKING:
    from engine.importing.progress import IngestProgress
    from engine.search import SearchResult

_SURROGATES = re.compile("[\ud800-\udfff]")


# What the window calls each kind of result; the CLI's --kind takes these words too.
KIND_NAMES = {
    SegmentKind.TRANSCRIPT: "Speech",
    SegmentKind.SCREEN: "On screen",
    SegmentKind.SLIDE: "Slides",
    SegmentKind.CODE: "Code",
    SegmentKind.NOTE: "Notes",
}


def kind_named(text: str) -> SegmentKind | None:
    """The kind of result ``text`` names: its value (``slide``), its plural or the window's
    name (``Slides``, ``On screen``, ``on-screen``), in any case; None for no kind."""
    word = " ".join(text.lower().replace("-", " ").split())
    for kind in SegmentKind:
        if word in (kind.value, kind.value + "s", KIND_NAMES[kind].lower()):
            return kind
    return None


def capital(text: str) -> str:
    """The first letter in capitals, the rest as it is (str.capitalize lowers a course's
    name): an engine message (``the library database …``) as the window's sentence."""
    return text[:1].upper() + text[1:]


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 file``, ``3 files``; ``many`` where adding an s is wrong."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def outcome_counts(report: IngestReport) -> list[str]:
    """An import's counts as words: ``1 indexed``, ``2 errors``, ``1 duplicate``."""
    nouns = {Outcome.ERROR: "error", Outcome.DUPLICATE: "duplicate"}  # the rest are verbs
    return [
        plural(report.count(o), nouns[o]) if o in nouns else f"{report.count(o)} {o.value}"
        for o in Outcome
        if report.count(o)
    ]


def printable(text: str) -> str:
    """``text`` with every control or otherwise unprintable character written as its escape
    (``\\x1b``, ``\\n``, ``\\u2028``): a crafted file name cannot clear the terminal, move the
    cursor or fake an output line."""
    if text.isprintable():
        return text
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
        for ch in text
    )


def masked(text: str) -> str:
    """``text`` with each unprintable character replaced by one character (whitespace by a
    space, the rest by U+FFFD), so character offsets into it, such as highlights, still hold."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else (" " if ch.isspace() else "\ufffd") for ch in text)


def valid_text(text: str) -> str:
    """``text`` without lone surrogates (each becomes U+FFFD): what Python makes of invalid
    UTF-8 on a command line, or a JSON ``"\\ud800"``, which no encoder or tokenizer accepts."""
    return _SURROGATES.sub("\ufffd", text)


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
    return f"{p.index + 1}/{p.total} {printable(Path(p.path).name)}: {stage}{left}"


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
