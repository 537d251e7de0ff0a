"""Text analysed in its own language: the terms full-text search indexes and matches.

English, and text whose language is not known, is left to FTS5's own ``porter unicode61``
tokenizer, exactly as before languages were known (English rankings do not move; see
:func:`uses_porter`). Every other language is analysed here, in Python, and the terms are
indexed by a plain tokenizer (engine/store/segments.py):

- Words are stemmed by the language's Snowball stemmer (snowballstemmer, ~30 languages),
  then folded: lower-cased, accents dropped. A letter that speakers hold distinct from its
  base is kept (:data:`KEEP`): Spanish ñ ("año" is not "ano"), Scandinavian å æ ø, Swedish
  and Finnish ä ö, Turkish ç ğ ö ş ü, Cyrillic й. German ß folds to ss and ä to a (its
  stemmer does both); Hungarian and Romanian stems keep their letters whole, as their
  stemmers write them. Only Latin/Greek/Cyrillic accents, Arabic harakat and Hebrew points
  are dropped: Indic vowel signs and Thai vowels are letters' parts, not accents.
- Scripts written without spaces (Chinese, Japanese, Korean, Thai, Lao, Khmer, Myanmar) are
  cut into overlapping character n-grams, as Lucene's CJK analyser does: pairs for Chinese,
  Japanese and Korean (a two-character word is one term, a longer one all of its pairs),
  four characters for Thai and its neighbours (:data:`GRAMS`, chosen on bench/xquad.py), so
  a question's words are found without a dictionary.

Each term comes with the span of text it was read from, so snippets can mark it. A question's
function words (engine/function_words.py) are dropped from its terms, as English's are.
Imports nothing from the engine but :mod:`engine.words` and :mod:`engine.function_words`.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from collections.abc import Iterator
from typing import Any

from engine import words
from engine.function_words import FUNCTION_WORDS
from engine.words import MAX_QUERY_TERMS

# engine.languages code -> Snowball algorithm. Close languages share one (Malay reads
# as Indonesian, Croatian and Bosnian as Serbian's Latin script).
SNOWBALL = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "da": "danish",
    "nl": "dutch", "fi": "finnish", "fr": "french", "de": "german", "el": "greek",
    "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ms": "indonesian", "ga": "irish",
    "it": "italian", "lt": "lithuanian", "ne": "nepali", "no": "norwegian", "nn": "norwegian",
    "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian", "hr": "serbian",
    "bs": "serbian", "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish",
    "yi": "yiddish",
}  # fmt: skip
# Letters that are not an accented base letter to the language's speakers.
KEEP: dict[str, str] = {
    "es": "ñ",
    "da": "åæø",
    "no": "åæø",
    "nn": "åæø",
    "sv": "åäö",
    "fi": "åäö",
    "et": "äöõü",
    "is": "áéíóúýþæöð",
    "tr": "çğıöşü",
    "hu": "áéíóöőúüű",
    "ro": "ăâîșțşţ",
    "ru": "й",
    "uk": "йїґ",
    "be": "йў",
    "bg": "й",
}
_PORTER = frozenset({"en"})
# Combining marks that are accents: Latin/Greek/Cyrillic diacritics, Arabic harakat and
# superscript alef, Hebrew points.
_ACCENT = re.compile("[\u0300-\u036f\u064b-\u065f\u0670\u0591-\u05c7]")


def _marks() -> str:
    """Every combining mark of the BMP as a character class body (computed once, ~20 ms):
    a Hindi word's vowel signs and viramas are inside the word, not between two."""
    ranges: list[str] = []
    start = prev = -2
    for cp in range(0x0300, 0x10000):
        if unicodedata.category(chr(cp)).startswith("M"):
            if cp != prev + 1:
                if start >= 0:
                    ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(prev))}")
                start = cp
            prev = cp
    ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(prev))}")
    return "".join(ranges)


TOKEN = re.compile(rf"(?:[^\W_]|[{_marks()}])+")
# Scripts without spaces between words: runs of one class are cut into n-grams.
_RUNS = re.compile(
    "(?P<cjk>[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0002ffff]+)"
    "|(?P<ko>[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]+)"
    "|(?P<th>[\u0e00-\u0e7f]+)|(?P<lo>[\u0e80-\u0eff]+)|(?P<km>[\u1780-\u17ff]+)"
    "|(?P<my>[\u1000-\u109f]+)"
)
# Characters per term in each of those scripts. Thai writes a vowel or tone mark as a
# character of its own: a pair is less than a syllable. XQuAD Thai NDCG@10, full-text /
# default: pairs 0.942 / -, 3 0.972 / 0.659, 4 0.967 / 0.697 (fewer pieces spanning two
# words). Lao, Khmer and Myanmar (not measured) are written the same way. Chinese pairs:
# 0.975 / 0.811.
GRAMS = {"cjk": 2, "ko": 2, "th": 4, "lo": 4, "km": 4, "my": 4}
_SPACELESS = re.compile(_RUNS.pattern.replace("+)", ")"))


def is_spaceless(term: str) -> bool:
    """A term of a script written without spaces (a character pair)."""
    return _SPACELESS.match(term) is not None


def uses_porter(language: str | None) -> bool:
    """English, or not known: indexed by FTS5's Porter tokenizer as always."""
    return language is None or language in _PORTER


_local = threading.local()


def _stemmer(algorithm: str) -> Any:
    """This thread's stemmer for ``algorithm``: a snowballstemmer keeps its state in the
    object (see engine.words._porter)."""
    stemmers = getattr(_local, "stemmers", None)
    if stemmers is None:
        stemmers = _local.stemmers = {}
    stemmer = stemmers.get(algorithm)
    if stemmer is None:
        import snowballstemmer

        stemmer = stemmers[algorithm] = snowballstemmer.stemmer(algorithm)
    return stemmer


def fold(word: str, language: str) -> str:
    """``word`` lower-cased, compatibility forms unified, accents dropped except on the
    letters the language keeps (:data:`KEEP`)."""
    lowered = word.casefold()
    if lowered.isascii():
        return lowered
    keep = KEEP.get(language, "")
    if keep and any(ch in keep for ch in lowered):
        parts = [ch if ch in keep else _unaccent(ch) for ch in lowered]
        return unicodedata.normalize("NFC", "".join(parts))
    return _unaccent(lowered)


def _unaccent(text: str) -> str:
    return unicodedata.normalize("NFC", _ACCENT.sub("", unicodedata.normalize("NFKD", text)))


@functools.lru_cache(maxsize=131072)
def term(word: str, language: str) -> str:
    """The indexed form of one word (no space-less script in it): its stem, folded."""
    algorithm = SNOWBALL.get(language)
    lowered = word.casefold()
    if algorithm is not None:
        lowered = _stemmer(algorithm).stemWord(lowered)
    return fold(lowered, language)


def spans(text: str, language: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, term) of each term of ``text`` in order: a word's stem, or an n-gram (the
    run itself when shorter) of a run of a space-less script."""
    for token in TOKEN.finditer(text):
        word, base = token.group(), token.start()
        if _SPACELESS.search(word) is None:
            yield base, token.end(), term(word, language)
            continue
        at = 0
        for run in _RUNS.finditer(word):
            if run.start() > at:
                part = word[at : run.start()]
                yield base + at, base + run.start(), term(part, language)
            yield from _grams(run.group(), base + run.start(), GRAMS[run.lastgroup or ""])
            at = run.end()
        if at < len(word):
            yield base + at, token.end(), term(word[at:], language)


def _grams(run: str, offset: int, n: int) -> Iterator[tuple[int, int, str]]:
    chars = unicodedata.normalize("NFKC", run).casefold()
    if len(chars) != len(run):  # a compatibility form widened: no spans to map back
        chars = run.casefold()
    if len(chars) <= n:
        yield offset, offset + len(chars), chars
        return
    for i in range(len(chars) - n + 1):
        yield offset + i, offset + i + n, chars[i : i + n]


def terms(text: str, language: str) -> list[str]:
    return [t for _, _, t in spans(text, language)]


@functools.lru_cache(maxsize=32768)
def term_set(text: str, language: str) -> frozenset[str]:
    """The distinct terms of ``text`` (a sentence): search scores the sentences of the same
    candidates query after query while a question is typed."""
    return frozenset(terms(text, language))


def analysed(text: str, language: str) -> str:
    """The text full-text search indexes for ``text``: its terms, space-separated."""
    return " ".join(terms(text, language))


@functools.lru_cache(maxsize=64)
def _function_words(language: str) -> frozenset[str]:
    return frozenset(fold(w, language) for w in FUNCTION_WORDS.get(language, ()))


def is_function_word(word: str, language: str) -> bool:
    """``word`` is one of ``language``'s function words ("la", "de"), in any case and with
    or without its accents."""
    return fold(word, language) in _function_words(language)


def query_terms(query: str, language: str) -> list[str]:
    """A question's terms in ``language``, function words dropped (unless that leaves
    nothing), first occurrence order, capped (a pasted page stays a fast query)."""
    found = [(query[a:b], t) for a, b, t in spans(query, language) if t]
    kept = [t for word, t in found if not is_function_word(word, language)]
    return list(dict.fromkeys(kept or [t for _, t in found]))[:MAX_QUERY_TERMS]


@functools.lru_cache(maxsize=64)
def _plainly_folded(language: str) -> frozenset[str]:
    return frozenset(words.fold(w) for w in FUNCTION_WORDS.get(language, ()))


def shown_words(query: str, language: str | None) -> list[str]:
    """The question's words to highlight in a text in ``language`` (a result's preview):
    :func:`engine.words.query_terms` (English's stopwords dropped), less the language's
    function words unless nothing else is left."""
    found = words.query_terms(query)
    if uses_porter(language):
        return found
    dropped = _plainly_folded(language or "")
    return [w for w in found if w not in dropped] or found


def typed_prefix(query: str, language: str) -> str | None:
    """The folded last word when the text ends inside it (it may grow while typing); None
    for a space-less script, whose last n-gram is already a term."""
    found = list(TOKEN.finditer(query))
    if not found or found[-1].end() != len(query) or _SPACELESS.search(found[-1].group()):
        return None
    return fold(found[-1].group(), language)


__all__ = [
    "KEEP",
    "SNOWBALL",
    "TOKEN",
    "analysed",
    "fold",
    "is_function_word",
    "is_spaceless",
    "query_terms",
    "shown_words",
    "spans",
    "term",
    "term_set",
    "terms",
    "typed_prefix",
    "uses_porter",
]
