"""What the self-test (app/selftest.py) expects of the demo course, and how a check says
otherwise.

``EXPECTED`` holds the demo queries with where each best hit must be and what it must show
(resources/make_demo.py's QUERIES); ``says`` compares that evidence with what a hit shows,
``line_at`` finds the sentence heard from a lecture hit's time. A check raises
``CheckFailed`` for something wrong, ``CheckSkipped`` for a check that cannot run here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.api import SegmentKind, Timing

LECTURE = "lecture-01-sorting.mp4"


@dataclass(frozen=True, slots=True)
class Expected:
    """A demo query and where its best hit must be (resources/make_demo.py's QUERIES).

    ``evidence`` must be in what the hit shows: the sentence spoken where the player starts
    (speech), the lines of the hit (code), else its snippet. Compared without case or
    spaces, so that "phonebook" from another speech-model build still counts.
    """

    query: str
    file: str
    kind: SegmentKind
    evidence: str
    page: int | None = None
    member: str | None = None
    only_kind: bool = False  # search only this kind (text read off the video's frames)


EXPECTED: tuple[Expected, ...] = (
    Expected("looking up a name in a phone book", LECTURE, SegmentKind.TRANSCRIPT, "phone book"),
    Expected("why is merge sort stable", LECTURE, SegmentKind.TRANSCRIPT, "merge sort"),
    Expected(
        "when should a hash table resize", "slides.pdf", SegmentKind.SLIDE, "load factor", page=6
    ),
    Expected(
        "binary search midpoint overflow",
        "code.zip",
        SegmentKind.CODE,
        "overflow",
        member="searching/binary_search.py",
    ),
    Expected("who wrote Timsort", "notes.md", SegmentKind.NOTE, "Tim Peters"),
    Expected("how does a heap sift down", "handout-week-5.docx", SegmentKind.NOTE, "sift"),
    Expected(
        "master theorem for merge sort",
        "whiteboard.jpg",
        SegmentKind.SLIDE,
        "master theorem",
        page=1,
    ),
    Expected("hash tables", LECTURE, SegmentKind.SCREEN, "hash tables", only_kind=True),
)


class CheckFailed(Exception):
    """A check found something wrong; the message is the one-line reason."""


class CheckSkipped(Exception):
    """A check cannot run here and the app does without it; the message says why."""


def _squash(text: str) -> str:
    return re.sub(r"\W+", "", text).lower()


def says(shown: str, evidence: str) -> bool:
    """Whether ``shown`` holds ``evidence``, compared without case, spaces or punctuation."""
    return _squash(evidence) in _squash(shown)


def line_at(lines: Sequence[Timing], ms: int) -> Timing | None:
    """The transcript line heard first from ``ms``: the one being spoken then, or the next
    when ``ms`` falls in the pause before it (playback starts a little before a sentence)."""
    ahead = [line for line in lines if line.end_ms > ms]
    return min(ahead, key=lambda line: line.start_ms) if ahead else None
