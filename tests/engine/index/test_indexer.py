"""A source's rows and its vectors change together, so a removal and an import that meet
cannot leave a file's rows without its vectors.

SQLite gives a new row the highest id + 1, so the segments of a file imported right after the
newest file's removal get that file's freed ids. A removal used to delete the rows, then, on
its own, the vectors of those ids: an import that slipped in between lost its vectors to the
removal (its text was still found by full-text search, never by meaning). The test stops the
removal right after its rows are deleted (a trace function in that thread: no code of ours is
replaced), lets an import in another thread run as far as it can, then lets the removal end.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from engine.config import SearchConfig
from engine.library import Library
from engine.store import NoteRow

DENSE_ONLY = replace(SearchConfig(), fulltext=False, gate=0.0)
# How long the import gets to slip in. Before the fix it ends in well under a second;
# with the fix it cannot end before the removal, so this much is always waited.
SLIP_IN_S = 3.0

Tracer = Callable[[FrameType, str, Any], Any]


def _notes(path: Path, topic: str, sentences: list[str]) -> Path:
    sections = [f"# {topic} {i}\n\n{s}" for i, s in enumerate(sentences)]
    path.write_text("\n\n".join(sections) + "\n", encoding="utf-8")
    return path.resolve()


def _pause_on_return(code: CodeType, reached: threading.Event, go_on: threading.Event) -> Tracer:
    """A trace function that stops this thread when ``code`` returns, until ``go_on``."""

    def local(frame: FrameType, event: str, arg: Any) -> Tracer:
        if event == "return":
            reached.set()
            go_on.wait(timeout=60)
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Tracer | None:
        return local if event == "call" and frame.f_code is code else None

    return calls


def test_an_import_during_a_removal_keeps_its_vectors(library: Library, tmp_path: Path) -> None:
    folder = tmp_path / "Zoo"
    folder.mkdir()
    giraffe = _notes(folder / "giraffe.md", "Giraffe", ["The giraffe eats acacia leaves."])
    okapi = _notes(
        folder / "okapi.md",
        "Okapi",
        ["The okapi lives in the rainforest.", "The okapi has striped legs."],
    )
    penguin = _notes(
        tmp_path / "penguin.md",
        "Penguin",
        ["The emperor penguin dives under the antarctic ice.", "Penguins huddle in winter."],
    )
    library.ingest([giraffe], course="Zoo")
    library.ingest([okapi], course="Zoo")  # the newest file: its segments have the top ids
    doomed = library.source(str(okapi))
    assert doomed is not None
    freed = set(library.store.segments.ids_of_source(doomed.id))

    reached, go_on, imported = threading.Event(), threading.Event(), threading.Event()
    delete_rows = type(library.store.catalog).delete_source.__code__

    def remove() -> None:
        sys.settrace(_pause_on_return(delete_rows, reached, go_on))
        try:
            library.remove(str(okapi))
        finally:
            sys.settrace(None)

    def import_penguin() -> None:
        library.ingest([penguin], course="Zoo")
        imported.set()

    remover = threading.Thread(target=remove)
    importer = threading.Thread(target=import_penguin)
    remover.start()
    try:
        assert reached.wait(timeout=30), "the removal never deleted its rows"
        importer.start()
        imported.wait(timeout=SLIP_IN_S)
    finally:
        go_on.set()
        remover.join(timeout=60)
        if importer.ident is not None:  # started
            importer.join(timeout=60)
    assert not remover.is_alive() and not importer.is_alive()

    new = library.source(str(penguin))
    assert new is not None and library.source(str(okapi)) is None
    assert set(library.store.segments.ids_of_source(new.id)) & freed, "no id was reused"
    stats = library.stats()
    assert stats["vectors"] == stats["segments"] == 3
    top = library.search("birds that swim below frozen water", config=DENSE_ONLY).results[0]
    assert top.source == str(penguin)


def test_notes_added_in_one_batch_are_each_stored_with_a_segment_and_vector(
    library: Library, tmp_path: Path
) -> None:
    """Indexer.add_notes (a pack's notes on a file the user keeps, in one batch): each note
    is stored, in order, and is a segment of its file with its vector."""
    okapi = _notes(tmp_path / "okapi.md", "Okapi", ["The okapi is a giraffid.", "It is shy."])
    library.ingest([okapi], course="Zoo")
    found = library.store.catalog.source_by_path(str(okapi))
    assert found is not None and found.sha256 is not None
    before = library.indexer.vector_count()
    said = ["stripes like a zebra", "shy", "seen in 1901"]
    rows = [
        NoteRow(0, "Zoo", found.sha256, None, None, None, line, text, 0.0, str(okapi), "okapi")
        for line, text in zip((1, 3, 3), said, strict=True)
    ]
    ids = library.indexer.add_notes(rows, "okapi", library.embedder())
    assert [n.text for n in (library.store.notes.get(i) for i in ids) if n] == said
    segments = [library.store.notes.segment_ids(i) for i in ids]
    assert [len(s) for s in segments] == [1, 1, 1]
    assert library.indexer.vector_count() == before + 3
    assert library.indexer.add_notes([], "okapi", library.embedder()) == []
