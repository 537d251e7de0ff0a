"""Seek refinement: where the player starts for a hit, and the windows that collapse because
they now start at the same moment."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.search.candidate import Candidate, Passage
from engine.search.lexical import first_matching_word
from engine.store import SegmentRow
from engine.types import SegmentKind

SAME_MOMENT_MS = 2000  # two hits in one file that start closer than this are one moment


def seek_ms(
    row: SegmentRow, passage: Passage | None, weights: Mapping[str, float], refine: bool
) -> int | None:
    """Where the player starts for a hit: its best sentence (cue), at its first query word
    when speech was recognised; the segment's start without refinement or a passage."""
    if not (refine and row.timings and passage is not None):
        return row.start_ms
    best = row.timings[passage.sentence]
    word = first_matching_word(row.words, best, weights) if row.words else None
    return best.start_ms if word is None else word.start_ms


def refine_seeks(
    head: Sequence[Candidate], weights: Mapping[str, float], refine: bool
) -> list[Candidate]:
    """The candidates seeking to their best sentence (left at their start without
    ``refine``). Their passages are final here: reranking and diversity only reorder."""
    if not refine:
        return list(head)
    return [c.seeking(seek_ms(c.row, c.passage, weights, refine)) for c in head]


def distinct_moments(head: Sequence[Candidate]) -> list[Candidate]:
    """``head`` without the candidates that seek within 2 s of an earlier one of the same
    kind in the same file (overlapping windows whose best sentence is the same one): before
    reranking, so the budget is not spent twice on one moment. Across kinds the diversity
    stage decides, after near-copies (a frame showing a slide) are gone."""
    seen: dict[tuple[int, str | None, SegmentKind], list[int]] = {}
    out: list[Candidate] = []
    for candidate in head:
        row, at = candidate.row, candidate.seek_ms
        if at is not None:
            earlier = seen.setdefault((row.source_id, row.path_in_archive, row.kind), [])
            if any(abs(at - t) < SAME_MOMENT_MS for t in earlier):
                continue
            earlier.append(at)
        out.append(candidate)
    return out
