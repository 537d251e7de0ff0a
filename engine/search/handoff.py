"""What the stages hand each other: a candidate segment and its best-matching passage."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from engine.store import SegmentRow


class Passage(NamedTuple):
    """The sentence (a cue of a timed segment) that best matches the query, and its score:
    the idf sum of the query stems it holds (plus a share of the next sentence's)."""

    sentence: int  # index into the segment's timings (cues), or its sentences when untimed
    score: float


@dataclass(frozen=True, slots=True)
class Candidate:
    """A segment on its way to the results, with what each stage learnt about it."""

    row: SegmentRow
    score: float  # the fused RRF score; after multi-granularity, the rescored one
    passage: Passage | None  # None: no sentence shares a word with the query
    fulltext_rank: int | None = None  # 1-based, in the full-text list
    dense_rank: int | None = None  # 1-based, in the dense list
    bm25: float = 0.0  # the full-text score (0 when full-text did not find it)
    # Where the player starts: the segment's start (None: untimed) until seek refinement
    # moves it to the best sentence.
    seek_ms: int | None = None

    @property
    def id(self) -> int:
        return self.row.id

    def rescored(self, score: float, passage: Passage | None) -> Candidate:
        # Positional, not dataclasses.replace: this runs for every candidate of every search.
        return Candidate(
            self.row, score, passage, self.fulltext_rank, self.dense_rank, self.bm25, self.seek_ms
        )

    def seeking(self, seek_ms: int | None) -> Candidate:
        return Candidate(
            self.row, self.score, self.passage, self.fulltext_rank, self.dense_rank, self.bm25,
            seek_ms,
        )  # fmt: skip
