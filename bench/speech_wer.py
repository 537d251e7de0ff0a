"""Word error rate and speed of speech recognition on ``../shared/eval/speech``.

    uv run python bench/speech_wer.py [--model faster-whisper-tiny.en] [--beams 1 5]

jfk.flac and the LibriSpeech test-clean clips, each through the app's Transcriber (child
process, VAD on, word timestamps on). WER after lower-casing and stripping punctuation:
(substitutions + deletions + insertions) / reference words, per clip and over all clips.
Real-time factor = wall time (including the child's model load) / audio length. Never
pass/fail.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.media.probe import probe  # noqa: E402
from engine.media.transcribe import SpeechSegment, Transcriber  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.search.evaluate import default_data_dir  # noqa: E402

JFK = (
    "And so, my fellow Americans, ask not what your country can do for you, ask what you can "
    "do for your country."
)


def normalise(text: str) -> list[str]:
    return re.sub(r"[^a-z0-9' ]+", " ", text.lower().replace("-", " ")).split()


def edit_distance(ref: list[str], hyp: list[str]) -> int:
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, start=1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[-1]


def clips(data: Path) -> list[tuple[Path, str]]:
    out = [(data / "jfk.flac", JFK)]
    for trans in sorted((data / "LibriSpeech").rglob("*.trans.txt")):
        for line in trans.read_text().splitlines():
            key, _, text = line.partition(" ")
            out.append((trans.parent / f"{key}.flac", text))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--model", default="faster-whisper-tiny.en")
    p.add_argument("--beams", type=int, nargs="+", default=[1, 5])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cache", default=str(ROOT / ".bench-cache"))
    args = p.parse_args()
    model_dir = ModelRegistry(Path(args.cache) / "models").path(args.model)
    data = default_data_dir() / "speech"
    items = clips(data)
    print(f"model {args.model}, {len(items)} clips, {args.threads} threads")
    for beam in args.beams:
        transcriber = Transcriber(model_dir, threads=args.threads, beam_size=beam)
        errors = words = 0
        audio_s = wall_s = 0.0
        print(f"\nbeam {beam}")
        print(f"  {'clip':24s} {'words':>5s} {'WER':>7s} {'RTF':>6s}")
        for path, reference in items:
            segments: list[SpeechSegment] = []
            started = time.perf_counter()
            transcriber.transcribe(path, on_segment=segments.append)
            took = time.perf_counter() - started
            seconds = probe(path).duration_ms / 1000
            ref = normalise(reference)
            hyp = normalise(" ".join(s.text for s in segments))
            e = edit_distance(ref, hyp)
            errors += e
            words += len(ref)
            audio_s += seconds
            wall_s += took
            print(f"  {path.stem:24s} {len(ref):5d} {e / len(ref):7.1%} {took / seconds:6.3f}")
        print(f"  {'all':24s} {words:5d} {errors / words:7.1%} {wall_s / audio_s:6.3f}")


if __name__ == "__main__":
    main()
