"""Issue 18's data-safety defects, each with the real thing that showed it: a file a reader
fails on in a way nobody foresaw, a truncated database, a full disk, odd paths."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sqlite3
import subprocess
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from engine.config import EngineConfig, SearchConfig
from engine.errors import LibraryBusyError, LibraryError
from engine.importing.progress import IngestProgress, IngestReport, Outcome, Stage
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry
from engine.store import Store
from engine.types import SourceKind, SourceStatus
from tests.english import english
from tests.places import at_moment
from tools.factories import make_pdf, make_srt
from tools.lecture_media import Clip, make_audio, make_lecture_video, pdf_page_images


class _NamelessInfo(zipfile.ZipInfo):
    """Lets zipfile write a member with an empty name (it refuses one of its own accord)."""

    def is_dir(self) -> bool:
        return False


def make_nameless_zip(path: Path) -> Path:
    """A zip whose one member has an empty name: zipfile's own ``is_dir`` raises IndexError
    on it, a failure no reader of ours expects."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(_NamelessInfo(""), "def f():\n    return 1\n")
    return path


def test_an_unexpected_failure_ends_that_file_and_the_import_goes_on(
    library: Library, tmp_path: Path
) -> None:
    folder = tmp_path / "Course"
    folder.mkdir()
    odd = make_nameless_zip(folder / "a-odd.zip")
    (folder / "b-notes.md").write_text("# Otters\n\nThe sea otter uses a stone as a tool.\n")
    report = library.ingest([folder])
    outcomes = {Path(f.path).name: f for f in report.files}
    assert outcomes["b-notes.md"].outcome == Outcome.INDEXED
    failed = outcomes["a-odd.zip"]
    assert failed.outcome == Outcome.ERROR
    assert "IndexError" in failed.detail and "\n" not in failed.detail
    source = library.source(str(odd))
    assert source is not None and source.status == SourceStatus.ERROR
    assert library.search("sea otter stone").results


# --- item 12: what a file given by name is ------------------------------------------------


def test_a_fifo_or_device_given_by_name_is_not_a_regular_file(
    library: Library, tmp_path: Path
) -> None:
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)  # nothing ever writes to it: opening it to read would wait forever
    report = library.ingest([fifo, "/dev/null"])
    details = {Path(f.path).name: f for f in report.files}
    assert details["pipe.md"].outcome == Outcome.ERROR
    assert details["pipe.md"].detail == "not a regular file (a named pipe)"
    assert details["null"].outcome == Outcome.ERROR
    assert details["null"].detail == "not a regular file (a device)"


def test_a_symlink_is_reported_under_the_name_the_user_gave(
    library: Library, tmp_path: Path
) -> None:
    target = tmp_path / "store" / "3f9a1c.md"
    target.parent.mkdir()
    target.write_text("# Lemurs\n\nThe ring-tailed lemur lives in Madagascar.\n")
    link = tmp_path / "lemur-notes.md"
    link.symlink_to(target)
    report = library.ingest([link])
    assert [Path(f.path).name for f in report.files] == ["lemur-notes.md"]
    assert report.files[0].outcome == Outcome.INDEXED
    hit = library.search("ring-tailed lemur").results[0]
    assert hit.source == str(link)
    assert library.source(str(target)) is None
    assert library.remove(str(link)).count == 1  # by the name it was imported under


def test_an_audio_only_mkv_is_audio_and_not_scanned_for_frames(
    library: Library, tmp_path: Path
) -> None:
    mkv = tmp_path / "talk.mkv"
    spoken_ms = make_audio(mkv, "The capybara is the largest rodent in the world.")
    report = library.ingest([mkv])
    result = report.files[0]
    assert result.outcome == Outcome.INDEXED, result.detail
    assert "frames" not in result.detail
    source = library.source(str(mkv))
    assert source is not None and source.kind == SourceKind.AUDIO
    assert source.duration_ms is not None and source.duration_ms < spoken_ms + 5_000
    assert library.store.recordings.scenes(source.id) == []
    assert library.search("capybara rodent").results[0].source == str(mkv)


# --- item 3: a truncated database ---------------------------------------------------------


def _contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _open(folder: Path, embedder: OnnxEmbedder) -> Library:
    return Library.open(folder, english(), lambda: embedder)


@pytest.mark.parametrize("keep", [0.0, 0.5])
def test_a_truncated_database_is_refused_and_nothing_is_changed(
    built_library_dir: Path, embedder: OnnxEmbedder, keep: float
) -> None:
    db = built_library_dir / "library.db"
    data = db.read_bytes()
    db.write_bytes(data[: int(len(data) * keep)])
    before = _contents(built_library_dir)
    assert any(name.startswith("vectors") for name in before)
    with pytest.raises(LibraryError) as raised:
        _open(built_library_dir, embedder)
    message = str(raised.value)
    assert str(db) in message and "\n" not in message
    assert "backup" in message
    assert _contents(built_library_dir) == before


def test_a_database_replaced_by_an_empty_one_is_refused(
    built_library_dir: Path, embedder: OnnxEmbedder
) -> None:
    db = built_library_dir / "library.db"
    db.unlink()
    Store(db).close()  # a valid library database that never held anything
    before = _contents(built_library_dir)
    with pytest.raises(LibraryError, match=r"library\.db"):
        _open(built_library_dir, embedder)
    assert _contents(built_library_dir) == before


# --- item 5: a full disk ------------------------------------------------------------------


@contextmanager
def _tmpfs(mount: Path, size: str) -> Iterator[Path]:
    """A real file system of ``size`` (tmpfs) at ``mount``, unmounted afterwards; the test is
    skipped where this process may not mount (it needs root or a system that allows it)."""
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a file system here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1.5 MB file system."""
    with _tmpfs(tmp_path / "tiny", "1500k") as mount:
        yield mount


def _notes(folder: Path, count: int) -> list[Path]:
    """``count`` notes of ~400 distinct words each; note i is found by "w{i}x7"."""
    folder.mkdir()
    notes = []
    for i in range(count):
        note = folder / f"n{i:02d}.md"
        note.write_text(f"# Note {i}\n\n" + " ".join(f"w{i}x{j}" for j in range(400)) + "\n")
        notes.append(note)
    return notes


def test_a_full_disk_ends_files_as_errors_and_loses_nothing(
    tiny_disk: Path, tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    notes = _notes(tmp_path / "Course", 40)
    lib = _open(tiny_disk / "lib", embedder)
    report = lib.ingest([notes[0].parent])  # must not raise: the disk fills a third of the way
    lib.close()  # nor here, where the vector index cannot be saved
    indexed = [Path(f.path) for f in report.files if f.outcome == Outcome.INDEXED]
    failed = [f for f in report.files if f.outcome == Outcome.ERROR]
    assert indexed and failed, report.files
    assert all(f.detail.startswith("disk full") and "\n" not in f.detail for f in failed)

    subprocess.run(["mount", "-o", "remount,size=50m", str(tiny_disk)], check=True)
    with _open(tiny_disk / "lib", embedder) as lib:
        db = lib.store.conn
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        for note in indexed:  # what was indexed is whole and found, by words and by meaning
            i = notes.index(note)
            assert lib.search(f"w{i}x7").results[0].source == str(note)
        assert lib.stats()["vectors"] == db.execute("SELECT count(*) FROM embeddings").fetchone()[0]
        again = lib.ingest([notes[0].parent])
        assert again.count(Outcome.ERROR) == 0, again.errors
        assert {Path(f.path) for f in again.files if f.outcome == Outcome.UNCHANGED} == set(indexed)
        assert all(lib.search(f"w{i}x7").results[0].source == str(n) for i, n in enumerate(notes))
        assert lib.stats()["vectors"] == db.execute("SELECT count(*) FROM segments").fetchone()[0]


# --- item 4: two processes at once --------------------------------------------------------


def _open_new_libraries(folders: list[str], start: Any, errors: Any) -> None:
    """In a child process: open (so create) each library when every child is ready to."""
    from engine.errors import CoursedexError

    def no_model() -> OnnxEmbedder:
        raise AssertionError("opening a library must not load a model")

    for folder in folders:
        start.wait()
        try:
            Library.open(folder, EngineConfig(), no_model).close()
        except (CoursedexError, sqlite3.Error) as e:
            errors.put(f"{type(e).__name__}: {e}")


def test_processes_creating_one_library_at_once_all_open_it(tmp_path: Path) -> None:
    spawn = multiprocessing.get_context("spawn")
    errors = spawn.Queue()
    start = spawn.Barrier(4)
    folders = [str(tmp_path / f"lib{attempt}") for attempt in range(8)]
    children = [
        spawn.Process(target=_open_new_libraries, args=(folders, start, errors)) for _ in range(4)
    ]
    for child in children:
        child.start()
    for child in children:
        child.join(120)
    assert [child.exitcode for child in children] == [0] * 4
    found = []
    while not errors.empty():
        found.append(errors.get())
    assert found == []


def _ingest_at_once(
    models: str, libraries: list[str], files: list[str], start: Any, results: Any
) -> None:
    """In a child process: import ``files`` into each library when every child is ready."""
    registry = ModelRegistry(Path(models))
    model = registry.load_embedder(DEFAULT_EMBEDDER, 1)
    for folder in libraries:
        with Library.open(folder, EngineConfig(), lambda: model, models=registry) as lib:
            start.wait()
            report = lib.ingest(files)
        results.put([(Path(f.path).name, f.outcome.value, f.detail) for f in report.files])


@pytest.fixture(scope="module")
def subtitled_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 9-second video of three slides, with its subtitles beside it (no speech to
    recognise: the frames are read for their text after the subtitles are searchable)."""
    folder = tmp_path_factory.mktemp("video")
    deck = make_pdf(
        folder / "deck.pdf",
        ["Tapirs\nThe tapir browses", "Pangolins\nScales of keratin", "Quokkas\nSmiling"],
        slides=True,
    )
    frames = pdf_page_images(deck, folder / "frames")
    video = folder / "zoo" / "lecture.mp4"
    video.parent.mkdir()
    make_lecture_video(video, [Clip(frame, seconds=3) for frame in frames], audio=False)
    make_srt(video.with_suffix(".srt"), [(0, 3000, "Tapirs browse."), (3000, 9000, "More.")])
    return video


def test_two_processes_importing_one_video_at_once_write_it_once(
    tmp_path: Path, models_dir: Path, subtitled_video: Path, embedder: OnnxEmbedder
) -> None:
    spawn = multiprocessing.get_context("spawn")
    results = spawn.Queue()
    start = spawn.Barrier(2)
    libraries = [str(tmp_path / f"lib{attempt}") for attempt in range(2)]
    args = (str(models_dir), libraries, [str(subtitled_video)], start, results)
    children = [spawn.Process(target=_ingest_at_once, args=args) for _ in range(2)]
    for child in children:
        child.start()
    for child in children:
        child.join(600)
    assert [child.exitcode for child in children] == [0, 0]
    reports = [results.get() for _ in range(4)]
    assert all(outcome in ("indexed", "unchanged") for r in reports for _, outcome, _ in r)
    with Library.open(tmp_path / "single", EngineConfig(), lambda: embedder) as lib:
        lib.ingest([subtitled_video])
        want = _segment_kinds(lib)
    for folder in libraries:
        with Library.open(folder, EngineConfig(), lambda: embedder) as lib:
            assert _segment_kinds(lib) == want
            assert lib.ingest([subtitled_video]).files[0].outcome == Outcome.UNCHANGED
            assert lib.stats()["vectors"] == sum(want.values())


def _segment_kinds(lib: Library) -> dict[str, int]:
    rows = lib.store.conn.execute("SELECT kind, count(*) FROM segments GROUP BY kind")
    return dict(rows.fetchall())


def _import_pausing(models: str, library: str, course: str, committed: Any, go_on: Any) -> None:
    """In a child process: import ``course``, pausing after its first file is committed."""
    registry = ModelRegistry(Path(models))
    model = registry.load_embedder(DEFAULT_EMBEDDER, 1)

    def pause(p: IngestProgress) -> None:
        if p.result is not None and p.index == 0:
            committed.set()
            go_on.wait(300)

    with Library.open(library, EngineConfig(), lambda: model, models=registry) as lib:
        lib.ingest([course], progress=pause)


def test_search_and_remove_while_another_process_imports(
    tmp_path: Path,
    models_dir: Path,
    embedder: OnnxEmbedder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    folder = tmp_path / "lib"
    with _open(folder, embedder) as lib:
        lib.ingest([_note(tmp_path / "Old", "walrus", "The walrus hauls out on the ice.")])
    course = _note(tmp_path / "New", "narwhal", "The narwhal has one long spiral tusk.")
    (course / "z-more.md").write_text("# Beluga\n\nThe beluga whale is white.\n")
    spawn = multiprocessing.get_context("spawn")
    committed, go_on = spawn.Event(), spawn.Event()
    child = spawn.Process(
        target=_import_pausing, args=(str(models_dir), str(folder), str(course), committed, go_on)
    )
    child.start()
    try:
        assert committed.wait(300)
        index_files = _contents(folder / "vectors")
        with _open(folder, embedder) as lib:  # the narwhal is committed, its vector not saved
            hits = lib.search("a whale with a spiral tusk", config=SearchConfig(fulltext=False))
            assert hits.results[0].source == str(course / "narwhal.md")
            with pytest.raises(LibraryBusyError, match="another Coursedex is importing"):
                lib.remove("New")
            with pytest.raises(LibraryBusyError):
                lib.remove("Old")
            # An import here waits for that one, saying so, until it is cancelled.
            stop = threading.Event()
            stages: list[str] = []

            def wait_then_cancel(p: IngestProgress) -> None:
                stages.append(p.stage)
                stop.set()

            waited = lib.ingest([course], progress=wait_then_cancel, cancel=stop)
            assert stages == [Stage.WAITING]
            assert {f.outcome for f in waited.files} == {Outcome.CANCELLED}
        assert _contents(folder / "vectors") == index_files  # this process wrote nothing
        assert not [r for r in caplog.records if "repaired" in r.getMessage()]
    finally:
        go_on.set()
        child.join(300)
    assert child.exitcode == 0
    with _open(folder, embedder) as lib:
        assert lib.search("beluga").results[0].source == str(course / "z-more.md")
        assert lib.remove("Old").count == 1
    assert not [r for r in caplog.records if "repaired" in r.getMessage()]


def test_removing_a_course_while_it_is_imported_is_refused(
    library: Library, tmp_path: Path
) -> None:
    course = _note(tmp_path / "Marine", "orca", "The orca hunts in family pods.")
    (course / "z-seal.md").write_text("# Seals\n\nThe grey seal breeds on rocky shores.\n")
    committed, go_on = threading.Event(), threading.Event()

    def pause(p: IngestProgress) -> None:
        if p.result is not None and p.index == 0:
            committed.set()
            go_on.wait(60)

    reports: list[IngestReport] = []
    worker = threading.Thread(
        target=lambda: reports.append(library.ingest([course], progress=pause))
    )
    worker.start()
    try:
        assert committed.wait(60)
        with pytest.raises(LibraryBusyError, match="Marine is being imported"):
            library.remove("Marine")
        with pytest.raises(LibraryBusyError, match="Marine is being imported"):
            library.remove(str(course / "orca.md"))
    finally:
        go_on.set()
        worker.join(60)
    assert reports[0].count(Outcome.INDEXED) == 2
    assert library.search("grey seal").results[0].source == str(course / "z-seal.md")
    assert library.remove("Marine").count == 2
    assert library.search("orca").results == []


def _note(folder: Path, name: str, text: str) -> Path:
    folder.mkdir()
    (folder / f"{name}.md").write_text(f"# {name.title()}\n\n{text}\n")
    return folder


# --- item 8: read-only and odd library paths ----------------------------------------------


def test_a_library_path_that_is_a_file_is_refused(tmp_path: Path, embedder: OnnxEmbedder) -> None:
    path = tmp_path / "library"
    path.write_text("not a folder\n")
    with pytest.raises(LibraryError, match="is a file, not a library folder"):
        _open(path, embedder)


def test_a_library_path_with_spaces_and_accents_works(
    tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    folder = tmp_path / "Mes cours d'été 学习" / "my library"
    with _open(folder, embedder) as lib:
        lib.ingest([_note(tmp_path / "Été", "ibis", "The sacred ibis wades in marshes.")])
    with _open(folder, embedder) as lib:
        assert Path(lib.search("sacred ibis").results[0].source).name == "ibis.md"


@pytest.fixture
def read_only_mount(tmp_path: Path, built_library_dir: Path) -> Iterator[Path]:
    """The built library copied onto a real file system, which is then made read-only."""
    with _tmpfs(tmp_path / "ro", "64m") as mount:
        shutil.copytree(built_library_dir, mount / "lib")
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        yield mount / "lib"


def _read_only_library_searches_and_refuses_changes(
    folder: Path, embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    """Searches work and changes are refused, and nothing changes but SQLite's shared-memory
    and log files, which a reader of a WAL database makes beside it when it can."""

    def files() -> dict[str, bytes]:
        return {k: v for k, v in _contents(folder).items() if not k.endswith(("-shm", "-wal"))}

    before = files()
    with _open(folder, embedder) as lib:
        assert lib.search("axolotl").results[0].source.endswith("notes.md")
        assert lib.search("regenerating amphibian", config=SearchConfig(fulltext=False)).results
        note = _note(tmp_path / "More", "gecko", "The gecko climbs glass.")
        with pytest.raises(LibraryError, match=r"is read-only .* cannot import"):
            lib.ingest([note])
        with pytest.raises(LibraryError, match=r"is read-only .* cannot remove"):
            lib.remove("Chemistry")
        with pytest.raises(LibraryError, match=r"is read-only .* cannot follow a folder"):
            lib.follow("Chemistry", on=False)
        with pytest.raises(LibraryError, match=r"is read-only .* cannot import from a web page"):
            lib.set_origin(tmp_path / "lecture.mp4", "https://example.org/watch?v=abc")
        assert lib.read_only is not None
    assert files() == before


def test_a_library_on_a_read_only_mount_is_searched_and_refuses_changes(
    read_only_mount: Path, embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    _read_only_library_searches_and_refuses_changes(read_only_mount, embedder, tmp_path)


@pytest.fixture
def immutable_database(built_library_dir: Path) -> Iterator[Path]:
    db = built_library_dir / "library.db"
    done = subprocess.run(["chattr", "+i", str(db)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot make a file immutable here: {done.stderr.decode().strip()}")
    try:
        yield built_library_dir
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=False)


def test_an_immutable_database_is_searched_and_refuses_changes(
    immutable_database: Path, embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    _read_only_library_searches_and_refuses_changes(immutable_database, embedder, tmp_path)


def test_a_lock_that_cannot_be_made_opens_the_library_read_only(
    built_library_dir: Path, embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    """A folder named library.lock (a sync tool's conflict copy, a user's mistake): even a
    search failed with 'cannot write to the library'; it is searched read-only."""
    (built_library_dir / "library.lock").unlink(missing_ok=True)
    (built_library_dir / "library.lock").mkdir()
    _read_only_library_searches_and_refuses_changes(built_library_dir, embedder, tmp_path)


def test_on_screen_text_duplicated_by_an_earlier_version_is_removed_once(
    tmp_path: Path, subtitled_video: Path, embedder: OnnxEmbedder
) -> None:
    folder = tmp_path / "lib"
    with _open(folder, embedder) as lib:
        lib.ingest([subtitled_video])
        want = _segment_kinds(lib)
        # What two imports at once left behind before the write lock: every row of the
        # screen read twice, with its vector, and the library at schema 3.
        conn = lib.store.conn
        columns = "source_id, ord, kind, start_ms, end_ms, page, heading, text, extra, timings"
        conn.execute(
            f"INSERT INTO segments({columns}) SELECT source_id, ord + 100, kind, start_ms, "
            "end_ms, page, heading, text, extra, timings FROM segments WHERE kind = 'screen'"
        )
        conn.execute(
            "INSERT INTO embeddings(segment_id, space, vector) SELECT d.id, e.space, e.vector "
            "FROM segments d JOIN segments s ON s.source_id = d.source_id "
            "AND s.ord + 100 = d.ord JOIN embeddings e ON e.segment_id = s.id"
        )
        conn.execute("PRAGMA user_version = 3")
    with _open(folder, embedder) as lib:
        assert _segment_kinds(lib) == want
        assert lib.stats()["vectors"] == sum(want.values())
        stored = lib.store.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0]
        assert stored == sum(want.values())
        assert lib.search("pangolins keratin").results[0].source == str(subtitled_video)


def test_thumbnails_no_scene_shows_are_removed_by_the_next_writer(
    tmp_path: Path, subtitled_video: Path, embedder: OnnxEmbedder
) -> None:
    """An import stopped while a video's frames were read (Ctrl+C, the window closed) left
    their thumbnails, written before the scenes, in thumbs/ for good when the video was not
    imported again. The next process to write removes those; the scenes' own stay, and a
    file of another name is not ours to judge."""
    folder = tmp_path / "lib"
    with _open(folder, embedder) as lib:
        lib.ingest([subtitled_video])
    shown = {p.name for p in (folder / "thumbs").glob("*.jpg")}
    assert len(shown) == 3, shown
    stopped = [folder / "thumbs" / f"0123456789abcdef-{i:04d}.jpg" for i in range(2)]
    for path in stopped:
        path.write_bytes(next(iter((folder / "thumbs").glob("*.jpg"))).read_bytes())
    kept = folder / "thumbs" / "cover.jpg"
    kept.write_bytes(b"not ours")
    with _open(folder, embedder) as lib:
        hit = lib.search("pangolins keratin").results[0]
        thumbnail = at_moment(hit).thumbnail
        assert thumbnail is not None and Path(thumbnail).is_file(), hit
    assert {p.name for p in (folder / "thumbs").glob("*.jpg")} == shown | {"cover.jpg"}
