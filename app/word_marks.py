"""Where a question's words are in a text a preview shows, whatever their accents and case.

The engine folds a question's words as it indexes them ("Dióxido" -> "dioxido",
engine.words.fold), so the words a preview is given to mark have lost their accents: the
transcript and the notes view must find "dióxido" and "energía" for "dioxido" and
"energia", and "energía" typed in a find box must find "energia" too. Matching runs on the
folded text; each match is mapped back to the characters it came from.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from engine.api import fold

_NOT_ASCII = re.compile(r"[^\x00-\x7f]+")


def folded_words(words: Iterable[str]) -> list[str]:
    """The words folded as the engine folds them, empty ones dropped, longest first (so an
    alternation prefers "sorting" over "sort")."""
    found = {fold(w).strip() for w in words}
    return sorted((w for w in found if w), key=len, reverse=True)


def _folded(text: str) -> tuple[str, list[int] | None]:
    """``text`` folded, and for each folded character the index of the one of ``text`` it
    came from (None: the same index, for ASCII text, which folds to its own length)."""
    if text.isascii():
        return text.lower(), None
    pieces: list[str] = []
    origin: list[int] = []
    at = 0
    for other in _NOT_ASCII.finditer(text):  # a whole file may be marked: ASCII runs at once
        pieces.append(text[at : other.start()].lower())
        origin.extend(range(at, other.start()))
        for i in range(other.start(), other.end()):
            piece = fold(text[i])
            pieces.append(piece)
            origin.extend([i] * len(piece))
        at = other.end()
    pieces.append(text[at:].lower())
    origin.extend(range(at, len(text)))
    return "".join(pieces), origin


def word_spans(text: str, pattern: re.Pattern[str] | None) -> list[tuple[int, int]]:
    """The (start, end) in ``text`` of each match of ``pattern``, which holds folded words
    and is searched in the folded text. A match ends after its last letter's accents."""
    if pattern is None:
        return []
    folded, origin = _folded(text)
    spans: list[tuple[int, int]] = []
    for found in pattern.finditer(folded):
        start, end = found.span()
        if start == end:
            continue
        if origin is not None:
            start, end = origin[start], origin[end - 1] + 1
            while end < len(text) and unicodedata.combining(text[end]):
                end += 1  # a decomposed accent belongs to the letter before it
        spans.append((start, end))
    return spans
