"""Damage at rest (issue 15, item 4): a library's files damaged while nothing runs, each
detected with one clear line, repaired where the library holds what it takes, and never
silently wrong. The user's side is the real command line in a child process; the steps
before and after the one a test is about run it in-process (tests/engine/cli_run.py)."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import numpy as np
import pytest

from engine.config import EngineConfig
from engine.errors import LibraryError
from engine.importing.progress import IngestProgress
from engine.index.vectors import VectorIndex
from engine.library import Library
from engine.models.embedder import OnnxEmbedder
from engine.models.integrity import VERIFIED_NAME
from engine.models.manifest import sha256_file
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry
from tests.engine.cli_run import InProcessCli
from tests.engine.cli_run import child_cli as _cli
from tests.engine.cli_run import library_files as _files
from tests.engine.library.test_data_safety import _tmpfs

# --- a full disk while the vector index is saved ------------------------------------------


def _fill(disk: Path, leave: int) -> None:
    """Fill the file system at ``disk`` up to ``leave`` bytes free."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    written = 0
    try:
        while True:
            written += os.write(fd, b"x" * 4096)
    except OSError:
        pass
    os.ftruncate(fd, max(0, written - leave))
    os.close(fd)


def test_an_index_saved_to_a_full_disk_keeps_the_last_good_one(tmp_path: Path) -> None:
    """hnswlib's save_index said nothing when the disk filled: the good index was replaced
    by one cut short, with a sidecar that vouched for it."""
    rng = np.random.default_rng(7)
    with _tmpfs(tmp_path / "disk", "1m") as disk:
        folder = disk / "vectors"
        index = VectorIndex.open(folder, "text", dimension=384, model_id="m")
        first = rng.standard_normal((10, 384)).astype(np.float32)
        index.add(np.arange(10), first)
        index.save()
        saved = {p.name: p.read_bytes() for p in folder.iterdir()}
        _fill(disk, leave=8192)
        index.add(np.arange(10, 400), rng.standard_normal((390, 384)).astype(np.float32))
        with pytest.raises(LibraryError, match=r"cannot save vector index .*disk full"):
            index.save()
        assert {p.name: p.read_bytes() for p in folder.iterdir()} == saved  # no temp file left
        again = VectorIndex.open(folder, "text", dimension=384, model_id="m")
        assert not again.needs_rebuild and again.ids() == set(range(10))
        assert again.search(first[3], 1)[0].tolist() == [3]


# --- the vector index against the database --------------------------------------------------


def _course(folder: Path, notes: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    for name, text in notes.items():
        (folder / f"{name}.md").write_text(f"# {name.title()}\n\n{text}\n", encoding="utf-8")
    return folder


FILLERS = {
    f"topic{i:02d}": f"Chapter {i} of the history book covers the year {1700 + i}."
    for i in range(40)
}


def _index_holds_the_stored_vectors(folder: Path, embedder: OnnxEmbedder) -> None:
    with Library.open(folder, EngineConfig(), lambda: embedder) as lib:
        rows = lib.store.conn.execute("SELECT segment_id FROM embeddings").fetchall()
        ids = [r[0] for r in rows]
        got_ids, stored = lib.store.embeddings.vectors(ids, embedder.dimension)
        index = lib.indexer.index
        assert index is not None and index.ids() == set(ids)
        for sid, vector in zip(got_ids.tolist(), stored, strict=True):
            near, distances = index.search(vector, 5)  # 5: segments may share a text
            assert sid in near[distances < 1e-4].tolist(), (sid, near, distances)


def test_an_index_from_an_older_copy_never_keeps_a_vector_for_a_row_that_is_gone(
    tmp_path: Path,
    models_dir: Path,
    embedder: OnnxEmbedder,
    cli_main: InProcessCli,
) -> None:
    """The segment ids of a removed file go to the next file imported (SQLite reuses the
    highest free id). An index saved before that, put back from a copy (or left by a kill
    before the index was saved), held the old file's vector under the new file's id, and
    the reconcile at open, which compares ids only, kept it: the new file was not found by
    meaning."""
    library = tmp_path / "lib"
    course = _course(tmp_path / "Zoo", FILLERS | {"zz-pangolin": "The pangolin has scales."})
    assert cli_main(library, models_dir, "ingest", str(course)).returncode == 0
    older = tmp_path / "older-vectors"
    shutil.copytree(library / "vectors", older)
    assert cli_main(library, models_dir, "remove", str(course / "zz-pangolin.md")).returncode == 0
    volcano = _course(tmp_path / "Geology", {"volcano": "The volcano erupts molten lava and ash."})
    assert cli_main(library, models_dir, "ingest", str(volcano)).returncode == 0
    shutil.rmtree(library / "vectors")
    shutil.copytree(older, library / "vectors")

    found = _cli(library, models_dir, "search", "--mode", "dense", "--json", "a volcano erupting")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["results"]
    assert hits[0]["source"] == str(volcano / "volcano.md")
    assert found.stderr.splitlines() == [
        "WARNING engine.index.vector_files: vector index repaired from the library database: "
        "1 added (1 of them replaced), 0 removed"
    ]
    _index_holds_the_stored_vectors(library, embedder)
    again = cli_main(
        library, models_dir, "search", "--mode", "dense", "--json", "a volcano erupting"
    )
    assert again.lines == []  # the repaired index was saved


def _garble(path: Path) -> None:
    path.write_bytes(np.random.default_rng(3).bytes(path.stat().st_size))


def _from_another_library(folder: Path, embedder: OnnxEmbedder, *names: str) -> None:
    """Index files of another library with the same model (a folder restored wrongly)."""
    other = folder.parent / "other"
    with Library.open(other, EngineConfig(), lambda: embedder) as lib:
        lib.ingest([_course(folder.parent / "Other", {"kiwi": "The kiwi cannot fly."})])
    for name in names:
        shutil.copy(other / "vectors" / name, folder / "vectors" / name)


DAMAGE = {
    "index deleted": lambda v: (v / "text.hnsw").unlink(),
    "index truncated": lambda v: os.truncate(
        v / "text.hnsw", (v / "text.hnsw").stat().st_size // 2
    ),
    "index garbage": lambda v: _garble(v / "text.hnsw"),
    "index empty": lambda v: os.truncate(v / "text.hnsw", 0),
    "sidecar deleted": lambda v: (v / "text.json").unlink(),
    "sidecar garbage": lambda v: _garble(v / "text.json"),
    "sidecar empty": lambda v: os.truncate(v / "text.json", 0),
}


ANOTHER_LIBRARY = {
    "sidecar from another library": ("text.json",),
    "both from another library": ("text.hnsw", "text.json"),
}


@pytest.mark.parametrize("damage", [*DAMAGE, *ANOTHER_LIBRARY])
def test_a_damaged_vector_index_is_rebuilt_from_the_database_saying_so_once(
    built_library_dir: Path,
    models_dir: Path,
    embedder: OnnxEmbedder,
    damage: str,
    cli_main: InProcessCli,
) -> None:
    vectors = built_library_dir / "vectors"
    if damage in DAMAGE:
        DAMAGE[damage](vectors)
    else:
        _from_another_library(built_library_dir, embedder, *ANOTHER_LIBRARY[damage])
    query = ("search", "--mode", "dense", "--json", "an amphibian that regrows its legs")
    found = _cli(built_library_dir, models_dir, *query)
    assert found.returncode == 0, found.stderr
    assert Path(json.loads(found.stdout)["results"][0]["source"]).name == "notes.md"
    said = found.stderr.splitlines()
    assert len(said) == 1, said
    assert said[0].startswith(
        f"WARNING engine.index.vectors: vector index {vectors / 'text.hnsw'} was"
    )
    assert said[0].endswith("): it is rebuilt from the library database")
    again = cli_main(built_library_dir, models_dir, *query)
    assert again.returncode == 0 and again.lines == []  # the rebuilt index was saved
    _index_holds_the_stored_vectors(built_library_dir, embedder)


def test_an_index_newer_than_a_restored_database_is_rebuilt(
    built_library_dir: Path,
    tmp_path: Path,
    models_dir: Path,
    embedder: OnnxEmbedder,
    cli_main: InProcessCli,
) -> None:
    """library.db put back from a backup made before a removal and an import: the index
    holds the new file's vectors under ids that are the removed file's rows again."""
    db = built_library_dir / "library.db"
    backup = tmp_path / "library.db.bak"
    shutil.copy(db, backup)
    # The last course's ids go to the next one imported, which the index then holds.
    assert cli_main(built_library_dir, models_dir, "remove", "Chemistry").returncode == 0
    more = _course(tmp_path / "More", {"gecko": "The gecko climbs glass.", "ibis": "An ibis."})
    assert cli_main(built_library_dir, models_dir, "ingest", str(more)).returncode == 0
    shutil.copy(backup, db)
    found = _cli(built_library_dir, models_dir, "search", "--mode", "dense", "lizard on a window")
    assert found.returncode == 0, found.stderr
    assert "gecko" not in found.stdout
    assert found.stderr.splitlines() == [
        "WARNING engine.index.vector_files: vector index "
        f"{built_library_dir / 'vectors' / 'text.hnsw'} was unusable (it is newer than the "
        "library database, restored from an older copy?): "
        "it is rebuilt from the library database"
    ]
    _index_holds_the_stored_vectors(built_library_dir, embedder)


# --- a damaged model ---------------------------------------------------------------------------


def _rewrite_keeping_size_and_time(path: Path, offset: int, data: bytes) -> None:
    """Damage as a bad sector or a restore gone wrong leaves it: same size, same time."""
    before = path.stat()
    with path.open("r+b") as f:
        f.seek(offset)
        f.write(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _vouch_for(model: Path, name: str) -> None:
    """Rewrite the manifest to match a damaged file (a user's own broken export)."""
    manifest = model / "manifest.json"
    meta = json.loads(manifest.read_text())
    meta["files"][name] = {
        "sha256": sha256_file(model / name),
        "size": (model / name).stat().st_size,
    }
    manifest.write_text(json.dumps(meta))


MODEL_DAMAGE = {
    "bytes changed, size and time kept": (
        lambda m: _rewrite_keeping_size_and_time(m / "model.onnx", 5_000_000, b"\xff" * 65536),
        "model.onnx: its content changed (sha256 differs)",
    ),
    "header garbage, size and time kept": (
        lambda m: _rewrite_keeping_size_and_time(m / "model.onnx", 100, bytes(65536)),
        "model.onnx: its content changed (sha256 differs)",
    ),
    "cut short": (
        lambda m: os.truncate(m / "model.onnx", 1_000_000),
        "model.onnx: 1000000 bytes, expected ",
    ),
    "tokenizer deleted": (
        lambda m: (m / "tokenizer.json").unlink(),
        "tokenizer.json: No such file or directory",
    ),
}


def embedder_models(models_dir: Path, dest: Path) -> Path:
    """A private models folder of the session's default embedder and what the session's
    folder remembers of its files (.verified.json). The session's speech models (tiny.en,
    and Whisper base once a lecture's language was heard: 120 MB together) are left out:
    these tests damage the embedder only."""
    dest.mkdir(parents=True)
    shutil.copytree(models_dir / DEFAULT_EMBEDDER, dest / DEFAULT_EMBEDDER)
    verified = models_dir / VERIFIED_NAME
    if verified.exists():
        shutil.copy2(verified, dest / VERIFIED_NAME)
    return dest


@pytest.fixture
def own_models(tmp_path: Path, models_dir: Path) -> Path:
    """A private copy of the session's default embedder (:func:`embedder_models`)."""
    return embedder_models(models_dir, tmp_path / "models")


@pytest.mark.parametrize("damage", [*MODEL_DAMAGE, "broken file, manifest matching"])
def test_a_damaged_model_is_named_with_how_to_reinstall_it(
    built_library_dir: Path,
    own_models: Path,
    damage: str,
    cli_main: InProcessCli,
) -> None:
    query = ("search", "--mode", "dense", "an amphibian that regrows its legs")
    assert cli_main(built_library_dir, own_models, *query).returncode == 0  # found sound once
    model = own_models / DEFAULT_EMBEDDER
    how = (
        f"run `coursedex models remove {DEFAULT_EMBEDDER}`, "
        f"then `coursedex models install {DEFAULT_EMBEDDER}`"
    )
    if damage in MODEL_DAMAGE:
        MODEL_DAMAGE[damage][0](model)
        said = f"coursedex: model {DEFAULT_EMBEDDER} in {own_models} is damaged ("
        said += MODEL_DAMAGE[damage][1]
    else:
        _rewrite_keeping_size_and_time(model / "model.onnx", 100, bytes(65536))
        _vouch_for(model, "model.onnx")
        said = f"coursedex: model {DEFAULT_EMBEDDER} cannot be loaded (cannot load ONNX model"

    refused = _cli(built_library_dir, own_models, *query)
    assert refused.returncode == 1
    lines = refused.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(said) and lines[0].endswith(how), lines
    note = _course(built_library_dir.parent / "More", {"gecko": "The gecko climbs glass."})
    ingest = cli_main(built_library_dir, own_models, "ingest", str(note))
    assert f"error: {note / 'gecko.md'}: {lines[0].removeprefix('coursedex: ')}" in ingest.stdout

    for step in ("remove", "install"):  # what the message says to do
        done = cli_main(built_library_dir, own_models, "models", step, DEFAULT_EMBEDDER)
        assert done.returncode == 0, done.lines
    found = cli_main(built_library_dir, own_models, *query)
    assert found.returncode == 0 and found.lines == [], found.lines
    assert found.stdout.splitlines()[1].split()[1:3] == ["[note]", "Biology"], found.stdout


def test_a_damaged_model_still_finds_by_words_and_says_why_in_one_line(
    built_library_dir: Path,
    own_models: Path,
    cli_main: InProcessCli,
) -> None:
    """Search refused everything while the model was damaged: the words still find a page."""
    assert cli_main(built_library_dir, own_models, "search", "axolotl").returncode == 0
    MODEL_DAMAGE["cut short"][0](own_models / DEFAULT_EMBEDDER)
    said = (
        f"coursedex: keyword matches only: model {DEFAULT_EMBEDDER} in {own_models} is "
        f"damaged ({MODEL_DAMAGE['cut short'][1]}"
    )
    found = _cli(built_library_dir, own_models, "search", "axolotl")
    assert found.returncode == 0, found.stderr
    lines = found.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(said), lines
    assert found.stdout.splitlines()[1].split()[1:3] == ["[note]", "Biology"], found.stdout
    as_json = cli_main(built_library_dir, own_models, "search", "--json", "axolotl")
    payload = json.loads(as_json.stdout)
    assert payload["notice"] == lines[0].removeprefix("coursedex: ")
    assert Path(payload["results"][0]["source"]).name == "notes.md"


def test_a_model_that_failed_is_loaded_again_only_once_its_files_change(
    built_library_dir: Path, own_models: Path, models_dir: Path
) -> None:
    """Each search with a damaged model read the whole file again to find it damaged."""
    registry = ModelRegistry(own_models)
    loads: list[int] = []

    def load() -> OnnxEmbedder:
        loads.append(1)
        return registry.load_embedder()

    onnx = own_models / DEFAULT_EMBEDDER / "model.onnx"
    _rewrite_keeping_size_and_time(onnx, 5_000_000, b"\xff" * 65536)
    with Library.open(built_library_dir, EngineConfig(), load, models=registry) as library:
        notices = {library.search(q).notice for q in ("axolotl", "burette", "axolotl tank")}
        assert len(notices) == 1 and next(iter(notices)).startswith("keyword matches only")
        assert len(loads) == 1
        shutil.copyfile(models_dir / DEFAULT_EMBEDDER / "model.onnx", onnx)  # reinstalled
        found = library.search("an amphibian that regrows its legs")
        assert (found.notice, len(loads)) == ("", 2)
        assert Path(found.results[0].source).name == "notes.md"


# --- library.db ------------------------------------------------------------------------------


def _garble_segments_page(db: Path) -> None:
    """A bad sector: the page the segments table starts at overwritten (the header and the
    schema are whole, so the database opens; reading a segment fails)."""
    conn = sqlite3.connect(db)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'segments'").fetchone()
    conn.close()
    with db.open("r+b") as f:
        f.seek((root[0] - 1) * page_size)
        f.write(np.random.default_rng(5).bytes(page_size))


DATABASE_DAMAGE = {
    "cut to nothing": (lambda db: os.truncate(db, 0), "is empty, but the folder still holds"),
    "cut to half": (lambda db: os.truncate(db, db.stat().st_size // 2), "is damaged ("),
    "bad sector": (_garble_segments_page, "is damaged (database disk image is malformed)"),
}


@pytest.mark.parametrize("damage", DATABASE_DAMAGE)
def test_a_damaged_database_is_refused_in_one_line_and_nothing_is_changed(
    built_library_dir: Path,
    models_dir: Path,
    damage: str,
    cli_main: InProcessCli,
) -> None:
    db = built_library_dir / "library.db"
    cut, said = DATABASE_DAMAGE[damage]
    cut(db)
    before = _files(built_library_dir)
    note = _course(built_library_dir.parent / "More", {"gecko": "The gecko climbs glass."})
    child = _cli(built_library_dir, models_dir, "search", "axolotl")  # as a user runs it
    refusals: dict[tuple[str, ...], tuple[int, list[str]]] = {
        ("search", "axolotl"): (child.returncode, child.stderr.splitlines())
    }
    for command in (("ingest", str(note)), ("list",)):  # the same words in-process
        run = cli_main(built_library_dir, models_dir, *command)
        refusals[command] = (run.returncode, run.lines)
    for command, (code, lines) in refusals.items():
        assert code == 1, command
        assert len(lines) == 1, (command, lines)
        assert lines[0].startswith(f"coursedex: the library database {db} {said}"), lines
        assert "backup" in lines[0]
    assert _files(built_library_dir) == before


def test_a_first_import_stopped_while_a_video_is_read_leaves_a_library_that_opens(
    tmp_path: Path, models_dir: Path
) -> None:
    """Ctrl+C 8 s into the first import of the demo lecture left a thumbnail (scenes are
    cut while the speech is recognised) beside a database that held nothing yet, and every
    command after it refused the library as one whose database was "new" and had lost its
    index. Thumbnails are made before anything is written: they are no sign of a loss."""
    library = tmp_path / "library"
    assert _cli(library, models_dir, "list").returncode == 0  # the new, empty database
    (library / "thumbs" / "fe749e47d3028f8c-0000.jpg").write_bytes(b"\xff\xd8\xff\xe0")
    note = _course(tmp_path / "Biology", {"gecko": "The gecko climbs glass."})
    done = _cli(library, models_dir, "ingest", str(note))
    assert done.returncode == 0, done.stderr[-3000:]
    found = _cli(library, models_dir, "search", "--json", "gecko climbs")
    assert Path(json.loads(found.stdout)["results"][0]["source"]).name == "gecko.md"


def test_a_read_only_database_file_is_searched_and_an_import_refused_in_one_line(
    built_library_dir: Path, models_dir: Path
) -> None:
    db = built_library_dir / "library.db"
    done = subprocess.run(["chattr", "+i", str(db)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot make a file immutable here: {done.stderr.decode().strip()}")
    try:
        found = _cli(built_library_dir, models_dir, "search", "--json", "axolotl")
        assert found.returncode == 0 and found.stderr == "", found.stderr
        assert Path(json.loads(found.stdout)["results"][0]["source"]).name == "notes.md"
        note = _course(built_library_dir.parent / "More", {"gecko": "The gecko climbs glass."})
        refused = _cli(built_library_dir, models_dir, "ingest", str(note))
        assert refused.returncode == 1
        assert refused.stderr.splitlines() == [
            f"coursedex: the library {built_library_dir} is read-only (its database file is "
            "read-only): searching works, but Coursedex cannot import"
        ]
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=False)


def _reimport_then_die(models: str, library: str, files: list[str]) -> None:
    """In a child process: import ``files`` and die (as kill -9 would) once the first one is
    committed, before the vector index is saved."""
    registry = ModelRegistry(Path(models))
    model = registry.load_embedder(DEFAULT_EMBEDDER, 1)

    def die_after_commit(p: IngestProgress) -> None:
        if p.result is not None:
            os._exit(9)

    lib = Library.open(library, EngineConfig(), lambda: model, models=registry)
    lib.ingest(files, progress=die_after_commit)


def test_a_kill_after_a_changed_file_is_committed_leaves_no_stale_vector(
    tmp_path: Path, models_dir: Path, embedder: OnnxEmbedder
) -> None:
    """The file imported last changed and is imported again: its new rows take its old ids.
    Killed before the index was saved, the index on disk still held the old text's vectors
    under those ids, and the next open kept them."""
    library = tmp_path / "lib"
    course = _course(tmp_path / "Zoo", FILLERS | {"zz-last": "The pangolin has scales."})
    with Library.open(library, EngineConfig(), lambda: embedder) as lib:
        lib.ingest([course])
    last = course / "zz-last.md"
    last.write_text("# Last\n\nThe volcano erupts molten lava and ash.\n", encoding="utf-8")
    child = multiprocessing.get_context("spawn").Process(
        target=_reimport_then_die, args=(str(models_dir), str(library), [str(last)])
    )
    child.start()
    child.join(300)
    assert child.exitcode == 9

    found = _cli(library, models_dir, "search", "--mode", "dense", "--json", "a volcano erupting")
    assert found.returncode == 0, found.stderr
    assert found.stderr.splitlines() == [
        "WARNING engine.index.vector_files: vector index repaired from the library database: "
        "1 added (1 of them replaced), 0 removed"
    ]
    assert json.loads(found.stdout)["results"][0]["source"] == str(last)
    _index_holds_the_stored_vectors(library, embedder)
