"""Query enrichment with KeyBERT on the real ONNX embedder (no torch)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.models.embedder import OnnxEmbedder
from engine.search.enrich import QueryEnricher, compose_dense_query, word_count

ROOT = Path(__file__).resolve().parents[3]

HIPPOCAMPUS = (
    "During sleep the hippocampus replays the day's experiences, and this replay is thought "
    "to drive memory consolidation: traces that depend on the hippocampus at first are "
    "gradually transferred to the neocortex, where they become stable long-term memories."
)


@pytest.fixture(scope="module")
def enricher(embedder: OnnxEmbedder) -> QueryEnricher:
    return QueryEnricher(embedder)


def test_long_paragraph_gets_keyphrases_drawn_from_it(enricher: QueryEnricher) -> None:
    phrases = enricher.extract(HIPPOCAMPUS)
    assert 1 <= len(phrases) <= enricher.keyphrases
    words = set(HIPPOCAMPUS.lower().replace(",", " ").replace(":", " ").split())
    for phrase in phrases:
        assert set(phrase.split()) <= words, phrase
    dense = enricher.dense_query(HIPPOCAMPUS)
    assert dense != HIPPOCAMPUS
    assert dense == compose_dense_query(HIPPOCAMPUS, phrases)
    assert "hippocampus" in dense.split("\n")[0]  # among the keyphrases, not only the query


def test_short_query_comes_back_unchanged(embedder: OnnxEmbedder) -> None:
    query = "how do I add a layer mask in photoshop"
    enricher = QueryEnricher(embedder, min_words=12)
    assert enricher.dense_query(query) is query
    assert not enricher.is_long(query)
    # Exactly min_words words is still short; one more makes it long.
    twelve = " ".join(["hippocampus"] * 12)
    assert enricher.dense_query(twelve) == twelve
    assert enricher.is_long(twelve + " memory")


def test_min_words_is_respected(embedder: OnnxEmbedder) -> None:
    query = "hippocampus memory consolidation during sleep"
    assert QueryEnricher(embedder, min_words=12).dense_query(query) == query
    assert QueryEnricher(embedder, min_words=3).dense_query(query) != query


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t ",
        "?!?! ... ;;; --- ((( ))) *** ### @@@ !!! ??? ,,, ::: ''' \"\"\" ~~~",
        "the and of to a in is it that was for on are with as at be this by",
        "\x00 \ufffd \u200b " * 20,
        "日本語の 文章を ここに 貼り付けました 記憶の 固定は 睡眠中に 海馬で 起こる とされる "
        "研究が あります",
    ],
    ids=["empty", "blank", "punctuation", "stop-words", "control-chars", "japanese"],
)
def test_hostile_text_never_raises(enricher: QueryEnricher, text: str) -> None:
    dense = enricher.dense_query(text)
    assert isinstance(dense, str)
    assert text in dense


def test_punctuation_only_falls_back_to_the_query(enricher: QueryEnricher) -> None:
    text = "?!?! ... ;;; --- ((( ))) *** ### @@@ !!! ??? ,,, ::: ''' \"\"\" ~~~"
    assert word_count(text) > enricher.min_words
    assert enricher.extract(text) == []
    assert enricher.dense_query(text) == text


def test_five_thousand_pasted_words(enricher: QueryEnricher) -> None:
    paste = " ".join((HIPPOCAMPUS.split() * 200)[:5000])
    dense = enricher.dense_query(paste)
    assert dense.endswith(paste)
    assert "hippocampus" in dense.split("\n")[0]


def test_repeated_query_is_served_from_the_cache(embedder: OnnxEmbedder) -> None:
    enricher = QueryEnricher(embedder)
    first = enricher.dense_query(HIPPOCAMPUS)
    assert enricher.dense_query(HIPPOCAMPUS) is first


def test_no_keyphrases_asked_leaves_query(embedder: OnnxEmbedder) -> None:
    assert QueryEnricher(embedder, keyphrases=0).dense_query(HIPPOCAMPUS) == HIPPOCAMPUS


def test_compose_puts_phrases_first() -> None:
    assert compose_dense_query("q", []) == "q"
    assert compose_dense_query("a long query", ["long", "query"]) == "long; query\na long query"


def test_import_is_light_and_keybert_runs_without_torch(models_dir: Path) -> None:
    code = (
        "import sys\n"
        "import engine.search.enrich\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'keybert', 'sklearn')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "from pathlib import Path\n"
        "from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry\n"
        f"e = ModelRegistry(Path({str(models_dir)!r})).load_embedder(DEFAULT_EMBEDDER, 1)\n"
        "enricher = engine.search.enrich.QueryEnricher(e, min_words=3)\n"
        "assert enricher.extract('hippocampus memory consolidation during deep sleep')\n"
        "heavy = [m for m in ('torch', 'sentence_transformers') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "assert 'keybert' in sys.modules\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
