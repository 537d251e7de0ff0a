"""Text read off a video's scenes -> ``screen`` segments, one per distinct screen.

A slide shown twice in a row (a camera cut back to it) or built up line by line gives
near-identical texts: consecutive scenes whose words overlap by Jaccard >= 0.8 become one
segment over their whole time, holding the longest text. Scenes with less than two words on
screen give none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.media.scenes import ScreenScene
from engine.types import SegmentDraft, SegmentKind

SAME_SCREEN = 0.8
_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def screen_segments(scanned: Sequence[ScreenScene]) -> list[tuple[SegmentDraft, str]]:
    """(screen segment, thumbnail name of its first scene) for every distinct screen."""
    groups: list[list[ScreenScene]] = []
    for item in scanned:
        words = _words(item.text)
        if len(words) < 2:
            continue
        if groups:
            last = groups[-1][-1]
            adjacent = last.scene.index + 1 == item.scene.index
            if adjacent and jaccard(_words(last.text), words) >= SAME_SCREEN:
                groups[-1].append(item)
                continue
        groups.append([item])
    out: list[tuple[SegmentDraft, str]] = []
    for group in groups:
        longest = max(group, key=lambda s: len(s.text))
        draft = SegmentDraft(
            kind=SegmentKind.SCREEN,
            text=longest.text,
            heading=longest.heading,
            start_ms=group[0].scene.start_ms,
            end_ms=group[-1].scene.end_ms,
        )
        out.append((draft, group[0].scene.thumbnail))
    return out
