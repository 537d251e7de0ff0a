"""Scene cuts and on-screen text of a >= 10-minute slide video: speed, accuracy, memory.

    uv run python bench/scenes_ocr.py [--slides 60] [--seconds 10] [--crf 30]
                                      [--widths 960,1280,1600] [--threshold 0.8]

A deck of generated slides (white background, black text; every third slide is the one
before with a single line added, a slide build) is shown 7-13 s each with no audio, encoded
once into ``.bench-cache/`` (git-ignored). Prints the time and real-time factor of the one
decoding pass that finds the cuts and keeps each scene's keyframe (as an import does), the
detector's frame scores at slide changes and elsewhere (to set
``MediaConfig.scene_threshold``), cuts found / missed / extra (a cut counts when found within
1 s), and for each OCR reading width (the kept keyframes are scaled to it) the seconds per
keyframe (p50 / p95), the total, and the share of the slide's words read.
Peak RSS last. Never pass/fail.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.config import MediaConfig  # noqa: E402
from engine.media.frames import rgb  # noqa: E402
from engine.media.scenes import OCR_WIDTH, iter_scenes  # noqa: E402
from engine.models.ocr import RapidTextRecognizer, lines_to_text  # noqa: E402
from tools.lecture_media import Clip, make_lecture_video, slide_image  # noqa: E402
from tools.memory import peak_rss_mb  # noqa: E402

_VOCABULARY = (
    "array list queue stack heap tree graph node edge path cycle search sort merge split "
    "insert delete update index table hash bucket chain probe load factor order binary "
    "linear constant time space memory cache page block disk file stream buffer lock "
    "thread process signal network packet router switch server client request response "
    "header body token parser grammar syntax compiler runtime object class method field "
    "value type check proof theorem lemma induction recursion iteration loop branch "
    "return call frame pointer string matrix vector scalar product gradient descent model "
    "layer weight bias error loss sample random prior estimate variance mean median mode "
    "range limit bound greedy dynamic"
)
WORDS = tuple(_VOCABULARY.split())
_WORD = re.compile(r"\w+")


def make_deck(slides: int, seed: int = 7) -> list[list[str]]:
    rng = random.Random(seed)
    deck: list[list[str]] = []
    for i in range(slides):
        line = " ".join(rng.sample(WORDS, 4)).capitalize()
        if i % 3 == 2:
            deck.append([*deck[-1], line])  # a slide build: one more line
        else:
            title = f"Lecture part {i + 1}: " + " ".join(rng.sample(WORDS, 2))
            deck.append([title, *(" ".join(rng.sample(WORDS, 5)) for _ in range(2)), line])
    return deck


def build_video(
    slides: int, seconds: float, crf: int, cache: Path
) -> tuple[Path, list[int], list[list[str]]]:
    """The video, its true cuts (ms) and each slide's lines; generated once and cached.

    Slides last ``seconds`` on average but 0.7x to 1.3x of it, so the encoder's keyframes
    (every 10 s) fall inside slides and their compression noise is measured too.
    """
    video = cache / f"scenes-{slides}x{seconds:g}s-crf{crf}.mp4"
    meta = video.with_suffix(".json")
    if video.exists() and meta.exists():
        data = json.loads(meta.read_text())
        return video, data["cuts"], data["deck"]
    cache.mkdir(parents=True, exist_ok=True)
    deck = make_deck(slides)
    with tempfile.TemporaryDirectory() as tmp:
        clips = [
            Clip(slide_image(lines, Path(tmp) / f"{i:03d}.png"), seconds=seconds * spread)
            for i, lines in enumerate(deck)
            for spread in [(0.7, 0.85, 1.0, 1.15, 1.3)[i % 5]]
        ]
        cuts = make_lecture_video(video, clips, audio=False, crf=crf)
    meta.write_text(json.dumps({"cuts": cuts, "deck": deck}))
    return video, cuts, deck


def match_cuts(truth: list[int], found: list[int], tolerance: int = 1000) -> tuple[int, int, int]:
    """(found, missed, extra): each true cut pairs with at most one found cut within 1 s."""
    left = list(found)
    hit = 0
    for cut in truth:
        near = [f for f in left if abs(f - cut) <= tolerance]
        if near:
            left.remove(min(near, key=lambda f: abs(f - cut)))
            hit += 1
    return hit, len(truth) - hit, len(left)


def words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--slides", type=int, default=60)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--crf", type=int, default=30, help="x264 quality: higher is noisier")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--widths", default="960,1280,1600", help="OCR reading widths to compare")
    p.add_argument("--threshold", type=float, default=MediaConfig().scene_threshold)
    p.add_argument("--cache", default=str(ROOT / ".bench-cache"))
    args = p.parse_args()
    config = MediaConfig()

    t0 = time.perf_counter()
    video, truth, deck = build_video(args.slides, args.seconds, args.crf, Path(args.cache))
    print(f"video: {video.name} ({time.perf_counter() - t0:.1f} s to build or load)")

    scores: list[tuple[int, float]] = []
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    # One pass, as an import makes it: cuts, and each scene's keyframe as OCR gets it.
    spans: list[tuple[int, int]] = []
    times: list[int] = []
    pictures: list[np.ndarray | None] = []
    for start, end, sample in iter_scenes(
        video, threshold=args.threshold, min_scene_ms=config.min_scene_ms, progress=None,
        cancel=None, scores=scores,
    ):  # fmt: skip
        spans.append((start, end))
        times.append(sample.ms if sample is not None else start)
        pictures.append(rgb(sample.frame, OCR_WIDTH) if sample is not None else None)
    detect_s = time.perf_counter() - t0
    detect_cpu = time.process_time() - cpu0
    duration_ms = spans[-1][1]
    duration_s = duration_ms / 1000
    hit, missed, extra = match_cuts(truth[1:], [a for a, _ in spans[1:]])
    print(f"duration: {duration_s / 60:.1f} min, {len(truth)} slides, threshold {args.threshold}")
    print(
        f"scene detection and keyframes (one pass): {detect_s:.1f} s, "
        f"{detect_s / duration_s:.4f}x real time ({duration_s / detect_s:.0f}x faster than "
        f"playback), {detect_cpu:.1f} s CPU"
    )
    # The score of a true cut is the highest within 1 s after it; noise is every other frame.
    at_cuts = [max((v for ms, v in scores if 0 <= ms - c <= 1000), default=0.0) for c in truth[1:]]
    noise = [v for ms, v in scores if all(not 0 <= ms - c <= 1000 for c in truth)]
    print(
        f"frame scores: slide changes min {min(at_cuts):.2f} / median "
        f"{statistics.median(at_cuts):.2f}; elsewhere max {max(noise):.2f} / p99 "
        f"{statistics.quantiles(noise, n=100)[-1]:.2f} ({len(scores)} frames looked at)"
    )
    print(f"bench process peak RSS after scene detection: {peak_rss_mb()} MB")
    print(f"cuts: {hit} found, {missed} missed, {extra} extra (of {len(truth) - 1}, within 1 s)")

    starts = [*truth[1:], duration_ms]
    header = ("OCR width", "p50 s", "p95 s", "total s", "words read")
    print("{:>9s} {:>7s} {:>7s} {:>8s} {:>11s}".format(*header))
    for width in (int(w) for w in args.widths.split(",")):
        seconds: list[float] = []
        read = total = 0
        recognizer = RapidTextRecognizer(threads=args.threads, read_width=width)
        recognizer.read(np.full((64, 64, 3), 255, dtype=np.uint8))  # load the models
        for ms, frame in zip(times, pictures, strict=True):
            if frame is None:
                continue
            t0 = time.perf_counter()
            text = lines_to_text(recognizer.read(frame))
            seconds.append(time.perf_counter() - t0)
            slide = next(i for i, end in enumerate(starts) if ms < end)
            expected = words(" ".join(deck[slide]))
            read += len(expected & words(text))
            total += len(expected)
        p95 = statistics.quantiles(seconds, n=20)[-1] if len(seconds) > 1 else seconds[0]
        print(
            f"{width:9d} {statistics.median(seconds):7.3f} {p95:7.3f} {sum(seconds):8.1f} "
            f"{read / max(total, 1):11.1%}"
        )
    print(f"bench process peak RSS with OCR: {peak_rss_mb()} MB")


if __name__ == "__main__":
    main()
