"""Short real media for player tests: a spoken video with its clock drawn on every frame, and
the same speech as an .m4a. ffmpeg and espeak-ng make them; a session fixture caches them."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from engine.types import Timing

SLOT_MS = 3_000  # one sentence starts every 3 s
SENTENCES = (
    "The player opens at the exact moment.",
    "Sorting puts the smallest item first.",
    "Merge sort splits the list in halves.",
    "Quick sort picks a pivot and partitions.",
    "Heaps keep the largest item on top.",
    "Binary search halves the range each step.",
    "Hash tables map keys to buckets.",
    "Graphs join nodes with edges.",
    "Trees are graphs without cycles.",
)
VIDEO_MS = SLOT_MS * len(SENTENCES)  # 27 s
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
MEDIA_VARIABLE = "COURSEDEX_TEST_MEDIA"  # a folder where make_test_media made them


@dataclass(frozen=True, slots=True)
class PlayerMedia:
    video: Path  # 640x360 H.264/AAC .mp4, VIDEO_MS long, 10 frames/s, a keyframe each second
    audio: Path  # the same speech as AAC in .m4a
    transcript: tuple[Timing, ...]  # each sentence at its slot


def _run(args: list[str]) -> None:
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{args[0]} failed: {done.stderr.strip()[-800:]}")


def make_test_media(folder: Path) -> PlayerMedia:
    """Speak each sentence into its 3-s slot and draw the running clock on a test pattern."""
    folder.mkdir(parents=True, exist_ok=True)
    inputs: list[str] = []
    pads: list[str] = []
    for i, sentence in enumerate(SENTENCES):
        wav = folder / f"s{i}.wav"
        _run(["espeak-ng", "-v", "en-us", "-s", "175", "-w", str(wav), sentence])
        inputs += ["-i", str(wav)]
        pads.append(
            f"[{i}:a]aresample=22050,apad=whole_dur={SLOT_MS / 1000},"
            f"atrim=duration={SLOT_MS / 1000}[a{i}]"
        )
    joined = "".join(f"[a{i}]" for i in range(len(SENTENCES)))
    speech = folder / "speech.wav"
    graph = ";".join([*pads, f"{joined}concat=n={len(SENTENCES)}:v=0:a=1[out]"])
    _run(["ffmpeg", "-v", "error", "-y", *inputs, "-filter_complex", graph,
          "-map", "[out]", str(speech)])  # fmt: skip
    seconds = VIDEO_MS / 1000
    clock = (
        f"drawtext=fontfile={FONT}:fontsize=72:fontcolor=white:box=1:boxcolor=black@0.6:"
        "x=(w-tw)/2:y=(h-th)/2:text='%{pts\\:hms}'"
    )
    video = folder / "lecture.mp4"
    _run(["ffmpeg", "-v", "error", "-y",
          "-f", "lavfi", "-i", f"testsrc2=size=640x360:rate=10:duration={seconds}",
          "-i", str(speech), "-vf", clock,
          "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-pix_fmt", "yuv420p",
          "-c:a", "aac", "-b:a", "48k", "-shortest", str(video)])  # fmt: skip
    audio = folder / "talk.m4a"
    _run(["ffmpeg", "-v", "error", "-y", "-i", str(speech), "-c:a", "aac", "-b:a", "48k",
          str(audio)])  # fmt: skip
    for wav in folder.glob("*.wav"):
        wav.unlink()
    return media_in(folder)


def media_in(folder: Path) -> PlayerMedia:
    """The media :func:`make_test_media` made in ``folder`` (a child pytest takes its
    parent's through MEDIA_VARIABLE instead of speaking and encoding them again)."""
    transcript = tuple(
        Timing(i * SLOT_MS, (i + 1) * SLOT_MS - 200, text) for i, text in enumerate(SENTENCES)
    )
    return PlayerMedia(folder / "lecture.mp4", folder / "talk.m4a", transcript)
