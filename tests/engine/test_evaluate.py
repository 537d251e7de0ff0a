"""The benchmark metrics follow ../shared/eval/README.md exactly."""

from __future__ import annotations

import math

from engine.evaluate import _metrics, _ndcg, format_table


def test_first_hit_metrics() -> None:
    ranks = [1, 3, None, 10]
    ndcgs = [1 / math.log2(r + 1) if r else 0.0 for r in ranks]
    m = _metrics(ranks, ndcgs)
    assert math.isclose(m["ndcg@10"], (1 + 0.5 + 0 + 1 / math.log2(11)) / 4)
    assert math.isclose(m["mrr@10"], (1 + 1 / 3 + 0 + 0.1) / 4)
    assert m["hit@1"] == 0.25
    assert m["hit@10"] == 0.75


def test_graded_ndcg_with_linear_gain() -> None:
    relevant = {"a": 1, "b": 2}
    assert _ndcg(["b", "a"], relevant) == 1.0
    ideal = 2 + 1 / math.log2(3)
    assert math.isclose(_ndcg(["x", "a", "b"], relevant), (1 / math.log2(3) + 2 / 2) / ideal)
    assert _ndcg(["x"], {}) == 0.0


def test_table_prints_every_mode() -> None:
    row = {
        "ndcg@10": 0.5, "mrr@10": 0.4, "hit@1": 0.3, "hit@10": 0.7, "p50_ms": 9, "p95_ms": 20,
        "off_topic_answered": 0.25,
    }  # fmt: skip
    table = {
        "benchmark": "b", "queries": 2, "segments": 3, "embedder": "m@1", "reranker": "off",
        "ingest_s": 1.0, "rows": {"full-text": row, "dense": row, "hybrid": row},
    }  # fmt: skip
    text = format_table(table)
    assert [line.split()[0] for line in text.splitlines()[3:]] == ["full-text", "dense", "hybrid"]
    assert "0.500" in text and "reranker off" in text and "25%" in text
