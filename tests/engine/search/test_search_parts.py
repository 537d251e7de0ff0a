"""The pure parts of retrieval: query building, fusion, seek refinement, snippets."""

from __future__ import annotations

from engine.search import (
    best_line,
    best_timing,
    fts_match,
    fuse_rrf,
    make_snippet,
)
from engine.types import Timing
from engine.words import query_terms, stem


def test_query_terms_drop_stopwords_but_never_everything() -> None:
    assert query_terms("How do I use the clone stamp tool?") == ["use", "clone", "stamp", "tool"]
    assert query_terms("to be or not to be") == ["to", "be", "or", "not"]
    assert query_terms("Café CAFÉ cafe") == ["cafe"]
    assert query_terms('" * ( ) -') == []


def test_fts_match_quotes_every_term() -> None:
    # only stopwords: all are kept, each quoted, so NOT/AND are words, not operators
    assert fts_match("NOT a AND (") == '"not" OR "a" OR "and"'
    assert fts_match("merge sort") == '"merge" OR "sort"'
    assert fts_match("merge so", prefix_last=True) == '"merge" OR "so"*'
    assert fts_match("merge so ", prefix_last=True) == '"merge"'  # a finished stopword
    assert fts_match("") is None
    assert fts_match("***") is None


def test_fts_match_caps_a_pasted_page() -> None:
    text = " ".join(f"word{i}" for i in range(500))
    match = fts_match(text)
    assert match is not None and match.count(" OR ") == 47


def test_rrf_fuses_by_reciprocal_rank() -> None:
    fused = fuse_rrf([[1, 2, 3], [3, 1, 4]], k=60)
    ids = [i for i, _ in fused]
    assert ids[:2] == [1, 3]  # in both lists near the top
    assert set(ids) == {1, 2, 3, 4}
    score = dict(fused)
    assert abs(score[1] - (1 / 61 + 1 / 62)) < 1e-12
    assert abs(score[4] - 1 / 63) < 1e-12
    assert fuse_rrf([]) == []


def test_best_timing_picks_the_rarest_matching_cue_and_the_earliest_on_ties() -> None:
    timings = (
        Timing(0, 3000, "Welcome back to the course."),
        Timing(3000, 9000, "Today the healing brush removes blemishes."),
        Timing(9000, 12000, "The brush has a size setting."),
        Timing(12000, 15000, "The healing brush again."),
    )
    weights = {stem("healing"): 3.0, stem("brush"): 1.0}
    assert best_timing(timings, weights) == (1, 4.0)
    assert best_timing(timings, {stem("welcome"): 1.0}) == (0, 1.0)
    assert best_timing(timings, {stem("absent"): 1.0}) is None


def test_best_line_splits_identifiers() -> None:
    code = "import os\n\ndef parse_srt_file(path):\n    return readSubtitles(path)\n"
    assert best_line(code, {stem("subtitles"): 1.0}) == 3
    assert best_line(code, {stem("parse"): 1.0, stem("srt"): 1.0}) == 2


def test_snippet_centres_on_the_query_and_marks_terms() -> None:
    text = " ".join(["filler"] * 100 + ["the", "quicksort", "pivot", "choice"] + ["tail"] * 100)
    snippet, spans = make_snippet(text, {stem("pivot"): 1.0, stem("quicksort"): 2.0}, words=12)
    assert "quicksort pivot" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
    assert [snippet[a:b] for a, b in spans] == ["quicksort", "pivot"]
    short, none = make_snippet("just a short note", {}, words=12)
    assert short == "just a short note" and none == ()


def test_best_passage_scores_sentences_of_untimed_text() -> None:
    from engine.search import best_passage
    from engine.store import SegmentRow
    from engine.types import SegmentKind, SourceKind

    row = SegmentRow(
        id=1, source_id=1, kind=SegmentKind.NOTE, start_ms=None, end_ms=None, page=None,
        path_in_archive=None, line_start=1, line_end=3, heading="", timings=(),
        text="Sorting is old. Timsort merges runs found in the data! Binary search halves.",
        source_path="/n.md", source_title="n", course="c", source_kind=SourceKind.NOTES,
    )  # fmt: skip
    assert best_passage(row, {stem("runs"): 1.0, stem("merging"): 2.0}) == (1, 3.0)
    assert best_passage(row, {stem("absent"): 1.0}) is None
    assert best_passage(row, {}) is None


def test_candidate_prefix_filter_keeps_every_word_that_stems_to_a_query_stem() -> None:
    from engine.search.lexical import scorer

    words = ["happy", "happiness", "caresses", "ponies", "running", "generalization", "go", "us"]
    for word in words:
        assert scorer({stem(word): 1.0})(f"Some text with {word.upper()} inside.") == 1.0, word


def test_informative_terms_drop_very_common_words_only_in_large_libraries() -> None:
    from engine.search import informative_terms

    counts = {stem("layer"): 30_000, stem("vibrance"): 40, stem("mask"): 1_500}
    df = lambda s: counts.get(s, 0)  # noqa: E731
    assert informative_terms(["layer", "mask", "vibrance"], df, 100_000) == ["vibrance", "mask"]
    # a small library keeps every term, rarest first, even one in most segments
    counts.update({stem("layer"): 900, stem("mask"): 30, stem("vibrance"): 4})
    assert informative_terms(["layer", "mask", "vibrance"], df, 1_000) == [
        "vibrance",
        "mask",
        "layer",
    ]
    # every term common: keep the rarest
    assert informative_terms(["layer"], df, 100_000) == ["layer"]
    many = [f"term{i}" for i in range(40)]
    assert len(informative_terms(many, df, 100_000)) == 24


def test_best_timing_follow_prefers_a_match_that_the_next_sentence_continues() -> None:
    timings = (
        Timing(0, 1000, "The clone stamp copies pixels."),
        Timing(1000, 2000, "Nothing here."),
        Timing(2000, 3000, "The clone stamp samples a source."),
        Timing(3000, 4000, "Then paint over the blemish with the sampled source."),
    )
    weights = {stem("clone"): 1.0, stem("stamp"): 1.0, stem("source"): 0.5}
    assert best_timing(timings, weights) == (2, 2.5)
    assert best_timing(timings, {stem("clone"): 1.0, stem("source"): 1.0}) == (2, 2.0)
    # the next sentence's words lift the third sentence above the first
    picked = best_timing(timings, {stem("clone"): 1.0, stem("blemish"): 1.0}, follow=0.25)
    assert picked == (2, 1.25)
    assert best_timing(timings, {stem("blemish"): 1.0}, follow=0.25) == (3, 1.0)
