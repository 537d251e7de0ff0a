"""Where playback starts for a speech hit: at the beginning of the sentence that answers,
with the sentence before when that one is short; never mid-sentence."""

from __future__ import annotations

from dataclasses import replace

from engine import analysis
from engine.search.handoff import Passage
from engine.search.seek import seek_ms, spoken_sentences
from engine.store import SegmentRow
from engine.types import SegmentKind, SourceKind, Timing
from engine.words import stem

# Recognised speech: (start, end, word), as Whisper times them. Two cues; the second one
# starts in the middle of the sentence "So merge sort ... input." and holds three sentences.
WORDS = (
    (1000, 1300, "The"), (1300, 1700, "merge"), (1700, 2100, "needs"), (2100, 2400, "a"),
    (2400, 2900, "buffer."),
    (3600, 3800, "So"), (3800, 4200, "merge"), (4200, 4600, "sort"), (4600, 4800, "is"),
    (4800, 5200, "fast"),
    (5300, 5500, "on"), (5500, 5900, "every"), (5900, 6400, "input."),
    (7000, 7300, "Here"), (7300, 7500, "is"), (7500, 7700, "why."),
    (7900, 8100, "It"), (8100, 8300, "is"), (8300, 8500, "a"), (8500, 9000, "stable"),
    (9000, 9400, "sort."),
)  # fmt: skip
CUES = (
    Timing(1000, 5200, "The merge needs a buffer. So merge sort is fast"),
    Timing(5300, 9400, "on every input. Here is why. It is a stable sort."),
)


def _row(words: tuple[tuple[int, int, str], ...] = WORDS) -> SegmentRow:
    timings = tuple(Timing(a, b, w) for a, b, w in words)
    return SegmentRow(
        id=1,
        source_id=1,
        kind=SegmentKind.TRANSCRIPT,
        start_ms=CUES[0].start_ms,
        end_ms=CUES[-1].end_ms,
        page=None,
        path_in_archive=None,
        line_start=None,
        line_end=None,
        heading="",
        text=" ".join(c.text for c in CUES),
        timings=CUES,
        source_path="/courses/lecture.mp4",
        source_title="lecture",
        course="Algorithms",
        source_kind=SourceKind.VIDEO,
        words=timings,
    )


def _weights(*words: str) -> dict[str, float]:
    return {stem(w): 1.0 for w in words}


def test_sentences_come_from_the_words_full_stops() -> None:
    sentences = spoken_sentences(_row().words)
    assert [(s.start_ms, s.end_ms) for s in sentences] == [
        (1000, 2900),
        (3600, 6400),
        (7000, 7700),
        (7900, 9400),
    ]
    assert sentences[1].text == "So merge sort is fast on every input."


def test_playback_starts_at_the_sentence_not_at_its_first_query_word() -> None:
    # Old: 1300 ("merge", mid-sentence).
    assert seek_ms(_row(), Passage(0, 2.0), _weights("merge", "sort"), refine=True) == 1000
    # The cue's first query word is "sort" at 4200 (old); its sentence starts at 3600.
    assert seek_ms(_row(), Passage(0, 1.0), _weights("sort"), refine=True) == 3600


def test_a_cue_starting_mid_sentence_plays_from_the_sentence_start() -> None:
    # The second cue starts with "on every input." (the end of "So merge sort ...").
    # Old: 5900 ("input.").
    assert seek_ms(_row(), Passage(1, 1.0), _weights("input"), refine=True) == 3600


def test_a_short_sentence_before_the_answer_is_heard_with_it() -> None:
    # "It is a stable sort." follows "Here is why." (3 words): playback starts at "Here".
    # Old: 8500 ("stable").
    assert seek_ms(_row(), Passage(1, 1.0), _weights("stable"), refine=True) == 7000


def test_the_tail_of_a_sentence_that_began_before_the_window_is_not_heard_first() -> None:
    # The window starts with "sort." (the end of a sentence it does not hold), then the
    # answer: playback starts at "It", not at the tail.
    tail = ((7000, 7400, "sort."), *((a, b, w) for a, b, w in WORDS if a >= 7900))
    row = replace(_row(tail), timings=(Timing(7000, 9400, "sort. It is a stable sort."),))
    assert seek_ms(row, Passage(0, 1.0), _weights("stable"), refine=True) == 7900


def test_subtitle_cues_start_where_their_author_put_them() -> None:
    cues = (
        Timing(0, 4000, "Welcome back to the course on sorting."),
        Timing(4000, 5000, "Why?"),
        Timing(5000, 9000, "Because merge sort is stable."),
        Timing(9000, 13000, "That matters for records sorted twice."),
    )
    row = replace(_row(()), timings=cues)
    weights = _weights("stable")
    assert seek_ms(row, Passage(2, 1.0), weights, refine=True) == 5000
    assert seek_ms(row, Passage(3, 1.0), weights, refine=True) == 9000
    assert seek_ms(row, Passage(3, 1.0), weights, refine=False) == row.start_ms


def test_a_japanese_answer_later_in_its_cue_is_found_among_words_of_a_kana_or_two() -> None:
    # Whisper writes Japanese words one or two kana long ("た", "か", "い。") and a cue of
    # two sentences with no space after its 。, so the cue is one sentence to the chunker:
    # the query's pairs of kana ("ふる", "るい") are found across words. Old: 0 (no word
    # matched a pair; the cue's first sentence).
    words = (
        (0, 300, "ふ"), (300, 500, "じ"), (500, 900, "さん"), (900, 1000, "は"),
        (1000, 1200, "た"), (1200, 1400, "か"), (1400, 1800, "い。"),
        (2500, 2900, "きょ"), (2900, 3000, "う"), (3000, 3200, "と"), (3200, 3300, "は"),
        (3300, 3500, "ふ"), (3500, 3700, "る"), (3700, 4000, "い。"),
    )  # fmt: skip
    cue = Timing(0, 4000, "ふじさんはたかい。きょうとはふるい。")
    row = replace(_row(words), timings=(cue,), text=cue.text, language="ja")
    weights = {t: 1.0 for t in analysis.query_terms("ふるい", "ja")}
    assert seek_ms(row, Passage(0, 1.0), weights, refine=True) == 2500
