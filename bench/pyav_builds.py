"""The installer's PyAV (installer/pyav/build_wheel.py) against PyPI's: the same samples and
pictures from every container and codec a lecture comes in.

    uv run python bench/pyav_builds.py --wheel build/wheels/pyav-<key>/av-*.whl [--seconds 12]

Makes a spoken clip (espeak-ng) over a moving test picture and encodes it with the system's
ffmpeg into each FORMATS entry (mp4 h264+aac, mkv hevc+ac3, webm vp9+opus and vp8+vorbis,
mov prores+alac, avi mpeg4+mp3, wmv, mpeg-2, MPEG-TS, FLV, AV1 in mp4 and webm; mp3, m4a,
wav, flac, ogg, opus, wma), cached in ``.bench-cache/pyav/`` (git-ignored). Then reads each
file twice, once with this environment's PyAV and once with the wheel's (unpacked beside,
first on the path of a child Python), as the engine does: faster-whisper's decode_audio,
engine/media/probe.probe, engine/media/frames.sample_frames (grey samples) and rgb() of
every tenth sample, and engine/media/scenes.keyframes (seeks). Prints, per file, the sha256 of each
result from both and whether they are the same, and each side's decoding time. Never
pass/fail.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".bench-cache" / "pyav"
VIDEO = ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25"]
OPUS = ["-c:a", "libopus", "-ar", "48000"]  # Opus has no 44.1 kHz
# name: ffmpeg output options (the video's and the audio's codecs), or None for audio only
# fmt: off
FORMATS: dict[str, list[str]] = {
    "h264-aac.mp4": ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac"],
    "hevc-ac3.mkv": ["-c:v", "libx265", "-pix_fmt", "yuv420p", "-c:a", "ac3"],
    "vp9-opus.webm": ["-c:v", "libvpx-vp9", "-deadline", "realtime", *OPUS],
    "vp8-vorbis.webm": ["-c:v", "libvpx", "-deadline", "realtime", "-c:a", "libvorbis"],
    "prores-alac.mov": ["-c:v", "prores", "-c:a", "alac"],
    "mjpeg-pcm.mov": ["-c:v", "mjpeg", "-c:a", "pcm_s16le"],
    "mpeg4-mp3.avi": ["-c:v", "mpeg4", "-c:a", "libmp3lame"],
    "wmv2-wmav2.wmv": ["-c:v", "wmv2", "-c:a", "wmav2"],
    "mpeg2-mp2.mpg": ["-c:v", "mpeg2video", "-c:a", "mp2"],
    "h264-ac3.ts": ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "ac3"],
    "h264-aac.flv": ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac"],
    "av1-aac.mp4": ["-c:v", "libsvtav1", "-preset", "12", "-c:a", "aac"],
    "av1-opus.webm": ["-c:v", "libaom-av1", "-cpu-used", "8", "-row-mt", "1", *OPUS],
    "speech.mp3": ["-c:a", "libmp3lame"],
    "speech.m4a": ["-c:a", "aac"],
    "speech.wav": ["-c:a", "pcm_s16le"],
    "speech.flac": ["-c:a", "flac"],
    "speech.ogg": ["-c:a", "libvorbis"],
    "speech.opus": [*OPUS],
    "speech.wma": ["-c:a", "wmav2"],
}
# fmt: on
_TEXT = (
    "Today we look at sorting. Merge sort splits the list in two halves, sorts each half, "
    "and merges them. Quick sort picks a pivot and partitions the rest around it. "
)


def make_media(seconds: int) -> list[Path]:
    """Every FORMATS file, made once."""
    CACHE.mkdir(parents=True, exist_ok=True)
    speech = CACHE / f"speech-{seconds}.wav"
    if not speech.exists():
        subprocess.run(["espeak-ng", "-s", "150", "-w", str(speech), _TEXT * 3], check=True)
        # (espeak-ng writes the file whole or fails before writing)
    out = []
    for name, options in FORMATS.items():
        path = CACHE / f"{seconds}s-{name}"
        if not path.exists():
            video = [] if name.startswith("speech.") else [*VIDEO, "-t", str(seconds)]
            command = ["ffmpeg", "-v", "error", "-y", *video, "-i", str(speech)]
            part = path.with_name(f"part-{path.name}")  # a failed encoding leaves no file
            command += ["-t", str(seconds), "-ar", "44100", "-ac", "2", *options, str(part)]
            subprocess.run(command, check=True)
            part.replace(path)
        out.append(path)
    return out


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def digest(path: Path) -> dict[str, object]:
    """What the engine reads from ``path``, as hashes, and how long the reading took."""
    from faster_whisper import decode_audio

    from engine.media.frames import VideoInfo, rgb, sample_frames
    from engine.media.probe import probe
    from engine.media.scenes import keyframes

    info = probe(path)
    result: dict[str, object] = {"probe": repr(info)}
    start = time.perf_counter()
    if info.has_audio:
        audio = decode_audio(str(path), sampling_rate=16000)  # one array: no split_stereo
        assert not isinstance(audio, tuple)
        result["audio"] = f"{len(audio)} samples {_sha(audio.tobytes())}"
    if info.has_video:
        grey, pictures = hashlib.sha256(), hashlib.sha256()
        samples = list(sample_frames(path, VideoInfo(0.0, 0), per_second=5, width=320))
        for i, sample in enumerate(samples):
            grey.update(sample.grey.tobytes())
            if i % 10 == 0:
                pictures.update(rgb(sample.frame, 640).tobytes())
        result["frames"] = f"{len(samples)} grey {grey.hexdigest()[:16]}"
        result["pictures"] = pictures.hexdigest()[:16]
        at = [p for p in keyframes(path, [1000, 4500, 7000], max_width=480) if p is not None]
        result["seeks"] = f"{len(at)} {_sha(b''.join(p.tobytes() for p in at))}"
    result["seconds"] = round(time.perf_counter() - start, 2)
    return result


def _child(files: list[str]) -> None:
    import av

    results: dict[str, object] = {"av": f"{av.__file__} FFmpeg {av.ffmpeg_version_info}"}
    for name in files:
        try:
            results[name] = digest(Path(name))
        except Exception as e:  # a file one build cannot read is a result
            results[name] = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps(results))


def _read_all(files: list[Path], site: Path | None) -> dict[str, dict[str, object]]:
    env = None
    if site is not None:
        import os

        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    command = [sys.executable, __file__, "--child", *map(str, files)]
    run = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return json.loads(run.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description="The installer's PyAV against PyPI's.")
    parser.add_argument("--wheel", type=Path, help="the installer's PyAV wheel")
    parser.add_argument("--seconds", type=int, default=12)
    parser.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        sys.path.insert(0, str(ROOT))
        _child(args.child)
        return
    if args.wheel is None:
        parser.error("--wheel is required")
    files = make_media(args.seconds)
    with tempfile.TemporaryDirectory(prefix="pyav-bench-") as tmp:
        with zipfile.ZipFile(args.wheel) as wheel:
            wheel.extractall(tmp)
        for lib in Path(tmp).rglob("*.so*"):
            lib.chmod(0o755)
        pypi, ours = _read_all(files, None), _read_all(files, Path(tmp))
    print(f"PyPI:  {pypi.pop('av')}\nwheel: {ours.pop('av')}\n")
    same_files = 0
    for path in files:
        a, b = pypi[str(path)], ours[str(path)]
        times = f"{a.pop('seconds', '-')} s / {b.pop('seconds', '-')} s"
        same = a == b
        same_files += same
        print(f"{path.name:<26} {'same' if same else 'DIFFERENT':<10} {times}")
        for key in sorted(set(a) | set(b)):
            mark = "" if a.get(key) == b.get(key) else "   <- differs: " + str(b.get(key))
            print(f"    {key:<9} {a.get(key)}{mark}")
    print(f"\n{same_files} of {len(files)} files read the same with both builds")


if __name__ == "__main__":
    main()
