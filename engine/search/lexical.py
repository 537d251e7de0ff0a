"""Query words in a segment's text: which sentence, cue, word or line matches them best.

``weights`` maps a query stem to its idf weight (see :class:`engine.search.query.Query`);
``language`` is the text's: English and unknown text is read with Porter stems as FTS5
indexes it, any other with engine/analysis.py's terms (stems, or n-grams).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from engine import analysis
from engine.search.handoff import Passage
from engine.store import SegmentRow
from engine.types import Timing
from engine.words import WORD, stem

# Chinese and Japanese end a sentence with no space after it.
_SENTENCE = re.compile(r"(?<=[.!?؟।])\s+|\n+|(?<=[。\uff01\uff1f])")
_CAMEL = re.compile(r"([a-z])([A-Z])")


# The query's weights, or what gives them for a segment's language
# (:meth:`engine.search.query.Query.weights_for`).
Weights = Mapping[str, float] | Callable[[str | None], Mapping[str, float]]


def weights_of(weights: Weights, language: str | None) -> Mapping[str, float]:
    return weights(language) if callable(weights) else weights


def candidate_words(weights: Mapping[str, float]) -> re.Pattern[str]:
    """Words that may stem to a query stem. Porter only rewrites a word's tail, so a word
    shares all but the last letter of its stem; matching on that prefix in the regex
    engine leaves only a handful of words per sentence to stem in Python."""
    keys = sorted({s[: max(1, min(len(s) - 1, 3))] for s in weights}, key=len, reverse=True)
    if not keys:
        return re.compile(r"(?!x)x")
    return re.compile(r"\b(?:" + "|".join(map(re.escape, keys)) + r")\w*", re.IGNORECASE)


def scorer(weights: Mapping[str, float], language: str | None = None) -> Callable[[str], float]:
    """Scores a text by the idf sum of the distinct query stems it contains."""
    if not analysis.uses_porter(language):
        return _analysed_scorer(weights, language or "")
    candidates = candidate_words(weights)

    def score(text: str) -> float:
        found = {stem(w) for w in candidates.findall(text)}
        return sum(weights[s] for s in found if s in weights)

    return score


def _analysed_scorer(weights: Mapping[str, float], language: str) -> Callable[[str], float]:
    def score(text: str) -> float:
        return sum(weights.get(t, 0.0) for t in analysis.term_set(text, language))

    return score


def is_query_word(weights: Mapping[str, float]) -> Callable[[str], bool]:
    candidates = candidate_words(weights)

    def check(word: str) -> bool:
        return candidates.fullmatch(word) is not None and stem(word) in weights

    return check


def best_timing(
    timings: Sequence[Timing],
    weights: Mapping[str, float],
    follow: float = 0.0,
    language: str | None = None,
) -> Passage | None:
    """Index and score of the cue or sentence that best matches the weighted query stems.

    A span scores the idf sum of the distinct query stems it contains, plus ``follow``
    times the next span's score (an answer often goes on in the next sentence); only spans
    that match themselves can win. Ties go to the earliest, so playback starts where the
    matching passage begins. None when no span shares a word with the query.
    """
    score = scorer(weights, language)
    values = [score(t.text) for t in timings]
    best: Passage | None = None
    for i, value in enumerate(values):
        if value <= 0:
            continue
        total = value + (follow * values[i + 1] if i + 1 < len(values) else 0.0)
        if best is None or total > best.score + 1e-9:
            best = Passage(i, total)
    return best


def best_passage(
    row: SegmentRow, weights: Mapping[str, float], follow: float = 0.0
) -> Passage | None:
    """The best-matching cue of a timed segment, or sentence of any other, with its score."""
    if not weights:
        return None
    if row.timings:
        return best_timing(row.timings, weights, follow, row.language)
    sentences = [Timing(0, 0, part) for part in _SENTENCE.split(row.text) if part.strip()]
    return best_timing(sentences, weights, follow, row.language)


def first_matching_word(
    words: Sequence[Timing],
    span: Timing,
    weights: Mapping[str, float],
    language: str | None = None,
) -> Timing | None:
    """The first recognised word inside ``span`` that is one of the query's stems, or that
    begins one of its terms read across the words (Whisper writes Japanese and Chinese in
    words of a character or two: the pair "たか" is heard as "た", "か")."""
    inside = [w for w in words if span.start_ms - 50 <= w.start_ms < span.end_ms]
    if analysis.uses_porter(language):
        return next(
            (w for w in inside if any(stem(t) in weights for t in WORD.findall(w.text))), None
        )
    text, owners = _joined(inside)
    for start, _, term in analysis.spans(text, language or ""):
        if term in weights:
            return inside[owners[start]]
    return None


def _joined(words: Sequence[Timing]) -> tuple[str, list[int]]:
    """The words' text, a space between two of them unless both sides are a script written
    without spaces; and for each character, the index of its word (a space: the next's)."""
    text: list[str] = []
    owners: list[int] = []
    for i, word in enumerate(words):
        if text and not (
            analysis.is_spaceless(text[-1][-1:]) and analysis.is_spaceless(word.text[:1])
        ):
            text.append(" ")
            owners.append(i)
        text.append(word.text)
        owners.extend([i] * len(word.text))
    return "".join(text), owners


def best_line(text: str, weights: Mapping[str, float], language: str | None = None) -> int | None:
    """0-based line of ``text`` that best matches the query stems (for code hits)."""
    score = scorer(weights, language)
    best: tuple[int, float] | None = None
    for i, line in enumerate(text.splitlines()):
        value = score(_CAMEL.sub(r"\1 \2", line).replace("_", " "))
        if value > 0 and (best is None or value > best[1] + 1e-9):
            best = (i, value)
    return None if best is None else best[0]


def passage_offset(row: SegmentRow, passage: Passage | None) -> int | None:
    """Where the best cue of a timed segment starts in its text (None: untimed, no
    passage, or not found)."""
    if passage is None or not row.timings:
        return None
    found = row.text.find(row.timings[passage.sentence].text[:40])
    return None if found < 0 else found
