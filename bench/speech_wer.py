"""Word error rate, speed and language detection of speech recognition, per model and language.

    uv run python bench/speech_wer.py [--models faster-whisper-tiny.en faster-whisper-base]
        [--languages en es de fr zh] [--beams 1] [--no-eval] [--no-lectures]

Two sets of clips, each through the app's Transcriber (child process kept between files as an
import keeps it, int8, VAD on, word timestamps on, no language given: the model detects it):
- ``../shared/eval/speech`` (English): jfk.flac and the LibriSpeech test-clean clips;
- bench/lecture_texts.py: a lecture of three paragraphs (biology, physics, computing) in each
  language, narrated by espeak-ng (made once into ``--cache``).
An English-only model (``*.en``) hears English only. WER after case folding and stripping
punctuation: (substitutions + deletions + insertions) / reference words; for Chinese the same
over characters (CER). Real-time factor = wall time / audio length, and the recognition
child's CPU seconds / audio length (what a busy machine changes least); the first clip of a
model includes its load. The language each clip was heard in is the Transcriber's; its
probability is faster-whisper's for the same audio (detected on the first 30 s after VAD,
as the Transcriber does), computed in this process. Where a clip's language was missed, its
WER with the language given is printed too. Never pass/fail.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.lecture_texts import LECTURES, make_clips  # noqa: E402
from engine.media.probe import probe  # noqa: E402
from engine.media.transcribe import SpeechSegment, Transcriber  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from engine.search.evaluate import default_data_dir  # noqa: E402

JFK = (
    "And so, my fellow Americans, ask not what your country can do for you, ask what you can "
    "do for your country."
)


def normalise(text: str) -> list[str]:
    """Words, case folded, punctuation out (letters of every script kept: ß, é, ñ)."""
    text = text.casefold().replace("\u2019", "'").replace("-", " ")
    return re.sub(r"[^\w' ]+", " ", text).split()


def characters(text: str) -> list[str]:
    """The letters and digits of a text without spaces (Chinese), punctuation out."""
    return [c for c in text.casefold() if c.isalnum()]


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


@dataclass(frozen=True, slots=True)
class Clip:
    name: str
    language: str  # expected
    path: Path
    reference: str
    by_character: bool = False
    group: str = ""  # its line in the summary (default: its language)


@dataclass(slots=True)
class Tally:
    units: int = 0
    errors: int = 0
    audio_s: float = 0.0
    wall_s: float = 0.0
    cpu_s: float = 0.0
    forced_delta: int = 0  # errors with the language given minus without, missed clips
    missed: int = 0  # clips heard in another language
    clips: int = 0

    def add(self, units: int, errors: int, audio_s: float, wall_s: float, cpu_s: float) -> None:
        self.units += units
        self.errors += errors
        self.audio_s += audio_s
        self.wall_s += wall_s
        self.cpu_s += cpu_s
        self.clips += 1


def units(text: str, by_character: bool) -> list[str]:
    return characters(text) if by_character else normalise(text)


def is_multilingual(model_dir: Path) -> bool:
    """faster-whisper's own answer (CTranslate2 reads it from the vocabulary's size)."""
    return bool(_detector(model_dir, 1).model.is_multilingual)


@dataclass(frozen=True, slots=True)
class Heard:
    text: str
    language: str
    wall_s: float
    cpu_s: float  # of the recognition child, while it heard this clip (0 when not kept)


class _ChildCpu:
    """CPU seconds a kept recognition child spent since the last call (all of it when new)."""

    def __init__(self) -> None:
        self.pid = 0
        self.seen = 0.0

    def spent(self, pid: int) -> float:
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.Error:
            return 0.0  # it has exited
        total = times.user + times.system
        before = self.seen if pid == self.pid else 0.0
        self.pid, self.seen = pid, total
        return total - before


def _hear(transcriber: Transcriber, path: Path, cpu: _ChildCpu | None = None) -> Heard:
    segments: list[SpeechSegment] = []
    started = time.perf_counter()
    result = transcriber.transcribe(path, on_segment=segments.append)
    took = time.perf_counter() - started
    spent = cpu.spent(result.worker_pid) if cpu is not None else 0.0
    return Heard(" ".join(s.text for s in segments), result.language, took, spent)


def _detector(model_dir: Path, threads: int) -> Any:
    from faster_whisper import WhisperModel

    return WhisperModel(str(model_dir), device="cpu", compute_type="int8", cpu_threads=threads)


def _probability(detector: Any, path: Path) -> tuple[str, float]:
    # transcribe() detects the language before it returns; the segments are never decoded.
    _, info = detector.transcribe(str(path), beam_size=1, vad_filter=True)
    return info.language, info.language_probability


def run_model(name: str, model_dir: Path, items: list[Clip], beam: int, threads: int) -> None:
    detector = _detector(model_dir, threads)
    if not detector.model.is_multilingual:
        detector = None  # it hears English only
    items = [c for c in items if detector is not None or c.language == "en"]
    transcriber = Transcriber(model_dir, threads=threads, beam_size=beam, keep_alive=True)
    cpu = _ChildCpu()
    tallies: dict[str, Tally] = {}
    heard_in: dict[str, list[tuple[str, float]]] = {}
    print(f"\n{name}, beam {beam}, {threads} threads")
    print(
        f"  {'clip':28s} {'units':>5s} {'WER':>6s} {'RTF':>6s} {'CPU/s':>6s}  "
        "language (probability)"
    )
    try:
        for clip in items:
            heard = _hear(transcriber, clip.path, cpu)
            language = heard.language
            seconds = probe(clip.path).duration_ms / 1000
            ref = units(clip.reference, clip.by_character)
            errors = edit_distance(ref, units(heard.text, clip.by_character))
            key = clip.group or clip.language
            tally = tallies.setdefault(key, Tally())
            tally.add(len(ref), errors, seconds, heard.wall_s, heard.cpu_s)
            said = language
            if detector is not None:
                detected, probability = _probability(detector, clip.path)
                heard_in.setdefault(key, []).append((language, probability))
                said = f"{language} ({detected} {probability:.2f})"
            forced = ""
            if language != clip.language:
                tally.missed += 1
                given = Transcriber(
                    model_dir, threads=threads, beam_size=beam, language=clip.language
                )
                again = _hear(given, clip.path).text
                forced_errors = edit_distance(ref, units(again, clip.by_character))
                tally.forced_delta += forced_errors - errors
                forced = f"; with '{clip.language}' given: WER {forced_errors / len(ref):.1%}"
            print(
                f"  {clip.name[:28]:28s} {len(ref):5d} {errors / len(ref):6.1%} "
                f"{heard.wall_s / seconds:6.3f} {heard.cpu_s / seconds:6.3f}  {said}{forced}"
            )
    finally:
        transcriber.close()
    print(f"  {name} by language ('units': words, characters for zh):")
    for key, t in tallies.items():
        language = key.split()[0]
        probabilities = [p for heard, p in heard_in.get(key, []) if heard == language]
        detected = (
            f"detected {t.clips - t.missed}/{t.clips}"
            + (f", p {statistics.fmean(probabilities):.2f}" if probabilities else "")
            if detector is not None
            else "English only"
        )
        given = (
            f", with the language given {(t.errors + t.forced_delta) / t.units:.1%}"
            if t.missed
            else ""
        )
        print(
            f"  {key:9s} {t.units:5d} units  WER {t.errors / t.units:6.1%}  "
            f"RTF {t.wall_s / t.audio_s:.3f}  CPU {t.cpu_s / t.audio_s:.3f} s/s  "
            f"({t.audio_s:.0f} s audio)  {detected}{given}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--models", nargs="+", default=["faster-whisper-tiny.en", "faster-whisper-base"])
    p.add_argument("--languages", nargs="+", default=list(LECTURES), choices=list(LECTURES))
    p.add_argument("--beams", type=int, nargs="+", default=[1])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--no-eval", action="store_true", help="leave out ../shared/eval/speech")
    p.add_argument("--no-lectures", action="store_true", help="only ../shared/eval/speech")
    p.add_argument("--cache", default=str(ROOT / ".bench-cache"))
    args = p.parse_args()
    cache = Path(args.cache)
    items: list[Clip] = []
    if not args.no_eval:
        items += [
            Clip(f"eval/{path.stem}", "en", path, text, group="en eval")
            for path, text in clips(default_data_dir() / "speech")
        ]
    if not args.no_lectures:
        for language, topic, path, text in make_clips(cache / "lectures", args.languages):
            lecture = LECTURES[language]
            items.append(Clip(f"{language}/{topic}", language, path, text, lecture.by_character))
    print(f"{len(items)} clips: " + ", ".join(sorted({c.language for c in items})))
    registry = ModelRegistry(cache / "models")
    for name in args.models:
        for beam in args.beams:
            run_model(name, registry.path(name), items, beam, args.threads)


if __name__ == "__main__":
    main()
