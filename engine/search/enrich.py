"""Dense-side query enrichment: KeyBERT keyphrases for long, pasted queries.

A pasted paragraph dilutes a MiniLM query vector with filler; its keyphrases (picked by
KeyBERT on our own ONNX embedder, no torch) say what it is about. Only the dense retriever
sees the enriched text: full-text search always gets the user's words. keybert (and the
scikit-learn it pulls in, ~1-3 s to import) loads on the first long query, or on
:meth:`QueryEnricher.warm` from a worker.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.models import Embedder

logger = logging.getLogger(__name__)

DEFAULT_MIN_WORDS = 12
DEFAULT_KEYPHRASES = 5
# The embedder reads ~256 word pieces, so words past this point cannot move the document
# vector KeyBERT compares against; they would only add candidates to embed (a 5,000-word
# paste has ~9,000 one- and two-word candidates, seconds of CPU).
MAX_WORDS = 200
CACHE_SIZE = 128
NGRAM_RANGE = (1, 2)
# Candidates are short phrases: larger batches than the embedder's default cost less per text.
_CANDIDATE_BATCH = 64


def word_count(text: str) -> int:
    """Words as the user sees them (whitespace-separated)."""
    return len(text.split())


def compose_dense_query(query: str, phrases: Sequence[str]) -> str:
    """The text the dense retriever embeds: the keyphrases, then the query.

    Phrases first so that the embedder's truncation (~256 word pieces) can only cut the
    query's tail, never the phrases; on TutorialVQA dev this order also scored a little
    better than the query followed by its phrases (bench/enrichment.py).
    """
    if not phrases:
        return query
    return f"{'; '.join(phrases)}\n{query}"


def _keybert_model(embedder: Embedder) -> Any:
    """A ``keybert.KeyBERT`` whose backend is ``embedder`` (document side).

    Raises:
        ImportError: keybert (or scikit-learn) is not installed.
    """
    from keybert import KeyBERT  # lazy: keybert imports scikit-learn and scipy (~1-3 s)
    from keybert.backend import BaseEmbedder

    class _Backend(BaseEmbedder):
        """Lets KeyBERT embed documents and candidate phrases with our ONNX embedder."""

        def __init__(self, inner: Embedder) -> None:
            super().__init__(embedding_model=inner)
            self._inner = inner

        def embed(self, documents: list[str], verbose: bool = False) -> npt.NDArray[np.float32]:
            return self._inner.embed(list(documents), batch_size=_CANDIDATE_BATCH)

    backend: Any = _Backend(embedder)  # KeyBERT's untyped signature says str
    return KeyBERT(model=backend)


class QueryEnricher:
    """Turns long queries into what the dense retriever should embed; short ones pass through.

    Thread-safe: searches may run on several workers. Never raises on any text.
    """

    def __init__(
        self,
        embedder: Embedder,
        *,
        min_words: int = DEFAULT_MIN_WORDS,
        keyphrases: int = DEFAULT_KEYPHRASES,
    ) -> None:
        self._embedder = embedder
        self.min_words = min_words
        self.keyphrases = keyphrases
        self._model: Any = None
        self._unavailable = False
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, str] = OrderedDict()

    def is_long(self, query: str) -> bool:
        """Whether ``query`` is long enough to be enriched (more than ``min_words`` words)."""
        return word_count(query) > self.min_words

    def warm(self) -> bool:
        """Import keybert now (call from a worker, not the UI thread); False if unavailable."""
        return self._kw_model() is not None

    def _kw_model(self) -> Any:
        with self._lock:
            if self._model is None and not self._unavailable:
                try:
                    self._model = _keybert_model(self._embedder)
                except ImportError as e:
                    self._unavailable = True
                    logger.warning("query enrichment off: cannot import keybert (%s)", e)
            return self._model

    def extract(self, text: str) -> list[str]:
        """Up to ``keyphrases`` one- or two-word phrases from ``text``, best first.

        Empty when nothing can be extracted (stop words or punctuation only) or on failure.
        """
        words = text.split()
        if not words or self.keyphrases < 1:
            return []
        model = self._kw_model()
        if model is None:
            return []
        try:
            pairs = model.extract_keywords(
                " ".join(words[:MAX_WORDS]),
                keyphrase_ngram_range=NGRAM_RANGE,
                stop_words="english",
                top_n=self.keyphrases,
            )
        # Enrichment is optional: whatever keybert, scikit-learn or the model raise, the
        # search goes on with the user's query.
        except Exception:
            logger.warning("keyphrase extraction failed; searching with the query", exc_info=True)
            return []
        return [str(phrase) for phrase, _score in pairs]

    def dense_query(self, query: str) -> str:
        """The text to embed for ``query``: unchanged if short, else enriched with keyphrases."""
        if not self.is_long(query):
            return query
        with self._lock:
            cached = self._cache.get(query)
            if cached is not None:
                self._cache.move_to_end(query)
                return cached
        dense = compose_dense_query(query, self.extract(query))
        with self._lock:
            self._cache[query] = dense
            self._cache.move_to_end(query)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return dense


__all__ = [
    "DEFAULT_KEYPHRASES",
    "DEFAULT_MIN_WORDS",
    "QueryEnricher",
    "compose_dense_query",
    "word_count",
]
