"""A query analysed once: its terms, their idf weights, the word being typed, and the
full-text expressions built from them. Every stage reads this instead of the raw text.

A question's language is not known (it is short, and people mix): it is read as English
(FTS5's Porter stems, for English text and text of no known language) and in each other
language the library holds text in (engine/analysis.py), and a segment matches the reading
of its own language (``bench/xquad.py --mixed`` measures what the other readings cost).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from engine import analysis
from engine.plain_text import valid_text
from engine.words import query_terms, stem, typed_word

_MAX_FULLTEXT_TERMS = 24
_NONE: Mapping[str, float] = {}


@dataclass(frozen=True, slots=True)
class Frequencies:
    """How many segments hold each stem, out of ``total`` (a snapshot of one generation)."""

    counts: Mapping[str, int]
    total: int

    def __call__(self, stem: str) -> int:
        return self.counts.get(stem, 0)

    def idf(self, stem: str) -> float:
        n, df = max(self.total, 1), self.counts.get(stem, 0)
        return math.log(1 + (n - df + 0.5) / (df + 0.5))


@dataclass(frozen=True, slots=True)
class Query:
    text: str  # as the user typed it
    terms: tuple[str, ...]  # folded, stopwords dropped (see engine.words.query_terms)
    weights: Mapping[str, float]  # stem of each term -> its idf in this library
    typing: bool  # the user is still typing: the last word may grow
    # The folded last word while typing, when the text ends inside it ("so" of "merge so").
    typed: str | None
    fulltext_terms: tuple[str, ...]  # the terms worth a full-text lookup, rarest first
    # Each other language of the library: the question's terms read in it -> their idf.
    analysed: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    analysed_terms: tuple[str, ...] = ()  # those worth a lookup in the analysed index

    def fts_match(self) -> str | None:
        return fts_match(self.text, prefix_last=self.typing, terms=self.fulltext_terms)

    def terms_match(self) -> str | None:
        """The MATCH expression on the analysed index (None: nothing to look up)."""
        quoted = ['"' + t.replace('"', "") + '"' for t in self.analysed_terms]
        if self.typing:
            typed = {analysis.typed_prefix(self.text, lang) for lang in self.analysed}
            quoted += [f'"{t}"*' for t in sorted(p for p in typed if p and len(p) >= 2)]
        return " OR ".join(quoted) or None

    def weights_for(self, language: str | None) -> Mapping[str, float]:
        """The weights a segment in ``language`` is scored by: its language's reading."""
        if analysis.uses_porter(language):
            return self.weights
        return self.analysed.get(language or "", _NONE)


def analyse(
    text: str,
    typing: bool,
    frequencies: Callable[[list[str]], Frequencies],
    languages: Sequence[str] = (),
    analysed_frequencies: Callable[[list[str]], Frequencies] | None = None,
) -> Query:
    """``frequencies`` reads the document frequencies of stems (cached by the caller);
    ``languages`` are the library's other languages, whose terms' frequencies
    ``analysed_frequencies`` reads. Lone surrogates (invalid UTF-8 from a command line or
    JSON) become U+FFFD: the tokenizer refuses them."""
    text = valid_text(text)
    terms = query_terms(text)
    df = frequencies([stem(t) for t in terms])
    weights = {stem(t): df.idf(stem(t)) for t in terms}
    readings = {lang: analysis.query_terms(text, lang) for lang in languages}
    analysed: dict[str, Mapping[str, float]] = {}
    lookup: list[str] = []
    if readings and analysed_frequencies is not None:
        every = list(dict.fromkeys(t for found in readings.values() for t in found))
        adf = analysed_frequencies(every)
        # A piece of a script without spaces that no segment holds mostly spans two words
        # ("多少分" gives "少分"): weighing it, the best sentences held too little of the
        # question, and the early exit emptied 30% of XQuAD's Thai questions.
        analysed = {
            lang: {t: adf.idf(t) for t in found if adf(t) > 0 or not analysis.is_spaceless(t)}
            for lang, found in readings.items()
        }
        # A term no segment holds matches nothing, and a reading in a language other than
        # the question's makes many: rarest first, they would crowd out the real ones.
        ranked = sorted((t for t in every if adf(t) > 0), key=adf)
        kept = [t for t in ranked if adf(t) <= max(2000, adf.total // 20)]
        lookup = (kept or ranked[:1])[:_MAX_FULLTEXT_TERMS]
    return Query(
        text=text,
        terms=tuple(terms),
        weights=weights,
        typing=typing,
        typed=typed_word(text) if typing else None,
        fulltext_terms=tuple(informative_terms(terms, df, df.total)),
        analysed=analysed,
        analysed_terms=tuple(lookup),
    )


def fts_match(
    query: str, *, prefix_last: bool = False, terms: Sequence[str] | None = None
) -> str | None:
    """An FTS5 MATCH expression for any user text, or None when it has no words.

    Every term is double-quoted, so operators (NOT, AND, NEAR), a lone quote, ``*`` or
    parentheses typed by the user are just text. Terms are OR-ed and bm25 ranks documents
    that contain more and rarer terms first. ``terms`` replaces the query's own terms
    (the caller may have dropped some).
    """
    terms = list(query_terms(query) if terms is None else terms)
    if not terms:
        return None
    quoted = ['"' + t.replace('"', "") + '"' for t in terms]
    # The word being typed may be the start of a longer one ("so" -> "sort"), even when it
    # looks like a stopword on its own.
    last = typed_word(query) if prefix_last else None
    if last is not None and len(last) >= 2:
        if last in terms:
            quoted.pop(terms.index(last))
        quoted.append(f'"{last}"*')
    return " OR ".join(quoted)


def informative_terms(terms: Sequence[str], df: Callable[[str], int], total: int) -> list[str]:
    """The terms worth a full-text lookup, rarest first.

    A term found in thousands of segments and in over 5% of the library adds little to
    bm25 but makes FTS5 walk a long posting list, and a pasted page has dozens of terms:
    keep the rarer ones (at most ``_MAX_FULLTEXT_TERMS``), and the rarest term if every one
    is common. Small libraries keep every term: there a common word is cheap and can still
    separate one lecture from another.
    """
    ranked = sorted(terms, key=lambda t: df(stem(t)))
    kept = [t for t in ranked if df(stem(t)) <= max(2000, total // 20)]
    return (kept or ranked[:1])[:_MAX_FULLTEXT_TERMS]
