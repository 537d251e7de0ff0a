"""Course packs: size on disk, export and import time, for the demo course and a one-hour
lecture. Never pass/fail.

    uv run python bench/course_pack.py [--models DIR] [--library DIR] [--runs 3]

The demo course is transcribed once (tiny.en, about 90 s) into a temporary library, or
taken from ``--library`` (a library holding it, e.g. one made by ``coursedex demo``).

The one-hour lecture is generated without transcribing for an hour: the demo lecture's
recognised sentences, with their word times, repeated end to end until they last 60
minutes (each copy's sentences prefixed "Part N:" so the windows are not all alike), cut
into windows as an import cuts them (engine.media.transcript.transcript_windows); its
scenes, thumbnails and on-screen text likewise repeated. It is written through
``Library.index_parsed`` and the indexer's ``append_screen``, so its vectors are the real
embedder's, as after a real import; its file does not exist (the import finds it missing).

Each import goes into a new, empty library whose embedder is already loaded (a window
that has searched once); ``coursedex pack import`` in a new process, model load included,
is timed too. "re-embedded" imports the hour's pack under another model id, so its text is
embedded again (what a class whose library uses another model pays). Medians of ``--runs``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.config import ChunkingConfig, EngineConfig  # noqa: E402
from engine.demo import DEMO_COURSE, DEMO_DIR, demo_files  # noqa: E402
from engine.importing.embedding import Embedding  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.media.transcript import SpeechPart, transcript_windows  # noqa: E402
from engine.models import Embedder  # noqa: E402
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry  # noqa: E402
from engine.packs import export_pack, import_pack  # noqa: E402
from engine.paths import default_models  # noqa: E402
from engine.plain_text import human_size  # noqa: E402
from engine.types import (  # noqa: E402
    ParsedSource,
    SegmentDraft,
    SegmentKind,
    SourceKind,
    Timing,
)

LECTURE = DEMO_DIR / "lecture-01-sorting.mp4"
HOUR_MS = 3_600_000
HOUR_COURSE = "One-hour lecture (generated)"


def _demo_library(folder: Path, embedder: Embedder, models: ModelRegistry) -> Library:
    library = Library.open(folder, EngineConfig(), lambda: embedder, models=models)
    if not any(c.name == DEMO_COURSE for c in library.courses()):
        started = time.monotonic()
        library.ingest(demo_files(), course=DEMO_COURSE)
        print(f"(demo course imported, lecture transcribed, in {time.monotonic() - started:.0f} s)")
    return library


def _speech(library: Library) -> tuple[list[SpeechPart], int]:
    """The demo lecture's sentences with their words, and its length."""
    lecture = next(s for s in library.sources(DEMO_COURSE) if s.kind == SourceKind.VIDEO)
    words = sorted(
        {w for seg in library.segments_of(lecture.path) for w in seg.words},
        key=lambda w: (w.start_ms, w.end_ms),
    )
    parts = []
    for line in library.transcript(lecture.path):
        inside = tuple(w for w in words if line.start_ms <= w.start_ms < line.end_ms)
        parts.append(SpeechPart(line.start_ms, line.end_ms, line.text, inside))
    return parts, lecture.duration_ms or parts[-1].end_ms


def _hour(library: Library, embedder: Embedder, folder: Path) -> None:
    """The generated hour, written into ``library`` (see the module's docstring)."""
    parts, length = _speech(library)
    lecture = next(s for s in library.sources(DEMO_COURSE) if s.kind == SourceKind.VIDEO)
    screens = [s for s in library.segments_of(lecture.path) if s.kind == SegmentKind.SCREEN]
    scenes = library.store.recordings.scenes(lecture.id)
    hour_parts: list[SpeechPart] = []
    hour_scenes: list[tuple[int, int, int, str]] = []
    screen_drafts = []
    sha = hashlib.sha256(b"one generated hour").hexdigest()
    copy = 0
    while copy * length < HOUR_MS:
        shift = copy * length
        for p in parts:
            words = tuple(Timing(w.start_ms + shift, w.end_ms + shift, w.text) for w in p.words)
            hour_parts.append(
                SpeechPart(
                    p.start_ms + shift, p.end_ms + shift, f"Part {copy + 1}: {p.text}", words
                )
            )
        for scene in scenes:
            name = ""
            if scene.thumbnail:
                name = f"{sha[:16]}-{len(hour_scenes):04d}.jpg"
                shutil.copyfile(library.thumbs / scene.thumbnail, library.thumbs / name)
            hour_scenes.append(
                (scene.start_ms + shift, scene.end_ms + shift, scene.keyframe_ms + shift, name)
            )
        for s in screens:
            screen_drafts.append(
                _screen(s.text, s.heading, (s.start_ms or 0) + shift, (s.end_ms or 0) + shift)
            )
        copy += 1
    windows = transcript_windows(hour_parts, ChunkingConfig())
    path = folder / "lecture-hour.mp4"
    title = "lecture-hour"
    parsed = ParsedSource(SourceKind.VIDEO, title, tuple(windows), duration_ms=copy * length)
    library.index_parsed(
        path, parsed, course=HOUR_COURSE, sha256=sha, size=900 * 1024**2, finished=False
    )
    source = library.source(str(path))
    if source is None:
        raise SystemExit("the generated hour was not written")
    vectors = Embedding(32, True).drafts(embedder, title, screen_drafts)
    library.indexer.append_screen(source.id, hour_scenes, screen_drafts, vectors, embedder)
    library.save()


def _screen(text: str, heading: str, start: int, end: int) -> SegmentDraft:
    return SegmentDraft(SegmentKind.SCREEN, text, heading, start_ms=start, end_ms=end)


def _timed(work: Callable[[], object]) -> float:
    started = time.monotonic()
    work()
    return time.monotonic() - started


def _other_model(pack: Path, out: Path) -> Path:
    """The pack under another model id: its import must embed the text again."""
    with zipfile.ZipFile(pack) as zf:
        parts = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(parts["manifest.json"])
    manifest["model_id"] = "another-embedder@000000000000"
    parts["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(out, "w") as zf:
        for name, body in parts.items():
            zf.writestr(name, body)
    return out


def _cli_import(pack: Path, library: Path, models: Path) -> float:
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "engine.cli", "--library", str(library), "--models", str(models),
         "pack", "import", str(pack)],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description="Course packs: size, export and import time.")
    parser.add_argument("--models", type=Path, default=None)
    parser.add_argument("--library", type=Path, default=None, help="a library holding the demo")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    models_dir = args.models or default_models(os.environ)
    models = ModelRegistry(models_dir)
    embedder = models.load_embedder(DEFAULT_EMBEDDER, min(4, os.cpu_count() or 2))
    with tempfile.TemporaryDirectory(prefix="course-pack-") as scratch:
        work = Path(scratch)
        source = args.library or work / "teacher"
        library = _demo_library(source, embedder, models)
        started = time.monotonic()
        _hour(library, embedder, work)
        print(f"(one-hour lecture generated and embedded in {time.monotonic() - started:.0f} s)")
        rows = []
        media = work / "media"
        media.mkdir()
        for f in demo_files():
            shutil.copyfile(f, media / f.name)
        for course, name in ((DEMO_COURSE, "demo"), (HOUR_COURSE, "hour")):
            pack = work / f"{name}.cdxpack"
            exports = [
                _timed(lambda c=course, p=pack: export_pack(library, c, p, force=True))
                for _ in range(args.runs)
            ]
            size = pack.stat().st_size
            segments = sum(s.segments for s in library.sources(course))
            variants: list[tuple[str, Path, Path | None]] = [("no media", pack, None)]
            if name == "demo":
                variants.append(("--media", pack, media))
            else:
                variants.append(("re-embedded", _other_model(pack, work / "other.cdxpack"), None))
            for label, what, folder in variants:
                times = []
                for run in range(args.runs):
                    target = work / f"lib-{name}-{label}-{run}"
                    with Library.open(
                        target, EngineConfig(), lambda: embedder, models=models
                    ) as lib:
                        times.append(
                            _timed(lambda lib=lib, w=what, f=folder: import_pack(lib, w, media=f))
                        )
                cli = _cli_import(what, work / f"cli-{name}-{label}", models_dir)
                rows.append(
                    (
                        name,
                        label,
                        segments,
                        size,
                        statistics.median(exports),
                        statistics.median(times),
                        cli,
                    )
                )
        library.close()
    print(
        f"{'course':6} {'import':12} {'segments':>8} {'pack':>9} {'export':>8} {'import':>8} "
        f"{'CLI import':>11}"
    )
    for name, label, segments, size, export_s, import_s, cli in rows:
        print(
            f"{name:6} {label:12} {segments:8d} {human_size(size):>9} {export_s:7.2f}s "
            f"{import_s:7.2f}s {cli:10.2f}s"
        )
    print("CLI import: a new `coursedex pack import` process (start-up and model load included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
