"""Issue 34, item 11: property-based tests (Hypothesis) of export paths (course packs:
test_fuzz_packs.py).

Any path given to an export (pack, handout, flashcards, transcript) is written, as a regular file
outside the library and not over a file it indexes, or refused with one line, a
CoursedexError (never a traceback of another exception), and a refused target is left as
it was.

Settings as in test_fuzz.py (tests/engine/fuzzing.py): 200 paths, 1 to 3 seconds on 2
cores.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import assume, event, example, given
from hypothesis import strategies as st

from engine.errors import CoursedexError
from engine.integrations.anki import write_deck
from engine.integrations.flashcards import course_cards
from engine.integrations.handout import build_handout
from engine.integrations.handout_render import write_handout
from engine.integrations.transcript_export import write_transcript
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.packs import export_pack
from tests.conftest import MixedCourse, opened_copy
from tests.engine.fuzzing import fuzz, text_like
from tools.hostile.outputs import state

# What is in the scratch folder an export path is made in (see ``exports``).
ENTRIES = ("file.md", "folder", "pipe", "to-db", "to-indexed", "to-folder", "dangling", "loop")
component = st.one_of(
    st.sampled_from([*ENTRIES, ".", "..", "", "new", "a" * 300]),
    text_like.map(lambda t: t[:40]),
)
suffix = st.sampled_from([".md", ".html", ".HTM", ".cdxpack", ".srt", ".txt", ".apkg", "", "."])


@pytest.fixture(scope="module")
def exports(
    tmp_path_factory: pytest.TempPathFactory,
    built_library_template: Path,
    models_dir: Path,
    embedder: OnnxEmbedder,
    mixed_course: MixedCourse,
) -> Iterator[tuple[Library, Path]]:
    """A library and a scratch folder of every kind of thing a path can lead to: a file, a
    folder, a named pipe, links to the library's database, to a file it indexes, to a
    folder, to nowhere and to itself."""
    scratch = tmp_path_factory.mktemp("fuzz-exports")
    (scratch / "file.md").write_text("the student's own\n", encoding="utf-8")
    (scratch / "folder").mkdir()
    os.mkfifo(scratch / "pipe")
    dest = tmp_path_factory.mktemp("fuzz-exports-lib") / "lib"
    with opened_copy(built_library_template, dest, models_dir, embedder) as library:
        (scratch / "to-db").symlink_to(library.folder / "library.db")
        (scratch / "to-indexed").symlink_to(mixed_course.notes)
        (scratch / "to-folder").symlink_to(scratch / "folder")
        (scratch / "dangling").symlink_to(scratch / "nowhere" / "x.md")
        (scratch / "loop").symlink_to(scratch / "loop")
        yield library, scratch


def _sandboxed(path: Path, library: Library, scratch: Path, indexed: set[str]) -> bool:
    """Whether ``path`` stays in the test's own folders (or is a file the library indexes,
    to be refused): a path that climbs out could write anywhere, as root."""
    try:
        real = os.path.realpath(path)
    except (ValueError, OSError):
        return True  # a NUL: nothing can be written there
    inside = (scratch.resolve(), library.folder.resolve())
    return real in indexed or any(Path(real).is_relative_to(root) for root in inside)


@fuzz(200)
# What fuzzing found (a traceback each, before): a NUL (ValueError from os.path), a loop of
# links (RuntimeError from pathlib), a line break in a name (a refusal of two lines).
@example("pack", "scratch", ["\x00"], ".cdxpack", False)
@example("handout", "scratch", ["loop", "file"], ".md", True)
@example("transcript", "library", ["\n"], ".srt", False)
@example("handout", "scratch", ["x"], ".\nmd", False)
@example("anki", "scratch", ["x"], ".\napkg", False)
@given(
    export=st.sampled_from(["pack", "handout", "anki", "transcript"]),
    base=st.sampled_from(["scratch", "library", "indexed"]),
    parts=st.lists(component, max_size=3),
    end=suffix,
    force=st.booleans(),
)
def test_any_export_path_is_written_or_refused_in_one_line(
    exports: tuple[Library, Path],
    mixed_course: MixedCourse,
    export: str,
    base: str,
    parts: list[str],
    end: str,
    force: bool,
) -> None:
    library, scratch = exports
    root = {"scratch": scratch, "library": library.folder, "indexed": mixed_course.notes}[base]
    path = Path(os.path.join(root, *parts) + end)
    indexed = {os.path.realpath(s.path) for s in library.sources()}
    assume(_sandboxed(path, library, scratch, indexed))
    before = _state_of(path)
    try:
        written = _export(export, library, mixed_course, path, force)
    except CoursedexError as e:
        event(f"{export} refused: {str(e).rsplit(': ', 1)[-1][:40]}")
        assert str(e) and "\n" not in str(e), repr(str(e))
        assert _state_of(path) == before, str(e)
        return
    event(f"{export} written")
    real = written.resolve()
    assert real.is_file() and not real.is_symlink(), written
    assert not real.is_relative_to(library.folder.resolve()), written
    assert str(real) not in indexed, written
    assert len(library.sources()) == len(indexed) and library.stats()["sources"] == len(indexed)


def _state_of(path: Path) -> object:
    """:func:`state`, and nothing there for a name no file can have (a NUL, too long, a
    loop of links): a pack export makes the folders it writes in, which turns "no such
    folder" into "name too long"."""
    try:
        return state(path)
    except (ValueError, OSError):
        return 0, None


def _export(export: str, library: Library, course: MixedCourse, dest: Path, force: bool) -> Path:
    if export == "pack":
        return export_pack(library, "Biology 101", dest, force=force).path
    if export == "handout":
        handout = build_handout(library, str(course.lecture))
        return write_handout(handout, dest, library=library, force=force)
    if export == "anki":
        cards = course_cards(library, "Biology 101", slides=True)
        return write_deck("Biology 101", cards, dest, library=library, force=force).path
    lines = library.transcript(str(course.lecture))
    return write_transcript(lines, dest, library=library, force=force)
