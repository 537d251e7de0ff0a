"""SubRip (.srt) and WebVTT (.vtt) subtitles -> clean, sorted, non-overlapping cues.

One line-based reader serves both formats: a line with ``-->`` opens a cue, a blank line
closes it, and everything outside cues (indices, VTT identifiers, NOTE/STYLE/REGION blocks,
the WEBVTT header) is ignored. That is what makes missing indices, extra blank lines and
``,``/``.`` millisecond separators harmless.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import UnreadableFileError
from engine.ingest.text import read_text
from engine.numbers import span_fault
from engine.types import Timing

log = logging.getLogger(__name__)

# [hh:]mm:ss[.,]fff ; hours optional (VTT), fraction optional and of any precision.
_TIME = r"(?:(\d+):)?(\d{1,2}):(\d{1,2})(?:[,.](\d+))?"
_TIMING_LINE = re.compile(rf"^\s*{_TIME}\s*-->\s*{_TIME}(?:\s.*)?$")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>|<\d[\d:.]*>")  # <i>, <font ..>, <v Name>, <00:01.000>
_ASS_TAG = re.compile(r"\{\\[^{}]*\}")  # {\an8}, {\i1}
_SPACES = re.compile(r"\s+")
_SPEAKER_CHEVRONS = re.compile(r"^(?:>>|&gt;&gt;)\s*")


@dataclass
class _RawCue:
    start_ms: int
    end_ms: int
    lines: list[str] = field(default_factory=list)


# No recording is this long; a 20-digit hour overflowed SQLite's 64-bit integers and, before
# that, ended the whole import.
_MAX_HOURS = 1000


def _to_ms(hours: str | None, minutes: str, seconds: str, fraction: str | None) -> int | None:
    m, s = int(minutes), int(seconds)
    if m >= 60 or s >= 60 or (hours is not None and (len(hours) > 4 or int(hours) > _MAX_HOURS)):
        return None
    ms = int((fraction or "0")[:3].ljust(3, "0"))
    return ((int(hours or 0) * 60 + m) * 60 + s) * 1000 + ms


def _parse_timing(line: str) -> tuple[int, int] | None:
    """``00:01:02,500 --> 00:01:04,000 align:start`` -> (62500, 64000); None if malformed."""
    match = _TIMING_LINE.match(line)
    if match is None:
        return None
    g = match.groups()
    start, end = _to_ms(*g[0:4]), _to_ms(*g[4:8])
    if start is None or end is None or span_fault(start, end, None, "subtitles") is not None:
        return None
    return start, end


def clean_cue_line(line: str) -> str:
    """Strip styling (HTML-like tags, ASS overrides), entities, speaker chevrons, spaces."""
    line = _ASS_TAG.sub("", line)
    line = _HTML_TAG.sub("", line)
    line = html.unescape(line).replace("\u00a0", " ")
    line = _SPEAKER_CHEVRONS.sub("", line.strip())
    return _SPACES.sub(" ", line).strip()


def _read_raw_cues(text: str) -> tuple[list[_RawCue], int]:
    cues: list[_RawCue] = []
    bad = 0
    current: _RawCue | None = None
    skipping = False  # inside a cue whose timing line was malformed
    for line in text.split("\n"):
        timing = _parse_timing(line) if "-->" in line else None
        if timing is None and "-->" in line and current is None:
            bad += 1
            skipping = True
            continue
        if timing is not None:
            if current is not None and current.lines and current.lines[-1].strip().isdigit():
                current.lines.pop()  # the next cue's index, written without a blank line
            current, skipping = _RawCue(timing[0], timing[1]), False
            cues.append(current)
            continue
        if not line.strip():
            current, skipping = None, False
            continue
        if current is not None and not skipping:
            current.lines.append(line)
    return cues, bad


def _merge_rolling(cues: list[_RawCue]) -> list[_RawCue]:
    """Drop lines a cue repeats from the end of the previous cue (rolling auto captions).

    A cue left with nothing new only extends the previous cue's end.
    """
    out: list[_RawCue] = []
    for cue in cues:
        if out:
            prev = out[-1]
            overlap = 0
            for k in range(min(len(prev.lines), len(cue.lines)), 0, -1):
                if prev.lines[-k:] == cue.lines[:k]:
                    overlap = k
                    break
            if overlap:
                cue = _RawCue(cue.start_ms, cue.end_ms, cue.lines[overlap:])
            if not cue.lines:
                prev.end_ms = max(prev.end_ms, cue.end_ms)
                continue
        out.append(cue)
    return out


def cues_from_text(text: str, name: str = "subtitles") -> tuple[list[Timing], list[str]]:
    """Parse SRT or VTT text into cues sorted by start, without overlaps.

    Returns:
        The cues and warnings for the user (e.g. how many cues had bad timestamps).

    Raises:
        UnreadableFileError: no cue survives.
    """
    raw, bad = _read_raw_cues(text)
    for cue in raw:
        cue.lines = [c for c in (clean_cue_line(line) for line in cue.lines) if c]
    raw = [c for c in raw if c.lines]
    raw.sort(key=lambda c: (c.start_ms, c.end_ms))  # stable: equal times keep file order
    raw = _merge_rolling(raw)

    cues: list[Timing] = []
    for cue in raw:
        text_ = " ".join(cue.lines)
        if cues and cue.start_ms == cues[-1].start_ms:
            prev = cues[-1]  # two cues at once (two speakers): one cue
            cues[-1] = Timing(prev.start_ms, max(prev.end_ms, cue.end_ms), f"{prev.text} {text_}")
            continue
        if cues and cue.start_ms < cues[-1].end_ms:
            prev = cues[-1]  # overlap: the earlier cue ends where the next begins
            cues[-1] = Timing(prev.start_ms, cue.start_ms, prev.text)
        cues.append(Timing(cue.start_ms, cue.end_ms, text_))

    warnings: list[str] = []
    if bad:
        warnings.append(f"{bad} cue(s) with bad timestamps skipped")
        log.info("%s: %d cue(s) with bad timestamps skipped", name, bad)
    if not cues:
        raise UnreadableFileError("not a subtitle file (no readable cues)")
    return cues, warnings


def read_subtitles(
    path: Path, max_bytes: int, max_cues: int = 50_000
) -> tuple[list[Timing], list[str]]:
    """Read an .srt/.vtt file: decode (see :mod:`engine.ingest.text`), then parse its cues.

    Raises:
        UnreadableFileError: empty, binary, too large, more than ``max_cues`` cues (each cue is
            embedded on its own: a million would take hours), or no readable cue.
    """
    text = read_text(path, max_bytes, what="a subtitle file")
    arrows = text.count("-->")  # one per cue, counted before any parsing
    if arrows > max_cues:
        raise UnreadableFileError(
            f"{arrows:,} cues: more than {max_cues:,}, too many for one recording's subtitles"
        )
    return cues_from_text(text, path.name)


def duration_of(cues: Sequence[Timing]) -> int:
    return max((c.end_ms for c in cues), default=0)
