"""Seek refinement: where the player starts for a hit, and the windows that collapse because
they now start at the same moment."""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence

from engine.search.handoff import Candidate, Passage
from engine.search.lexical import Weights, first_matching_word, weights_of
from engine.store import SegmentRow
from engine.types import SegmentKind, Timing

SAME_MOMENT_MS = 2000  # two hits in one file that start closer than this are one moment
# A sentence before the answer this short ("Why?", "Here is why.") is heard with it.
SHORT_SENTENCE_WORDS = 3
# (full stops of Chinese and Japanese, Arabic's question mark, Hindi's danda too)
_ENDS_SENTENCE = (".", "?", "!", "。", "\uff1f", "\uff01", "؟", "।")


def seek_ms(
    row: SegmentRow, passage: Passage | None, weights: Mapping[str, float], refine: bool
) -> int | None:
    """Where the player starts for a hit: at the beginning of the sentence that answers (its
    best cue; with recognised words, the sentence of the cue's first query word, or the one
    before it when that is short); never in the middle of a sentence. No time
    is added before it: a slide that changes as the sentence begins would show the one
    before in the result and at the start of playback. The segment's start without
    refinement or a passage."""
    if not (refine and row.timings and passage is not None):
        return row.start_ms
    best = row.timings[passage.sentence]
    if not row.words:
        # Subtitle cues are sentences, and start where their author put them. (Hearing a
        # short cue before the answer too cost TutorialVQA's Hit@1 a question.)
        return best.start_ms
    if not any(_ends_sentence(w.text) for w in row.words):
        # Speech written without punctuation (Whisper often writes Japanese and Chinese
        # so): its cues are its sentences, as the window's were cut (ingest/chunking.py).
        return best.start_ms
    sentences = spoken_sentences(row.words)
    word = first_matching_word(row.words, best, weights, row.language)
    at = best.start_ms if word is None else word.start_ms
    # The sentence being spoken at ``at`` (the first one when the cue starts before any).
    i = max(0, bisect.bisect_right([s.start_ms for s in sentences], at) - 1)
    # A window may begin with the end of a sentence ("and conquer."): Whisper starts every
    # sentence with a capital, so a short one without it is a tail, not a sentence to hear.
    if i > 0 and not sentences[i - 1].text[:1].isupper():
        return sentences[i].start_ms
    return sentences[_with_short_one_before(sentences, i)].start_ms


def spoken_sentences(words: Sequence[Timing]) -> list[Timing]:
    """The sentences of recognised speech, from its words: a sentence ends at a word ending
    in a full stop, question or exclamation mark."""
    out: list[Timing] = []
    first = 0
    for k, word in enumerate(words):
        if _ends_sentence(word.text) or k == len(words) - 1:
            text = " ".join(w.text for w in words[first : k + 1])
            out.append(Timing(words[first].start_ms, word.end_ms, text))
            first = k + 1
    return out


def _ends_sentence(word: str) -> bool:
    return word.rstrip("\"')]").endswith(_ENDS_SENTENCE)


def _with_short_one_before(sentences: Sequence[Timing], i: int) -> int:
    """``i``, or the sentence before it when that one is short."""
    if i == 0:
        return i
    return i - 1 if len(sentences[i - 1].text.split()) <= SHORT_SENTENCE_WORDS else i


def refine_seeks(
    head: Sequence[Candidate],
    weights: Weights,
    refine: bool,
) -> list[Candidate]:
    """The candidates seeking to their best sentence (left at their start without
    ``refine``). Their passages are final here: reranking and diversity only reorder.
    ``weights``: the query's, or what gives them for a segment's language
    (:meth:`engine.search.query.Query.weights_for`)."""
    if not refine:
        return list(head)
    return [
        c.seeking(seek_ms(c.row, c.passage, weights_of(weights, c.row.language), refine))
        for c in head
    ]


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
