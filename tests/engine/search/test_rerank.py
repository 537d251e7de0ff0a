"""The cross-encoder stage on a same-size stand-in (tools/standin_reranker.py): real ONNX
inference through the real code path; its scores are arbitrary but deterministic."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.config import EngineConfig, SearchConfig
from engine.errors import ModelError
from engine.library import Library
from engine.models.catalog import DEFAULT_EMBEDDER
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from engine.models.reranker import OnnxReranker
from engine.search import rerank_text
from engine.words import query_terms
from tools.standin_reranker import build_standin

PASSAGES = [
    "The hippocampus consolidates memories during sleep.",
    "Binary search halves the interval at every step.",
    "Chlorophyll absorbs red and blue light in the leaf.",
]


@pytest.fixture(scope="session")
def standin(tmp_path_factory: pytest.TempPathFactory, models_dir: Path) -> OnnxReranker:
    folder = build_standin(tmp_path_factory.mktemp("standin"), ModelRegistry(models_dir))
    return OnnxReranker(folder, threads=2)


def test_standin_scores_pairs_deterministically_and_in_batches(standin: OnnxReranker) -> None:
    one_by_one = np.array([standin.score("memory", [p])[0] for p in PASSAGES])
    batched = standin.score("memory", PASSAGES, batch_size=2)
    assert batched.shape == (3,) and np.all(np.isfinite(batched))
    np.testing.assert_allclose(batched, one_by_one, atol=1e-4)
    # The query is part of the input: another query, other scores.
    assert not np.allclose(standin.score("photosynthesis", PASSAGES), batched, atol=1e-4)


def test_a_spent_budget_leaves_the_rest_unscored(standin: OnnxReranker) -> None:
    scores = standin.score("memory", PASSAGES * 4, batch_size=4, budget_ms=0.0)
    assert np.isfinite(scores[0])  # the first passage is always scored
    assert np.all(np.isnan(scores[1:]))


def test_a_batch_holds_what_the_time_left_pays_for(standin: OnnxReranker) -> None:
    saved = standin.ms_per_token
    try:
        standin.ms_per_token = 1.0
        # Three pairs of 10 tokens cost 30 ms; a batch pads to its longest pair.
        assert standin._affordable([10, 10, 10], 25.0) == 2
        assert standin._affordable([10, 10, 10], 30.0) == 3
        assert standin._affordable([5, 20, 5], 30.0) == 1
        assert standin._affordable([10], 5.0) == 0
        # Every batch scored corrects the estimate towards what it measured.
        standin.ms_per_token = 1000.0
        standin.score("memory", PASSAGES)
        assert standin.ms_per_token < 1000.0
        # A generous budget scores everything; the learned cost leaves a tight one fewer.
        assert np.all(np.isfinite(standin.score("memory", PASSAGES * 4, budget_ms=60_000)))
        standin.ms_per_token = 1_000.0
        tight = standin.score("memory", PASSAGES * 4, batch_size=4, budget_ms=100.0)
        assert np.isfinite(tight[0]) and np.all(np.isnan(tight[1:]))
    finally:
        standin.ms_per_token = saved


def test_an_embedder_folder_is_not_a_reranker(models_dir: Path) -> None:
    with pytest.raises(ModelError, match="not a reranker"):
        OnnxReranker(ModelRegistry(models_dir).path(DEFAULT_EMBEDDER))


@pytest.fixture
def reranked_library(
    built_library_dir: Path, embedder: OnnxEmbedder, standin: OnnxReranker
) -> Iterator[Library]:
    lib = Library.open(
        built_library_dir, EngineConfig(), lambda: embedder, reranker=lambda: standin
    )
    yield lib
    lib.close()


def test_search_orders_the_head_by_the_cross_encoder(
    reranked_library: Library, standin: OnnxReranker
) -> None:
    cfg = replace(SearchConfig(), rerank_top=5, rerank_budget_ms=10_000, gate=0.0)
    outcome = reranked_library.search("cell biology", limit=10, config=cfg)
    assert outcome.reranked == 5 and "rerank" in outcome.took_ms
    fused = reranked_library.search("cell biology", limit=10, config=replace(cfg, rerank=False))
    assert fused.reranked == 0
    # The reranked head is the fused head, sorted by what the stand-in says of each.
    head = {r.segment_id for r in fused.results[:5]}
    top = outcome.results[: len(head)]
    assert {r.segment_id for r in top} == head
    rows = reranked_library.store.segments.by_ids([r.segment_id for r in top])
    weights = {t: 1.0 for t in query_terms("cell biology")}
    texts = [rerank_text(rows[r.segment_id], None, weights, cfg.rerank_words) for r in top]
    scores = standin.score("cell biology", texts)
    assert all(not math.isnan(s) for s in scores)
    assert list(scores) == sorted(scores, reverse=True)


def test_no_installed_reranker_means_fused_order(built_library: Library) -> None:
    assert built_library.reranker() is None
    assert built_library.search("hippopotamus").reranked == 0
