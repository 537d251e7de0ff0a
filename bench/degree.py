"""A degree-sized library (issue 38: 40 courses, 1,500 files, ~300,000 transcript windows
with ~1,000,000 sentence vectors, ~45,000 slide pages) built from real text, and its figures.

The text is the shared evaluation data, read at run time: the 76 TutorialVQA subtitle files
and SciFact abstracts (as timed transcripts: their sentences are the cues) and the MaViLS
lecture slides (PDF pages). Each lecture is a run of randomly drawn base transcripts, each
deck a draw of pages; every cue and page has a share of its words swapped for words of the
whole pool, and every file its own course and title, so the full-text index sees ~1,500
different files rather than one file many times. Vectors are those of the unswapped text,
embedded once per unique text (cached in ``--cache``) and reused for every repeat, so
building takes minutes; everything is written by ``Library.index_parsed``.

    uv run python bench/degree.py [--scale 1.0] [--cache .bench-cache] [--queries 400]

``--scale 0.1`` builds 150 files. Prints: build time; search p50/p95/p99 for the default,
full-text-only and dense-only search, and the search process's peak RSS
(bench/search_latency.py's measure, in a fresh process); opening the library and its first
search (fresh process); the check for another process's commit
(``outside_commits`` + ``changes_since``); size on disk. Never passes or fails.
Not measured here yet: the window's shown time, the panel's stalls, a re-scan.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import search_latency  # noqa: E402

from engine.config import EngineConfig  # noqa: E402
from engine.importing.embedding import embed_text  # noqa: E402
from engine.ingest import parse_file  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.models import Calibration, Embedder  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.search.evaluate import default_data_dir  # noqa: E402
from engine.types import ParsedSource, SegmentDraft, SegmentKind, SourceKind, Timing  # noqa: E402

FILES, COURSES = 1500, 40
WINDOWS_PER_LECTURE, PAGES_PER_DECK = 300, 90  # 1,000 lectures, 500 decks at full size
SCIFACT_LECTURES = 400  # abstracts read as pseudo-transcripts
SWAP = 0.15  # share of words swapped in every repeat
Vectors = dict[str, np.ndarray]


class Recall:
    """The library's embedder: vectors of known texts are looked up, others embedded."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.known: dict[str, np.ndarray] = {}

    def __getattr__(self, name: str) -> object:  # anything else an engine part asks for
        return getattr(self.inner, name)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    @property
    def calibration(self) -> Calibration:
        return self.inner.calibration

    def embed(
        self, texts: Sequence[str], *, query: bool = False, batch_size: int = 32
    ) -> npt.NDArray[np.float32]:
        if query or any(t not in self.known for t in texts):
            return self.inner.embed(texts, query=query, batch_size=batch_size)
        return np.vstack([self.known[t] for t in texts]).astype(np.float32)


def scifact_transcript(title: str, sentences: list[str]) -> ParsedSource:
    """An abstract as a subtitled lecture: ~4 s per sentence, windows of 3 sentences."""
    cues = [Timing(i * 4000, i * 4000 + 3800, s) for i, s in enumerate(sentences)]
    segs = tuple(
        SegmentDraft(
            SegmentKind.TRANSCRIPT,
            " ".join(c.text for c in cues[i : i + 3]),
            start_ms=cues[i].start_ms,
            end_ms=cues[min(i + 2, len(cues) - 1)].end_ms,
            timings=tuple(cues[i : i + 3]),
        )
        for i in range(0, len(cues), 3)
    )
    return ParsedSource(SourceKind.SUBTITLES, title, segs, duration_ms=len(cues) * 4000)


def pool(data: Path) -> tuple[list[ParsedSource], list[tuple[str, SegmentDraft]]]:
    """The base lectures (timed transcripts) and slide pages (deck title, page)."""
    config = EngineConfig()
    lectures = [parse_file(p, config) for p in sorted((data / "tutorialvqa" / "srt").glob("*.srt"))]
    with (data / "scifact" / "corpus.jsonl").open(encoding="utf-8") as f:
        for _, line in zip(range(SCIFACT_LECTURES), f, strict=False):
            doc = json.loads(line)
            sentences = [s for s in search_latency.SENTENCE.split(doc["text"]) if s.strip()]
            if sentences:
                lectures.append(scifact_transcript(doc["title"], sentences))
    pages: list[tuple[str, SegmentDraft]] = []
    for pdf in sorted((data / "mavils" / "lectures").glob("*.pdf")):
        deck = parse_file(pdf, config)
        pages.extend((deck.title, s) for s in deck.segments if s.text.strip())
    return lectures, pages


def base_texts(lectures: list[ParsedSource], pages: list[tuple[str, SegmentDraft]]) -> list[str]:
    out = [embed_text(p.title, s) for p in lectures for s in p.segments]
    out += [t.text for p in lectures for s in p.segments for t in s.timings]
    out += [embed_text(title, s) for title, s in pages]
    return list(dict.fromkeys(out))


def vectors_of(texts: list[str], cache: Path, threads: int) -> dict[str, np.ndarray]:
    """Every base text's vector, embedded once (cached in ``cache``/degree-vectors.npz)."""
    store = cache / "degree-vectors.npz"
    known: dict[str, np.ndarray] = {}
    if store.exists():
        saved = np.load(store, allow_pickle=False)
        known = dict(zip(saved["texts"].tolist(), saved["vectors"], strict=True))
    todo = [t for t in texts if t not in known]
    if todo:
        import multiprocessing

        started = time.perf_counter()
        chunks = [todo[j : j + 64] for j in range(0, len(todo), 64)]
        with multiprocessing.get_context("spawn").Pool(
            threads, initializer=search_latency._init_worker, initargs=(str(cache / "models"),)
        ) as workers:
            known.update(
                zip(todo, np.vstack(workers.map(search_latency._embed_chunk, chunks)), strict=True)
            )
        print(f"embedded {len(todo)} unique texts in {time.perf_counter() - started:.0f} s")
        np.savez(store, texts=np.array(list(known)), vectors=np.vstack(list(known.values())))
    return known


def vary(text: str, rng: random.Random, vocab: list[str]) -> str:
    words = text.split()
    return " ".join(rng.choice(vocab) if rng.random() < SWAP else w for w in words)


def lecture(
    rng: random.Random,
    n: int,
    lectures: list[ParsedSource],
    known: Vectors,
    recall: Recall,
    vocab: list[str],
) -> tuple[ParsedSource, np.ndarray]:
    """Base lectures drawn at random, one after another, words swapped: ~``WINDOWS`` windows."""
    segs: list[SegmentDraft] = []
    vecs: list[np.ndarray] = []
    offset = 0
    while len(segs) < WINDOWS_PER_LECTURE:
        base = rng.choice(lectures)
        for s in base.segments:
            cues = tuple(
                Timing(c.start_ms + offset, c.end_ms + offset, vary(c.text, rng, vocab))
                for c in s.timings
            )
            for new, old in zip(cues, s.timings, strict=True):
                recall.known[new.text] = known[old.text]
            text = " ".join(c.text for c in cues) if cues else vary(s.text, rng, vocab)
            start, end = (s.start_ms or 0) + offset, (s.end_ms or 0) + offset
            segs.append(replace(s, text=text, heading="", start_ms=start, end_ms=end, timings=cues))
            vecs.append(known[embed_text(base.title, s)])
        offset += (base.duration_ms or segs[-1].end_ms or 0) + 5000
    title = f"Lecture {n}: {rng.choice(lectures).title}"
    parsed = ParsedSource(SourceKind.SUBTITLES, title, tuple(segs), duration_ms=offset)
    return parsed, np.vstack(vecs)


def deck(
    rng: random.Random,
    n: int,
    pages: list[tuple[str, SegmentDraft]],
    known: Vectors,
    vocab: list[str],
) -> tuple[ParsedSource, np.ndarray]:
    drawn = [rng.choice(pages) for _ in range(PAGES_PER_DECK)]
    segs = tuple(
        replace(s, text=vary(s.text, rng, vocab), page=i + 1) for i, (_, s) in enumerate(drawn)
    )
    vecs = np.vstack([known[embed_text(title, s)] for title, s in drawn])
    title = f"Slides {n}: {drawn[0][0]}"
    return ParsedSource(SourceKind.SLIDES, title, segs), vecs


def build(folder: Path, scale: float, cache: Path, threads: int) -> None:
    started = time.perf_counter()
    lectures, pages = pool(default_data_dir())
    known = vectors_of(base_texts(lectures, pages), cache, threads)
    vocab = sorted({w for _, s in pages for w in s.text.split() if w.isalpha() and len(w) > 3})
    vocab += sorted(
        {w for p in lectures for s in p.segments for w in s.text.split() if w.isalpha()}
    )
    files = max(3, round(FILES * scale))
    courses = max(1, round(COURSES * scale))
    config = EngineConfig(threads=threads)
    recall = Recall(ModelRegistry(cache / "models").load_embedder(config.embedder, threads))
    added = cues = 0
    with Library.open(folder, config, lambda: recall) as library:
        for i in range(files):
            path = f"/degree/course-{i % courses:02d}/file-{i:04d}"
            path += ".pdf" if i % 3 == 2 else ".srt"
            if library.store.catalog.source_by_path(path) is not None:
                continue
            rng = random.Random(i)
            if path.endswith(".pdf"):
                parsed, vecs = deck(rng, i, pages, known, vocab)
            else:
                parsed, vecs = lecture(rng, i, lectures, known, recall, vocab)
            added += library.index_parsed(
                path, parsed, course=f"Course {i % courses:02d}", sha256=path, vectors=vecs
            )
            recall.known.clear()
            cues += sum(len(s.timings) for s in parsed.segments)
            if i % 50 == 49:
                rate = added / (time.perf_counter() - started)
                print(f"  {i + 1}/{files} files, {added} segments ({rate:.0f}/s)", file=sys.stderr)
        library.save()
        stats = library.store.stats()
    print(f"built in {time.perf_counter() - started:.0f} s: {stats['sources']} files in "
          f"{stats['courses']} courses, {stats['segments_by_kind']} segments; "
          f"added now: {added} segments, {cues} sentence vectors")  # fmt: skip


def first_search(folder: Path, cache: Path, threads: int) -> None:
    """Opening the library (with its model) and the first search, in a fresh process."""
    config = EngineConfig(threads=threads)
    t0 = time.perf_counter()
    embedder = ModelRegistry(cache / "models").load_embedder(config.embedder, threads)
    library = Library.open(folder, config, lambda: embedder)
    t1 = time.perf_counter()
    hits = library.search("how to export a design for the web", limit=10).results
    t2 = time.perf_counter()
    print(f"open + model load {t1 - t0:.2f} s, first search {t2 - t1:.2f} s, "
          f"together {t2 - t0:.2f} s ({len(hits)} hits)")  # fmt: skip
    library.close()


def commit_one(folder: Path, cache: Path, n: int) -> None:
    """Another process (a terminal's import) commits one small file."""
    config = EngineConfig(threads=1)
    embedder = ModelRegistry(cache / "models").load_embedder(config.embedder, 1)
    seg = SegmentDraft(SegmentKind.NOTE, f"outside note {n}: the conjugate gradient method")
    with Library.open(folder, config, lambda: embedder) as library:
        parsed = ParsedSource(SourceKind.NOTES, f"outside {n}", (seg,))
        library.index_parsed(f"/degree/outside-{n}.md", parsed, course="Outside", sha256=str(n))


def outside_check(folder: Path, cache: Path, threads: int, rounds: int = 5) -> None:
    config = EngineConfig(threads=threads)
    embedder = ModelRegistry(cache / "models").load_embedder(config.embedder, threads)
    library = Library.open(folder, config, lambda: embedder)
    marks = library.marks()
    quiet, seen = [], []
    for n in range(rounds):
        t = time.perf_counter()
        library.outside_commits()
        quiet.append((time.perf_counter() - t) * 1000)
        before = library.outside_commits()
        subprocess.check_call([*_self(folder, cache, threads), "--phase", "commit", "--n", str(n)])
        t = time.perf_counter()
        moved = library.outside_commits() != before
        changes, marks = library.changes_since(marks)
        seen.append((time.perf_counter() - t) * 1000)
        if not moved or not changes.added:
            print(f"  round {n}: the commit was not seen ({changes})")
    for n in range(rounds):
        library.remove(f"/degree/outside-{n}.md")
    library.remove("Outside")
    marks = library.marks()
    print(f"outside-change check: nothing new p50 {np.median(quiet):.2f} ms; after another "
          f"process committed a file: p50 {np.median(seen):.1f} ms, max {max(seen):.1f} ms "
          f"(outside_commits + changes_since, {len(marks.files)} files)")  # fmt: skip
    library.close()


def disk(folder: Path) -> None:
    sizes: dict[str, int] = {}
    for f in folder.rglob("*"):
        if f.is_file():
            top = f.relative_to(folder).parts[0]
            sizes[top] = sizes.get(top, 0) + f.stat().st_size
    total = sum(sizes.values())
    parts = ", ".join(f"{k} {v / 2**20:.0f} MB" for k, v in sorted(sizes.items()) if v > 2**20)
    print(f"size on disk: {total / 2**20:.0f} MB ({parts})")


def _self(folder: Path, cache: Path, threads: int) -> list[str]:
    scale = folder.name.removeprefix("degree-")
    return [sys.executable, __file__, "--scale", scale, "--cache", str(cache), "--threads",
            str(threads)]  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--cache", default=str(ROOT / ".bench-cache"))
    p.add_argument("--queries", type=int, default=400)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--phase", default="all", choices=["all", "build", "search", "first",
                   "outside", "commit"], help=argparse.SUPPRESS)  # fmt: skip
    p.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    cache = Path(args.cache)
    folder = cache / f"degree-{args.scale:g}"
    if args.phase == "commit":
        return commit_one(folder, cache, args.n)
    if args.phase in ("all", "build"):
        build(folder, args.scale, cache, args.threads)
    me = _self(folder, cache, args.threads)
    if args.phase == "all":
        for phase in ("first", "search", "outside"):  # each in a fresh process
            subprocess.check_call([*me, "--phase", phase, "--queries", str(args.queries)])
        disk(folder)
    elif args.phase == "first":
        first_search(folder, cache, args.threads)
    elif args.phase == "search":
        search_latency.measure(folder, args.queries, args.threads, cache / "models", False)
    elif args.phase == "outside":
        outside_check(folder, cache, args.threads)


if __name__ == "__main__":
    main()
