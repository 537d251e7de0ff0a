"""Generate real lecture media for tests, benchmarks and the demo course.

Slides are drawn as still pictures (Pillow, or PDF pages rendered with pypdfium2), narration is
spoken by espeak-ng, and ffmpeg joins them into an H.264/AAC .mp4. Needs the ``ffmpeg`` and
``espeak-ng`` programs (installed by ``.ci/run``). Nothing here is used by the app.

    clips = [Clip(slide_image(["Merge sort", "split, sort, merge"], tmp / "1.png"), "Merge ...")]
    cuts = make_lecture_video(tmp / "lecture.mp4", clips)   # start of each clip, in ms
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import wave
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

SIZE = (1280, 720)
SAMPLE_RATE = 16_000


@dataclass(frozen=True, slots=True)
class Clip:
    """One slide on screen: its picture, what is said over it, and how long it stays.

    With narration the clip lasts the speech plus ``pad_s``; ``seconds`` sets a minimum.
    """

    image: Path
    narration: str = ""
    seconds: float = 0.0
    pad_s: float = 0.6


def require_tools() -> None:
    """Raise RuntimeError naming the missing program (ffmpeg, espeak-ng)."""
    for tool in ("ffmpeg", "espeak-ng"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} is not installed (run .ci/run or apt-get install {tool})")


def _run(args: Sequence[str]) -> None:
    done = subprocess.run(list(args), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{args[0]} failed: {done.stderr.strip()[-800:]}")


def speak(text: str, path: Path, *, voice: str = "en-us", words_per_minute: int = 160) -> int:
    """Speak ``text`` into a 16 kHz mono WAV file; returns its duration in ms."""
    return speak_all([(text, path)], voice=voice, words_per_minute=words_per_minute)[0]


def speak_all(
    lines: Sequence[tuple[str, Path]], *, voice: str = "en-us", words_per_minute: int = 160
) -> list[int]:
    """Speak each text into its 16 kHz mono WAV file; returns their durations in ms.

    One ffmpeg converts all of espeak-ng's files: an ffmpeg per file cost ~70 ms of CPU in
    its start alone (the demo lecture has 91 sentences), and its output is the same. The
    espeak-ng processes run one per core: each is a single thread.
    """
    if not lines:
        return []
    speak_commands: list[list[str]] = []
    inputs: list[str] = []
    outputs: list[str] = []
    for i, (text, path) in enumerate(lines):
        raw = path.with_suffix(".raw.wav")
        rate = str(words_per_minute)
        speak_commands.append(["espeak-ng", "-v", voice, "-s", rate, "-w", str(raw), text])
        inputs += ["-i", str(raw)]
        outputs += ["-map", f"{i}:a", "-ac", "1", "-ar", str(SAMPLE_RATE), str(path)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for _ in pool.map(_run, speak_commands):  # raises the first failure
            pass
    _run(["ffmpeg", "-v", "error", "-y", *inputs, *outputs])
    for _, path in lines:
        path.with_suffix(".raw.wav").unlink()
    return [wav_duration_ms(path) for _, path in lines]


def wav_duration_ms(path: Path) -> int:
    with wave.open(str(path), "rb") as w:
        return round(w.getnframes() * 1000 / w.getframerate())


def silence(path: Path, ms: int) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes(b"\0\0" * (SAMPLE_RATE * ms // 1000))
    return path


def slide_image(
    lines: Sequence[str],
    path: Path,
    *,
    size: tuple[int, int] = SIZE,
    background: str = "white",
    foreground: str = "black",
) -> Path:
    """A slide picture: the first line as a large title, the rest as body lines."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", size, background)
    draw = ImageDraw.Draw(image)
    scale = size[1] / 720
    title = ImageFont.load_default(size=round(56 * scale))
    body = ImageFont.load_default(size=round(38 * scale))
    x, y = round(70 * scale), round(60 * scale)
    for i, line in enumerate(lines):
        draw.text((x, y), line, fill=foreground, font=title if i == 0 else body)
        y += round((100 if i == 0 else 60) * scale)
    image.save(path)
    return path


def pdf_page_images(pdf: Path, folder: Path, *, size: tuple[int, int] = SIZE) -> list[Path]:
    """Render every page of ``pdf`` into a PNG of ``size`` (letterboxed on white)."""
    import pypdfium2 as pdfium
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    document = pdfium.PdfDocument(str(pdf))
    try:
        for i in range(len(document)):
            page = document[i]
            width, height = page.get_size()
            scale = min(size[0] / width, size[1] / height)
            rendered = page.render(scale=scale).to_pil().convert("RGB")
            canvas = Image.new("RGB", size, "white")
            canvas.paste(rendered, ((size[0] - rendered.width) // 2, 0))
            path = folder / f"page-{i + 1:03d}.png"
            canvas.save(path)
            out.append(path)
    finally:
        document.close()
    return out


def make_lecture_video(
    path: Path,
    clips: Sequence[Clip],
    *,
    fps: int = 10,
    audio: bool = True,
    voice: str = "en-us",
    crf: int = 30,
) -> list[int]:
    """Write an .mp4 showing each clip's picture while its narration plays.

    Returns the start time (ms) of every clip: the cuts a scene detector should find.
    ``audio=False`` writes a video with no audio track at all.
    """
    require_tools()
    starts: list[int] = []
    with tempfile.TemporaryDirectory(prefix="lecture-") as tmp_name:
        tmp = Path(tmp_name)
        spoken = [(i, c.narration) for i, c in enumerate(clips) if c.narration and audio]
        speech = {i: tmp / f"speech-{i:03d}.wav" for i, _ in spoken}
        lengths = speak_all([(text, speech[i]) for i, text in spoken], voice=voice)
        speech_ms = dict(zip(speech, lengths, strict=True))
        wavs: list[Path] = []
        durations: list[int] = []
        for i, clip in enumerate(clips):
            ms = speech_ms.get(i, 0)
            if i in speech:
                wavs.append(speech[i])
            pad = round(clip.pad_s * 1000)
            total = max(round(clip.seconds * 1000), ms + pad)
            # Round each clip to whole frames so the cuts land exactly where we say.
            frame_ms = 1000 / fps
            total = round(round(total / frame_ms) * frame_ms)
            if audio:
                wavs.append(silence(tmp / f"pad-{i:03d}.wav", total - ms))
            starts.append(sum(durations))
            durations.append(total)
        concat = tmp / "images.txt"
        entries = []
        for clip, ms in zip(clips, durations, strict=True):
            entries.append(f"file '{clip.image.resolve()}'\nduration {ms / 1000:.3f}\n")
        entries.append(f"file '{clips[-1].image.resolve()}'\n")  # concat needs the last twice
        concat.write_text("".join(entries))
        video_args = [
            "-f", "concat", "-safe", "0", "-i", str(concat),
        ]  # fmt: skip
        audio_args: list[str] = []
        if audio:
            audio_list = tmp / "audio.txt"
            audio_list.write_text("".join(f"file '{w}'\n" for w in wavs))
            audio_args = ["-f", "concat", "-safe", "0", "-i", str(audio_list)]
        # Pixel format first: each picture is converted once, then repeated at ``fps`` (the
        # other way round converted every repeated frame; the file's bytes are the same).
        encode = [
            "-vf", f"format=yuv420p,fps={fps}", "-c:v", "libx264", "-preset", "veryfast",
            "-crf", str(crf), "-tune", "stillimage", "-g", str(fps * 10),
            "-bitexact", "-map_metadata", "-1",
        ]  # fmt: skip
        if audio:
            encode += ["-c:a", "aac", "-b:a", "48k", "-ac", "1", "-shortest"]
        _run(["ffmpeg", "-v", "error", "-y", *video_args, *audio_args, *encode, str(path)])
    return starts


def make_audio(path: Path, text: str, *, voice: str = "en-us") -> int:
    """Speak ``text`` into an audio file whose format follows the suffix (.wav .mp3 .m4a
    .flac .ogg); returns the duration in ms."""
    require_tools()
    with tempfile.TemporaryDirectory(prefix="speech-") as tmp_name:
        wav = Path(tmp_name) / "speech.wav"
        ms = speak(text, wav, voice=voice)
        if path.suffix.lower() == ".wav":
            shutil.copyfile(wav, path)
        else:
            _run(["ffmpeg", "-v", "error", "-y", "-i", str(wav), "-ac", "1", str(path)])
    return ms


def make_narration(
    path: Path,
    sentences: Sequence[str],
    *,
    voice: str = "en-us",
    gap_ms: int = 500,
    words_per_minute: int = 160,
) -> list[int]:
    """Speak each sentence in turn, ``gap_ms`` of silence after each, into one audio file
    (format by suffix, as :func:`make_audio`); returns the start of each sentence in ms (the
    moment a search should seek to)."""
    require_tools()
    with tempfile.TemporaryDirectory(prefix="narration-") as tmp_name:
        tmp = Path(tmp_name)
        spoken = [tmp / f"s{i:03d}.wav" for i in range(len(sentences))]
        lines = list(zip(sentences, spoken, strict=True))
        lengths = speak_all(lines, voice=voice, words_per_minute=words_per_minute)
        starts, at, parts = [], 0, []
        for i, (wav, ms) in enumerate(zip(spoken, lengths, strict=True)):
            starts.append(at)
            parts += [wav, silence(tmp / f"gap{i:03d}.wav", gap_ms)]
            at += ms + gap_ms
        listing = tmp / "parts.txt"
        listing.write_text("".join(f"file '{p}'\n" for p in parts))
        joined = ["-f", "concat", "-safe", "0", "-i", str(listing), "-ac", "1"]
        _run(["ffmpeg", "-v", "error", "-y", *joined, str(path)])
    return starts


LONG_LECTURE_TOPICS = (
    "sorting", "searching", "hashing", "graphs", "trees",
    "heaps", "recursion", "dynamic programming", "greedy choices", "complexity",
)  # fmt: skip


# What is said over each slide of the long lecture, one sentence each, all different: the
# same four said four times over sent Whisper through its fallback temperatures (a repeated
# window compresses too well), ~4x the CPU of transcribing varied speech.
_LONG_SENTENCES = (
    "This part of the lecture is about {topic}.",
    "We look at how {topic} works on a small example and then on a large one.",
    "Write down each step, check it against the slide, and ask why it is correct.",
    "The running time of {topic} depends on the input and on the data structure.",
    "Last week a student asked whether {topic} still helps when memory is scarce.",
    "The answer depends on the machine, so we will measure before we guess.",
    "Draw a picture of the first three steps on paper before reading any code.",
    "Notice which values change and which ones stay fixed from one line to the next.",
    "A common mistake is to forget the empty case, so test that one first.",
    "Textbooks often hide this detail in a footnote near the end of the chapter.",
    "Try to explain {topic} to a friend in two sentences without any jargon.",
    "If the explanation feels hard, go back to the example and change one number.",
    "Our homework asks for a proof, a program, and a short table of timings.",
    "Bring questions to the office hour on Thursday afternoon in room twelve.",
    "Next time we compare {topic} with another method on the same problem.",
    "Before then, read the notes and finish the exercises at the end of section {part}.",
)


def make_long_lecture(
    path: Path, pictures: Path, topics: Sequence[str] = LONG_LECTURE_TOPICS
) -> list[int]:
    """A 12.5-minute narrated lecture: ten 640x360 slides of 75 s of real speech
    each, at 5 frames/s (for tests and benchmarks of long imports); fewer ``topics``, fewer
    minutes. ``pictures`` is a folder for the slide images. Returns the start of each slide,
    in ms."""
    pictures.mkdir(parents=True, exist_ok=True)
    clips = []
    for i, topic in enumerate(topics):
        said = " ".join(s.format(topic=topic, part=i + 1) for s in _LONG_SENTENCES)
        picture = pictures / f"slide-{i:02d}.png"
        image = slide_image([topic.title(), f"Part {i + 1}"], picture, size=(640, 360))
        clips.append(Clip(image, said, seconds=60.0))
    return make_lecture_video(path, clips, fps=5)
