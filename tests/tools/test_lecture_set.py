"""The question set of bench/lecture_questions.py is well formed (no narration here): every
question names an existing lecture and sentence, each language has at least 30, and the
lectures are parallel, so the English questions point at the same facts in every language."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from bench.lecture_set import CROSS_FROM, DATA, LANGUAGES, LectureSet, load


@pytest.fixture(scope="module", params=LANGUAGES)
def lecture_set(request: pytest.FixtureRequest) -> LectureSet:
    return load(request.param)


def test_every_language_has_a_file_and_nothing_else_is_there() -> None:
    assert sorted(p.stem for p in DATA.glob("*.toml")) == sorted(LANGUAGES)
    assert (DATA / "README.md").is_file()


def test_the_file_is_of_its_language(lecture_set: LectureSet) -> None:
    assert (DATA / f"{lecture_set.language}.toml").is_file()


def test_lectures_have_unique_ids_and_15_to_25_sentences(lecture_set: LectureSet) -> None:
    ids = [lecture.id for lecture in lecture_set.lectures]
    assert len(ids) == len(set(ids)) >= 3
    for lecture in lecture_set.lectures:
        assert 15 <= len(lecture.sentences) <= 25, lecture.id
        assert all(s.strip() == s and s for s in lecture.sentences), lecture.id
        assert len(set(lecture.sentences)) == len(lecture.sentences), lecture.id


def test_every_question_points_at_an_existing_sentence(lecture_set: LectureSet) -> None:
    assert len(lecture_set.questions) >= 30
    for q in lecture_set.questions:
        sentences = lecture_set.lecture(q.lecture).sentences  # KeyError: no such lecture
        assert 0 <= q.sentence < len(sentences), q


def test_questions_are_distinct_and_every_lecture_is_asked_about(lecture_set: LectureSet) -> None:
    texts = [q.text.casefold() for q in lecture_set.questions]
    assert len(texts) == len(set(texts))
    asked = {q.lecture for q in lecture_set.questions}
    assert asked == {lecture.id for lecture in lecture_set.lectures}


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def test_no_question_copies_its_answer(lecture_set: LectureSet) -> None:
    """A student's own words: never the sentence, nor a run of six of its words."""
    for q in lecture_set.questions:
        said = " ".join(_words(lecture_set.lecture(q.lecture).sentences[q.sentence]))
        words = _words(q.text)
        runs = [" ".join(words[i : i + 6]) for i in range(len(words) - 5)]
        assert not any(f" {run} " in f" {said} " for run in runs), q
        assert " ".join(words) not in said, q


def test_lectures_are_parallel_to_the_english_ones(lecture_set: LectureSet) -> None:
    english = load(CROSS_FROM)
    shape = [(lecture.id, len(lecture.sentences)) for lecture in english.lectures]
    assert [(lecture.id, len(lecture.sentences)) for lecture in lecture_set.lectures] == shape
    # The same facts are asked about in every language.
    assert [(q.lecture, q.sentence) for q in lecture_set.questions] == [
        (q.lecture, q.sentence) for q in english.questions
    ]


def test_japanese_lectures_are_kana_that_espeak_ng_can_read() -> None:
    for lecture in load("ja").lectures:
        for sentence in lecture.sentences:
            kanji = [c for c in sentence if unicodedata.name(c, "").startswith("CJK UNIFIED")]
            assert not kanji, (lecture.id, sentence)


def test_the_loader_names_a_missing_lecture(tmp_path: Path) -> None:
    (tmp_path / "xx.toml").write_text(
        'language = "xx"\nvoice = "xx"\n'
        'questions = [{ lecture = "nope", sentence = 0, text = "q" }]\n'
        '[[lecture]]\nid = "one"\ntitle = "One"\nsentences = ["A fact."]\n',
        encoding="utf-8",
    )
    data = load("xx", tmp_path)
    with pytest.raises(KeyError, match="nope"):
        data.lecture(data.questions[0].lecture)
