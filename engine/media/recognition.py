"""The recognition child process: it loads faster-whisper models, decodes a file's audio and
answers each job the parent sends (see :mod:`engine.media.transcribe`, its parent side):
the language of the start of the speech, or every recognised segment as it comes.

Spawned by :class:`engine.media.transcribe.Transcriber`; nothing else imports it.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

SAMPLE_RATE = 16_000
PIECE_S = 300  # audio is recognised in pieces of about this many seconds (bounded memory)
_SEARCH_S = 10  # a piece ends at the quietest moment this close to its nominal end
# Language detection hears up to this many 30-s windows of speech (after voice activity
# detection), from the first PROBE_S of the file: a lecture's greeting is enough most of the
# time, and a window below SURE is outvoted by the next ones. Voice activity detection costs
# in proportion to the audio it reads (0.57 s of 1.23 s on the first 300 s of the demo
# lecture, 0.06 s on 60 s), so the first 90 s are heard first, and the first 300 s only when
# they hold no speech or leave the model unsure (a long silence or music before the talk).
PROBE_WINDOWS = 3
PROBE_S = (90, 300)
SURE = 0.5
# Audio whose loudest half second is quieter than this holds nothing anyone could hear (a
# recorder left running, a muted microphone): its silence is found in one pass over the
# samples, not by voice activity detection and the model.
SILENT_DBFS = -60.0
_SILENT_POWER = 10 ** (SILENT_DBFS / 10)


@dataclass(frozen=True, slots=True)
class _Job:
    model_dir: str
    media: str
    start_ms: int
    threads: int
    language: str | None
    vad: bool
    beam_size: int
    niceness: int
    detect: bool = False  # tell the language of the start of its speech, transcribe nothing


def _parent_pid() -> int:
    """The pid of the process that started this one. Not os.getppid() as the child starts:
    a parent killed while this child was still starting has already been replaced by init
    (or a subreaper), and watching for a change from that one never ends."""
    parent = multiprocessing.parent_process()
    if parent is not None and parent.pid is not None:
        return parent.pid
    return os.getppid()


def _no_semaphores() -> None:
    """faster-whisper makes a tqdm bar (disabled) for each piece, and tqdm's default lock
    holds a multiprocessing semaphore: a child stopped at once (Ctrl+C, cancel) never gives
    it back, and the parent's resource tracker warned of a "leaked semaphore" on exit. One
    process writes no bars: a thread lock does."""
    try:
        from tqdm import tqdm
    except ImportError:
        return
    tqdm.set_lock(threading.RLock())


def _watch_parent(parent: int) -> None:
    """Exit when the parent is gone (killed), instead of recognising for no one."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(3)


def _lower_priority(niceness: int) -> None:
    """Recognition is background work: at a lower CPU priority it leaves the cores to what
    the user is doing (the window must answer within 100 ms on two cores) and loses nothing
    on an idle machine. POSIX only; elsewhere it runs at normal priority."""
    if niceness > 0 and hasattr(os, "nice"):
        try:
            os.nice(niceness)
        except OSError as e:
            log.info("recognition runs at normal priority: %s", e)


class _Models:
    """The child's loaded models (two at most: the multilingual one that tells languages and
    the one that hears the lecture), kept for the next job; and the last file's audio, kept
    from its language detection for its transcription."""

    KEPT = 2

    def __init__(self) -> None:
        self.models: dict[tuple[str, int], Any] = {}  # in order of last use
        self.loads = 0
        self.audio: tuple[str, np.ndarray] | None = None

    def get(self, job: _Job) -> Any:
        from faster_whisper import WhisperModel

        key = (job.model_dir, job.threads)
        model = self.models.pop(key, None)
        if model is None:
            while len(self.models) >= self.KEPT:  # the least recently used goes first
                del self.models[next(iter(self.models))]
            model = WhisperModel(
                job.model_dir,
                device="cpu",
                compute_type="int8",
                cpu_threads=job.threads,
                num_workers=1,
            )
            self.loads += 1
        self.models[key] = model
        return model

    def decoded(self, conn: Connection, job: _Job) -> np.ndarray | None:
        """The whole audio of ``job``'s file (None: undecodable, said to the parent). A
        detection keeps it for the transcription that follows; a transcription takes it."""
        import av.error
        from faster_whisper import decode_audio

        kept, self.audio = self.audio, None
        if kept is not None and kept[0] == job.media:
            audio = kept[1]
        else:
            kept = None  # freed before the next file is decoded
            try:
                decoded = decode_audio(job.media, sampling_rate=SAMPLE_RATE)
            except (av.error.FFmpegError, OSError, ValueError, IndexError) as e:
                conn.send(("unreadable", f"cannot decode the audio: {e}".splitlines()[0][:300]))
                return None
            audio = decoded[0] if isinstance(decoded, tuple) else decoded  # split_stereo only
        if job.detect:
            self.audio = (job.media, audio)
        return audio


def _child_main(conn: Connection, job: _Job | None) -> None:
    """Recognise ``job``, then each job the parent sends, until it sends None. Ctrl+C in a
    terminal reaches the whole process group: the parent stops this child, which ignores it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _no_semaphores()
    threading.Thread(target=_watch_parent, args=(_parent_pid(),), daemon=True).start()
    _lower_priority(job.niceness if job is not None else 0)
    models = _Models()
    try:
        while job is not None:
            if job.detect:
                _detect(conn, job, models)
            else:
                _recognise(conn, job, models)
            job = conn.recv()
    except (BrokenPipeError, EOFError):
        os._exit(3)  # the parent stopped listening
    except Exception as e:  # report any failure of the native libraries as one line
        try:
            conn.send(("error", f"{type(e).__name__}: {e}".splitlines()[0][:300]))
        finally:
            os._exit(1)
    conn.close()


def _pieces(audio: np.ndarray) -> list[tuple[int, int]]:
    """Sample ranges of about ``PIECE_S`` each, cut at the quietest half second within
    ``_SEARCH_S`` of each nominal boundary."""
    n = len(audio)
    out: list[tuple[int, int]] = []
    begin = 0
    step = PIECE_S * SAMPLE_RATE
    frame = SAMPLE_RATE // 2
    while n - begin > step + _SEARCH_S * SAMPLE_RATE:
        lo = begin + step - _SEARCH_S * SAMPLE_RATE
        window = audio[lo : lo + 2 * _SEARCH_S * SAMPLE_RATE]
        frames = len(window) // frame
        energy = np.square(window[: frames * frame].reshape(frames, frame)).mean(axis=1)
        cut = lo + int(np.argmin(energy)) * frame + frame // 2
        out.append((begin, cut))
        begin = cut
    out.append((begin, n))
    return out


def _detect(conn: Connection, job: _Job, models: _Models) -> None:
    """Tell the language of the start of the file's speech (``PROBE_WINDOWS`` windows of
    30 s after voice activity detection, from its first 90 s, else its first 300 s)."""
    audio = models.decoded(conn, job)
    if audio is None:
        return
    model = models.get(job)
    conn.send(("info", "", len(audio) * 1000 // SAMPLE_RATE, models.loads))
    if not model.model.is_multilingual:
        conn.send(("language", "en", 1.0))
    else:
        language, probability = "", 0.0
        for seconds in PROBE_S:
            language, probability = _language(model, audio[: seconds * SAMPLE_RATE], job.vad)
            if probability >= SURE or len(audio) <= seconds * SAMPLE_RATE:
                break
        conn.send(("language", language, probability))
    conn.send(("done",))


def _language(model: Any, audio: np.ndarray, vad: bool) -> tuple[str, float]:
    """The language ``model`` hears in ``audio``; ("", 0.0) when it holds no speech. Whisper
    given no speech (voice activity detection left nothing) guesses from the silence, and
    says English at 0.57: a lecture whose first 90 s are silent was heard as English."""
    if _silent(audio):
        return "", 0.0
    if vad:
        from faster_whisper.vad import collect_chunks, get_speech_timestamps

        speech = get_speech_timestamps(audio)
        if not speech:
            return "", 0.0
        audio = np.concatenate(collect_chunks(audio, speech)[0])
    language, probability, _ = model.detect_language(
        audio,
        language_detection_segments=PROBE_WINDOWS,
        language_detection_threshold=SURE,
    )
    return str(language), float(probability)


def _silent(audio: np.ndarray) -> bool:
    """Whether no half second of ``audio`` is louder than ``SILENT_DBFS``: there is nothing
    to hear, and neither voice activity detection (0.55 s of CPU per 300 s of audio) nor
    the model need to listen to it."""
    frame = SAMPLE_RATE // 2
    return not any(
        np.mean(np.square(audio[start : start + frame], dtype=np.float64)) >= _SILENT_POWER
        for start in range(0, len(audio), frame)
    )


def _recognise(conn: Connection, job: _Job, models: _Models) -> None:
    audio = models.decoded(conn, job)
    if audio is None:
        return
    total_ms = len(audio) * 1000 // SAMPLE_RATE
    offset = min(len(audio), job.start_ms * SAMPLE_RATE // 1000)
    audio = audio[offset:]
    model = models.get(job)
    language = "en" if not model.model.is_multilingual else job.language
    told = False
    # Whisper computes features for all the audio it is given at once: feed it pieces of
    # about five minutes, cut in the quietest half second near each boundary, so memory
    # stays flat however long the lecture is.
    for begin, end in _pieces(audio):
        piece = audio[begin:end]
        if len(piece) < SAMPLE_RATE // 10 or _silent(piece):
            continue
        segments, info = model.transcribe(
            piece,
            language=language,  # None: detected on the first piece, then kept
            beam_size=job.beam_size,
            word_timestamps=True,
            vad_filter=job.vad,
            condition_on_previous_text=False,
            # Voice activity detection already removed the silence: never drop a 30-s
            # window as "no speech" (that follows a random low-confidence retry).
            no_speech_threshold=None if job.vad else 0.6,
        )
        if not told:
            language = language or info.language
            conn.send(("info", language, total_ms, models.loads))
            told = True
        base = job.start_ms + begin * 1000 // SAMPLE_RATE
        for seg in segments:
            words = [
                (base + round(w.start * 1000), base + round(w.end * 1000), w.word.strip())
                for w in seg.words or ()
                if w.word.strip()
            ]
            text = seg.text.strip()
            if not text:
                continue
            start = base + round(seg.start * 1000)
            stop = max(start, base + round(seg.end * 1000))
            conn.send(("segment", start, stop, text, words))
    if not told:
        conn.send(("info", language or "", total_ms, models.loads))
    conn.send(("done",))
