"""How an import's time splits between a file's stages, and what a file costs per second of
media or per byte: the figures behind the progress weights in engine/importing/progress.py.

    uv run python bench/progress_shares.py [--minutes 3]

Imports the demo course (a narrated lecture video, slides, code, notes) and a generated
narrated video of ``--minutes`` (espeak-ng over slide pictures, ffmpeg) into a fresh library
with the default settings (tiny.en, scenes, on-screen text), each file in its own run so the
speech model's loading counts once per run as it does for a user. Prints, per file, the
seconds of each stage (FileResult.stages: how long each stage was the file's current one),
their shares, and seconds per minute of media or per MB. Never pass/fail.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.config import EngineConfig  # noqa: E402
from engine.demo import demo_files  # noqa: E402
from engine.errors import CoursedexError  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.media.probe import probe  # noqa: E402
from engine.models.registry import DEFAULT_EMBEDDER, ModelRegistry  # noqa: E402
from tools.factories import make_pdf  # noqa: E402
from tools.lecture_media import Clip, make_lecture_video, pdf_page_images  # noqa: E402

SENTENCES = (
    "A binary search tree keeps every smaller key in the left subtree and every larger key "
    "in the right subtree, so a search halves what remains at each step.",
    "A heap is a tree where a parent is never larger than its children, which makes it a "
    "good priority queue for scheduling work.",
    "Breadth first search visits neighbours with a queue, while depth first search follows "
    "one path with a stack until it has to turn back.",
    "Dijkstra's algorithm finds shortest paths by always settling the closest vertex next, "
    "as long as no weight is negative.",
)


def narrated_video(folder: Path, minutes: float) -> Path:
    """A video of ``minutes`` whose slides change every ~20 s, narrated throughout."""
    folder.mkdir(parents=True, exist_ok=True)
    slides = max(2, round(minutes * 3))
    texts = [f"Part {i + 1}\n{SENTENCES[i % 4][:60]}" for i in range(slides)]
    deck = make_pdf(folder / "deck.pdf", texts, slides=True)
    frames = pdf_page_images(deck, folder / "frames")
    clips = [
        Clip(f, " ".join(SENTENCES[(i + k) % 4] for k in range(2))) for i, f in enumerate(frames)
    ]
    video = folder / "narrated.mp4"
    make_lecture_video(video, clips)
    deck.unlink()
    shutil.rmtree(folder / "frames")
    return video


def main() -> None:
    parser = argparse.ArgumentParser(description="Stage shares of real imports")
    parser.add_argument("--minutes", type=float, default=3.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        files = [*demo_files(), narrated_video(work / "made", args.minutes)]
        registry = ModelRegistry(work / "models")
        registry.path(DEFAULT_EMBEDDER)
        embedder = registry.load_embedder(DEFAULT_EMBEDDER, 2)
        lib = Library.open(work / "lib", EngineConfig(), lambda: embedder, models=registry)
        for path in files:
            started = time.monotonic()
            report = lib.ingest([path])
            wall = time.monotonic() - started
            result = report.files[0]
            stages = dict(result.stages)
            total = sum(stages.values()) or 1.0
            size_mb = path.stat().st_size / 1e6
            try:
                minutes = probe(path).duration_ms / 60_000
            except CoursedexError:  # not media
                minutes = 0.0
            per = (
                f"{wall / minutes:.2f} s per media minute"
                if minutes
                else f"{wall / size_mb:.2f} s/MB"
            )
            print(f"{path.name}: {result.outcome.value}, {wall:.1f} s ({per}, {size_mb:.2f} MB)")
            for name, seconds in stages.items():
                print(f"    {name:22s} {seconds:7.2f} s  {seconds / total:6.1%}")
        lib.close()


if __name__ == "__main__":
    main()
