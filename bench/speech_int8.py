"""A Whisper model from its float16 file (quantized by CTranslate2 at load) against the int8
file the registry stores (engine/models/whisper_int8.py): the same transcripts and word times?

    uv run python bench/speech_int8.py [--model faster-whisper-tiny.en] [--languages en es]
        [--threads 2] [--loads 5] [--no-demo]

English clips: the demo course's lecture (resources/demo) and ``../shared/eval/speech``
(jfk.flac and the LibriSpeech test-clean utterances); other languages (a multilingual model's
default: es de fr): bench/lecture_texts.py's three paragraphs narrated by espeak-ng. Each
through the app's Transcriber (child process, VAD, word times, beam 1, the language detected)
with both model folders: the float16 one assembled as the registry would without
``store_int8``, the int8 one as the registry installs it. Per clip: words, word error of the
int8 transcript against the float16 one, the largest and mean difference of the word times
(words matched in order), WER of each against the reference where there is one, the
language each heard, and wall time. Then the size of model.bin and the time to load each
model in this process (median of ``--loads``, alternating). Never pass/fail.
"""

from __future__ import annotations

import argparse
import difflib
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.lecture_texts import LECTURES, make_clips  # noqa: E402
from bench.speech_wer import clips, edit_distance, is_multilingual, units  # noqa: E402
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
    language: str
    seconds: float


@dataclass(frozen=True, slots=True)
class Item:
    name: str
    language: str
    path: Path
    reference: str | None
    by_character: bool = False


@dataclass(slots=True)
class Sums:
    clips: int = 0
    words: int = 0
    errors: int = 0
    same: int = 0
    f16_s: float = 0.0
    i8_s: float = 0.0

    def add(self, words: int, errors: int, same: bool, f16: Heard, i8: Heard) -> None:
        self.clips += 1
        self.words += words
        self.errors += errors
        self.same += same
        self.f16_s += f16.seconds
        self.i8_s += i8.seconds


def _float16(name: str, folder: Path) -> Path:
    """``name`` assembled as the registry does (packages, pins), without storing it int8."""
    spec = ModelRegistry(folder).spec(name)
    if not spec.store_int8:
        raise SystemExit(f"{name} is not stored as int8: nothing to compare")
    return ModelRegistry(folder, specs=[replace(spec, store_int8=False)], bundled=False).path(name)


def _hear(model: Path, media: Path, threads: int) -> Heard:
    segments: list[SpeechSegment] = []
    started = time.perf_counter()
    result = Transcriber(model, threads=threads).transcribe(media, on_segment=segments.append)
    took = time.perf_counter() - started
    words = tuple(w for s in segments for w in s.words)
    return Heard(words, " ".join(s.text for s in segments), result.language, took)


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
    p.add_argument("--model", default=TINY)
    p.add_argument("--languages", nargs="+", choices=list(LECTURES), help="default: en, and "
                   "es de fr for a multilingual model")  # fmt: skip
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--loads", type=int, default=5)
    p.add_argument("--no-demo", action="store_true", help="only the eval clips in English")
    p.add_argument("--cache", default=str(ROOT / ".bench-cache"))
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="speech-int8-") as tmp:
        models = {
            "float16": _float16(args.model, Path(tmp) / "float16"),
            "int8": ModelRegistry(Path(tmp) / "int8", bundled=False).path(args.model),
        }
        multilingual = is_multilingual(models["int8"])
        languages = args.languages or (["en", "es", "de", "fr"] if multilingual else ["en"])
        items = _items(languages, not args.no_demo, Path(args.cache) / "lectures")
        _compare(args.model, models, items, args.threads)
        sizes = {name: (d / "model.bin").stat().st_size / 1e6 for name, d in models.items()}
        loads = _load_times(models, args.loads, args.threads)
    print(f"\n{'model':8s} {'model.bin MB':>12s} {'load s':>7s}  (median of {args.loads})")
    for name in models:
        print(f"{name:8s} {sizes[name]:12.1f} {loads[name]:7.3f}")


def _items(languages: list[str], demo: bool, lectures: Path) -> list[Item]:
    items: list[Item] = []
    if "en" in languages:
        items += [Item("demo", "en", DEMO, None)] if demo else []
        items += [
            Item(path.stem, "en", path, text) for path, text in clips(default_data_dir() / "speech")
        ]
    others = [language for language in languages if language != "en"]
    for language, topic, path, text in make_clips(lectures, others):
        items.append(
            Item(f"{language}/{topic}", language, path, text, LECTURES[language].by_character)
        )
    return items


def _compare(name: str, models: dict[str, Path], items: list[Item], threads: int) -> None:
    print(f"{name}, {threads} threads; 'diff' = word error of int8 against float16")
    print(
        f"{'clip':24s} {'words':>5s} {'diff':>6s} {'same':>5s} {'dt max':>7s} {'dt mean':>7s} "
        f"{'WER f16':>7s} {'WER i8':>7s} {'s f16':>6s} {'s i8':>6s}  heard in"
    )
    totals: dict[str, Sums] = {}
    all_deltas: list[int] = []
    for item in items:
        f16, i8 = (_hear(models[m], item.path, threads) for m in ("float16", "int8"))
        ref_words, hyp_words = (units(h.text, item.by_character) for h in (f16, i8))
        errors = edit_distance(ref_words, hyp_words)
        same = f16.words == i8.words
        deltas = _time_deltas(f16, i8)
        all_deltas += deltas
        wer_text = f"{'-':>7s} {'-':>7s}"
        if item.reference:
            said = units(item.reference, item.by_character)
            f16_wer, i8_wer = (
                edit_distance(said, units(h.text, item.by_character)) / len(said) for h in (f16, i8)
            )
            wer_text = f"{f16_wer:7.1%} {i8_wer:7.1%}"
        print(
            f"{item.name[:24]:24s} {len(ref_words):5d} {errors / max(1, len(ref_words)):6.1%} "
            f"{'yes' if same else 'no':>5s} {max(deltas, default=0):7d} "
            f"{statistics.fmean(deltas) if deltas else 0:7.1f} {wer_text} "
            f"{f16.seconds:6.1f} {i8.seconds:6.1f}  {f16.language}/{i8.language}"
        )
        for key in (item.language, "all"):
            totals.setdefault(key, Sums()).add(len(ref_words), errors, same, f16, i8)
    for key, t in totals.items():
        print(
            f"{key}: {t.words} words, int8 against float16 {t.errors} word errors "
            f"({t.errors / max(1, t.words):.2%}), {t.same} of {t.clips} clips identical (text "
            f"and every word time); wall {t.f16_s:.1f} s float16, {t.i8_s:.1f} s int8"
        )
    print(f"word times of the words both heard differ by at most {max(all_deltas, default=0)} ms")


if __name__ == "__main__":
    main()
