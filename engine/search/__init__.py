"""Retrieval: a query through the stages of the README's "How search ranks".

    query.py        the query analysed once (terms, idf weights, the word being typed)
    candidates.py   1. full-text + dense + best sentence, fused (RRF)
    gate.py         2. early exit when nothing in the library is close
    granularity.py  3. the head rescored by its closest sentence
    seek.py            where each hit starts playing; windows at one moment collapse
    rerank.py       4. cross-encoder on the head, within a time budget
    distinct.py     5. MMR (off), near-copies and same-moment hits collapse
    said_first.py      a lecture's strong spoken hit before its on-screen text
    snippets.py        results: snippet, highlights, line, thumbnail, slide links
    results.py         a hit and its place by kind: a moment, a page, lines, the file
    searcher.py     the orchestrator; lexical.py, stats.py: what the stages share
    scale.py           the thresholds and weights on similarity: the embedder's
    diversity.py       near-duplicate removal and MMR, under distinct.py
    enrich.py          keyphrases of a long pasted query for the dense side (KeyBERT)
    evaluate.py        retrieval benchmarks (`coursedex eval`, bench/): builds a Library, so
                       it sits above the stages and nothing here imports it
    eval_metrics.py    the benchmarks' scores (README of ../shared/eval) and their table

The pure pieces are importable from here so they can be tested and reused alone.
"""

from engine.search.candidates import HEAD, fuse_rrf
from engine.search.handoff import Candidate, Passage
from engine.search.lexical import best_line, best_passage, best_timing, first_matching_word
from engine.search.query import Query, analyse, fts_match, informative_terms
from engine.search.rerank import rerank_text
from engine.search.results import NO_FILTERS, SearchFilters, SearchOutcome, SearchResult
from engine.search.searcher import Searcher
from engine.search.seek import seek_ms
from engine.search.snippets import make_snippet

__all__ = [
    "HEAD",
    "NO_FILTERS",
    "Candidate",
    "Passage",
    "Query",
    "SearchFilters",
    "SearchOutcome",
    "SearchResult",
    "Searcher",
    "analyse",
    "best_line",
    "best_passage",
    "best_timing",
    "first_matching_word",
    "fts_match",
    "fuse_rrf",
    "informative_terms",
    "make_snippet",
    "rerank_text",
    "seek_ms",
]
