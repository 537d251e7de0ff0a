"""numpy with OpenBLAS (the PyPI wheel) against numpy without BLAS/LAPACK
(installer/numpy/build_wheel.py): do transcripts get worse, imports or searches slower?

    uv run python bench/numpy_blas.py --other /tmp/venv-noblas/bin/python [--words 3200]

``--other`` is a second environment with the same packages but its numpy (installed with
``uv pip install --no-deps --reinstall <wheel>``). Every figure comes from worker processes of
this script run by each environment's Python, so the recognition child, faster-whisper's log-mel
features and the engine's code run on that environment's numpy.

(a) Word error rate through the app's Transcriber (tiny.en as the app stores it, VAD, word
    times, beam 1): ../shared/eval/speech (jfk + LibriSpeech, read at run time) and speech
    synthesised by espeak-ng from sentences of ../shared/eval/scifact's abstracts (read at run
    time; sentences of plain words, so the reference is what is said), in several voices and
    speeds. Per set and overall, and the words in which the two environments' transcripts
    differ (edit distance between them).
(b) Transcription of a generated lecture video (--lecture-minutes slides of a minute or a
    little more of scifact sentences): wall and CPU time (the child's), the two environments
    side by side, so the machine's other load weighs on both alike; --runs times.
(c) The engine's own numpy products at realistic sizes (log-mel features of a 5-minute piece,
    slide alignment's TF-IDF and embedding cosines, MMR, sentence scoring): median times.

Media are made once into .bench-cache/numpy-blas/. Prints figures; never pass/fail.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.speech_wer import clips as eval_clips  # noqa: E402
from bench.speech_wer import edit_distance, normalise  # noqa: E402
from engine.search.evaluate import default_data_dir  # noqa: E402

TINY = "faster-whisper-tiny.en"
# (espeak-ng voice, words per minute): accents, a female and a male variant, slow to fast
VOICES = (
    ("en-us", 160),
    ("en-gb", 175),
    ("en-us+f3", 145),
    ("en-gb-scotland", 190),
    ("en-029+m3", 165),
    ("en-gb-x-rp+f2", 200),
)
CLIP_WORDS = 70  # words per synthesised clip: a few sentences, well under Whisper's 30 s
# A sentence of plain words: no digits, symbols or acronyms, which espeak-ng would read in
# ways the reference text does not spell.
_PLAIN = re.compile(r"[A-Z][a-z]+(?:,? [a-z][a-z'-]*)+\.")


def plain_sentences(data: Path) -> list[str]:
    """Sentences of 8-30 plain words from the scifact abstracts, in file order."""
    out: list[str] = []
    with (data / "scifact" / "corpus.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            for sentence in re.split(r"(?<=\.) ", json.loads(line)["text"]):
                if _PLAIN.fullmatch(sentence) and 8 <= len(sentence.split()) <= 30:
                    out.append(sentence)
    return out


def _groups(sentences: list[str], words: int) -> list[str]:
    """Sentences joined into texts of about ``words`` words each."""
    out: list[str] = []
    current: list[str] = []
    for sentence in sentences:
        current.append(sentence)
        if sum(len(s.split()) for s in current) >= words:
            out.append(" ".join(current))
            current = []
    return out


def make_media(cache: Path, total_words: int, lecture_minutes: float) -> dict[str, Any]:
    """The synthesised clips [(set, path, text)] and the lecture's path, made once."""
    from tools.lecture_media import Clip, make_lecture_video, slide_image, speak

    folder = cache / "numpy-blas"
    folder.mkdir(parents=True, exist_ok=True)
    texts = _groups(plain_sentences(default_data_dir()), CLIP_WORDS)
    n_clips = -(-total_words // CLIP_WORDS)
    if len(texts) < n_clips + 20:
        raise SystemExit(f"numpy_blas: only {len(texts)} texts of plain sentences")
    synth = []
    for i, text in enumerate(texts[:n_clips]):
        voice, wpm = VOICES[i % len(VOICES)]
        path = folder / f"clip-{i:03d}-{voice}-{wpm}.wav"
        if not path.exists():
            speak(text, path, voice=voice, words_per_minute=wpm)
        synth.append((f"espeak {voice} {wpm}", str(path), text))
    lecture = folder / f"lecture-{lecture_minutes:g}min.mp4"
    if not lecture.exists():
        # A slide a minute, each with about a minute of speech (espeak-ng at 160 says ~140
        # of these words a minute), from texts the clips above do not use.
        rest = iter(texts[n_clips:])
        clips = []
        for minute in range(round(lecture_minutes)):
            said = next(rest)
            while len(said.split()) < 140:
                said += " " + next(rest)
            image = slide_image([f"Part {minute + 1}"], folder / f"slide-{minute}.png")
            clips.append(Clip(image, said, seconds=60.0))
        make_lecture_video(lecture.with_suffix(".part.mp4"), clips, fps=2)
        lecture.with_suffix(".part.mp4").replace(lecture)
    return {"synth": synth, "lecture": str(lecture)}


# --- worker: runs in the environment being measured ---------------------------------------


def _model_dir(cache: Path) -> Path:
    from engine.models.registry import ModelRegistry

    return ModelRegistry(cache / "models").path(TINY)


def _numpy_blas() -> str:
    import numpy as np

    config: Any = np.show_config(mode="dicts")
    blas = config["Build Dependencies"]["blas"]
    kernel = ""
    try:
        from threadpoolctl import threadpool_info

        kernel = " ".join(
            f"({info.get('architecture')} kernel)"
            for info in threadpool_info()
            if info.get("internal_api") == "openblas"
        )
    except ImportError:
        pass
    return f"numpy {np.__version__}, BLAS {blas.get('name')} {blas.get('version', '')} {kernel}"


def work_speech(cache: Path, items: list[list[str]], threads: int) -> dict[str, Any]:
    """Each clip's transcript, one recognition child kept for all of them."""
    from engine.media.transcribe import SpeechSegment, Transcriber

    # Niceness 0, not the app's 10: other work on the machine must not starve the child.
    transcriber = Transcriber(_model_dir(cache), threads=threads, niceness=0, keep_alive=True)
    heard = []
    try:
        for n, (_, path, _) in enumerate(items, start=1):
            segments: list[SpeechSegment] = []
            transcriber.transcribe(Path(path), on_segment=segments.append)
            heard.append(" ".join(s.text for s in segments))
            if n % 10 == 0:
                print(f"  {n} of {len(items)} clips", file=sys.stderr)
    finally:
        transcriber.close()
    return {"numpy": _numpy_blas(), "heard": heard}


def work_lecture(cache: Path, lecture: str, threads: int) -> dict[str, Any]:
    """Wall time of the lecture's transcription (child start and model load included) and
    the CPU time of the recognition child, which is reaped before the figures are read."""
    from engine.media.transcribe import SpeechSegment, Transcriber

    segments: list[SpeechSegment] = []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    Transcriber(_model_dir(cache), threads=threads, niceness=0).transcribe(
        Path(lecture), on_segment=segments.append
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    words = sum(len(s.words) for s in segments)
    return {"numpy": _numpy_blas(), "wall": wall, "cpu": cpu, "words": words}


def work_ops(repeats: int) -> dict[str, Any]:
    from bench.numpy_ops import timings

    return {"numpy": _numpy_blas(), "ops": timings(repeats)}


def worker(args: argparse.Namespace) -> None:
    job = json.loads(Path(args.worker).read_text())
    cache = Path(job["cache"])
    if job["part"] == "speech":
        result = work_speech(cache, job["items"], job["threads"])
    elif job["part"] == "numpy":
        result = {"numpy": _numpy_blas()}
    elif job["part"] == "lecture":
        result = work_lecture(cache, job["lecture"], job["threads"])
    else:
        result = work_ops(job["repeats"])
    Path(args.worker).write_text(json.dumps(result))


# --- the comparison -------------------------------------------------------------------------


def run_in(
    pythons: dict[str, str], job: dict[str, Any], scratch: Path, other_env: dict[str, str]
) -> dict[str, Any]:
    """The job's result from each environment, the workers running at the same time."""
    running = {}
    for name, python in pythons.items():
        path = scratch / f"job-{name}.json"
        path.write_text(json.dumps(job))
        command = [python, str(Path(__file__).resolve()), "--worker", str(path)]
        env = {**os.environ, **(other_env if name == "other" else {})}
        running[name] = (path, subprocess.Popen(command, env=env))
    for name, (_, process) in running.items():
        if process.wait() != 0:
            raise SystemExit(f"numpy_blas: the worker in {pythons[name]} failed")
    return {name: json.loads(path.read_text()) for name, (path, _) in running.items()}


def _sets(items: list[list[str]]) -> dict[str, list[int]]:
    """Clip indices per set: the eval clips, each voice, all synthesised speech, everything."""
    out: dict[str, list[int]] = {}
    for i, (name, _, _) in enumerate(items):
        out.setdefault(name, []).append(i)
    out["espeak, all voices"] = [i for i, item in enumerate(items) if item[0] != "eval"]
    out["all"] = list(range(len(items)))
    return out


def report_speech(items: list[list[str]], heard: dict[str, list[str]]) -> None:
    first, second = heard
    print("\n(a) word error rate, tiny.en through the Transcriber (beam 1, VAD, word times)")
    print(f"  {'set':28s} {'clips':>5s} {'words':>6s} {first:>8s} {second:>8s} {'differ':>7s}")
    for name, chosen in _sets(items).items():
        refs = [normalise(items[i][2]) for i in chosen]
        words = sum(map(len, refs))
        wer = [
            sum(edit_distance(r, normalise(heard[n][i])) for r, i in zip(refs, chosen, strict=True))
            / words
            for n in (first, second)
        ]
        # Words in which the two transcripts differ (edit distance between them).
        differ = sum(
            edit_distance(normalise(heard[first][i]), normalise(heard[second][i])) for i in chosen
        )
        print(f"  {name:28s} {len(chosen):5d} {words:6d} {wer[0]:8.2%} {wer[1]:8.2%} {differ:7d}")


def report_lecture(runs: dict[str, list[dict[str, Any]]], lecture: Path) -> None:
    from engine.media.probe import probe

    minutes = probe(lecture).duration_ms / 60_000
    count = len(next(iter(runs.values())))
    print(f"\n(b) transcription of {lecture.name}, {minutes:.1f} min (median of {count})")
    print(f"  {'numpy':12s} {'wall s':>8s} {'child CPU s':>12s} {'words':>6s}  all wall times")
    base = None
    for name, results in runs.items():
        wall = statistics.median(r["wall"] for r in results)
        cpu = statistics.median(r["cpu"] for r in results)
        words = results[0]["words"]
        times = " ".join(f"{r['wall']:.1f}" for r in results)
        change = (
            ""
            if base is None
            else f"  ({wall / base[0] - 1:+.1%} wall, {cpu / base[1] - 1:+.1%} CPU)"
        )
        base = base or (wall, cpu)
        print(f"  {name:12s} {wall:8.1f} {cpu:12.1f} {words:6d}  {times}{change}")
    # Each run's two transcriptions ran side by side: their ratio cancels the machine's load.
    first, second = runs.values()
    pairs = [b["wall"] / a["wall"] - 1 for a, b in zip(first, second, strict=True)]
    listed = " ".join(f"{p:+.1%}" for p in pairs)
    print(f"  run by run, wall: {listed}; median {statistics.median(pairs):+.1%}")


def report_ops(ops: dict[str, dict[str, float]]) -> None:
    names = list(ops)
    print("\n(c) the engine's numpy products, median ms (bench/numpy_ops.py)")
    print(f"  {'operation':52s}" + "".join(f" {n:>12s}" for n in names))
    for op in ops[names[0]]:
        print(f"  {op:52s}" + "".join(f" {ops[n][op]:12.3f}" for n in names))


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--other", help="the other environment's python (numpy without BLAS)")
    p.add_argument("--words", type=int, default=3200, help="words of synthesised speech")
    p.add_argument("--lecture-minutes", type=float, default=15)
    p.add_argument("--runs", type=int, default=3, help="lecture transcriptions per numpy")
    p.add_argument("--repeats", type=int, default=20, help="timings per numpy operation")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--parts", nargs="+", default=["speech", "lecture", "ops"])
    p.add_argument("--cache", default=str(ROOT / ".bench-cache"))
    p.add_argument(
        "--other-env",
        nargs="*",
        default=[],
        metavar="NAME=VALUE",
        help="variables for the other side only: with --other this same python and "
        "OPENBLAS_CORETYPE=SandyBridge it compares two OpenBLAS kernels, the rounding "
        "difference between two CPUs",
    )
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args)
        return
    if not args.other:
        p.error("--other is required")
    import tempfile

    cache = Path(args.cache)
    pythons = {"this": sys.executable, "other": args.other}
    other_env = dict(item.split("=", 1) for item in args.other_env)
    media = make_media(cache, args.words, args.lecture_minutes)
    items = [["eval", str(path), text] for path, text in eval_clips(default_data_dir() / "speech")]
    items += [list(item) for item in media["synth"]]
    base = {"cache": str(cache), "threads": args.threads}
    with tempfile.TemporaryDirectory(prefix="numpy-blas-") as tmp:
        scratch = Path(tmp)
        for name, probe in run_in(pythons, {**base, "part": "numpy"}, scratch, other_env).items():
            print(f"{name}: {pythons[name]}: {probe['numpy']}")
        if "speech" in args.parts:
            job = {**base, "part": "speech", "items": items}
            heard = {
                name: r["heard"] for name, r in run_in(pythons, job, scratch, other_env).items()
            }
            kept = cache / "numpy-blas" / "heard.json"  # to read where the transcripts differ
            kept.write_text(json.dumps({"items": items, "heard": heard}, indent=1))
            report_speech(items, heard)
        if "lecture" in args.parts:
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name in pythons}
            job = {**base, "part": "lecture", "lecture": media["lecture"]}
            for _ in range(args.runs):
                # Both at once: whatever else the machine is doing weighs on both alike.
                for name, result in run_in(pythons, job, scratch, other_env).items():
                    runs[name].append(result)
            report_lecture(runs, Path(media["lecture"]))
        if "ops" in args.parts:
            job = {**base, "part": "ops", "repeats": args.repeats}
            ops = {
                name: run_in({name: python}, job, scratch, other_env)[name]["ops"]
                for name, python in pythons.items()
            }
            report_ops(ops)


if __name__ == "__main__":
    main()
