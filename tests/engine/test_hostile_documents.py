"""The hostile corpus's documents and photos (tools/hostile/documents.py), each parsed as an
import parses it: read, or refused with our error in one short line; never another
exception. (The whole corpus is imported by tests/engine/test_hostile_inputs.py.)"""

from __future__ import annotations

import pytest

from engine.config import EngineConfig
from engine.errors import CoursedexError
from engine.ingest import parse_file
from engine.ingest.photos import picture_rgb
from tools.hostile.corpus import ERROR, INDEXED, Case
from tools.hostile.documents import hostile_documents

CONFIG = EngineConfig()


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    course = tmp_path_factory.mktemp("hostile") / "course"
    course.mkdir()
    return hostile_documents(course)


def _outcome(case: Case) -> tuple[str, str]:
    try:
        parsed = parse_file(case.path, CONFIG)
        if any(s.needs_ocr for s in parsed.segments):
            picture_rgb(case.path)  # what the import's OCR reads
    except CoursedexError as e:
        return ERROR, str(e)
    return INDEXED, ""


def test_every_kind_is_broken_huge_encrypted_and_lying(cases: list[Case]) -> None:
    suffixes = {c.path.suffix for c in cases}
    assert suffixes >= {".docx", ".odt", ".odp", ".epub", ".rtf", ".html", ".jpg", ".png", ".webp"}
    whats = " ".join(c.what for c in cases)
    for word in ("password-protected", "DRM", "zip bomb", "named", "cut"):
        assert word in whats


def test_each_is_read_or_refused_in_one_line(cases: list[Case]) -> None:
    wrong = []
    for case in cases:
        outcome, reason = _outcome(case)
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
def test_refusals_say_why(cases: list[Case], name: str, reason: str) -> None:
    case = next(c for c in cases if c.path.name == name)
    assert _outcome(case)[1].startswith(reason)
