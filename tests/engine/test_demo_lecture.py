"""The demo lecture as a new user first meets it: tiny.en hears most of what it says of its
key terms, a search for each term finds it, and a question plays from the start of the
sentence that answers it, not from the middle of the one before.

Everything is real: the committed demo course (resources/demo), the default embedder and
tiny.en transcribing its 6-minute video in a child process (about a minute, once).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

from engine.demo import DEMO_DIR
from engine.library import Library
from engine.types import SegmentKind, Timing
from tests.heard import heard_share
from tests.places import at_moment
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
LECTURE = DEMO_DIR / "lecture-01-sorting.mp4"
# What a student searches for in a course on sorting: each must be in the transcript.
KEY_TERMS = (
    "merge sort",
    "quick sort",
    "pivot",
    "stable",
    "binary search",
    "hash table",
    "phone book",
    "playing cards",
    "divide and conquer",
    "partition",
    "collision",
    "insertion sort",
    "heap sort",
)
# What tiny.en made of the espeak-ng narration before: "merge sword", "the vivit".
MISHEARD = ("sword", "vivit")


def _load_make_demo() -> ModuleType:
    return load_script(ROOT / "resources/make_demo.py", "demo_script")


def _words(text: str) -> str:
    """Lower case, words separated by one space, "quicksort" and "heapsort" as two words."""
    text = re.sub(r"[^a-z0-9]+", " ", text.lower())
    return " " + re.sub(r"\b(quick|heap)sort", r"\1 sort", text).strip() + " "


def _count(text: str, term: str) -> int:
    return len(re.findall(rf"(?<= ){re.escape(term)}s?(?= )", text))


def test_the_transcript_says_the_key_terms(demo_library: Library) -> None:
    """Most of what the lecture says of its key terms is heard, and every term is found.

    int8 decoding differs slightly between CPUs (on an AMD EPYC tiny.en heard "trees and
    keeps" for "heaps"), so no single decoded word decides: the share of key-term mentions
    heard has a margin, and a search for each term must still find the lecture.
    """
    heard = _words(" ".join(line.text for line in demo_library.transcript(str(LECTURE))))
    script = _words(" ".join(s for _, section in _load_make_demo().LECTURE for s in section))
    said = {term: _count(script, term) for term in KEY_TERMS}
    assert all(said.values()), f"the lecture never says {[t for t, n in said.items() if not n]}"
    got = {term: min(_count(heard, term), n) for term, n in said.items()}
    share = sum(got.values()) / sum(said.values())
    missed = [term for term, n in got.items() if n == 0]
    # Measured here: 35 of 41 mentions (0.85), every term heard at least once. A word misheard
    # on another CPU costs one or two mentions (0.83 with "heap sort" lost); a recogniser or
    # narration that broke costs far more.
    assert share >= 0.7, (share, got, said)
    assert len(missed) <= 2, (missed, heard)
    misheard = sum(heard.count(f" {wrong} ") for wrong in MISHEARD)
    assert misheard <= 1, (misheard, heard)


@pytest.mark.parametrize("term", KEY_TERMS)
def test_a_search_for_each_key_term_finds_the_lecture(demo_library: Library, term: str) -> None:
    """What a student types finds where the lecture says it, whichever word one CPU misheard."""
    hits = demo_library.search(term, limit=10).results
    assert any(h.kind == SegmentKind.TRANSCRIPT and h.source == str(LECTURE) for h in hits), [
        (h.kind, h.source) for h in hits
    ]


def _line_heard_from(lines: list[Timing], ms: int) -> Timing:
    """The transcript line a listener hears first when playback starts at ``ms``."""
    return next(line for line in lines if line.end_ms > ms)


def test_a_question_plays_from_the_start_of_its_answer(demo_library: Library) -> None:
    demo = _load_make_demo()
    hits = demo_library.search("why is merge sort stable").results
    hit = next(h for h in hits if h.kind == SegmentKind.TRANSCRIPT)
    at = at_moment(hit).start_ms
    # The answer ("Merge sort has one more property... It is a stable sort. Stable means...")
    # starts at STABLE_ANSWER_MS in the video; the sentence before it is about memory.
    assert demo.STABLE_ANSWER_MS - 2000 <= at <= demo.STABLE_ANSWER_MS + 5000
    # Never in the middle of a sentence: what is heard first is a whole line, from its start.
    lines = sorted(demo_library.transcript(str(LECTURE)), key=lambda t: t.start_ms)
    first = _line_heard_from(lines, at)
    assert abs(first.start_ms - at) <= 300, (at, first)
    # and it is the answer's first sentence: 3 of its 7 words or more, whichever a CPU hears
    # apart (the sentence before shares 'merge' with it, the one before that 'merge sort').
    assert heard_share(first.text, demo.STABLE_ANSWER) >= 0.4, (first, demo.STABLE_ANSWER)
