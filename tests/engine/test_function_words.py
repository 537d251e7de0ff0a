"""Function words of each analysed language (engine/function_words.py): a question's "la",
"de", "der" are not weighed, looked up or marked in snippets, as English's "the" is not."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from engine import analysis
from engine.analysis import is_function_word
from engine.config import SearchConfig
from engine.function_words import FUNCTION_WORDS
from engine.library import Library

FULLTEXT = replace(SearchConfig(), dense=False, passage_rank=False, gate=0.0)

SPANISH = {
    "fotosintesis.md": "# Biología vegetal\n\nLa fotosíntesis es el proceso por el que las "
    "plantas transforman la luz del sol en energía química. Las hojas de las plantas verdes "
    "guardan la clorofila, y de la clorofila depende la captura de la luz.\n",
    "agua.md": "# Hidrología\n\nEl ciclo del agua describe cómo el agua se evapora de los "
    "océanos, se condensa en las nubes y vuelve a la tierra como lluvia o nieve durante todo "
    "el año, de una estación a la siguiente.\n",
}
GERMAN = {
    "zelle.md": "# Biologie\n\nDie Zelle ist die kleinste Einheit des Lebens. In der Zelle "
    "liegt der Kern, und in dem Kern liegt die Erbinformation der Pflanzen und der Tiere.\n",
    "fluss.md": "# Geographie\n\nDer Rhein fließt von den Alpen bis zur Nordsee und ist einer "
    "der längsten Flüsse in der Mitte von Europa, an dem viele alte Städte liegen.\n",
}


def _ingest(library: Library, folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    report = library.ingest([folder])
    assert not report.errors


def _marked(library: Library, question: str) -> tuple[str, set[str]]:
    first = library.search(question, config=FULLTEXT).results[0]
    return Path(first.source).name, {first.snippet[a:b].lower() for a, b in first.highlights}


def test_a_spanish_question_marks_its_content_words_only(library: Library, tmp_path: Path) -> None:
    _ingest(library, tmp_path / "Curso", SPANISH)
    assert {s.language for s in library.store.catalog.sources()} == {"es"}
    name, marked = _marked(library, "¿qué es la fotosíntesis de las plantas?")
    assert name == "fotosintesis.md"
    assert {"fotosíntesis", "plantas"} <= marked
    assert not marked & {"la", "de", "las", "el", "es", "que"}


def test_a_german_question_marks_its_content_words_only(library: Library, tmp_path: Path) -> None:
    _ingest(library, tmp_path / "Kurs", GERMAN)
    assert {s.language for s in library.store.catalog.sources()} == {"de"}
    name, marked = _marked(library, "Was ist der Kern in der Zelle?")
    assert name == "zelle.md"
    assert {"kern", "zelle"} <= marked
    assert not marked & {"der", "die", "in", "ist", "dem"}


def test_function_words_are_not_weighed_unless_the_question_has_nothing_else() -> None:
    assert analysis.query_terms("¿qué es la fotosíntesis de las plantas?", "es") == [
        analysis.term("fotosíntesis", "es"),
        analysis.term("plantas", "es"),
    ]
    # Only function words: they are all the question has, so they are kept.
    assert analysis.query_terms("¿Qué es?", "es") == ["que", "es"]
    # Another language's function words are words like any other.
    assert "la" in analysis.query_terms("la fotosíntesis", "de")


def test_function_words_are_told_folded_in_their_language() -> None:
    assert is_function_word("QUÉ", "es") and is_function_word("más", "es")
    assert is_function_word("für", "de") and is_function_word("daß", "de")
    assert is_function_word("på", "da") and not is_function_word("pa", "da")
    assert is_function_word("ΕΊΝΑΙ", "el")  # Greek capitals, tonos dropped
    assert not is_function_word("fotosíntesis", "es")
    assert not is_function_word("the", "xx")  # a language without a list has none


def test_every_stemmed_language_has_function_words() -> None:
    missing = sorted(set(analysis.SNOWBALL) - set(FUNCTION_WORDS))
    assert missing == []
    # Words lectures are about, which the wide lists on PyPI hold, are not function words.
    assert not {"tiempo", "trabajo", "estado", "valor", "ejemplo"} & FUNCTION_WORDS["es"]
