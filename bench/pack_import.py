"""Pack imports with many notes or many segments: import time and notes (segments) per
second, against one `notes add` (Library.add_note, the embedder loaded). Never pass/fail.

    uv run python bench/pack_import.py [--models DIR] [--notes 2000 10000] [--kept 2000]
                                       [--segments 20000]

The demo course's notes, slides and code (no lecture: nothing to transcribe) are imported
once into a temporary library and exported as a pack. From it, one pack per count is made:
``--notes N`` puts N notes, each its own text, on the lines of notes.md; ``--kept N`` the
same, imported into a library that holds a copy of notes.md in a course of its own (the
notes go there, added to the user's file); ``--segments N`` adds N segments of text to
notes.md, with vectors (unit, random), so nothing is embedded again. Each pack goes into a
new library whose embedder is already loaded; the import is timed whole (reading and
checking the pack included). The pack's limits are raised so that any count is imported.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.config import EngineConfig  # noqa: E402
from engine.demo import DEMO_COURSE, demo_files  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.models import Embedder  # noqa: E402
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry  # noqa: E402
from engine.packs import export_pack, import_pack  # noqa: E402
from engine.packs.format import PackLimits  # noqa: E402
from engine.paths import default_models  # noqa: E402
from engine.plain_text import human_size  # noqa: E402

WORDS = ("merge", "heap", "quick", "insertion", "bubble", "radix", "pivot", "partition")
WORDS += ("stable", "invariant")


def _parts(pack: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(pack) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def _write(path: Path, parts: dict[str, bytes]) -> Path:
    """The parts zipped, the manifest made to match them (a pack as an export writes it)."""
    manifest = json.loads(parts["manifest.json"])
    manifest["parts"] = {
        n: {"sha256": hashlib.sha256(b).hexdigest(), "size": len(b)}
        for n, b in sorted(parts.items())
        if n != "manifest.json"
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps(manifest))
        for name, body in parts.items():
            if name != "manifest.json":
                zf.writestr(name, body)
    return path


def _notes_source(course: dict[str, object]) -> tuple[int, dict[str, object]]:
    sources = course["sources"]
    assert isinstance(sources, list)
    return next((i, s) for i, s in enumerate(sources) if s["kind"] == "notes")


def _text(n: int) -> str:
    return f"note {n}: {WORDS[n % 10]} before {WORDS[n // 10 % 10]}, see {WORDS[n // 100 % 10]}"


def _notes_md(good: Path) -> tuple[dict[str, bytes], dict[str, Any], int, list[Any], int]:
    """The good pack's parts, its course, notes.md's place in it, its segments, its last line."""
    parts = _parts(good)
    course = json.loads(parts["course.json"])
    index, source = _notes_source(course)
    segments = source["segments"]
    assert isinstance(segments, list)
    return parts, course, index, segments, max(s.get("line_end", 1) for s in segments)


def with_notes(good: Path, out: Path, count: int) -> Path:
    parts, _course, index, _segments, lines = _notes_md(good)
    notes = [{"source": index, "text": _text(n), "line": 1 + n % lines} for n in range(count)]
    return _write(out, {**parts, "notes.json": json.dumps(notes).encode()})


def with_segments(good: Path, out: Path, count: int) -> Path:
    """``count`` segments more on notes.md, their vectors after the course's others."""
    parts, course, index, segments, last = _notes_md(good)
    segments.extend(
        {"kind": "note", "text": _text(n), "line_start": last, "line_end": last}
        for n in range(count)
    )
    vectors = np.load(io.BytesIO(parts["vectors.npy"]))
    before = (
        sum(1 for s in course["sources"][: index + 1] for g in s["segments"] if g["text"].strip())
        - count
    )
    extra = np.random.default_rng(0).standard_normal((count, vectors.shape[1]), np.float32)
    extra /= np.linalg.norm(extra, axis=1, keepdims=True)
    merged = np.vstack([vectors[:before], extra, vectors[before:]])
    buffer = io.BytesIO()
    np.save(buffer, merged)
    return _write(
        out,
        {**parts, "course.json": json.dumps(course).encode(), "vectors.npy": buffer.getvalue()},
    )


def _import(
    pack: Path, target: Path, embedder: Embedder, models: ModelRegistry, kept: Path | None
) -> tuple[float, int]:
    """Seconds to import ``pack`` into a new library; ``kept``: a copy of notes.md the
    library holds first in a course of its own (the pack's notes on it go there). Also
    the notes the import added."""
    limits = PackLimits(max_notes=10**7, max_segments=10**8)
    with Library.open(target, EngineConfig(), lambda: embedder, models=models) as library:
        library.embedder()
        if kept is not None:
            library.ingest([kept], course="My notes")
        started = time.perf_counter()
        done = import_pack(library, pack, limits=limits)
        return time.perf_counter() - started, done.notes


def _one_note(library: Library, runs: int = 20) -> float:
    """Seconds per `notes add` on notes.md (the embedder loaded), median of ``runs``."""
    path = next(s.path for s in library.sources(DEMO_COURSE) if s.path.endswith("notes.md"))
    times = []
    for n in range(runs):
        started = time.perf_counter()
        library.add_note(path, _text(n), line=1)
        times.append(time.perf_counter() - started)
    return sorted(times)[runs // 2]


def main() -> int:
    parser = argparse.ArgumentParser(description="Pack imports with many notes or segments.")
    parser.add_argument("--models", type=Path, default=None)
    parser.add_argument("--notes", type=int, nargs="*", default=[2000, 10000])
    parser.add_argument("--segments", type=int, nargs="*", default=[20000])
    parser.add_argument(
        "--kept", type=int, nargs="*", default=[2000], help="notes on a file the user keeps"
    )
    args = parser.parse_args()
    models = ModelRegistry(args.models or default_models(os.environ))
    embedder = models.load_embedder(DEFAULT_EMBEDDER, min(4, os.cpu_count() or 2))
    with tempfile.TemporaryDirectory(prefix="pack-import-") as scratch:
        work = Path(scratch)
        good = work / "good.cdxpack"
        with Library.open(work / "teacher", EngineConfig(), lambda: embedder, models=models) as lib:
            lib.ingest([p for p in demo_files() if p.suffix != ".mp4"], course=DEMO_COURSE)
            export_pack(lib, DEMO_COURSE, good)
            one = _one_note(lib)
        print(f"one `notes add` (Library.add_note, embedder loaded): {one * 1000:.1f} ms")
        print(f"{'pack':>20} {'size':>9} {'import s':>9} {'per s':>9} {'ms each':>8} {'notes':>7}")
        mine = work / "mine"
        mine.mkdir()
        kept = mine / "notes.md"
        kept.write_bytes(next(p for p in demo_files() if p.name == "notes.md").read_bytes())
        made: list[tuple[str, int, Path, Path | None]] = [
            (f"{n:,} notes", n, with_notes(good, work / f"n{n}.cdxpack", n), None)
            for n in args.notes
        ]
        made += [
            (f"{n:,} notes, kept", n, with_notes(good, work / f"k{n}.cdxpack", n), kept)
            for n in args.kept
        ]
        made += [
            (f"{n:,} segments", n, with_segments(good, work / f"s{n}.cdxpack", n), None)
            for n in args.segments
        ]
        for label, count, pack, own in made:
            seconds, notes = _import(pack, work / f"lib-{pack.stem}", embedder, models, own)
            print(
                f"{label:>20} {human_size(pack.stat().st_size):>9} {seconds:9.2f} "
                f"{count / seconds:9.0f} {seconds / count * 1000:8.3f} {notes:7,}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
