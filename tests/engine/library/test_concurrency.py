"""Searches while another thread writes, as the window searches while it imports.

hnswlib does not allow ``knn_query`` during ``add_items`` or ``resize_index``: without the
vector index's lock a search crashes the process (SIGSEGV or SIGABRT) or returns labels
nobody added. Two hammering tests:

- the vector index alone: one thread adds 12,000 vectors (the index resizes 5 times) and
  deletes a third of them, while three threads search it, filtered and not (without the
  lock this one crashes in a few seconds);
- a library: one thread imports notes, PDFs and subtitles of up to 200 segments each and
  removes three of them, while three threads search (hybrid, dense only, filtered, as typed).

No search may fail, return an id that was never added or whose deletion had finished before
it started, or return a segment that does not exist when checked (unless its file's removal
had begun by then). The hammering runs in a child process (``python -m
tests.engine.library.test_concurrency``): a native crash then fails the test with the
child's signal and faulthandler traceback instead of killing pytest. A third test pins,
deterministically, what a search does with vectors whose rows were just deleted.
"""

from __future__ import annotations

import json
import logging
import random
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from engine.config import EngineConfig, SearchConfig
from engine.importing.progress import Outcome
from engine.index.vectors import VectorIndex
from engine.library import Library
from engine.search import SearchFilters, SearchResult
from engine.types import SegmentKind
from tools.factories import make_pdf, make_srt

SEARCH_THREADS = 3
INDEX_SEARCHES = 2000
LIBRARY_SEARCHES = 1500
INDEX_ROUNDS = 24  # of 512 new vectors, a third deleted after each: the index resizes 5 times
DIM = 32
WORDS = (
    "photosynthesis",
    "mitochondria",
    "enzyme",
    "protein",
    "membrane",
    "osmosis",
    "glacier",
    "volcano",
    "sediment",
    "erosion",
    "algorithm",
    "recursion",
    "compiler",
    "matrix",
    "theorem",
    "integral",
    "entropy",
    "voltage",
    "magnet",
    "orbit",
)
QUERY_MODES = (
    ("hybrid", SearchConfig(), SearchFilters(), False),
    ("dense", replace(SearchConfig(), fulltext=False, gate=0.0), SearchFilters(), False),
    (
        "filtered",
        replace(SearchConfig(), gate=0.0),
        SearchFilters(kinds=(SegmentKind.NOTE,)),
        False,
    ),
    ("typing", SearchConfig(), SearchFilters(), True),
)


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(8)).capitalize() + "."


def make_course(folder: Path) -> list[Path]:
    """A short note, then six files of 18-200 segments, all over one vocabulary (so any
    query can hit any of them)."""
    rng = random.Random(13)
    folder.mkdir(parents=True)
    intro = folder / "intro.md"
    intro.write_text("".join(f"# Intro {i}\n\n{_sentence(rng)}\n\n" for i in range(5)))
    files = [intro]
    for n in range(2):
        note = folder / f"notes{n}.md"
        sections = [f"# Topic {n}.{i}\n\n{_sentence(rng)} {_sentence(rng)}" for i in range(200)]
        note.write_text("\n\n".join(sections) + "\n", encoding="utf-8")
        files.append(note)
    for n in range(2):
        pages = [f"Slide {n}.{i}\n{_sentence(rng)}\n{_sentence(rng)}" for i in range(120)]
        files.append(make_pdf(folder / f"deck{n}.pdf", pages))
    for n in range(2):
        cues = [(3000 * i, 3000 * i + 2800, _sentence(rng)) for i in range(120)]
        files.append(make_srt(folder / f"lecture{n}.srt", cues))
    return [f.resolve() for f in files]


def _run_child(*args: str) -> dict[str, Any]:
    child = subprocess.run(
        [
            sys.executable,
            "-X",
            "faulthandler",
            "-m",
            "tests.engine.library.test_concurrency",
            *args,
        ],
        cwd=Path(__file__).resolve().parents[3],
        capture_output=True,
        text=True,
        timeout=500,  # a deadlock fails here instead of at pytest's 600 s
        check=False,
    )
    assert child.returncode == 0, f"child exited with {child.returncode}:\n{child.stderr[-6000:]}"
    return json.loads(child.stdout)


def test_vector_index_serves_searches_while_it_grows_and_deletes(tmp_path: Path) -> None:
    report = _run_child("index", str(tmp_path / "vectors"))
    assert report["problems"] == []
    assert report["resizes"] == 5
    assert report["searches"] >= INDEX_SEARCHES
    assert report["during_writes"] >= 100  # searches really ran while the index changed
    assert report["hits"] > report["searches"]


def test_search_while_importing_and_removing(tmp_path: Path, models_dir: Path) -> None:
    files = make_course(tmp_path / "Physics")
    report = _run_child("library", str(models_dir), str(tmp_path / "lib"), *map(str, files))
    assert report["problems"] == []
    assert report["imported"] == len(files)
    assert report["removed"] == 3
    assert report["searches"] >= LIBRARY_SEARCHES
    assert report["during_writes"] >= 100  # searches really ran while files came and went
    assert report["hits"] > report["searches"]  # they found things, not only nothing
    assert report["left"] == len(files) - 3


def test_dense_hits_whose_rows_are_gone_are_dropped(library: Library, tmp_path: Path) -> None:
    """What a search meets when a removal runs beside it: the rows are deleted first, the
    vectors after them; a search in between must drop the vectors' ids, not fail on them."""
    folder = tmp_path / "Zoo"
    folder.mkdir()
    (folder / "a.md").write_text("# Giraffes\n\nThe giraffe eats acacia leaves.\n")
    (folder / "b.md").write_text("# Okapi\n\nThe okapi is a giraffe of the forest.\n")
    library.ingest([folder])
    gone = library.source(str((folder / "a.md").resolve()))
    assert gone is not None
    library.store.catalog.delete_source(gone.id)  # and not yet its vectors
    stats = library.stats()
    assert stats["vectors"] == 2 and stats["segments"] == 1
    for config in (SearchConfig(), replace(SearchConfig(), fulltext=False)):
        results = library.search("giraffe acacia leaves", config=config).results
        assert [r.source for r in results] == [str((folder / "b.md").resolve())]


# --- the child process ------------------------------------------------------------------


@dataclass
class Shared:
    """What the writing thread and the searching threads tell each other. ``removing`` and
    ``removed`` hold what is being or has been deleted: file paths, or vector ids."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    added: set[object] = field(default_factory=set)  # vector ids whose add has begun
    removing: set[object] = field(default_factory=set)
    removed: set[object] = field(default_factory=set)
    writing: bool = False
    done: threading.Event = field(default_factory=threading.Event)
    searches: int = 0
    during_writes: int = 0
    hits: int = 0
    problems: list[str] = field(default_factory=list)

    def problem(self, what: str) -> None:
        with self.lock:
            self.problems.append(what)

    def remove(self, items: Iterable[object], delete: Callable[[], object]) -> None:
        items = set(items)
        with self.lock:
            self.removing |= items
        delete()
        with self.lock:
            self.removed |= items


# A search checks its results and returns how many; before: what was deleted before it began.
Search = Callable[[random.Random, set[object]], int]


def _keep_searching(shared: Shared, search: Search, minimum: int, seed: int) -> None:
    """Search until the writer is done and ``minimum`` searches ran in all."""
    rng = random.Random(seed)
    while True:
        with shared.lock:
            if shared.done.is_set() and shared.searches >= minimum:
                return
            before = set(shared.removed)
            while_writing = shared.writing
        try:
            hits = search(rng, before)
        except Exception:  # reported; the other threads go on
            shared.problem(f"a search raised:\n{traceback.format_exc()}")
            return
        with shared.lock:
            shared.searches += 1
            shared.hits += hits
            shared.during_writes += int(while_writing and shared.writing)


def _hammer(shared: Shared, search: Search, minimum: int, write: Callable[[], None]) -> None:
    """Run ``write`` in this thread while SEARCH_THREADS threads keep searching."""
    threads = [
        threading.Thread(target=_keep_searching, args=(shared, search, minimum, seed))
        for seed in range(SEARCH_THREADS)
    ]
    for t in threads:
        t.start()
    with shared.lock:
        shared.writing = True
    try:
        write()
    finally:
        with shared.lock:
            shared.writing = False
        shared.done.set()
        for t in threads:
            t.join()


def _index_child(folder: Path) -> dict[str, object]:
    shared = Shared()
    logging.getLogger().addHandler(_Errors(shared))
    index = VectorIndex.open(folder, "text", dimension=DIM, model_id="test-model")
    data = np.random.default_rng(13)

    def vectors(n: int) -> np.ndarray:
        rows = data.standard_normal((n, DIM))
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)

    def search(rng: random.Random, before: set[object]) -> int:
        query = np.asarray([rng.gauss(0, 1) for _ in range(DIM)], dtype=np.float32)
        odd = rng.random() < 0.5
        ids, _ = index.search(query, 50, allowed=(lambda i: i % 2 == 1) if odd else None)
        with shared.lock:
            added = set(shared.added)
        for label in map(int, ids):
            if label not in added:
                shared.problem(f"id {label} was never added")
            elif label in before:
                shared.problem(f"id {label} was deleted before the search")
            elif odd and label % 2 == 0:
                shared.problem(f"id {label} does not pass the filter")
        return len(ids)

    def capacity() -> int:
        return index._index.get_max_elements()  # pyright: ignore[reportPrivateUsage]

    resizes = 0

    def write() -> None:
        nonlocal resizes
        for round_ in range(INDEX_ROUNDS):
            fresh = list(range(1 + 512 * round_, 1 + 512 * (round_ + 1)))
            with shared.lock:
                shared.added.update(fresh)
            before = capacity()
            index.add(np.asarray(fresh, dtype=np.int64), vectors(len(fresh)))
            resizes += int(capacity() != before)
            doomed = fresh[::3]
            shared.remove(doomed, lambda doomed=doomed: index.delete(doomed))

    index.add(np.zeros(1, dtype=np.int64), vectors(1))  # something to find from the start
    shared.added.add(0)
    _hammer(shared, search, INDEX_SEARCHES, write)
    return _report(shared, resizes=resizes)


def _library_child(models_dir: Path, folder: Path, files: list[Path]) -> dict[str, object]:
    import engine.index.vectors
    from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry

    shared = Shared()
    logging.getLogger().addHandler(_Errors(shared))
    # A small first capacity, so the imports also resize the index under searches.
    engine.index.vectors._INITIAL_CAPACITY = 64  # pyright: ignore[reportPrivateUsage]
    embedder = ModelRegistry(models_dir).load_embedder(DEFAULT_EMBEDDER, 2)
    with Library.open(folder, EngineConfig(), lambda: embedder) as library:

        def search(rng: random.Random, before: set[object]) -> int:
            name, config, filters, typing = QUERY_MODES[rng.randrange(len(QUERY_MODES))]
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
            query = words[: rng.randint(3, len(words))] if typing else words
            outcome = library.search(query, filters=filters, config=config, typing=typing)
            _check(library, shared, before, outcome.results, f"{name} search {query!r}")
            return len(outcome.results)

        imported = 0

        def write() -> None:
            """Import the files after the first; after the first deck, the first lecture and
            the last file, remove the first notes, deck and lecture."""
            nonlocal imported
            doomed = {3: files[1], 5: files[3], 6: files[5]}
            for i, path in enumerate(files[1:], start=1):
                report = library.ingest([path], course="Physics")
                imported += report.count(Outcome.INDEXED)
                if report.errors:
                    shared.problem(f"import of {path.name} failed: {report.errors}")
                if i in doomed:
                    target = str(doomed[i])
                    shared.remove({target}, lambda target=target: library.remove(target))

        # Something to find from the first search on. The next import resizes the index from
        # its first capacity (64, set above) under searches.
        imported += library.ingest([files[0]], course="Physics").count(Outcome.INDEXED)
        _hammer(shared, search, LIBRARY_SEARCHES, write)
        left = len(library.sources())
    return _report(shared, imported=imported, removed=len(shared.removed), left=left)


def _check(
    library: Library,
    shared: Shared,
    before: set[object],
    results: list[SearchResult],
    search: str,
) -> None:
    for r in results:
        if r.source in before:
            shared.problem(f"{search}: segment {r.segment_id} of {r.source}, removed before")
    rows = library.store.segments.by_ids([r.segment_id for r in results])
    with shared.lock:
        removing = set(shared.removing)
    for r in results:
        row = rows.get(r.segment_id)
        gone = row is None or row.source_path != r.source  # SQLite reuses a deleted max id
        if gone and r.source not in removing:
            shared.problem(f"{search}: segment {r.segment_id} of {r.source} does not exist")


def _report(shared: Shared, **extra: object) -> dict[str, object]:
    return {
        "problems": shared.problems,
        "searches": shared.searches,
        "during_writes": shared.during_writes,
        "hits": shared.hits,
        **extra,
    }


class _Errors(logging.Handler):
    """Fails the run when anything logs at ERROR, as conftest does in-process."""

    def __init__(self, shared: Shared) -> None:
        super().__init__(logging.ERROR)
        self.shared = shared

    def emit(self, record: logging.LogRecord) -> None:
        self.shared.problem(f"logged at ERROR: {record.getMessage()}")


def main(argv: list[str]) -> None:
    logging.basicConfig(level=logging.WARNING)
    if argv[0] == "index":
        report = _index_child(Path(argv[1]))
    else:
        report = _library_child(Path(argv[1]), Path(argv[2]), [Path(a) for a in argv[3:]])
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
