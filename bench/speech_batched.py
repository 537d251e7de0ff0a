"""faster-whisper's BatchedInferencePipeline against WhisperModel.transcribe (issue 38).

    uv run python bench/speech_batched.py [--cache /work/bench-cache] [--threads 2]
        [--batch-sizes 1 4 8] [--rounds 2] [--no-lecture]

Both sides hear the same audio with the app's settings (tiny.en int8, beam 1, VAD, word
timestamps, English, no conditioning on the previous text) in this process, one model
loaded once, the sides interleaved round by round (the machine's speed drifts):
- ``../shared/eval/speech`` clips (jfk + LibriSpeech): WER against the reference;
- the 10.6-min lecture bench/video_import.py generates into ``--cache`` (bench/
  import_vs_transcribe.py's): wall, CPU seconds (this process, every thread), real-time
  factor, and the batched side's words against the sequential side's: word error rate
  between them and, over the words both have (aligned by difflib), the start/end
  differences (median, p95, max, share over 0.1 s).
Never pass/fail.
"""

from __future__ import annotations

import argparse
import difflib
import resource
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.speech_wer import clips, edit_distance, normalise  # noqa: E402
from engine.importing.hearing import ENGLISH_SPEECH_MODEL  # noqa: E402
from engine.media.transcribe import BEAM_SIZE  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.search.evaluate import default_data_dir  # noqa: E402

LECTURE = "lecture-computer_vision-10.5min/lecture.mp4"


def lecture_reference(lecture: str = "computer_vision", minutes: float = 10.5) -> list[str]:
    """The words narrated into the lecture (bench/video_import.py's build_lecture)."""
    import csv

    from bench.video_import import WORDS_PER_MINUTE

    data = default_data_dir() / "mavils" / "ground_truth" / f"{lecture}.csv"
    texts: list[str] = []
    words = 0
    for row in csv.DictReader(data.open()):
        if int(float(row["slide"])) < 1:
            continue
        texts.append(row["text"])
        words += len(row["text"].split())
        if words / WORDS_PER_MINUTE >= minutes:
            break
    return normalise(" ".join(texts))


@dataclass
class Heard:
    words: list[tuple[float, float, str]]
    wall_s: float
    cpu_s: float

    @property
    def text(self) -> list[str]:
        return normalise(" ".join(w for _, _, w in self.words))


def _decoded(path: Path) -> np.ndarray:
    from faster_whisper import decode_audio

    audio = decode_audio(str(path), sampling_rate=16000)
    return audio[0] if isinstance(audio, tuple) else audio  # a tuple only with split_stereo


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def hear(model: Any, audio: np.ndarray, batch: int) -> Heard:
    """``batch`` 0: WhisperModel.transcribe as the app calls it; else the batched pipeline."""
    from faster_whisper import BatchedInferencePipeline

    common: dict[str, Any] = dict(
        language="en", beam_size=BEAM_SIZE, word_timestamps=True, vad_filter=True
    )
    wall, cpu = time.perf_counter(), _cpu()
    if batch == 0:
        segments, _ = model.transcribe(
            audio, condition_on_previous_text=False, no_speech_threshold=None, **common
        )
    else:
        pipeline = BatchedInferencePipeline(model)
        segments, _ = pipeline.transcribe(
            audio, batch_size=batch, no_speech_threshold=None, **common
        )
    words = [(w.start, w.end, w.word.strip()) for s in segments for w in s.words or ()]
    return Heard([w for w in words if w[2]], time.perf_counter() - wall, _cpu() - cpu)


def time_differences(a: Heard, b: Heard) -> list[float]:
    """|start| and |end| differences of the words both heard (same normalised word)."""
    wa = [normalise(w)[:1] for _, _, w in a.words]
    wb = [normalise(w)[:1] for _, _, w in b.words]
    ka = [x[0] if x else "" for x in wa]
    kb = [x[0] if x else "" for x in wb]
    out: list[float] = []
    matcher = difflib.SequenceMatcher(None, ka, kb, autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            x, y = a.words[block.a + k], b.words[block.b + k]
            out += [abs(x[0] - y[0]), abs(x[1] - y[1])]
    return out


def side(batch: int) -> str:
    return "WhisperModel.transcribe" if batch == 0 else f"batched, batch_size {batch}"


def eval_clips(model: Any, sides: list[int]) -> None:
    items = clips(default_data_dir() / "speech")
    print(f"\n../shared/eval/speech: {len(items)} clips, WER against the reference")
    for batch in sides:
        errors = units = 0
        wall = cpu = audio_s = 0.0
        for path, reference in items:
            audio = _decoded(path)
            heard = hear(model, audio, batch)
            ref = normalise(reference)
            errors += edit_distance(ref, heard.text)
            units += len(ref)
            wall += heard.wall_s
            cpu += heard.cpu_s
            audio_s += len(audio) / 16000
        print(
            f"  {side(batch):28s} WER {errors / units:6.2%} ({errors}/{units})  "
            f"RTF {wall / audio_s:.3f}  CPU {cpu / audio_s:.3f} s/s"
        )


def lecture(model: Any, path: Path, sides: list[int], rounds: int) -> None:
    audio = _decoded(path)
    seconds = len(audio) / 16000
    print(f"\n{path.name}: {seconds / 60:.1f} min, {rounds} rounds interleaved")
    runs: dict[int, list[Heard]] = {b: [] for b in sides}
    # The sequential side heard twice per round: temperature fallback samples, so two runs
    # of the same call differ too (the floor for "the same words").
    for r in range(rounds):
        for batch in [*sides, 0]:
            heard = hear(model, audio, batch)
            runs[batch].append(heard)
            print(
                f"  round {r + 1} {side(batch):28s} wall {heard.wall_s:6.1f} s  "
                f"CPU {heard.cpu_s:6.1f} s",
                flush=True,
            )
    base = runs[sides[0]][0]
    reference = lecture_reference()
    print(f"  median over rounds; words and times against {side(sides[0])}'s first run:")
    heard_by = [(0, runs[0][0]), (0, runs[0][1]), *((b, runs[b][0]) for b in sides[1:])]
    for k, (batch, heard) in enumerate(heard_by):
        wall = statistics.median(h.wall_s for h in runs[batch])
        cpu = statistics.median(h.cpu_s for h in runs[batch])
        wer = edit_distance(reference, heard.text) / len(reference)
        diff = edit_distance(base.text, heard.text) / max(1, len(base.text))
        times = sorted(time_differences(base, heard)) or [0.0]
        p95 = times[int(0.95 * (len(times) - 1))]
        over = sum(t > 0.1 for t in times) / len(times)
        print(
            f"  {side(batch) + (', again' if k == 1 else ''):28s} "
            f"wall {wall:6.1f} s  CPU {cpu:6.1f} s  RTF {wall / seconds:.3f}  "
            f"words {len(heard.words):5d}  WER {wer:6.2%}  vs base {diff:6.2%}  "
            f"|dt| median {statistics.median(times):.3f} p95 {p95:.3f} max {times[-1]:.2f} s, "
            f"{over:.1%} > 0.1 s"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--cache", default=str(ROOT / ".bench-cache"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 4, 8])
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--no-lecture", action="store_true")
    p.add_argument("--no-eval", action="store_true")
    args = p.parse_args()
    from faster_whisper import WhisperModel

    cache = Path(args.cache)
    model_dir = ModelRegistry(cache / "models").path(ENGLISH_SPEECH_MODEL)
    model = WhisperModel(
        str(model_dir), device="cpu", compute_type="int8", cpu_threads=args.threads
    )
    sides = [0, *args.batch_sizes]
    print(f"{ENGLISH_SPEECH_MODEL} int8, {args.threads} threads, beam {BEAM_SIZE}, VAD, words")
    if not args.no_eval:
        eval_clips(model, sides)
    if not args.no_lecture:
        path = cache / LECTURE
        if not path.exists():
            from bench.video_import import build_lecture

            path = build_lecture("computer_vision", 10.5, cache)[0] / "lecture.mp4"
        lecture(model, path, sides, args.rounds)


if __name__ == "__main__":
    main()
