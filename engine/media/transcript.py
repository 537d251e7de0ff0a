"""Recognised speech -> transcript windows that keep every word's time.

Speech recognition gives segments (roughly sentences) with word times. The segments are the
cues of the usual chunker (windows of 20-45 s on sentence boundaries); the words of each
window ride along, so a hit can seek to the first word that matches the query.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.config import ChunkingConfig
from engine.ingest.chunking import chunk_transcript
from engine.types import SegmentDraft, Timing


@dataclass(frozen=True, slots=True)
class SpeechPart:
    """One recognised segment as kept in the library while a file is transcribed."""

    start_ms: int
    end_ms: int
    text: str
    words: tuple[Timing, ...] = ()


def transcript_windows(parts: Sequence[SpeechPart], cfg: ChunkingConfig) -> list[SegmentDraft]:
    """Windows over recognised speech, each with the words spoken inside it."""
    cues = [Timing(p.start_ms, p.end_ms, p.text.strip()) for p in parts if p.text.strip()]
    words = [w for p in parts for w in p.words if w.text]
    windows = chunk_transcript(cues, cfg)
    out: list[SegmentDraft] = []
    lo = 0
    for window in windows:
        start, end = window.start_ms or 0, window.end_ms or 0
        while lo < len(words) and words[lo].end_ms <= start:
            lo += 1
        inside: list[Timing] = []
        for w in words[lo:]:
            if w.start_ms >= end:
                break
            inside.append(w)
        out.append(replace(window, words=tuple(inside)))
    return out
