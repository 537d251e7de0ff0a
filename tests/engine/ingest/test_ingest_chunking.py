"""Transcript windows: sentences across cues, 20-45 s windows, overlap, unpunctuated captions."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from engine.config import ChunkingConfig
from engine.ingest.chunking import chunk_transcript, split_sentences
from engine.ingest.subtitles import read_subtitles
from engine.types import SegmentDraft, SegmentKind, Timing

CFG = ChunkingConfig()


def _span(segment: SegmentDraft) -> tuple[int, int]:
    if segment.start_ms is None or segment.end_ms is None:
        raise AssertionError("transcript segment without times")
    return segment.start_ms, segment.end_ms


def _fits(segment: SegmentDraft) -> bool:
    start, end = _span(segment)
    return CFG.transcript_min_ms <= end - start <= CFG.transcript_max_ms


TUTORIALVQA = Path("/work/shared/eval/tutorialvqa/srt")


def test_sentence_spanning_cues_takes_their_times() -> None:
    cues = [
        Timing(0, 2000, "Today we look at"),
        Timing(2000, 4000, "merge sort. It splits"),
        Timing(4000, 6000, "the array in halves."),
    ]
    sentences = split_sentences(cues, CFG.transcript_max_ms)
    assert [s.text for s in sentences] == [
        "Today we look at merge sort.",
        "It splits the array in halves.",
    ]
    assert sentences[0].start_ms == 0
    assert sentences[1].end_ms == 6000
    # "merge sort." is 11 of the cue's 21 characters: the boundary falls inside the cue.
    assert 2900 <= sentences[0].end_ms <= 3200
    assert sentences[1].start_ms >= sentences[0].end_ms


def test_abbreviations_do_not_end_sentences() -> None:
    cues = [Timing(0, 5000, "Dr. Knuth wrote it, e.g. volume one. Then more.")]
    texts = [s.text for s in split_sentences(cues, CFG.transcript_max_ms)]
    assert texts == ["Dr. Knuth wrote it, e.g. volume one.", "Then more."]


def _sentence_cues(n: int, each_ms: int) -> list[Timing]:
    return [Timing(i * each_ms, (i + 1) * each_ms, f"Sentence number {i}.") for i in range(n)]


def test_windows_exact_bounds_and_overlap() -> None:
    segments = chunk_transcript(_sentence_cues(20, 5000), CFG)  # 100 s of 5 s sentences
    spans = [(s.start_ms, s.end_ms) for s in segments]
    # 4 sentences reach 20 s; the next window starts on the last sentence (overlap 1).
    assert spans == [(0, 20_000), (15_000, 35_000), (30_000, 50_000), (45_000, 65_000),
                     (60_000, 80_000), (75_000, 100_000)]  # fmt: skip
    first = segments[0]
    assert first.kind is SegmentKind.TRANSCRIPT
    assert (
        first.text == "Sentence number 0. Sentence number 1. Sentence number 2. Sentence number 3."
    )
    assert first.timings == tuple(_sentence_cues(4, 5000))
    assert segments[1].timings[0] == first.timings[-1]


def test_no_overlap_config() -> None:
    cfg = ChunkingConfig(overlap_sentences=0)
    segments = chunk_transcript(_sentence_cues(8, 5000), cfg)
    assert [(s.start_ms, s.end_ms) for s in segments] == [(0, 20_000), (20_000, 40_000)]


def test_long_sentence_alone_and_short_transcript() -> None:
    cues = [Timing(0, 5000, "Short one."), Timing(5000, 65_000, "A very long monologue."),
            Timing(65_000, 70_000, "End.")]  # fmt: skip
    segments = chunk_transcript(cues, CFG)
    # Overlap never repeats a sentence longer than a window, and never stalls.
    assert [(s.start_ms, s.end_ms) for s in segments] == [
        (0, 5000),
        (5000, 65_000),
        (65_000, 70_000),
    ]
    only = chunk_transcript([Timing(0, 3000, "Hi."), Timing(3000, 6000, "Bye.")], CFG)
    assert [(s.start_ms, s.end_ms, s.text) for s in only] == [(0, 6000, "Hi. Bye.")]
    assert chunk_transcript([], CFG) == []


def test_unpunctuated_captions_use_cues_as_sentences() -> None:
    cues = [Timing(i * 3000, (i + 1) * 3000, f"word{i} and then some more talk") for i in range(40)]
    segments = chunk_transcript(cues, CFG)
    assert len(segments) > 3
    for segment in segments:
        assert _fits(segment)
        assert all(t in cues for t in segment.timings)
    assert segments[0].timings[0] == cues[0]


@pytest.mark.skipif(not TUTORIALVQA.is_dir(), reason="TutorialVQA data not present")
def test_tutorialvqa_all_files_parse_and_windows_fit() -> None:
    files = sorted(TUTORIALVQA.glob("*.srt"))
    assert len(files) == 76
    inside = total = 0
    for path in files:
        cues, warnings = read_subtitles(path, 64 * 1024**2)
        assert cues and not warnings, path.name
        segments = chunk_transcript(cues, CFG)
        assert segments, path.name
        assert segments[0].start_ms == cues[0].start_ms
        assert segments[-1].end_ms == cues[-1].end_ms
        for a, b in itertools.pairwise(segments):
            assert _span(a)[0] < _span(b)[0] <= _span(a)[1]  # ordered, overlapping by a sentence
        for segment in segments:
            total += 1
            inside += _fits(segment)
    assert inside / total >= 0.9, f"{inside}/{total} windows within 20-45 s"


def test_speech_written_without_punctuation_is_cut_at_its_cues() -> None:
    # Whisper base wrote an espeak-ng Japanese lecture so: five segments, no 。 anywhere.
    cues = [
        Timing(0, 4180, "みなさんこんにちは、 きょうはにほんのちりについてはなします"),
        Timing(5020, 7040, "とうきょうはにほんのしゅとです"),
        Timing(7840, 10720, "ふじさんはにほんでいちばんたかいやまです"),
    ]
    assert split_sentences(cues, 45_000) == cues
    # One sentence mark anywhere, and sentences are read from the punctuation as before.
    marked = [*cues[:2], Timing(7840, 10720, "ふじさんはにほんでいちばんたかいやまです。")]
    assert len(split_sentences(marked, 45_000)) == 1
