"""Diversity: near-duplicate removal on words and maximal marginal relevance on vectors."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.models.embedder import OnnxEmbedder
from engine.search.diversity import dedup_near, jaccard, mmr, word_set

# A lecture transcript cut into windows on sentence boundaries; the windows the chunker
# makes around one moment share all but a sentence or two.
LECTURE = [
    "So today we are going to look at how the clone stamp tool copies pixels.",
    "You hold the Alt key and click to choose the source point on the image.",
    "Then you paint over the area you want to cover, for example a power line in the sky.",
    "The brush samples from the source point and moves along with your cursor as you paint.",
    "If you turn on the aligned option, the offset between source and brush stays the same.",
    "Turn it off and every new stroke starts again from the original source point.",
    "The healing brush works in a similar way but blends the texture with the surrounding "
    "colours and lighting.",
    "That makes it better for skin blemishes, while the clone stamp is better for hard edges.",
    "Okay.",
]


def window(first: int, last: int) -> str:
    return " ".join(LECTURE[first : last + 1])


def words(n: int, *, start: int = 0) -> list[str]:
    return [f"term{i}" for i in range(start, start + n)]


def test_word_set_folds_case_and_diacritics() -> None:
    assert word_set("Café, CAFÉ and cafe_au_lait!") == {"cafe", "and", "cafe_au_lait"}
    assert word_set("Élève ÉLÈVE eleve") == {"eleve"}
    assert word_set("__ -- ** ") == frozenset()


def test_jaccard() -> None:
    assert jaccard(frozenset("abc"), frozenset("abc")) == 1.0
    assert jaccard(frozenset("abcd"), frozenset("cdef")) == pytest.approx(2 / 6)
    assert jaccard(frozenset("ab"), frozenset("cd")) == 0.0
    assert jaccard(frozenset(), frozenset()) == 0.0


def test_overlapping_windows_of_one_moment_collapse_to_the_first_in_order() -> None:
    early = window(0, 7)
    same_moment = window(0, 8)  # the same window plus "Okay."
    later = window(1, 8)  # drops the opening sentence: a different window
    other = window(3, 6)
    assert jaccard(word_set(early), word_set(same_moment)) >= 0.9
    assert jaccard(word_set(early), word_set(later)) < 0.9
    items = [("a", early), ("b", other), ("c", same_moment), ("d", later)]
    kept = dedup_near(items, lambda item: item[1])
    assert [name for name, _ in kept] == ["a", "b", "d"]
    # the first of a group is the one kept, whatever it is
    kept = dedup_near(list(reversed(items)), lambda item: item[1])
    assert [name for name, _ in kept] == ["d", "c", "b"]


def test_the_same_paragraph_in_two_handouts_collapses_despite_case_and_punctuation() -> None:
    handout = window(3, 7)
    copy = handout.upper().replace(",", " ;").replace(".", "!")
    assert dedup_near([handout, copy], str) == [handout]


def test_the_threshold_is_inclusive_and_just_below_it_both_stay() -> None:
    base = words(100)
    five_changed = words(95) + words(5, start=1000)  # 95 / 105 = 0.905
    six_changed = words(94) + words(6, start=2000)  # 94 / 106 = 0.887
    assert dedup_near([" ".join(base), " ".join(five_changed)], str) == [" ".join(base)]
    pair = [" ".join(base), " ".join(six_changed)]
    assert dedup_near(pair, str) == pair
    assert dedup_near(pair, str, threshold=0.85) == pair[:1]
    exactly = [" ".join(words(10)), " ".join(words(9))]  # 9 / 10
    assert dedup_near(exactly, str) == exactly[:1]


def test_items_without_words_are_kept_and_threshold_is_checked() -> None:
    assert dedup_near(["", "...", "", "word", "word"], str) == ["", "...", "", "word"]
    assert dedup_near([], str) == []
    for bad in (0.0, -0.5, 1.5):
        with pytest.raises(ValueError, match="threshold"):
            dedup_near(["a"], str, threshold=bad)


def _reference_dedup(texts: list[str], threshold: float) -> list[str]:
    """Every text against every kept one: what prefix filtering must reproduce."""
    kept: list[tuple[str, frozenset[str]]] = []
    for text in texts:
        words = word_set(text)
        if not any(jaccard(words, other) >= threshold for _, other in kept):
            kept.append((text, words))
    return [text for text, _ in kept]


def _edited_copies(seed: int) -> list[str]:
    """Random texts and edited copies of them, many near any threshold."""
    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(400)]
    zipf = [1 / (i + 1) for i in range(400)]
    texts: list[str] = []
    for _ in range(150):
        if texts and rng.random() < 0.6:
            copy = rng.choice(texts).split()
            for _ in range(rng.randint(0, 6)):
                copy[rng.randrange(len(copy))] = rng.choice(vocabulary)
            copy += rng.choices(vocabulary, zipf, k=rng.randint(0, 3))
            texts.append(" ".join(copy))
        else:
            texts.append(" ".join(rng.choices(vocabulary, zipf, k=rng.randint(5, 60))))
    return texts


@pytest.mark.parametrize("threshold", [0.7, 0.8, 0.9, 1.0])
def test_prefix_filtering_finds_every_pair_a_full_comparison_finds(threshold: float) -> None:
    for seed in range(4):
        texts = _edited_copies(seed)
        expected = _reference_dedup(texts, threshold)
        assert 10 < len(expected) < len(texts)  # the corpus has copies and survivors
        assert dedup_near(texts, str, threshold) == expected, f"seed {seed}"


def test_mmr_with_lambda_one_is_relevance_order_ties_in_input_order() -> None:
    vectors = np.eye(5, dtype=np.float32)
    vectors[1] = vectors[0]
    assert mmr([0.2, 0.9, 0.5, 0.9, 0.1], vectors, 5, lam=1.0) == [1, 3, 2, 0, 4]


def test_mmr_picks_the_distinct_candidate_before_a_copy() -> None:
    vectors = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.float32)
    assert mmr([1.0, 0.9, 0.8], vectors, 3) == [0, 2, 1]
    assert mmr([1.0, 0.9, 0.8], vectors, 3, lam=1.0) == [0, 1, 2]


def test_mmr_spreads_real_sentences_over_topics(embedder: OnnxEmbedder) -> None:
    sentences = [
        (
            "biology",
            "The mitochondria release the energy stored in food through cellular respiration.",
        ),
        ("biology", "Cellular respiration in the mitochondria frees the energy that food stores."),
        ("plants", "Chlorophyll in the leaves captures sunlight to make sugar by photosynthesis."),
        (
            "sorting",
            "Quicksort partitions the array around a pivot and sorts each side recursively.",
        ),
        ("history", "The French Revolution began in 1789 with the storming of the Bastille."),
    ]
    vectors = embedder.embed([text for _, text in sentences])
    relevance = [1.0, 0.9, 0.8, 0.7, 0.6]  # a fused ranking, normalised by its best score
    by_relevance = mmr(relevance, vectors, 3, lam=1.0)
    assert [sentences[i][0] for i in by_relevance].count("biology") == 2
    diverse = mmr(relevance, vectors, 3, lam=0.7)
    assert diverse[0] == 0
    assert len({sentences[i][0] for i in diverse}) == 3


def test_mmr_edge_cases() -> None:
    vectors = np.eye(3, dtype=np.float32)
    assert mmr([], np.zeros((0, 384), dtype=np.float32), 10) == []
    assert mmr([], np.array([], dtype=np.float32), 10) == []
    assert mmr([0.5, 1.0, 0.2], vectors, 0) == []
    assert mmr([0.5, 1.0, 0.2], vectors, -3) == []
    assert mmr([0.5, 1.0, 0.2], vectors, 10) == [1, 0, 2]
    assert mmr(np.array([0.3]), vectors[:1], 1, lam=0.0) == [0]
    with pytest.raises(ValueError, match="one relevance per"):
        mmr([1.0, 0.5], vectors, 2)
    with pytest.raises(ValueError, match="NaN"):
        mmr([1.0, float("nan"), 0.2], vectors, 2)
    bad = vectors.copy()
    bad[2, 0] = np.inf
    with pytest.raises(ValueError, match="NaN"):
        mmr([1.0, 0.5, 0.2], bad, 2)
    with pytest.raises(ValueError, match="lam"):
        mmr([1.0, 0.5, 0.2], vectors, 2, lam=1.2)
