"""Hostile course packs of issue 34, items 7 and 8, made from a good one as
tools/hostile/packs.py makes its own: packs bounded, and their values checked as a user's
are (`notes add`, the parsers). tests/engine/packs/test_hostile_packs.py runs them.

What makes the course itself wrong (its files, their segments, times and scenes; more
files, segments or notes than a pack may hold) is refused whole, with one line, and the
library is left as it was (:func:`generate_bounds`). A note or slide link at a place its file
does not have is left out alone and named, and the rest of the pack is imported
(:func:`generate_left_out`, :class:`LeftOut`).

    python tools/hostile/pack_values.py GOOD.cdxpack OUTDIR     # writes them and lists them
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.hostile.packs import HostilePack, Parts, _course, _first_source, _npy, _parts, _write

LECTURE_MS = 60_000  # the one-minute lecture added to the good pack (its file is not here)


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A pack that is imported but for one value, named in the import's ``left_out`` by a
    line matching ``reason``; the pack also holds a good note, which must come in."""

    path: Path
    what: str
    reason: str


def _index(course: dict[str, object], which: str) -> int:
    """The index of the pack's file named ``which`` (``notes.md``), or its first of that
    kind (``video``)."""
    sources = course["sources"]
    assert isinstance(sources, list)
    return next(i for i, s in enumerate(sources) if which in (s["path"], s["kind"]))


def _with_lecture(parts: Parts) -> Parts:
    """The good pack with a one-minute lecture last (two transcript segments, their vectors
    copied from the first rows): what the time checks need, as the demo's text has none."""
    course = json.loads(parts["course.json"])
    segments = [
        {
            "kind": "transcript",
            "text": "merge sort splits the list",
            "start_ms": 0,
            "end_ms": 30_000,
        },
        {
            "kind": "transcript",
            "text": "then merges the halves",
            "start_ms": 30_000,
            "end_ms": 59_000,
        },
    ]
    course["sources"].append(
        {
            "path": "lecture-09.mp4",
            "kind": "video",
            "title": "Lecture 9",
            "sha256": hashlib.sha256(b"lecture 9").hexdigest(),
            "size": 1000,
            "duration_ms": LECTURE_MS,
            "segments": segments,
            "scenes": [],
        }
    )
    vectors = np.load(io.BytesIO(parts["vectors.npy"]))
    more = _npy(np.vstack([vectors, vectors[: len(segments)]]))
    return {**parts, "course.json": json.dumps(course).encode(), "vectors.npy": more}


def _lecture_changed(parts: Parts, change: Callable[[dict[str, object]], None]) -> Parts:
    def on_lecture(course: dict[str, object]) -> None:
        sources = course["sources"]
        assert isinstance(sources, list)
        change(sources[-1])

    return _course(_with_lecture(parts), on_lecture)


def _noted(
    parts: Parts, bad: dict[str, object] | None = None, link: list[int] | None = None
) -> Parts:
    """The good pack with the lecture, a good note on it, and ``bad`` (a note; its
    ``source`` a kind, made the index of the pack's file of that kind) and ``link`` (a slide
    link [start, end, page, ...] from the lecture to the slides)."""
    parts = _with_lecture(parts)
    course = json.loads(parts["course.json"])
    lecture = _index(course, "video")
    notes: list[dict[str, object]] = [{"source": lecture, "text": "a good note", "at_ms": 30_000}]
    if bad is not None:
        notes.append({**bad, "source": _index(course, str(bad["source"]))})
    if link is not None:
        start, end, page = link
        course["slide_links"] = [[lecture, start, end, _index(course, "slides.pdf"), page, 0.9]]
    return {
        **parts,
        "course.json": json.dumps(course).encode(),
        "notes.json": json.dumps(notes).encode(),
    }


def generate_bounds(good: Path, out: Path) -> list[HostilePack]:
    """Packs refused for their size in notes, segments or files, or for a value that makes
    their course wrong (a segment ending before it starts, or after its lecture)."""
    out.mkdir(parents=True, exist_ok=True)
    parts = _parts(good)
    cases: list[HostilePack] = []

    def case(name: str, what: str, reason: str, made: Parts) -> None:
        cases.append(HostilePack(_write(out / name, made, rehash=True), what, reason))

    many_notes = [{"source": 0, "text": f"x{n}"} for n in range(10_001)]
    case(
        "notes-10001.cdxpack",
        "10,001 short notes (the cap is 10,000): a tester's 200,000 ran for minutes",
        r"notes\.json: 10,001 notes, more than the 10,000 a pack may hold$",
        {**parts, "notes.json": json.dumps(many_notes).encode()},
    )

    def crowded(course: dict[str, object]) -> None:
        """200,001 segments in all: the first file's made up to it. No text: no vector
        needed, only counted; headings apart, or the part would be a zip bomb."""
        sources = course["sources"]
        assert isinstance(sources, list)
        others = sum(len(s["segments"]) for s in sources[1:])
        sources[0]["segments"] = [
            {"kind": "note", "text": "", "heading": str(n)} for n in range(200_001 - others)
        ]

    case(
        "segments-200001.cdxpack",
        "200,001 segments (the cap is 200,000)",
        r"course\.json: 200,001 segments, more than the 200,000 a pack may hold$",
        _course(parts, crowded),
    )
    case(
        "files-10001.cdxpack",
        "10,001 files (the cap is 10,000)",
        r"course\.json: 10,001 files, more than the 10,000 a pack may hold$",
        _course(parts, lambda c: c.update(sources=[{}] * 10_001)),
    )
    case(
        "source-dots.cdxpack",
        "a file whose place in the course is ./././. (the course's folder itself)",
        r"course\.json: file 1: path is not a place inside the course: \./\./\./\.",
        _course(parts, lambda c: _first_source(c).update(path="./././.")),
    )

    # The lecture each case changes is the file after the good pack's own.
    lecture = len(json.loads(parts["course.json"])["sources"]) + 1

    def segment(**times: int) -> Callable[[dict[str, object]], None]:
        def change(lecture: dict[str, object]) -> None:
            first = lecture["segments"][0]  # type: ignore[index]
            first.update(times)

        return change

    case(
        "segment-backwards.cdxpack",
        "a lecture's segment from 00:30 to 00:10",
        rf"course\.json: file {lecture}, segment 1: it ends \(00:10\) before it starts \(00:30\)",
        _lecture_changed(parts, segment(start_ms=30_000, end_ms=10_000)),
    )
    case(
        "segment-past-end.cdxpack",
        "a segment at 1:00:00 of a one-minute lecture",
        rf"course\.json: file {lecture}, segment 1: 1:00:00 is after the end of lecture-09\.mp4 "
        r"\(01:00\)",
        _lecture_changed(parts, segment(start_ms=3_600_000, end_ms=3_600_000)),
    )
    case(
        "word-past-end.cdxpack",
        "a word at 10^12 ms in a one-minute lecture",
        rf"course\.json: file {lecture}, segment 1: words: .* is after the end of lecture-09\.mp4",
        _lecture_changed(parts, segment(words=[[0, 10**12, "sort"]])),  # type: ignore[arg-type]
    )
    case(
        "scene-past-end.cdxpack",
        "a scene from 00:00 to 10^12 ms in a one-minute lecture",
        rf"course\.json: file {lecture}, scene 1: .* is after the end of lecture-09\.mp4",
        _lecture_changed(parts, lambda s: s.update(scenes=[[0, 10**12, 0, ""]])),
    )
    case(
        "lines-backwards.cdxpack",
        "a segment of notes.md from line 9 to line 2",
        r"course\.json: file \d, segment 1: it ends \(line 2\) before it starts \(line 9\)",
        _course(
            parts,
            lambda c: c["sources"][_index(c, "notes.md")]["segments"][0].update(  # type: ignore[index]
                line_start=9, line_end=2
            ),
        ),
    )
    return cases


def generate_left_out(good: Path, out: Path) -> list[LeftOut]:
    """Packs imported but for a note or slide link at a place its file does not have."""
    out.mkdir(parents=True, exist_ok=True)
    parts = _parts(good)
    cases: list[LeftOut] = []

    def case(name: str, what: str, reason: str, made: Parts) -> None:
        cases.append(LeftOut(_write(out / name, made, rehash=True), what, reason))

    case(
        "note-at-10-12-ms.cdxpack",
        "a note at 10^12 ms (31 years) of a one-minute lecture",
        r"^notes\.json: note 2: 277777:46:40 is after the end of lecture-09\.mp4 "
        r"\(01:00\)$",
        _noted(parts, {"source": "video", "text": "late", "at_ms": 10**12}),
    )
    case(
        "note-page-9999.cdxpack",
        "a note on page 9999 of the slides",
        r"^notes\.json: note 2: page 9999 is not in slides\.pdf: it has \d+ pages$",
        _noted(parts, {"source": "slides.pdf", "text": "far", "page": 9999}),
    )
    case(
        "note-line-999999.cdxpack",
        "a note on line 999999 of notes.md",
        r"^notes\.json: note 2: line 999999 is not in notes\.md: it has \d+ lines$",
        _noted(parts, {"source": "notes.md", "text": "deep", "line": 999_999}),
    )
    case(
        "note-page-of-lecture.cdxpack",
        "a note on page 2 of a lecture",
        r"^notes\.json: note 2: a note on lecture-09\.mp4 is at a time, not at a page$",
        _noted(parts, {"source": "video", "text": "odd", "page": 2}),
    )
    case(
        "link-page-9999.cdxpack",
        "a slide link to page 9999 of the slides",
        r"^course\.json: slide link 1: page 9999 is not in slides\.pdf: it has \d+ "
        r"pages$",
        _noted(parts, link=[0, 10_000, 9999]),
    )
    case(
        "link-past-end.cdxpack",
        "a slide link from 00:50 to 10^9 ms of a one-minute lecture",
        r"^course\.json: slide link 1: 277:46:40 is after the end of lecture-09\.mp4 "
        r"\(01:00\)$",
        _noted(parts, link=[50_000, 10**9, 1]),
    )
    case(
        "link-backwards.cdxpack",
        "a slide link from 00:50 to 00:20",
        r"^course\.json: slide link 1: it ends \(00:20\) before it starts \(00:50\)$",
        _noted(parts, link=[50_000, 20_000, 1]),
    )
    return cases


if __name__ == "__main__":
    folder = Path(sys.argv[2])
    for made in (
        *generate_bounds(Path(sys.argv[1]), folder),
        *generate_left_out(Path(sys.argv[1]), folder),
    ):
        print(f"{made.path.name:30} {made.what}")
