"""Import of a >= 10-minute lecture video: real-time factor of each stage and of the whole.

    uv run python bench/video_import.py [--lecture computer_vision] [--minutes 10.5]

The lecture is generated once into ``.bench-cache/`` (git-ignored) from a MaViLS lecture read
at run time from ``../shared/eval/mavils``: its slide PDF's pages are the frames, and the
labelled sentences spoken over each slide are narrated by espeak-ng, so we know which page is
on screen when. The folder (video + slide PDF) is then imported into a fresh library with
speech recognition (the configured model, tiny.en by default), scenes, on-screen text,
embeddings and slide links. Prints stage times, real-time factors, when the speech became
searchable, peak RSS (the import process, which is this one, and its recognition child,
sampled with psutil) and slide-link accuracy.
Never pass/fail.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.config import EngineConfig, MediaConfig  # noqa: E402
from engine.importing.progress import IngestProgress, Outcome  # noqa: E402
from engine.library import Library  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.search.evaluate import default_data_dir  # noqa: E402
from tools.lecture_media import Clip, make_lecture_video, pdf_page_images  # noqa: E402
from tools.memory import RECOGNITION_CHILD, TreePeaks, peak_rss_mb  # noqa: E402

WORDS_PER_MINUTE = 185  # espeak-ng at 160 on its scale speaks about 185 words a minute


def build_lecture(lecture: str, minutes: float, cache: Path) -> tuple[Path, list[tuple[int, int]]]:
    """The course folder (video + deck) and the (start_ms, page) schedule of the video."""
    folder = cache / f"lecture-{lecture}-{minutes:g}min"
    schedule_file = folder.parent / f"{folder.name}.schedule.json"
    if schedule_file.exists() and (folder / "lecture.mp4").exists():
        schedule = [tuple(x) for x in json.loads(schedule_file.read_text())]
        return folder, schedule  # type: ignore[return-value]
    data = default_data_dir() / "mavils"
    rows = list(csv.DictReader((data / "ground_truth" / f"{lecture}.csv").open()))
    runs: list[tuple[int, list[str]]] = []
    words = 0
    for row in rows:
        slide = int(float(row["slide"]))
        if slide < 1:
            continue
        if runs and runs[-1][0] == slide:
            runs[-1][1].append(row["text"])
        else:
            runs.append((slide, [row["text"]]))
        words += len(row["text"].split())
        if words / WORDS_PER_MINUTE >= minutes:
            break
    folder.mkdir(parents=True, exist_ok=True)
    deck = folder / "slides.pdf"
    shutil.copyfile(data / "lectures" / f"{lecture}.pdf", deck)
    with tempfile.TemporaryDirectory() as tmp:
        pages = pdf_page_images(deck, Path(tmp))
        clips = [Clip(pages[slide - 1], " ".join(texts)) for slide, texts in runs]
        print(f"generating a {len(clips)}-scene lecture video ({words} words) ...", flush=True)
        starts = make_lecture_video(folder / "lecture.mp4", clips)
    schedule = [(start, slide) for start, (slide, _) in zip(starts, runs, strict=True)]
    schedule_file.write_text(json.dumps(schedule))
    return folder, schedule


def print_peaks(own_mb: int, peaks: dict[str, float]) -> None:
    child = peaks.get(RECOGNITION_CHILD, 0.0)
    others = ", ".join(
        f"{role} {mb:.0f} MB"
        for role, mb in peaks.items()
        if role not in ("import process", RECOGNITION_CHILD)
    )
    print(f"import process peak {own_mb} MB; recognition child peak {child:.0f} MB (sampled)")
    if others:
        print(f"other children's peaks (sampled): {others}")


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--lecture", default="computer_vision")
    p.add_argument("--minutes", type=float, default=10.5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--speech-model", default=MediaConfig().speech_model)
    p.add_argument("--beam", type=int, default=None, help="beam size (default: the app's)")
    p.add_argument("--cache", default=str(ROOT / ".bench-cache"))
    args = p.parse_args()
    cache = Path(args.cache)
    folder, schedule = build_lecture(args.lecture, args.minutes, cache)
    video = folder / "lecture.mp4"
    registry = ModelRegistry(cache / "models")
    embedder = registry.load_embedder(threads=args.threads)
    media = MediaConfig(speech_model=args.speech_model)
    if args.beam is not None:
        media = replace(media, beam_size=args.beam)
    config = EngineConfig(threads=args.threads, media=media)

    events: list[tuple[float, IngestProgress]] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        Library.open(Path(tmp), config, lambda: embedder, models=registry) as lib,
    ):
        children = TreePeaks(os.getpid(), "import process")
        started = time.perf_counter()
        report = lib.ingest(
            [folder], progress=lambda e: events.append((time.perf_counter() - started, e))
        )
        total_s = time.perf_counter() - started
        peaks = children.stop()
        for f in report.files:
            if f.outcome != Outcome.INDEXED:
                print(f"  {Path(f.path).name}: {f.outcome.value} {f.detail}")
        source = lib.store.catalog.source_by_path(str(video))
        assert source is not None
        duration_s = (source.duration_ms or 1) / 1000
        links = lib.store.recordings.slide_links(source.id)
        stats = lib.stats()

    # Stage spans on the video: from a stage's first report to the next stage's first.
    spans: dict[str, float] = defaultdict(float)
    video_events = [(t, e) for t, e in events if e.path == str(video)]
    for (t, e), (t_next, _) in itertools.pairwise(video_events):
        spans[e.stage] += t_next - t
    searchable = next(
        (t for t, e in video_events if e.stage in ("finding scenes", "reading the screen")), None
    )
    print(f"video: {video.name}, {duration_s / 60:.1f} min, {len(schedule)} slide changes")
    print(f"{'stage':22s} {'seconds':>9s} {'x real time':>12s}")
    for stage, seconds in spans.items():
        if stage == "done":
            continue
        print(f"{stage:22s} {seconds:9.1f} {seconds / duration_s:12.3f}")
    print(f"{'whole import':22s} {total_s:9.1f} {total_s / duration_s:12.3f}  (all files)")
    if searchable is not None:
        print(f"speech searchable after {searchable:.1f} s ({searchable / duration_s:.3f}x)")
    print_peaks(peak_rss_mb(), peaks)
    print(f"segments: {stats['segments_by_kind']}")

    # Slide links: share of the video's time (sampled each second) linked to the right page.
    right = total = 0
    ends = [s for s, _ in schedule[1:]] + [int(duration_s * 1000)]
    for (start, page), end in zip(schedule, ends, strict=True):
        for ms in range(start + 500, end, 1000):
            linked = next((p for a, b, _, p, _ in links if a <= ms < b), None)
            right += linked == page
            total += 1
    print(f"slide links: {right / max(total, 1):.1%} of {total} sampled seconds on the right page")


if __name__ == "__main__":
    main()
