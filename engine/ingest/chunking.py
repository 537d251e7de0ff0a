"""Transcript cues -> sentences -> windows of roughly 20-45 s ending on sentence boundaries.

Sentences are found in the text of all cues joined, so a sentence may span cues. A
sentence's times come from the cues it starts and ends in, interpolated by character
position inside a cue (a cue holding two sentences gives each a share of its time).
Text without punctuation (automatic captions) would become one giant "sentence": any
sentence longer than a window is cut back into its cue-sized pieces, so cues act as
sentences there.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from engine.config import ChunkingConfig
from engine.types import SegmentDraft, SegmentKind, Timing

# End of a sentence: terminal punctuation, optional closing quotes/brackets, then space.
_SENTENCE_END = re.compile(r"[.!?\u2026\u3002\uff01\uff1f]+[\"'\u201d\u2019)\]]*(?=\s|$)")
# Abbreviations after which a period does not end a sentence.
_ABBREVIATIONS = frozenset(
    {"mr", "mrs", "ms", "dr", "prof", "st", "vs", "etc", "e.g", "i.e", "fig", "eq", "no", "approx"}
)


class _Stream:
    """The cue texts joined by single spaces, with each cue's character span."""

    def __init__(self, cues: Sequence[Timing]) -> None:
        self.cues = list(cues)
        parts: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        pos = 0
        for cue in self.cues:
            self.starts.append(pos)
            parts.append(cue.text)
            pos += len(cue.text)
            self.ends.append(pos)
            pos += 1
        self.text = " ".join(parts)

    def cue_at(self, offset: int) -> int:
        return max(0, bisect.bisect_right(self.starts, offset) - 1)

    def time_at(self, offset: int) -> int:
        """Time of a character offset, interpolated inside its cue."""
        i = self.cue_at(offset)
        cue = self.cues[i]
        length = max(1, self.ends[i] - self.starts[i])
        frac = min(1.0, max(0.0, (offset - self.starts[i]) / length))
        return cue.start_ms + round(frac * (cue.end_ms - cue.start_ms))

    def span(self, start: int, end: int) -> Timing:
        """A Timing for the text in ``[start, end)``; a span ending a cue ends with the cue."""
        first, last = self.cue_at(start), self.cue_at(end - 1)
        start_ms = self.cues[first].start_ms if start <= self.starts[first] else self.time_at(start)
        end_ms = self.cues[last].end_ms if end >= self.ends[last] else self.time_at(end)
        return Timing(start_ms, max(start_ms, end_ms), self.text[start:end].strip())


def _is_abbreviation(text: str, end: int) -> bool:
    if text[end - 1] != ".":
        return False
    # Only the last few characters: slicing the whole prefix made sentence splitting quadratic
    # (50,000 cues took 10 s); no abbreviation is longer than this window.
    word = text[max(0, end - 40) : end].rsplit(None, 1)[-1].rstrip(".").lower()
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def sentence_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        if _is_abbreviation(text, end):
            continue
        if text[start:end].strip():
            spans.append((start, end))
        start = end
    if text[start:].strip():
        spans.append((start, len(text)))
    # Drop leading whitespace so each span starts on its first character.
    out: list[tuple[int, int]] = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        out.append((s, e))
    return out


def split_sentences(cues: Sequence[Timing], max_ms: int) -> list[Timing]:
    """Sentences with times; a sentence longer than ``max_ms`` is cut at cue boundaries."""
    if not cues:
        return []
    stream = _Stream(cues)
    if len(cues) > 1 and _SENTENCE_END.search(stream.text) is None:
        # No sentence ends anywhere: Whisper often writes Japanese and Chinese without
        # punctuation, its segments parted by spaces. Its cues are then its sentences (one
        # "sentence" of the whole lecture would seek every hit to its start).
        return [Timing(c.start_ms, c.end_ms, c.text.strip()) for c in cues if c.text.strip()]
    units: list[Timing] = []
    for s, e in sentence_spans(stream.text):
        sentence = stream.span(s, e)
        first, last = stream.cue_at(s), stream.cue_at(e - 1)
        if sentence.end_ms - sentence.start_ms <= max_ms or first == last:
            units.append(sentence)
            continue
        for i in range(first, last + 1):
            a, b = max(s, stream.starts[i]), min(e, stream.ends[i])
            if b > a and stream.text[a:b].strip():
                units.append(stream.span(a, b))
    return [u for u in units if u.text]


def _window(units: Sequence[Timing]) -> SegmentDraft:
    return SegmentDraft(
        kind=SegmentKind.TRANSCRIPT,
        text=" ".join(u.text for u in units),
        start_ms=units[0].start_ms,
        end_ms=max(u.end_ms for u in units),
        timings=tuple(units),
    )


def window_bounds(units: Sequence[Timing], cfg: ChunkingConfig) -> list[tuple[int, int]]:
    """Index ranges ``[i, j)`` of units per window (exposed for tests and benchmarks).

    A window grows until it lasts at least ``transcript_min_ms``, never past
    ``transcript_max_ms`` (a single longer unit is a window alone). The next window
    starts ``overlap_sentences`` units before the previous one ended. A short tail is
    folded into the previous window when the result still fits.
    """
    n = len(units)
    bounds: list[tuple[int, int]] = []
    i = 0
    while i < n:
        j = i + 1
        while j < n and units[j - 1].end_ms - units[i].start_ms < cfg.transcript_min_ms:
            if units[j].end_ms - units[i].start_ms > cfg.transcript_max_ms:
                break
            j += 1
        bounds.append((i, j))
        if j >= n:
            break
        i = max(i + 1, j - cfg.overlap_sentences)
    if len(bounds) >= 2:
        (pi, _), (li, lj) = bounds[-2], bounds[-1]
        tail_ms = units[lj - 1].end_ms - units[li].start_ms
        merged_ms = units[lj - 1].end_ms - units[pi].start_ms
        if tail_ms < cfg.transcript_min_ms and merged_ms <= cfg.transcript_max_ms:
            bounds[-2:] = [(pi, lj)]
    return bounds


def chunk_transcript(cues: Sequence[Timing], cfg: ChunkingConfig) -> list[SegmentDraft]:
    """Cut a transcript into overlapping windows on sentence boundaries.

    Each SegmentDraft has kind TRANSCRIPT, start/end ms, the window's text, and its
    sentences (or cue pieces, for unpunctuated captions) as ``timings``.
    """
    units = split_sentences(cues, cfg.transcript_max_ms)
    return [_window(units[i:j]) for i, j in window_bounds(units, cfg)]
