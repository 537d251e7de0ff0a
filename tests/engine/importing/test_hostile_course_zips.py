"""Hostile course downloads (tools/hostile/lms.py): a bomb or a path escape in a nested zip,
a member video that lies about its size, zips nested too deep, a link, a locked member. The
archive protections hold on every path a zip of course material opens: the hostile part is
named, never written out of the library's storage nor past its size; the rest is imported."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.importing.places import left_out, shown_name
from engine.importing.progress import Outcome
from engine.importing.unpacking import ARCHIVES_FOLDER
from engine.library import Library
from tools.hostile.lms import GOOD_PLACE, GOOD_WORD, WHOLE, LmsCase, hostile_course_zips

_NAMES = ["nested_bomb", "outer_bomb", "nested_slip", "lying_video", "too_deep", "link", "locked"]


def _case(tmp_path: Path, stem: str) -> LmsCase:
    return next(c for c in hostile_course_zips(tmp_path / "in") if c.path.stem.startswith(stem))


def _stored(library: Library) -> list[Path]:
    return [p for p in (library.folder / ARCHIVES_FOLDER).rglob("*") if p.is_file()]


@pytest.mark.parametrize("stem", _NAMES)
def test_a_hostile_course_zip_names_what_it_refuses_and_imports_the_rest(
    library: Library, tmp_path: Path, stem: str
) -> None:
    case = _case(tmp_path, stem)

    report = library.ingest([case.path])

    stored = _stored(library)
    # Nothing climbed out, nothing expanded: every file taken out is small and in storage.
    assert not list(tmp_path.rglob("evil.pdf"))
    assert all(p.stat().st_size < 2 * 1024**2 for p in stored)
    if case.named is WHOLE:
        (result,) = report.files
        assert (result.path, result.outcome) == (str(case.path), Outcome.ERROR)
        assert case.reason in result.detail
        assert stored == []
        return
    (named,) = left_out(report.files).values()
    reasons = {shown_name(f.path): f.detail for f in named}
    assert case.named in reasons, reasons
    assert case.reason in reasons[case.named]
    assert [shown_name(r.source) for r in library.search(GOOD_WORD).results[:1]] == [GOOD_PLACE]
    assert not any(p.name.endswith(".part") or ".opening" in p.parts for p in stored)
