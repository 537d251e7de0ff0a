"""Slides lined up with video moments: real slide text (the demo course's 8-page deck, read
back from a generated PDF), its real narration as speech, and OCR-like typos as screen text."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest

from engine.config import IngestLimits
from engine.importing.align import (
    AlignConfig,
    Alignment,
    Moment,
    align_slides,
    speech_moments,
    tfidf_similarity,
)
from engine.ingest.slides import parse_pdf
from engine.models.embedder import OnnxEmbedder
from engine.types import Timing
from resources.make_demo import LECTURE, SLIDES
from tools.factories import make_pdf

DATABASE_DECK = (
    "Relational databases\nTables of rows and columns\nA schema fixes column types",
    "SQL queries\nSELECT columns FROM table WHERE condition\nJOIN combines tables on keys",
    "Indexes\nB-tree index speeds up lookups by key\nEvery index slows down writes",
    "Transactions\nACID: atomicity, consistency, isolation, durability\nCOMMIT or ROLLBACK",
    "Normalisation\nRemove redundancy: first, second, third normal form\nForeign keys",
)
CODE_EDITOR = "def main():\n    import os\n    print(os.getcwd())\n    return 0  # terminal shell"


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The demo deck's page texts as the PDF parser reads them (8 pages)."""
    texts = [s.title + "\n" + "\n".join(s.bullets) for s in SLIDES]
    pdf = make_pdf(tmp_path_factory.mktemp("align") / "deck.pdf", texts)
    parsed = parse_pdf(pdf, IngestLimits())
    return [s.text for s in sorted(parsed.segments, key=lambda s: s.page or 0)]


def ocr_noise(text: str, rng: random.Random, rate: float = 0.08) -> str:
    """Typos as OCR makes them: look-alike letters swapped, letters dropped, lines lost."""
    swaps = {"l": "1", "o": "0", "e": "c", "m": "rn", "i": "l", "s": "5", "a": "o"}
    lines = [ln for ln in text.splitlines() if rng.random() > 0.15] or text.splitlines()[:1]
    out = []
    for ch in "\n".join(lines):
        r = rng.random()
        if r < rate / 2 and ch in swaps:
            out.append(swaps[ch])
        elif r < rate * 0.75:
            continue
        else:
            out.append(ch)
    return "".join(out)


def narrated_moments(
    deck: list[str], *, screen: bool, seed: int = 7, sentences_per_moment: int = 2
) -> tuple[list[Moment], list[int]]:
    """Moments of two narration sentences each (4 s a sentence), in lecture order, and the
    page (1-based) each one shows."""
    rng = random.Random(seed)
    moments: list[Moment] = []
    truth: list[int] = []
    t = 0
    for index, sentences in LECTURE:
        for i in range(0, len(sentences), sentences_per_moment):
            speech = " ".join(sentences[i : i + sentences_per_moment])
            ms = 4000 * len(sentences[i : i + sentences_per_moment])
            text = ocr_noise(deck[index], rng) if screen else ""
            moments.append(Moment(t, t + ms, screen_text=text, speech_text=speech))
            truth.append(index + 1)
            t += ms
    return moments, truth


def accuracy(result: Alignment, truth: list[int]) -> float:
    return sum(p == q for p, q in zip(result.pages, truth, strict=True)) / len(truth)


def test_noisy_screen_and_speech_align(deck: list[str]) -> None:
    moments, truth = narrated_moments(deck, screen=True)
    result = align_slides(deck, moments)
    assert len(result.pages) == len(moments) == len(result.scores)
    assert accuracy(result, truth) >= 0.95
    assert all(s > 0 for s in result.scores)


def test_speech_alone_aligns_by_order(deck: list[str]) -> None:
    """Transcript only: many sentences share no word with their slide; order carries them."""
    moments, truth = narrated_moments(deck, screen=False)
    dp = accuracy(align_slides(deck, moments), truth)
    argmax = accuracy(align_slides(deck, moments, ordered=False), truth)
    assert dp >= 0.95
    assert argmax < dp


def test_embedder_path(deck: list[str], embedder: OnnxEmbedder) -> None:
    moments, truth = narrated_moments(deck, screen=False)
    result = align_slides(deck, moments, embed=embedder.embed)
    assert accuracy(result, truth) >= 0.95
    plain = align_slides(deck, moments)
    assert result.scores != plain.scores  # the embedder's similarity was used


def test_order_decides_between_similar_pages() -> None:
    """Two pages share nearly all words; the moment after the second page's distinctive
    moment says only shared words, which fit the first page better. The alignment stays on
    the second page; the most similar page alone goes back to the first."""
    pages = [
        "Binary search\nSorted input\nHalve the range at every step",
        "Binary search\nSorted input\nHalve the range at every step\nTest the empty list edge",
        "Hash tables\nA hash function maps keys to buckets",
    ]
    said = [
        "binary search needs sorted input",
        "we halve the range at every step of binary search",
        "now test the empty list edge case",
        "again: sorted input, halve the range at every step",
        "hash tables map keys to buckets with a hash function",
    ]
    moments = [Moment(5000 * i, 5000 * (i + 1), speech_text=s) for i, s in enumerate(said)]
    truth = [1, 1, 2, 2, 3]
    argmax = align_slides(pages, moments, ordered=False)
    dp = align_slides(pages, moments)
    assert argmax.pages[3] == 1  # the case is hard for the baseline
    assert list(dp.pages) == truth


def test_strong_evidence_back_jump_is_followed(deck: list[str]) -> None:
    """Pages 1..5, back to page 2 for half a minute (the slide's text read off the screen),
    then on to pages 6 and 7."""
    rng = random.Random(3)
    order = [1, 2, 3, 4, 5, 2, 6, 7]
    moments = [
        Moment(30_000 * i, 30_000 * (i + 1), screen_text=ocr_noise(deck[p - 1], rng))
        for i, p in enumerate(order)
    ]
    result = align_slides(deck, moments)
    assert list(result.pages) == order
    # Going back is not free: with a much higher cost it is refused.
    strict = align_slides(deck, moments, config=AlignConfig(back_cost=100.0))
    assert strict.pages[5] != 2


def test_weak_back_jump_is_not_followed(deck: list[str]) -> None:
    """A single short moment whose speech mentions an earlier slide's words in passing does not
    make the alignment go back."""
    moments, truth = narrated_moments(deck, screen=False)
    i = truth.index(5) + 4  # in the middle of the quicksort slide
    texts = [m.speech_text for m in moments]
    texts.insert(i, "as with binary search earlier")
    truth.insert(i, 5)
    shifted = [Moment(k * 8000, (k + 1) * 8000, speech_text=s) for k, s in enumerate(texts)]
    result = align_slides(deck, shifted)
    assert result.pages[i] == 5
    assert accuracy(result, truth) >= 0.95


def test_empty_inputs(deck: list[str]) -> None:
    assert align_slides(deck, []) == Alignment((), (), 0.0)
    moments = [Moment(0, 5000, speech_text="merge sort splits the list")]
    assert align_slides([], moments) == Alignment((None,), (0.0,), 0.0)
    blank = align_slides(["", ""], moments)
    assert blank.pages == (None,)
    silent = align_slides(deck, [Moment(0, 5000), Moment(5000, 9000, "", "   ")])
    assert silent.pages == (None, None)
    assert silent.score == 0.0


def test_score_picks_the_right_deck(deck: list[str]) -> None:
    for screen in (True, False):
        moments, _ = narrated_moments(deck, screen=screen)
        right = align_slides(deck, moments).score
        wrong = align_slides(list(DATABASE_DECK), moments).score
        assert right > 2 * wrong, (screen, right, wrong)


def test_unmatched_screen_maps_to_none(deck: list[str]) -> None:
    """The lecturer switches to a code editor: its screen text matches no page."""
    rng = random.Random(5)
    moments = [
        Moment(0, 20_000, screen_text=ocr_noise(deck[0], rng)),
        Moment(20_000, 40_000, screen_text=CODE_EDITOR),
        Moment(40_000, 60_000, screen_text=ocr_noise(deck[1], rng)),
        Moment(60_000, 80_000, screen_text=DATABASE_DECK[3]),
        Moment(80_000, 100_000, screen_text=ocr_noise(deck[2], rng)),
    ]
    result = align_slides(deck, moments)
    assert result.pages == (1, None, 2, None, 3)
    assert result.scores[1] == result.scores[3] == 0.0
    # With the threshold at zero every moment gets a page.
    anything = align_slides(deck, moments, config=AlignConfig(screen_min=0.0))
    assert None not in anything.pages


def test_tfidf_similarity_stems_and_ignores_stop_words() -> None:
    sim = tfidf_similarity(["Sorting algorithms", "Hashing functions"], ["the sorted algorithm"])
    assert sim.shape == (1, 2)
    assert sim[0, 0] > 0.9 and sim[0, 1] == 0.0
    assert np.all(tfidf_similarity(["the of and"], ["the of and"]) == 0.0)


def test_speech_moments_tile_words_with_context() -> None:
    words = [Timing(1000 * i, 1000 * i + 500, f"w{i}") for i in range(30)]
    moments = speech_moments(words, hop_ms=5000, context_ms=15_000)
    assert [m.start_ms for m in moments] == [0, 5000, 10_000, 15_000, 20_000, 25_000]
    assert all(m.end_ms - m.start_ms == 5000 for m in moments)
    second = moments[1].speech_text.split()
    assert second[0] == "w0" and second[-1] == "w14"  # 5 s of context on each side
    assert speech_moments([], hop_ms=5000) == []


def test_an_hour_with_80_pages_aligns_fast(deck: list[str]) -> None:
    """720 moments (an hour in 5-s steps) x 80 pages: the alignment is cheap."""
    rng = random.Random(11)
    pages = [f"{deck[i % 7]}\npart {i}" for i in range(80)]
    moments = [
        Moment(5000 * i, 5000 * (i + 1), speech_text=" ".join(rng.sample(LECTURE[i % 7][1], 2)))
        for i in range(720)
    ]
    t0 = time.perf_counter()
    result = align_slides(pages, moments)
    elapsed = time.perf_counter() - t0
    assert len(result.pages) == 720
    assert elapsed < 5.0, elapsed  # ~0.1 s here; generous for a loaded machine


def test_pages_are_1_based(deck: list[str]) -> None:
    moments, _ = narrated_moments(deck, screen=True)
    result = align_slides(deck, moments)
    assert min(p for p in result.pages if p is not None) == 1
    assert max(p for p in result.pages if p is not None) == len(deck)
