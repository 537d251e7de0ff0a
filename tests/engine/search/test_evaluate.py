"""The benchmark metrics follow ../shared/eval/README.md exactly."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import cast

from engine.config import EngineConfig
from engine.models.embedder import OnnxEmbedder
from engine.search.eval_metrics import format_table, metrics, ndcg
from engine.search.evaluate import ABLATION, default_data_dir, scifact


def test_first_hit_metrics() -> None:
    ranks = [1, 3, None, 10]
    ndcgs = [1 / math.log2(r + 1) if r else 0.0 for r in ranks]
    m = metrics(ranks, ndcgs)
    assert math.isclose(m["ndcg@10"], (1 + 0.5 + 0 + 1 / math.log2(11)) / 4)
    assert math.isclose(m["mrr@10"], (1 + 1 / 3 + 0 + 0.1) / 4)
    assert m["hit@1"] == 0.25
    assert m["hit@10"] == 0.75


def test_graded_ndcg_with_linear_gain() -> None:
    relevant = {"a": 1, "b": 2}
    assert ndcg(["b", "a"], relevant) == 1.0
    ideal = 2 + 1 / math.log2(3)
    assert math.isclose(ndcg(["x", "a", "b"], relevant), (1 / math.log2(3) + 2 / 2) / ideal)
    assert ndcg(["x"], {}) == 0.0


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


def test_ablation_runs_every_stage_on_a_small_benchmark(
    tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    """A SciFact-format folder of four abstracts: every ablation row runs (the "hybrid" row
    on a second library embedded without titles) and the right abstract comes first."""
    root = tmp_path / "data" / "scifact"
    root.mkdir(parents=True)
    abstracts = {
        "1": ("Mitochondria", "Mitochondria make most of the cell's energy as ATP."),
        "2": ("Ribosomes", "Ribosomes read messenger RNA and build proteins."),
        "3": ("Photosynthesis", "Chloroplasts turn light, water and carbon dioxide into sugar."),
        "4": ("Osmosis", "Water crosses a membrane toward the side with more solute."),
    }
    (root / "corpus.jsonl").write_text(
        "".join(
            json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, (t, x) in abstracts.items()
        )
    )
    (root / "test_queries.jsonl").write_text(
        json.dumps({"id": "q1", "query": "which organelle produces ATP"})
        + "\n"
        + json.dumps({"id": "q2", "query": "how plants make sugar from light"})
        + "\n"
    )
    (root / "test_qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\t1\t1\nq2\t3\t1\n")
    work = tmp_path / "work"
    table = scifact(tmp_path / "data", EngineConfig(), embedder, work=work, ablation=True)
    rows = cast(dict[str, dict[str, float]], table["rows"])
    assert list(rows) == [m for m in ABLATION if m != "+rerank"]
    assert (work / "library-no-context" / "library.db").exists()
    for mode in ("hybrid", "+context", "+multi-granularity", "default"):
        assert rows[mode]["hit@1"] == 1.0, mode
    assert rows["default"]["off_topic_answered"] < rows["+multi-granularity"]["off_topic_answered"]
    assert "+multi-granularity" in format_table(table)


def test_the_default_data_is_the_shared_folder_beside_the_checkout() -> None:
    """`coursedex eval` with no --data reads ../shared/eval from the repository root, wherever
    evaluate.py sits in the engine's packages (it looked in the checkout itself once moved)."""
    root = Path(__file__).resolve().parents[3]
    assert (root / "engine").is_dir() and (root / "pyproject.toml").is_file()
    assert default_data_dir() == root.parent / "shared" / "eval"
