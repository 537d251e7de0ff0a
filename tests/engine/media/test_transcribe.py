"""Media probing and speech recognition in a child process, on real generated speech."""

from __future__ import annotations

import itertools
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.errors import Cancelled, UnreadableFileError, WorkerCrashed
from engine.media.probe import probe
from engine.media.transcribe import (
    BACKGROUND_NICENESS,
    SpeechSegment,
    Transcriber,
    TranscriptionProgress,
    lower_thread_priority,
)
from engine.models.registry import ModelRegistry
from tests.heard import heard_share
from tools.lecture_media import Clip, make_audio, make_lecture_video, slide_image

# Linux's /proc lists a process's children and mappings; macOS has none (the release
# workflow runs this file there).
READS_PROC = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
SPEECH = (
    "Today we study the quicksort algorithm. It picks a pivot and partitions the array. "
    "Then it sorts both parts with recursion. The average cost is n log n comparisons."
)
OTHER = "A heap keeps the smallest key at the root of the tree."


@pytest.fixture(scope="module")
def whisper_dir(models_dir: Path) -> Path:
    return ModelRegistry(models_dir).path("faster-whisper-tiny.en")


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("speech") / "lecture.wav"
    return path, make_audio(path, SPEECH)


def _run(
    transcriber: Transcriber, media: Path, **kwargs: object
) -> tuple[list[SpeechSegment], list[TranscriptionProgress]]:
    segments: list[SpeechSegment] = []
    reports: list[TranscriptionProgress] = []
    transcriber.transcribe(media, on_segment=segments.append, progress=reports.append, **kwargs)  # type: ignore[arg-type]
    return segments, reports


def test_speech_comes_back_with_word_times_in_order(
    whisper_dir: Path, speech: tuple[Path, int]
) -> None:
    path, duration = speech
    segments, reports = _run(Transcriber(whisper_dir), path)
    text = " ".join(s.text for s in segments)
    assert heard_share(text, SPEECH) >= 0.6, text  # here 15 of 17 words
    words = [w for s in segments for w in s.words]
    assert len(words) >= 20
    assert all(a.start_ms <= b.start_ms for a, b in itertools.pairwise(words))
    assert all(0 <= w.start_ms <= w.end_ms <= duration + 500 for w in words)
    # Each word's time is its own: the key words heard come in the order they were said.
    keys = ("pivot", "partitions", "recursion", "comparisons")
    firsts = [next((w.start_ms for w in words if k in w.text.lower()), None) for k in keys]
    heard = [ms for ms in firsts if ms is not None]
    assert len(heard) >= 3 and heard == sorted(heard), (firsts, text)
    assert reports[-1].fraction == 1.0
    assert any(r.rtf is not None and r.rtf > 0 for r in reports)


def test_start_ms_resumes_with_absolute_times(whisper_dir: Path, speech: tuple[Path, int]) -> None:
    path, _ = speech
    full, _ = _run(Transcriber(whisper_dir), path)
    resume_at = full[0].end_ms
    later, reports = _run(Transcriber(whisper_dir), path, start_ms=resume_at)
    assert later and all(s.start_ms >= resume_at - 100 for s in later)
    # Heard from the resume point: mostly what the whole run heard after its first segment.
    after, later_text = (" ".join(s.text for s in part) for part in (full[1:], later))
    assert heard_share(later_text, after) >= 0.5, (later_text, after)
    assert reports[0].done_ms > resume_at


def test_cancel_stops_the_child_quickly(whisper_dir: Path, speech: tuple[Path, int]) -> None:
    path, _ = speech
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    children_before = _children()
    with pytest.raises(Cancelled):
        _run(Transcriber(whisper_dir), path, cancel=cancel)
    assert time.monotonic() - started < 5
    assert _children() <= children_before


def test_a_child_that_dies_is_reported_not_fatal(
    whisper_dir: Path, speech: tuple[Path, int], tmp_path: Path
) -> None:
    broken = tmp_path / "broken-model"
    broken.mkdir()
    for f in whisper_dir.iterdir():
        (broken / f.name).write_bytes(f.read_bytes())
    (broken / "model.bin").write_bytes(b"\0" * 4096)
    with pytest.raises(WorkerCrashed):
        _run(Transcriber(broken), speech[0])


def test_a_killed_child_raises_worker_crashed(whisper_dir: Path, speech: tuple[Path, int]) -> None:
    path, _ = speech
    before = _children()

    def kill_child() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            new = _children() - before
            if new:
                for pid in new:
                    os.kill(pid, signal.SIGKILL)
                return
            time.sleep(0.05)

    threading.Thread(target=kill_child, daemon=True).start()
    with pytest.raises(WorkerCrashed, match=r"signal 9|exit code"):
        _run(Transcriber(whisper_dir), path)


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="POSIX niceness")
def test_the_child_recognises_at_background_priority(
    whisper_dir: Path, speech: tuple[Path, int]
) -> None:
    path, _ = speech
    before = _children()
    seen: list[int] = []
    done = threading.Event()

    def look() -> None:  # the child lowers its priority as it starts: read until it ends
        while not done.is_set():
            for pid in _children() - before:
                try:
                    seen.append(os.getpriority(os.PRIO_PROCESS, pid))
                except OSError:
                    continue
            time.sleep(0.05)

    watcher = threading.Thread(target=look, daemon=True)
    watcher.start()
    try:
        _run(Transcriber(whisper_dir), path)
    finally:
        done.set()
        watcher.join()
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert seen and max(seen) == min(19, ours + BACKGROUND_NICENESS)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness")
def test_work_beside_the_child_runs_at_the_lowest_priority() -> None:
    """Frames and embedding ahead take only what recognition leaves: at niceness 19 a
    contended core gives them 12% (15 / (110 + 15)) of its time, not 25% as at 15."""
    seen: list[int] = []

    def work() -> None:
        lower_thread_priority()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == [19]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) < 19, "only that thread"


@READS_PROC
def test_a_kept_child_recognises_the_next_file_with_the_model_it_loaded(
    whisper_dir: Path, speech: tuple[Path, int], tmp_path: Path
) -> None:
    other = tmp_path / "other.wav"
    make_audio(other, OTHER)
    before = _children()
    transcriber = Transcriber(whisper_dir, keep_alive=True)
    heard: list[SpeechSegment] = []
    try:
        first = transcriber.transcribe(speech[0], on_segment=heard.append)
        kept = _children() - before
        second = transcriber.transcribe(other, on_segment=heard.append)
    finally:
        transcriber.close()
    assert first.worker_pid in kept, "the child waits for the next file"
    assert second.worker_pid == first.worker_pid
    assert (first.model_loads, second.model_loads) == (1, 1)
    assert heard_share(" ".join(s.text for s in heard), OTHER) >= 0.6, heard  # here 4 of 5
    assert first.worker_pid not in _children(), "close ends the child"


@READS_PROC
def test_the_child_holds_no_semaphore(whisper_dir: Path, speech: tuple[Path, int]) -> None:
    """A child stopped at once (Ctrl+C in a terminal) cannot give a multiprocessing
    semaphore back, and the resource tracker warned of a "leaked semaphore" as the CLI
    exited: tqdm's lock (faster-whisper's bar) was one. A named semaphore is a mapped
    /dev/shm/sem.* file."""
    transcriber = Transcriber(whisper_dir, keep_alive=True)
    try:
        pid = transcriber.transcribe(speech[0], on_segment=lambda _: None).worker_pid
        maps = Path(f"/proc/{pid}/maps").read_text()
    finally:
        transcriber.close()
    assert "/dev/shm/sem." not in maps, [line for line in maps.splitlines() if "sem." in line]


def _children() -> set[int]:
    """Live child processes of this test process."""
    me = os.getpid()
    out: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z":
            out.add(int(entry.name))
    return out


# --- probe ---------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".mp3", ".m4a", ".wav", ".flac", ".ogg"])
def test_audio_formats_probe(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"clip{suffix}"
    ms = make_audio(path, "One two three.")
    info = probe(path)
    assert info.has_audio and not info.has_video
    assert abs(info.duration_ms - ms) < 200


def test_broken_and_silent_files_have_reasons(tmp_path: Path) -> None:
    frame = slide_image(["Title", "body"], tmp_path / "f.png")
    video = tmp_path / "v.mp4"
    make_lecture_video(video, [Clip(frame, "Hello there, this is a test.")])
    info = probe(video)
    assert info.has_audio and info.has_video and info.width == 1280
    silent = tmp_path / "silent.mp4"
    make_lecture_video(silent, [Clip(frame, seconds=2)], audio=False)
    assert not probe(silent).has_audio
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(video.read_bytes()[: video.stat().st_size // 2])
    with pytest.raises(UnreadableFileError, match="truncated"):
        probe(cut)
    fake = tmp_path / "fake.mp4"
    fake.write_text("just some notes\n")
    with pytest.raises(UnreadableFileError, match="not a media file"):
        probe(fake)
