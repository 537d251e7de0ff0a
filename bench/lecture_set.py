"""Our own lectures and the questions a student asks about them (bench/lectures/*.toml).

Read by bench/lecture_questions.py (which narrates and searches them) and checked by
tests/tools/test_lecture_set.py. The format is described in bench/lectures/README.md.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "lectures"
LANGUAGES = ("en", "es", "de", "fr", "ja")
# Every language's lectures say what the English ones say, sentence for sentence, so the
# English questions can be asked of any of them (a question in one language, the lecture in
# another).
CROSS_FROM = "en"


@dataclass(frozen=True, slots=True)
class Lecture:
    id: str
    title: str
    sentences: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Question:
    lecture: str  # a Lecture.id of the same language's set
    sentence: int  # the answering sentence's index in that lecture, from 0
    text: str


@dataclass(frozen=True, slots=True)
class LectureSet:
    language: str  # engine.languages code: what the import should hear
    voice: str  # espeak-ng's
    lectures: tuple[Lecture, ...]
    questions: tuple[Question, ...]

    def lecture(self, lecture_id: str) -> Lecture:
        for lecture in self.lectures:
            if lecture.id == lecture_id:
                return lecture
        raise KeyError(f"{self.language}: no lecture {lecture_id!r}")


def load(language: str, root: Path = DATA) -> LectureSet:
    """The lectures and questions of ``language`` (KeyError on a missing field)."""
    with (root / f"{language}.toml").open("rb") as f:
        data = tomllib.load(f)
    lectures = tuple(
        Lecture(str(item["id"]), str(item["title"]), tuple(str(s) for s in item["sentences"]))
        for item in data["lecture"]
    )
    questions = tuple(
        Question(str(item["lecture"]), int(item["sentence"]), str(item["text"]))
        for item in data["questions"]
    )
    return LectureSet(str(data["language"]), str(data["voice"]), lectures, questions)
