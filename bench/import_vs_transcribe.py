"""A whole `coursedex ingest` of a lecture against its transcription alone (issue 17).

    uv run python bench/import_vs_transcribe.py [--rounds 3] [--minutes 10.5]

The lecture (video + slide PDF, >= 10 minutes, slides and narration) is the one
bench/video_import.py generates into ``.bench-cache/`` from MaViLS data read at run time.
Each round runs, one after the other in separate processes:

(a) ``python -m engine.cli --library FRESH --models M ingest FOLDER --json`` (the video and
    its slides into a new library: speech, scenes, on-screen text, embeddings, slide links);
(b) faster-whisper alone on the video with the app's settings (the same tiny.en int8 model
    from the models folder, 2 threads, VAD, word timestamps, the app's beam size), at the
    niceness the app gives its recognition child, so both see the same machine.

Prints the wall times, the ratio a/b (median and range), each stage's share of the import
(the CLI's per-file stage times), and the peak RSS of every process (the import process, its
recognition child, faster-whisper alone), sampled with psutil. The CPU seconds (user + system
of the process and its children) are printed too: on a machine others load, wall times of
work at a lower priority swing with their load, CPU seconds much less. Never pass/fail.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.video_import import build_lecture  # noqa: E402
from engine.config import AUTO_SPEECH_MODEL, MediaConfig  # noqa: E402
from engine.importing.hearing import ENGLISH_SPEECH_MODEL  # noqa: E402
from engine.media.transcribe import BACKGROUND_NICENESS, BEAM_SIZE  # noqa: E402
from engine.models.catalog import DEFAULT_EMBEDDER  # noqa: E402
from engine.models.registry import ModelRegistry  # noqa: E402
from tools.memory import RECOGNITION_CHILD, TreePeaks  # noqa: E402

FFPROBE_DURATION = ("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0")
WHISPER_ALONE = """
import sys, time
from faster_whisper import WhisperModel, decode_audio
model_dir, media, threads, beam = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
audio = decode_audio(media, sampling_rate=16000)
model = WhisperModel(model_dir, device="cpu", compute_type="int8", cpu_threads=threads)
segments, info = model.transcribe(
    audio, language="en", beam_size=beam, word_timestamps=True, vad_filter=True,
    condition_on_previous_text=False, no_speech_threshold=None,
)
n = sum(1 for _ in segments)
print(n, "segments")
"""


@dataclass
class Run:
    seconds: float
    cpu_s: float = 0.0  # user + system of the process and its children
    peaks_mb: dict[str, float] = field(default_factory=dict)
    stages: dict[str, float] = field(default_factory=dict)


def run_timed(cmd: list[str], root_role: str) -> tuple[Run, str]:
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreePeaks(proc.pid, root_role)
    out, err = proc.communicate()
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    peaks = sampler.stop()
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd[:4])} ... failed ({proc.returncode}):\n{err[-2000:]}")
    return Run(seconds, cpu, peaks), out


def import_once(folder: Path, models: Path, threads: int) -> Run:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "engine.cli", "--library", str(Path(tmp) / "lib")]
        cmd += ["--models", str(models), "--threads", str(threads), "ingest", str(folder)]
        run, out = run_timed([*cmd, "--json"], "import process")
    for f in json.loads(out)["files"]:
        if f["outcome"] != "indexed":
            print(f"  {Path(f['path']).name}: {f['outcome']} {f['detail']}")
        for stage, seconds in (f.get("stages") or {}).items():
            run.stages[stage] = run.stages.get(stage, 0.0) + seconds
    return run


def whisper_once(video: Path, model_dir: Path, threads: int, nice: int) -> Run:
    cmd = [sys.executable, "-c", f"import os; os.nice({nice})\n{WHISPER_ALONE}"]
    args = [str(model_dir), str(video), str(threads), str(BEAM_SIZE)]
    run, _ = run_timed([*cmd, *args], "faster-whisper alone")
    return run


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--lecture", default="computer_vision")
    p.add_argument("--minutes", type=float, default=10.5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cache", default=str(ROOT / ".bench-cache"))
    args = p.parse_args()
    cache = Path(args.cache)
    folder, _ = build_lecture(args.lecture, args.minutes, cache)
    video = folder / "lecture.mp4"
    models = cache / "models"
    registry = ModelRegistry(models)
    # The lecture is English: "auto" hears it with tiny.en, after base has listened to its
    # start (the import pays for that probe; faster-whisper alone does not).
    speech = MediaConfig().speech_model
    if speech == AUTO_SPEECH_MODEL:
        speech = ENGLISH_SPEECH_MODEL
    model_dir = registry.path(speech)
    registry.path(DEFAULT_EMBEDDER)
    duration = float(
        subprocess.run(
            [*FFPROBE_DURATION, str(video)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    print(f"lecture: {video} ({duration / 60:.1f} min) + {folder / 'slides.pdf'}")
    print(f"speech model {speech}, {args.threads} threads, beam {BEAM_SIZE}, VAD, word times;")
    print(f"faster-whisper alone at niceness {BACKGROUND_NICENESS} (as the app's child)")
    print(f"{os.cpu_count()} cores")
    imports: list[Run] = []
    alone: list[Run] = []
    for r in range(args.rounds):
        load = os.getloadavg()[0]
        imports.append(import_once(folder, models, args.threads))
        alone.append(whisper_once(video, model_dir, args.threads, BACKGROUND_NICENESS))
        a, b = imports[-1].seconds, alone[-1].seconds
        ca, cb = imports[-1].cpu_s, alone[-1].cpu_s
        print(
            f"round {r + 1}: import {a:6.1f} s, whisper alone {b:6.1f} s, ratio {a / b:.2f}x; "
            f"CPU {ca:.1f} s / {cb:.1f} s = {ca / cb:.2f}x (load average before {load:.2f})",
            flush=True,
        )
    _summary(imports, alone, duration)


def _summary(imports: list[Run], alone: list[Run], duration: float) -> None:
    ratios = [a.seconds / b.seconds for a, b in zip(imports, alone, strict=True)]
    a_s = statistics.median(r.seconds for r in imports)
    b_s = statistics.median(r.seconds for r in alone)
    print(f"import        median {a_s:6.1f} s  ({a_s / duration:.3f}x real time)")
    print(f"whisper alone median {b_s:6.1f} s  ({b_s / duration:.3f}x real time)")
    print(
        f"ratio import / whisper alone: median {statistics.median(ratios):.2f}x, "
        f"range {min(ratios):.2f}x - {max(ratios):.2f}x"
    )
    cpu = [a.cpu_s / b.cpu_s for a, b in zip(imports, alone, strict=True)]
    print(
        f"CPU seconds import / whisper alone: median {statistics.median(cpu):.2f}x, "
        f"range {min(cpu):.2f}x - {max(cpu):.2f}x"
    )
    print("import stages (median seconds, share of the import's wall time):")
    names = list(dict.fromkeys(k for r in imports for k in r.stages))
    for name in names:
        s = statistics.median(r.stages.get(name, 0.0) for r in imports)
        print(f"  {name:48s} {s:6.1f} s {s / a_s:6.1%}")
    rest = statistics.median(r.seconds - sum(r.stages.values()) for r in imports)
    outside = "outside the files (start-up, loads, slide links)"
    print(f"  {outside:48s} {rest:6.1f} s {rest / a_s:6.1%}")
    print("peak RSS (largest over the rounds):")
    for role in ("import process", RECOGNITION_CHILD, "faster-whisper alone"):
        runs = alone if role == "faster-whisper alone" else imports
        mb = max(r.peaks_mb.get(role, 0.0) for r in runs)
        print(f"  {role:22s} {mb:7.0f} MB")


if __name__ == "__main__":
    main()
