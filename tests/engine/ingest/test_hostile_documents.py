"""The hostile corpus's documents and photos (tools/hostile/documents.py), each parsed as an
import parses it: read, or refused with our error in one short line; never another
exception. (The whole corpus is imported by tests/engine/importing/test_hostile_inputs.py.)"""

from __future__ import annotations

import pytest

from engine.config import EngineConfig
from engine.errors import CoursedexError
from engine.ingest import parse_file
from engine.ingest.photos import picture_rgb
from tools.hostile.corpus import ERROR, INDEXED, Case
from tools.hostile.documents import LONG_DOCUMENTS, hostile_documents, paragraph_word

CONFIG = EngineConfig()


Read = tuple[str, str, list[str]]  # outcome, reason, the words read


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    course = tmp_path_factory.mktemp("hostile") / "course"
    course.mkdir()
    return hostile_documents(course)


@pytest.fixture(scope="module")
def outcomes(cases: list[Case]) -> dict[str, Read]:
    """Each case read once, by name."""
    return {case.path.name: _read(case) for case in cases}


def _read(case: Case) -> Read:
    try:
        parsed = parse_file(case.path, CONFIG)
        if any(s.needs_ocr for s in parsed.segments):
            picture_rgb(case.path)  # what the import's OCR reads
    except CoursedexError as e:
        return ERROR, str(e), []
    return INDEXED, "", " ".join(s.text for s in parsed.segments).split()


def test_every_kind_is_broken_huge_encrypted_and_lying(cases: list[Case]) -> None:
    suffixes = {c.path.suffix for c in cases}
    assert suffixes >= {".docx", ".odt", ".odp", ".epub", ".rtf", ".html", ".jpg", ".png", ".webp"}
    whats = " ".join(c.what for c in cases)
    for word in ("password-protected", "DRM", "zip bomb", "named", "cut"):
        assert word in whats


def test_each_is_read_or_refused_in_one_line(cases: list[Case], outcomes: dict[str, Read]) -> None:
    wrong = []
    for case in cases:
        outcome, reason, _ = outcomes[case.path.name]
        if case.expect not in (None, outcome):
            wrong.append(f"{case.path.name}: {outcome} {reason}")
        if outcome == ERROR and ("\n" in reason or not reason.strip() or len(reason) > 200):
            wrong.append(f"{case.path.name}: reason {reason!r}")
    assert wrong == []


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("password.docx", "a Word document is password-protected: save it without one"),
        ("password.odt", "an OpenDocument text (.odt) is password-protected: save it without one"),
        ("drm.epub", "e-book is protected by DRM: its chapters are encrypted"),
        ("odp_named.odt", "not an OpenDocument text (.odt) (it says it is"),
        ("pdf_named.docx", "not a Word document (corrupt or truncated)"),
        ("bomb.docx", "zip bomb"),
        ("gigapixel.png", "picture too large"),
        ("pdf_named.jpg", "not a picture"),
    ],
)
def test_refusals_say_why(outcomes: dict[str, Read], name: str, reason: str) -> None:
    assert outcomes[name][1].startswith(reason)


@pytest.mark.parametrize(("name", "paragraphs"), LONG_DOCUMENTS.items())
def test_a_long_document_is_read_to_its_last_paragraph(
    outcomes: dict[str, Read], name: str, paragraphs: int
) -> None:
    """Every paragraph, once, in order (a word each: tools/hostile/documents.py)."""
    words = outcomes[name][2]
    assert words == [paragraph_word(i) for i in range(paragraphs)], words[-3:]
