"""The SQLite store on real databases: schema, FTS5, transactions, migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from engine.errors import LibraryError, NotFoundError
from engine.search import fts_match
from engine.store import SCHEMA_VERSION, Store
from engine.types import SegmentDraft, SegmentKind, SourceKind, SourceStatus, Timing

HOSTILE = ['"', "NOT", "a AND (", "*", "NEAR(", "-", "^x", "col:term", "'", ")", "OR OR", "\\"]


def _add(store: Store, path: str, texts: list[str], course: str = "c") -> list[int]:
    course_id = store.ensure_course(course)
    sid = store.upsert_source(
        course_id=course_id,
        path=path,
        kind=SourceKind.NOTES,
        title=Path(path).name,
        status=SourceStatus.INDEXING,
    )
    segs = [SegmentDraft(kind=SegmentKind.NOTE, text=t, heading="Head") for t in texts]
    vectors = np.eye(len(texts), 4, dtype=np.float32)
    with store.transaction():
        return store.replace_source_content(
            sid,
            title="t",
            sha256="x" * 64,
            size=1,
            mtime_ns=1,
            duration_ms=None,
            embedder_id="m@1",
            segments=segs,
            vectors=vectors,
            space="text",
        )


def test_fresh_database_is_migrated_to_the_current_schema() -> None:
    store = Store(":memory:")
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    names = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
    assert {"courses", "sources", "segments", "embeddings", "segments_fts"} <= names


def test_file_library_uses_wal(tmp_path: Path) -> None:
    store = Store(tmp_path / "library.db")
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()
    reopened = Store(tmp_path / "library.db")  # migrating twice is a no-op
    assert reopened.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.db")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(LibraryError, match="newer Coursedex"):
        Store(tmp_path / "x.db")


def test_not_a_database_is_a_library_error(tmp_path: Path) -> None:
    bad = tmp_path / "library.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(LibraryError):
        Store(bad)


def test_fulltext_stems_and_folds_diacritics() -> None:
    store = Store(":memory:")
    ids = _add(store, "/a.md", ["Running the café layers", "unrelated words entirely"])
    hits = store.fulltext(fts_match("runs cafe LAYER") or "", 10)
    assert [h[0] for h in hits] == [ids[0]]


def test_heading_is_searchable_at_lower_weight() -> None:
    store = Store(":memory:")
    ids = _add(store, "/a.md", ["gradient descent in body", "other text"])
    course_id = store.ensure_course("c")
    sid = store.upsert_source(
        course_id=course_id,
        path="/b.md",
        kind=SourceKind.NOTES,
        title="b",
        status=SourceStatus.INDEXING,
    )
    with store.transaction():
        (only_heading,) = store.replace_source_content(
            sid,
            title="b",
            sha256="y" * 64,
            size=1,
            mtime_ns=1,
            duration_ms=None,
            embedder_id=None,
            vectors=None,
            space="text",
            segments=[SegmentDraft(kind=SegmentKind.NOTE, text="nothing here", heading="gradient")],
        )
    ranked = [h[0] for h in store.fulltext('"gradient"', 10)]
    assert ranked == [ids[0], only_heading]


def test_failed_transaction_leaves_nothing_behind() -> None:
    store = Store(":memory:")
    course_id = store.ensure_course("c")
    sid = store.upsert_source(
        course_id=course_id,
        path="/a.md",
        kind=SourceKind.NOTES,
        title="a",
        status=SourceStatus.INDEXING,
    )
    segs = [SegmentDraft(kind=SegmentKind.NOTE, text="alpha beta")]
    with pytest.raises(RuntimeError), store.transaction():
        store.replace_source_content(
            sid,
            title="a",
            sha256="z" * 64,
            size=1,
            mtime_ns=1,
            duration_ms=None,
            embedder_id=None,
            segments=segs,
            vectors=None,
            space="text",
        )
        raise RuntimeError("crash mid-source")
    assert store.segment_count() == 0
    assert store.fulltext('"alpha"', 10) == []
    assert store.sources()[0].status == SourceStatus.INDEXING


def test_replacing_a_source_replaces_its_segments_and_index_entries() -> None:
    store = Store(":memory:")
    _add(store, "/a.md", ["old words here"])
    new_ids = _add(store, "/a.md", ["fresh content now"])
    assert store.fulltext('"old"', 10) == []
    assert [h[0] for h in store.fulltext('"fresh"', 10)] == new_ids
    assert store.embedded_ids("text") == set(new_ids)


def test_deleting_a_source_cascades_to_segments_fts_and_vectors() -> None:
    store = Store(":memory:")
    _add(store, "/a.md", ["delete me please"])
    source = store.source_by_path("/a.md")
    assert source is not None
    store.delete_source(source.id)
    assert store.segment_count() == 0
    assert store.fulltext('"delete"', 10) == []
    assert store.embedded_ids("text") == set()


def test_vectors_round_trip() -> None:
    store = Store(":memory:")
    ids = _add(store, "/a.md", ["one", "two", "three"])
    found, matrix = store.vectors(ids, 4)
    assert sorted(found.tolist()) == ids
    for sid, row in zip(found.tolist(), matrix, strict=True):
        assert row[ids.index(sid)] == 1.0


def test_timings_round_trip() -> None:
    store = Store(":memory:")
    course_id = store.ensure_course("c")
    sid = store.upsert_source(
        course_id=course_id,
        path="/v.srt",
        kind=SourceKind.SUBTITLES,
        title="v",
        status=SourceStatus.INDEXING,
    )
    timings = (Timing(0, 1500, "Hello there."), Timing(1500, 4000, 'She said "hi".'))
    seg = SegmentDraft(
        kind=SegmentKind.TRANSCRIPT,
        text="Hello there. She said hi.",
        start_ms=0,
        end_ms=4000,
        timings=timings,
    )
    with store.transaction():
        (gid,) = store.replace_source_content(
            sid,
            title="v",
            sha256="v" * 64,
            size=1,
            mtime_ns=1,
            duration_ms=4000,
            embedder_id=None,
            segments=[seg],
            vectors=None,
            space="text",
        )
    assert store.segments([gid])[gid].timings == timings


@pytest.mark.parametrize("query", [*HOSTILE, "x" * 2000, "word " * 400, "日本語 テキスト", ""])
def test_any_user_text_is_a_valid_fulltext_query(query: str) -> None:
    store = Store(":memory:")
    _add(store, "/a.md", ["a AND b NOT c near words and stars *"])
    match = fts_match(query)
    if match is not None:
        store.fulltext(match, 10)  # must not raise


def test_unknown_course_is_not_found() -> None:
    with pytest.raises(NotFoundError):
        Store(":memory:").course_id("nope")


def test_course_names_are_case_insensitive_and_renamable() -> None:
    store = Store(":memory:")
    first = store.ensure_course("Linear Algebra")
    assert store.ensure_course("linear algebra") == first
    store.rename_course("Linear Algebra", "LA")
    assert [c.name for c in store.courses()] == ["LA"]
