"""Issue 34, item 11: property-based tests (Hypothesis) of course packs (export paths:
test_fuzz_exports.py).

Any pack, made of a manifest, members, arrays and notes as a hand, a newer Coursedex or an
attacker might write them, is imported or refused with one line, a CoursedexError (never a
traceback of another exception); a refused pack leaves the library exactly as it was (its
whole database, its thumbnails, its vectors), and an imported one leaves the user's own
files' records as they were.

Settings as in test_fuzz.py (tests/engine/fuzzing.py): 100 packs, 2 to 5 seconds on 2
cores.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from engine.errors import CoursedexError
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.packs import export_pack, import_pack, read_pack
from engine.types import SegmentKind, SourceKind
from tests.conftest import MixedCourse, opened_copy
from tests.engine.fuzzing import fuzz, json_value, text_like

# --- packs ------------------------------------------------------------------------------------

DIMENSION = 384  # the run's embedder (all-MiniLM-L6-v2)
# Put in by the test, once the library is known: its model's id, its files' sha256.
SAME_MODEL = "@@model@@"
OWN_FILES = ("@@own0@@", "@@own1@@")


def rarely(bad: st.SearchStrategy[Any], good: st.SearchStrategy[Any], one_in: int = 16) -> Any:
    """``good``, and ``bad`` once in ``one_in`` draws: most packs get far enough to meet
    the later checks, and the import itself."""
    # Hypothesis draws the ends of a range often: the bad one is in the middle.
    return st.integers(0, one_in - 1).flatmap(lambda n: bad if n == one_in // 2 else good)


def field(good: st.SearchStrategy[Any]) -> Any:
    """What a pack holds there, or (rarely) anything JSON can say in its place."""
    return rarely(json_value, good)


small = st.integers(min_value=0, max_value=200_000)
number = rarely(st.one_of(st.none(), st.integers(-(2**70), 2**70)), small, one_in=8)
optional_number = st.one_of(st.none(), number)
sha = rarely(
    st.sampled_from(OWN_FILES),
    st.binary(min_size=1, max_size=8).map(lambda b: hashlib.sha256(b).hexdigest()),
    one_in=4,
)
timing = st.lists(field(st.tuples(small, small, text_like).map(list)), max_size=3)
segment = st.fixed_dictionaries(
    {"kind": field(st.sampled_from([k.value for k in SegmentKind])), "text": field(text_like)},
    optional={
        "heading": field(text_like),
        "start_ms": optional_number,
        "end_ms": optional_number,
        "page": optional_number,
        "line_start": optional_number,
        "line_end": optional_number,
        "path_in_archive": field(st.sampled_from(["src/a.py", "../x.py", "/abs.py", "a\\..\\b"])),
        "timings": timing,
        "words": timing,
        "cues": field(st.integers(0, 3)),
        "extra": field(text_like),
        "needs_ocr": field(st.booleans()),
    },
)
source_path = rarely(
    st.one_of(
        st.sampled_from(["", ".", "./././.", "../out.md", "/etc/passwd", "C:x.md", "a/../../b"]),
        text_like,
    ),
    st.sampled_from(["notes.md", "week 1/lecture.srt", "slides.pdf", "code.zip", "a/b/c.txt"]),
    one_in=6,
)
source = st.fixed_dictionaries(
    {
        "path": field(source_path),
        "kind": field(st.sampled_from([k.value for k in SourceKind])),
        "title": field(text_like),
        "sha256": field(sha),
        "size": field(number),
    },
    optional={
        "duration_ms": field(optional_number),
        "speech_model": field(st.one_of(st.none(), text_like)),
        "language": field(st.sampled_from([None, "en", "", "xx", "EN"])),
        "segments": field(st.lists(segment, max_size=4)),
        "scenes": field(
            st.lists(
                st.tuples(
                    small, small, small, st.sampled_from(["", "0123456789abcdef-0000.jpg"])
                ).map(list),
                max_size=2,
            )
        ),
    },
)
course = rarely(
    json_value,
    st.fixed_dictionaries(
        {"sources": field(st.lists(source, min_size=1, max_size=3))},
        optional={
            "slide_links": field(
                st.lists(
                    st.tuples(
                        st.integers(0, 3), small, small, st.integers(0, 3), number, small
                    ).map(list),
                    max_size=2,
                )
            )
        },
    ),
)
note = st.fixed_dictionaries(
    {"source": field(st.integers(0, 3)), "text": field(text_like)},
    optional={
        "at_ms": optional_number,
        "page": optional_number,
        "line": optional_number,
        "path_in_archive": field(st.sampled_from(["src/a.py", "../x"])),
    },
)
# How an array is written: right, or wrong in one way.
array = rarely(
    st.sampled_from(["rows", "columns", "float64", "nan", "bytes", "1-D", "huge"]),
    st.just("right"),
    one_in=8,
)
MEMBERS = ("../evil.txt", "/abs.txt", "thumbs/0123456789abcdef-0000.jpg", "thumbs/x.jpg", "x.bin")


def _rows(course: object) -> tuple[int, int]:
    """The vectors and cue vectors a course's segments need, as the reader counts them (0
    where the course is not what a pack holds: the arrays are then refused or never read)."""
    rows = cues = 0
    for s in _items(course, "sources"):
        for seg in _items(s, "segments"):
            text, n = seg.get("text"), seg.get("cues")
            rows += isinstance(text, str) and bool(text.strip())
            cues += n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 0
    return rows, cues


def _items(value: object, key: str) -> list[dict[str, Any]]:
    found = value.get(key) if isinstance(value, dict) else None
    return [x for x in found if isinstance(x, dict)] if isinstance(found, list) else []


def _npy(how: str, rows: int, dtype: type) -> bytes:
    if how == "bytes":
        return b"\x93NUMPY not an array"
    if how == "huge":  # a header that claims 10^12 rows over a few bytes
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000, 384), }"
        return b"\x93NUMPY\x01\x00" + len(header + "\n").to_bytes(2, "little") + header.encode()
    shape = {"rows": (rows + 1, DIMENSION), "columns": (rows, DIMENSION + 1), "1-D": (rows,)}
    kind = np.float64 if how == "float64" else dtype
    values = np.full(shape.get(how, (rows, DIMENSION)), 0.05, kind)
    if how == "nan" and values.size:
        values.flat[0] = np.nan
    buffer = io.BytesIO()
    np.save(buffer, values, allow_pickle=False)
    return buffer.getvalue()


def _json(value: object, library: Library) -> bytes:
    """``value`` as a pack's JSON, with the library's model and files put in."""
    text = json.dumps(value).replace(SAME_MODEL, library.embedder_id or "")
    shas = [s.sha256 for s in library.sources() if s.sha256]
    for placeholder, own in zip(OWN_FILES, shas, strict=False):
        text = text.replace(placeholder, own)
    return text.encode()


@st.composite
def packs(draw: st.DrawFn) -> tuple[Any, Any, dict[str, Any]]:
    """A pack as (manifest, how its listing of parts lies, the other members): the JSON
    ones still values, written once the library is known."""
    body = draw(course)
    rows, cues = _rows(body)
    parts: dict[str, Any] = {
        "course.json": body,
        "vectors.npy": _npy(draw(array), rows, np.float32),
        "sentences.npy": _npy(draw(array), cues, np.float16),
    }
    if draw(st.booleans()):
        parts["notes.json"] = draw(field(st.lists(note, max_size=3)))
    extra = rarely(st.lists(st.sampled_from(MEMBERS), min_size=1, max_size=2), st.just([]), 8)
    for name in draw(extra):
        parts[name] = b"\xff\xd8\xff" + draw(st.binary(max_size=16))
    lost = rarely(st.sampled_from(sorted(parts)).map(lambda n: [n]), st.just([]), 12)
    for name in draw(lost):
        parts.pop(name)
    manifest = st.fixed_dictionaries(
        {
            "format": field(st.just("coursedex-pack")),
            "version": rarely(st.sampled_from([2, 0, "1"]), st.just(1)),
            "course": field(
                rarely(text_like, st.sampled_from(["Biology 101", "biology 101", "Physics"]), 4)
            ),
            "model_id": field(rarely(st.just("another-model@0123456789ab"), st.just(SAME_MODEL))),
            "dimension": field(rarely(st.just(3), st.just(DIMENSION))),
        },
        optional={"made_by": field(text_like), "created": field(text_like)},
    )
    lie = rarely(st.sampled_from(sorted(parts)).map(lambda n: [n]), st.just([]), 12)
    listing = rarely(json_value.map(lambda v: [v]), st.just([]), 6)  # "parts" is no listing
    return draw(manifest), {"lie": draw(lie), "listing": draw(listing)}, parts


def _write_pack(path: Path, pack: tuple[Any, Any, dict[str, Any]], library: Library) -> None:
    """The zip, its manifest listing each part's sha256 and size (but where it lies)."""
    manifest, how, parts = pack
    members = {n: b if isinstance(b, bytes) else _json(b, library) for n, b in parts.items()}
    if isinstance(manifest, dict):
        listed = {
            n: {"sha256": hashlib.sha256(b).hexdigest(), "size": len(b) + (n in how["lie"])}
            for n, b in members.items()
        }
        manifest = {**manifest, "parts": how["listing"][0] if how["listing"] else listed}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", _json(manifest, library))
        for name, body in members.items():
            zf.writestr(name, body)


@pytest.fixture(scope="module")
def pack_library(
    tmp_path_factory: pytest.TempPathFactory,
    built_library_template: Path,
    models_dir: Path,
    embedder: OnnxEmbedder,
) -> Iterator[Library]:
    """Biology 101 and Chemistry: what a student has, that no pack may spoil."""
    dest = tmp_path_factory.mktemp("fuzz-packs") / "lib"
    with opened_copy(built_library_template, dest, models_dir, embedder) as library:
        yield library


def _own(library: Library, course: MixedCourse) -> dict[str, tuple[str | None, list[str]]]:
    """What the library indexed from the user's own files: each one's sha256 and text."""
    paths = [str(p) for p in (course.notes, course.lecture, course.slides, course.code)]
    found = {p: library.source(p) for p in paths}
    return {
        p: (s.sha256 if s else None, [seg.text for seg in library.segments_of(p)])
        for p, s in found.items()
    }


def _state(library: Library) -> tuple[str, list[str], int]:
    dump = "\n".join(library.store.conn.iterdump())
    thumbs = sorted(p.name for p in library.thumbs.glob("*")) if library.thumbs.exists() else []
    return dump, thumbs, library.indexer.vector_count()


# What fuzzing found before issue 34, item 1 was fixed: a pack of the user's course, with
# the user's own folder as its media, put its record (another sha256, no text) in place of
# the user's slides.pdf.
AT_OWN_PLACE = (
    {
        "format": "coursedex-pack",
        "version": 1,
        "course": "Biology 101",
        "model_id": SAME_MODEL,
        "dimension": DIMENSION,
    },
    {"lie": [], "listing": []},
    {
        "course.json": {
            "sources": [
                {
                    "path": "slides.pdf",
                    "kind": "code",
                    "title": "x",
                    "sha256": hashlib.sha256(b"other").hexdigest(),
                    "size": 5,
                }
            ]
        },
        "vectors.npy": _npy("right", 0, np.float32),
        "sentences.npy": _npy("right", 0, np.float16),
    },
)


@fuzz(100)
@example(AT_OWN_PLACE, True)
@given(pack=packs(), media=st.booleans())
def test_any_pack_is_imported_or_refused_in_one_line_leaving_the_library_as_it_was(
    pack_library: Library,
    mixed_course: MixedCourse,
    tmp_path_factory: pytest.TempPathFactory,
    pack: tuple[Any, Any, dict[str, Any]],
    media: bool,
) -> None:
    path = tmp_path_factory.mktemp("pack") / "course.cdxpack"
    _write_pack(path, pack, pack_library)
    before, own = _state(pack_library), _own(pack_library, mixed_course)
    try:
        summary = import_pack(pack_library, path, media=mixed_course.folder if media else None)
    except CoursedexError as e:
        event(f"refused: {str(e)[:50]}")
        assert str(e) and "\n" not in str(e), repr(str(e))
        assert _state(pack_library) == before, str(e)
        return
    event("imported")
    # A course of the library's, by its name in any case, or a new one; and what the user
    # indexed from their own files is theirs still (issue 34, item 1).
    assert summary.course.casefold() in {c.name.casefold() for c in pack_library.courses()}
    assert _own(pack_library, mixed_course) == own


def test_one_content_given_as_two_kinds_stays_one_file_and_exports_again(
    library: Library, tmp_path: Path
) -> None:
    """What fuzzing found after item 1: two packs of one course, the same bytes as notes in
    one and as a video in the other, imported from two folders, made two records of one
    content, and the course's own export was then refused by import ("two files have the
    same content"). The same bytes are one file, as an import's duplicate is."""
    one = {"path": "notes.md", "title": "t", "sha256": hashlib.sha256(b"x").hexdigest()}
    for i, kind in enumerate(("notes", "video")):
        manifest, how, parts = AT_OWN_PLACE
        source = {**one, "kind": kind, "size": 1}
        pack = (
            {**manifest, "course": "Physics"},
            how,
            {**parts, "course.json": {"sources": [source]}},
        )
        (tmp_path / f"from{i}").mkdir()
        _write_pack(tmp_path / f"from{i}" / "p.cdxpack", pack, library)
        import_pack(library, tmp_path / f"from{i}" / "p.cdxpack")
    assert len(library.sources("Physics")) == 1
    export_pack(library, "Physics", tmp_path / "again.cdxpack")
    assert [s.sha256 for s in read_pack(tmp_path / "again.cdxpack").sources] == [one["sha256"]]
