"""The SQLite store on real databases: schema, FTS5, transactions, migrations."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from engine.errors import CoursedexError, LibraryError, NotFoundError
from engine.search import fts_match
from engine.store import MIGRATIONS, SCHEMA_VERSION, Store
from engine.types import SegmentDraft, SegmentKind, SourceKind, SourceStatus, Timing

HOSTILE = ['"', "NOT", "a AND (", "*", "NEAR(", "-", "^x", "col:term", "'", ")", "OR OR", "\\"]


def _add(
    store: Store, path: str, texts: list[str], course: str = "c", language: str | None = None
) -> list[int]:
    course_id = store.catalog.ensure_course(course)
    sid = store.catalog.upsert_source(
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
            language=language,
        )


def test_a_files_language_is_kept_with_its_content() -> None:
    store = Store(":memory:")
    _add(store, "/es.md", ["la fotosíntesis"], language="es")
    _add(store, "/unknown.md", ["x"])
    languages = {s.path: s.language for s in store.catalog.sources()}
    assert languages == {"/es.md": "es", "/unknown.md": None}
    rows = store.segments.by_ids(list(range(1, 3)))
    assert {r.source_path: r.language for r in rows.values()} == languages
    _add(store, "/es.md", ["la fotosíntesis otra vez"], language="pt")  # read again
    assert store.catalog.source_by_path("/es.md").language == "pt"  # type: ignore[union-attr]


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
    hits = store.segments.fulltext(fts_match("runs cafe LAYER") or "", 10)
    assert [h[0] for h in hits] == [ids[0]]


def test_heading_is_searchable_at_lower_weight() -> None:
    store = Store(":memory:")
    ids = _add(store, "/a.md", ["gradient descent in body", "other text"])
    course_id = store.catalog.ensure_course("c")
    sid = store.catalog.upsert_source(
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
    ranked = [h[0] for h in store.segments.fulltext('"gradient"', 10)]
    assert ranked == [ids[0], only_heading]


def test_failed_transaction_leaves_nothing_behind() -> None:
    store = Store(":memory:")
    course_id = store.catalog.ensure_course("c")
    sid = store.catalog.upsert_source(
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
    assert store.segments.count() == 0
    assert store.segments.fulltext('"alpha"', 10) == []
    assert store.catalog.sources()[0].status == SourceStatus.INDEXING


def test_replacing_a_source_replaces_its_segments_and_index_entries() -> None:
    store = Store(":memory:")
    old_ids = _add(store, "/a.md", ["old words here"])
    new_ids = _add(store, "/a.md", ["fresh content now"])
    assert store.segments.fulltext('"old"', 10) == []
    assert [h[0] for h in store.segments.fulltext('"fresh"', 10)] == new_ids
    found, _ = store.embeddings.vectors([*old_ids, *new_ids], 4)
    assert set(found.tolist()) == set(new_ids)


def test_deleting_a_source_cascades_to_segments_fts_and_vectors() -> None:
    store = Store(":memory:")
    ids = _add(store, "/a.md", ["delete me please"])
    source = store.catalog.source_by_path("/a.md")
    assert source is not None
    store.catalog.delete_source(source.id)
    assert store.segments.count() == 0
    assert store.segments.fulltext('"delete"', 10) == []
    assert store.embeddings.vectors(ids, 4)[0].tolist() == []


def test_vectors_round_trip() -> None:
    store = Store(":memory:")
    ids = _add(store, "/a.md", ["one", "two", "three"])
    found, matrix = store.embeddings.vectors(ids, 4)
    assert sorted(found.tolist()) == ids
    for sid, row in zip(found.tolist(), matrix, strict=True):
        assert row[ids.index(sid)] == 1.0


def test_vectors_stored_again_replace_the_old_ones_and_count_as_new_writes() -> None:
    # Upsert fired the write-numbering trigger under the upsert's own conflict rule, so
    # storing a vector again over a stored one failed ("UNIQUE constraint failed").
    store = Store(":memory:")
    ids = _add(store, "/a.md", ["one", "two", "three"])
    before = store.embeddings.generation()
    assert before is not None
    store.embeddings.put(ids[:2], np.full((2, 4), 0.5, dtype=np.float32), "text")
    found, matrix = store.embeddings.vectors(ids, 4)
    again = dict(zip(found.tolist(), matrix.tolist(), strict=True))
    assert again[ids[0]] == again[ids[1]] == [0.5] * 4
    assert again[ids[2]] == [0.0, 0.0, 1.0, 0.0]
    assert store.embeddings.written_since(before) == set(ids[:2])
    assert sorted(again) == ids


def test_timings_round_trip() -> None:
    store = Store(":memory:")
    course_id = store.catalog.ensure_course("c")
    sid = store.catalog.upsert_source(
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
    assert store.segments.by_ids([gid])[gid].timings == timings


@pytest.mark.parametrize("query", [*HOSTILE, "x" * 2000, "word " * 400, "日本語 テキスト", ""])
def test_any_user_text_is_a_valid_fulltext_query(query: str) -> None:
    store = Store(":memory:")
    _add(store, "/a.md", ["a AND b NOT c near words and stars *"])
    match = fts_match(query)
    if match is not None:
        store.segments.fulltext(match, 10)  # must not raise


def test_unknown_course_is_not_found() -> None:
    with pytest.raises(NotFoundError):
        Store(":memory:").catalog.course_id("nope")


def test_course_names_are_case_insensitive_and_renamable() -> None:
    store = Store(":memory:")
    first = store.catalog.ensure_course("Linear Algebra")
    assert store.catalog.ensure_course("linear algebra") == first
    store.catalog.rename_course("Linear Algebra", "LA")
    assert [c.name for c in store.catalog.courses()] == ["LA"]


# --- schema compatibility: libraries made by released versions must keep opening ----------

RELEASED_MIGRATIONS = (
    "18e212e00e2914c1c1df407a0c8b9ac2ceafefbcfe7e9be07644f54a8156b5b1",
    "d4ab5f5bd9f835a018634528a2bb3bd68744434952d58578f7bb10a391268d61",
    "10f28ded16de8c8df279538b9682196c78e22fb347f405455e66997dec4bd2b3",
    "a690d39c3cf29a83488fce06c0bc6ebb0048b8c1bef45f8b095ec396b46a5dfd",
    "92f383234de5eaca5ab128f446252c125503961ba811529e379036b84a5fe00b",
    "9463ebfc9977a5824f4290f51f795095960cf52130d8330b2b3eab5ab480d707",
    "63b80c185dbf23c11d709a442ea00026e8d5a6b8d52bc90c6fb785c4572e1f7d",
    "a6c54cfb28d42bd37d308088ee17f93d843586f602b23679ef5405dead4871a2",
    "1b8216e673a795b03de854ccc2f4b0906c9d5a12d174afc0725d7fd4b9d705d5",
    "c5f03794b5b9e6eca1e629b6fbee93377faf2785e3212dd502eb120baed8ac8f",
)


def test_released_migration_steps_never_change() -> None:
    # Libraries on users' disks were made by these scripts; a change needs a new step.
    assert SCHEMA_VERSION == len(MIGRATIONS) == 10
    digests = tuple(hashlib.sha256(step.encode()).hexdigest() for step in MIGRATIONS)
    assert digests == RELEASED_MIGRATIONS


def _schema(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    return conn.execute(
        "SELECT type, name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name"
    ).fetchall()


def test_a_version_1_library_is_migrated_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(f"BEGIN;\n{MIGRATIONS[0]};\nPRAGMA user_version = 1;\nCOMMIT;")
    conn.execute("INSERT INTO courses(id, name, root, created_at) VALUES (1, 'Old', NULL, 'x')")
    conn.execute(
        "INSERT INTO sources(id, course_id, path, kind, title, status, added_at) "
        "VALUES (1, 1, '/old.md', 'notes', 'old.md', 'indexed', 'x')"
    )
    conn.execute(
        "INSERT INTO segments(id, source_id, ord, kind, heading, text, timings) "
        "VALUES (7, 1, 0, 'note', 'Eigen', 'eigenvalues of a matrix', '[[0,900,\"a\"]]')"
    )
    conn.close()

    store = Store(path)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert _schema(store.conn) == _schema(Store(":memory:").conn)
    assert [h[0] for h in store.segments.fulltext('"eigenvalues"', 10)] == [7]
    row = store.segments.by_ids([7])[7]
    assert (row.course, row.source_path, row.timings, row.words) == (
        "Old",
        "/old.md",
        (Timing(0, 900, "a"),),
        (),
    )
    assert [(c.name, c.sources, c.segments) for c in store.catalog.courses()] == [("Old", 1, 1)]


# --- transactions ------------------------------------------------------------------------


def test_a_nested_transaction_that_fails_rolls_back_only_its_own_writes() -> None:
    store = Store(":memory:")
    before = store.generation
    with store.transaction():
        store.catalog.ensure_course("kept")
        with pytest.raises(RuntimeError), store.transaction():
            store.catalog.ensure_course("dropped")
            raise RuntimeError("inner step failed")
        store.catalog.ensure_course("also kept")
    assert [c.name for c in store.catalog.courses()] == ["also kept", "kept"]
    assert store.generation == before + 2


def test_a_failure_that_escapes_a_nested_transaction_rolls_back_everything() -> None:
    store = Store(":memory:")
    with pytest.raises(RuntimeError), store.transaction():
        store.catalog.ensure_course("outer")
        with store.transaction():
            store.catalog.ensure_course("inner")
        raise RuntimeError("late failure")
    assert store.catalog.courses() == []
    assert not store.conn.in_transaction
    store.catalog.ensure_course("after")  # the connection is usable again
    assert [c.name for c in store.catalog.courses()] == ["after"]


def test_a_taken_course_name_is_refused_and_changes_nothing() -> None:
    store = Store(":memory:")
    store.catalog.ensure_course("A")
    store.catalog.ensure_course("B")
    with pytest.raises(CoursedexError, match="already a course named 'b'"):
        store.catalog.rename_course("A", "b")
    assert [c.name for c in store.catalog.courses()] == ["A", "B"]


# --- rows come back by name ----------------------------------------------------------------


def test_video_rows_have_names_and_still_unpack_as_tuples() -> None:
    store = Store(":memory:")
    (_,) = _add(store, "/deck.md", ["slide one"])
    deck = store.catalog.source_by_path("/deck.md")
    course_id = store.catalog.ensure_course("c")
    video = store.catalog.upsert_source(
        course_id=course_id,
        path="/v.mp4",
        kind=SourceKind.VIDEO,
        title="v",
        status=SourceStatus.INDEXING,
    )
    assert deck is not None
    with store.transaction():
        store.recordings.put_scenes(video, [(0, 5000, 2000, "t0.jpg"), (5000, 9000, 6000, "")])
    store.recordings.replace_slide_links(video, [(1000, 4000, deck.id, 1, 0.75)])
    store.recordings.add_transcript_part(
        "h" * 64, "tiny", 0, 1200, "hello", [Timing(0, 500, "hello")]
    )
    store.recordings.finish_transcript("h" * 64, "tiny", "en", 9000)

    scene = store.recordings.scenes(video)[1]
    assert (scene.start_ms, scene.keyframe_ms, scene.thumbnail) == (5000, 6000, "")
    assert store.recordings.thumbnail_at(video, 4000) == "t0.jpg"
    assert store.recordings.thumbnail_at(video, 6000) is None
    assert store.recordings.thumbnails_of_source(video) == ["t0.jpg"]
    (link,) = store.recordings.slide_links(video)
    assert (link.slides_id, link.page, link.score) == (deck.id, 1, 0.75)
    assert link == (1000, 4000, deck.id, 1, 0.75)
    assert store.recordings.slide_at(video, 2000) == ("/deck.md", 1)
    assert store.recordings.slide_at(video, 4000) is None
    assert store.recordings.shown_at(deck.id, 1) == [("/v.mp4", 1000, 4000)]
    (part,) = store.recordings.transcript_parts("h" * 64, "tiny")
    start, end, text, words = part
    assert (start, end, text, words) == (0, 1200, "hello", (Timing(0, 500, "hello"),))
    finished = store.recordings.transcript_finished("h" * 64, "tiny")
    assert finished is not None and finished.language == "en" and finished.duration_ms == 9000
    store.recordings.forget_transcript("h" * 64)
    assert store.recordings.transcript_parts("h" * 64, "tiny") == []
    assert store.recordings.transcript_finished("h" * 64, "tiny") is None


def test_texts_neighbours_and_stats_read_their_rows_by_name() -> None:
    store = Store(":memory:")
    ids = _add(store, "/a.md", ["first part", "second part", "third part"])
    (second,) = store.segments.texts([ids[1]])
    assert (second.id, second.heading, second.text, second.source_title) == (
        ids[1],
        "Head",
        "second part",
        "t",
    )
    assert [t.id for batch in store.segments.iter_texts(batch=2) for t in batch] == ids
    assert store.segments.neighbours([ids[0], ids[1]]) == {
        ids[0]: ("", "second part"),
        ids[1]: ("first part", "third part"),
    }
    stats = store.stats()
    assert stats["segments_by_kind"] == {"note": 3}
    assert stats["sources_by_status"] == {"indexed": 1}
    assert (stats["courses"], stats["sources"], stats["segments"]) == (1, 1, 3)


def test_a_read_only_open_reads_a_library_a_row_step_behind_and_changes_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "library.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 3")  # before step 4, which only removes rows
    conn.commit()
    conn.close()
    store = Store(path, read_only=True)
    assert store.catalog.courses() == []
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == 3
    store.close()
    _a_library_a_step_before_the_speech_model_reads_its_files(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 2")  # tables of step 3 missing: cannot be read as is
    conn.commit()
    conn.close()
    with pytest.raises(LibraryError, match="cannot be opened until it can be upgraded"):
        Store(path, read_only=True)


def _a_library_a_step_before_the_speech_model_reads_its_files(tmp_path: Path) -> None:
    """Schema 5 (before step 6 added sources.speech_model), opened read-only: its files are
    listed, with no speech model; migrated, the same."""
    path = tmp_path / "v5.db"
    conn = sqlite3.connect(path, isolation_level=None)
    script = ";\n".join(MIGRATIONS[:5])
    conn.executescript(f"BEGIN;\n{script};\nPRAGMA user_version = 5;\nCOMMIT;")
    conn.execute("INSERT INTO courses(id, name, root, created_at) VALUES (1, 'Old', NULL, 'x')")
    conn.execute(
        "INSERT INTO sources(id, course_id, path, kind, title, status, added_at) "
        "VALUES (1, 1, '/old.mp4', 'video', 'old', 'indexed', 'x')"
    )
    conn.close()
    store = Store(path, read_only=True)
    [source] = store.catalog.sources()
    assert (source.path, source.speech_model, source.language) == ("/old.mp4", None, None)
    store.close()
    store = Store(path)
    [source] = store.catalog.sources()
    assert (source.path, source.speech_model, source.language) == ("/old.mp4", None, None)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    store.close()


def test_a_transcription_is_kept_per_language_asked() -> None:
    store = Store(":memory:")
    rec = store.recordings
    rec.add_transcript_part("s" * 64, "base", 0, 900, "hola", [], asked="es")
    rec.add_transcript_part("s" * 64, "base", 0, 900, "hallo", [], asked="de")
    rec.add_transcript_part("s" * 64, "base", 900, 1800, "mundo", [], asked="es")
    rec.finish_transcript("s" * 64, "base", "es", 1800, asked="es")
    assert [p.text for p in rec.transcript_parts("s" * 64, "base", "es")] == ["hola", "mundo"]
    assert [p.text for p in rec.transcript_parts("s" * 64, "base", "de")] == ["hallo"]
    assert rec.transcript_parts("s" * 64, "base") == []  # the model's own choice: none yet
    assert rec.transcript_finished("s" * 64, "base", "de") is None
    assert rec.transcript_finished("s" * 64, "base", "es") == ("es", 1800)
    rec.forget_transcript("s" * 64)
    assert rec.transcript_parts("s" * 64, "base", "es") == []


def test_a_language_set_for_a_content_is_kept_until_forgotten() -> None:
    store = Store(":memory:")
    assert store.recordings.chosen_language("c" * 64) is None
    store.recordings.choose_language("c" * 64, "es")
    store.recordings.choose_language("c" * 64, "de")
    assert store.recordings.chosen_language("c" * 64) == "de"
    assert store.recordings.chosen_language("d" * 64) is None
    store.recordings.choose_language("c" * 64, None)
    assert store.recordings.chosen_language("c" * 64) is None


def test_step_9_keys_kept_transcriptions_by_the_language_they_were_heard_in(
    tmp_path: Path,
) -> None:
    db = tmp_path / "library.db"
    conn = sqlite3.connect(db)
    script = ";\n".join(MIGRATIONS[:8])
    conn.executescript(f"BEGIN;\n{script};\nPRAGMA user_version = 8;\nCOMMIT;")
    parts = "INSERT INTO transcript_parts VALUES (?, ?, ?, 0, 900, ?, NULL)"
    conn.execute(parts, ("a" * 64, "faster-whisper-tiny.en", 0, "hello"))
    conn.execute(parts, ("b" * 64, "faster-whisper-small", 0, "hola"))
    conn.execute(parts, ("c" * 64, "faster-whisper-small", 0, "halb"))  # unfinished
    conn.execute(
        "INSERT INTO transcripts VALUES (?, 'faster-whisper-small', 'es', 900)", ("b" * 64,)
    )
    conn.commit()
    conn.close()
    store = Store(db)
    rec = store.recordings
    assert [p.text for p in rec.transcript_parts("a" * 64, "faster-whisper-tiny.en", "en")] == [
        "hello"
    ]
    assert [p.text for p in rec.transcript_parts("b" * 64, "faster-whisper-small", "es")] == [
        "hola"
    ]
    assert rec.transcript_finished("b" * 64, "faster-whisper-small", "es") == ("es", 900)
    assert [p.text for p in rec.transcript_parts("c" * 64, "faster-whisper-small")] == ["halb"]
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
