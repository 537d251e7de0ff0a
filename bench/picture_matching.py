"""Same picture or not: how far a keyframe is from its own slide page, and pages from each other.

    uv run python bench/picture_matching.py [--lecture computer_vision] [--minutes 10.5]

Two measurements behind ``engine/media/pictures.MAX_CHANGED``:
1. The generated lecture of bench/video_import.py (MaViLS pages as frames, H.264 at crf 30):
   for each slide change, the keyframe's changed share against its own page and against the
   nearest other page of the deck, and the page the matcher picks.
2. Every MaViLS deck (read at run time from ``../shared/eval/mavils``): for each page, the
   nearest other page of its deck (two different pages must stay apart).
Pages are rendered as engine/media/deck.py renders them. Never pass/fail.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.media import deck  # noqa: E402
from engine.media.frames import VideoInfo, sample_frames  # noqa: E402
from engine.media.pictures import (  # noqa: E402
    MAX_CHANGED,
    PictureIndex,
    changed_share,
    signature,
)
from engine.media.scenes import ANALYSIS_WIDTH  # noqa: E402
from engine.search.evaluate import default_data_dir  # noqa: E402


def keyframes_vs_pages(folder: Path, pdf: Path) -> None:
    schedule = json.loads(folder.with_name(f"{folder.name}.schedule.json").read_text())
    t0 = time.perf_counter()
    rendered = deck._render(pdf)  # pyright: ignore[reportPrivateUsage]
    print(f"{pdf.name}: {len(rendered)} pages rendered in {time.perf_counter() - t0:.2f} s")
    index: PictureIndex[int] = PictureIndex()
    index.extend([(sig, n) for n, (sig, _) in enumerate(rendered, 1)])
    aspect = rendered[0][1]
    due = {start + 1000: page for start, page in schedule}
    info = VideoInfo(0.0, 0)
    print(f"{'page':>4s} {'own page':>9s} {'nearest other':>14s} {'picked':>7s}")
    video = folder / "lecture.mp4"
    for sample in sample_frames(video, info, per_second=5, width=ANALYSIS_WIDTH):
        for ms, page in list(due.items()):
            if sample.ms < ms:
                continue
            del due[ms]
            sig = signature(sample.grey, aspect)
            near = index.nearest(sig)
            own = next(share for share, _, n in near if n == page)
            other = next((share, n) for share, _, n in near if n != page)
            picked = index.find(sig)
            print(f"{page:4d} {own:9.4f} {other[0]:9.4f} (p{other[1]}) {picked!s:>7s}")


def pages_vs_pages(decks: list[Path]) -> None:
    nearest: list[float] = []
    for pdf in decks:
        sigs = [sig for sig, _ in deck._render(pdf)]  # pyright: ignore[reportPrivateUsage]
        close = []
        for i, a in enumerate(sigs):
            share, j = min((changed_share(a, b), j) for j, b in enumerate(sigs) if j != i)
            nearest.append(share)
            if share <= 3 * MAX_CHANGED:
                close.append(f"{i + 1}~{j + 1} {share:.4f}")
        print(f"{pdf.stem:24s} {len(sigs):3d} pages; within 3x the threshold: {close}")
    q = np.quantile(nearest, [0, 0.01, 0.05, 0.5])
    print(
        f"nearest other page over {len(nearest)} pages: min {q[0]:.4f}, p1 {q[1]:.4f}, "
        f"p5 {q[2]:.4f}, median {q[3]:.4f}; threshold {MAX_CHANGED}"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--lecture", default="computer_vision")
    p.add_argument("--minutes", type=float, default=10.5)
    p.add_argument("--cache", default=str(ROOT / ".bench-cache"))
    args = p.parse_args()
    data = default_data_dir() / "mavils" / "lectures"
    folder = Path(args.cache) / f"lecture-{args.lecture}-{args.minutes:g}min"
    if (folder / "lecture.mp4").exists():
        keyframes_vs_pages(folder, data / f"{args.lecture}.pdf")
    else:
        print(f"no {folder}: run bench/video_import.py first for the keyframe measurement")
    pages_vs_pages(sorted(data.glob("*.pdf")))


if __name__ == "__main__":
    main()
