"""Function words of each analysed language (engine/function_words.py): a question's "la",
"de", "der" are not weighed, looked up or marked in snippets, as English's "the" is not
(snippets of real rows: test_fulltext_languages)."""

from __future__ import annotations

from engine import analysis, words
from engine.analysis import is_function_word
from engine.function_words import FUNCTION_WORDS


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


def test_a_preview_highlights_the_words_of_its_texts_language() -> None:
    question = "¿Qué es la fotosíntesis de las plantas?"
    assert analysis.shown_words(question, "es") == ["fotosintesis", "plantas"]
    # English text, or text of no known language: English's stopwords only, as before.
    assert analysis.shown_words(question, None) == words.query_terms(question)
    assert "la" in analysis.shown_words(question, "en")
    assert analysis.shown_words("¿Qué es?", "es") == ["que", "es"]
