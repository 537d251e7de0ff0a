"""Words as the engine compares them: folding, stopwords, Porter stems and a query's terms.

The bottom of the engine's text handling, shared by search, result diversity and slide
alignment, so that all three see the same word in "Café", "CAFÉ" and "cafe". Imports nothing
from the engine.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from typing import Any

WORD = re.compile(r"\w+", re.UNICODE)
MAX_QUERY_TERMS = 48
# Function words carry no topic; matching them makes bm25 walk most of the index.
# (One word string: as a list literal the formatter puts each of the 144 on its own line.)
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just let me more most my myself no nor not now of off on once only
    or other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours
    yourself yourselves s t don isn aren wasn weren hasn haven doesn didn won wouldn shouldn
    couldn can't i'm
    """.split()  # noqa: SIM905
)


def fold(text: str) -> str:
    """Lower-cased, compatibility-decomposed, combining marks dropped ("Café" -> "cafe")."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    if decomposed.isascii():
        return decomposed
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


_local = threading.local()


def _porter() -> Any:
    """This thread's Porter stemmer, made on first use (importing it costs ~0.2 s at start-up).
    One per thread: a snowballstemmer keeps its state in the object, and one shared by the
    window's search threads and the import gave wrong stems and IndexErrors."""
    stemmer = getattr(_local, "porter", None)
    if stemmer is None:
        import snowballstemmer

        stemmer = _local.porter = snowballstemmer.stemmer("porter")
    return stemmer


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Porter stem of a folded word: the same stems FTS5's porter tokenizer indexes."""
    return _porter().stemWord(fold(word))


def query_terms(query: str) -> list[str]:
    """The user's words, lower-cased and diacritics folded, stopwords dropped (unless that
    leaves nothing), first occurrence order, capped so a pasted page stays a fast query."""
    words = [fold(w) for w in WORD.findall(query)]
    words = [w for w in words if w.strip("_")]
    kept = [w for w in words if w not in STOPWORDS] or words
    seen: dict[str, None] = {}
    for w in kept:
        seen.setdefault(w, None)
    return list(seen)[:MAX_QUERY_TERMS]


def typed_word(query: str) -> str | None:
    """The folded last word when the text ends inside it: while typing, it may be the start
    of a longer word ("so" -> "sort")."""
    words = WORD.findall(query)
    return fold(words[-1]) if words and query[-1].isalnum() else None


__all__ = ["MAX_QUERY_TERMS", "STOPWORDS", "WORD", "fold", "query_terms", "stem", "typed_word"]
