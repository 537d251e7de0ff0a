"""Speech recognition (faster-whisper) in a child process that streams what it hears.

The child loads the model, decodes the audio from ``start_ms`` on and sends each recognised
segment with its words through a pipe as soon as it has it. The caller keeps what arrives,
so a crash, kill or cancel loses only the segment in progress, and ``start_ms`` resumes.
A native crash in CTranslate2 or a decoder ends the child, never the caller; a cancel
terminates the child. The child exits on its own if its parent dies. A transcriber made with
``keep_alive`` keeps its child (and the model it loaded) for the next file until
:meth:`Transcriber.close`: an import of many lectures starts one child and loads one model.

The child is a ``multiprocessing`` "spawn" process: it works the same in a PyInstaller build
as long as the program's entry point calls ``multiprocessing.freeze_support()``.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import Cancelled, UnreadableFileError, WorkerCrashed
from engine.types import Timing

log = logging.getLogger(__name__)

SAMPLE_RATE = 16_000
BEAM_SIZE = 1  # greedy decoding; bench/speech_wer.py and bench/video_import.py measure beam 5
_POLL_S = 0.2
_START_TIMEOUT_S = 120.0  # model load + decode before the first message
PIECE_S = 300  # audio is recognised in pieces of about this many seconds (bounded memory)
BACKGROUND_NICENESS = 10  # the recognition process runs at this niceness (POSIX)
_SEARCH_S = 10  # a piece ends at the quietest moment this close to its nominal end


@dataclass(frozen=True, slots=True)
class SpeechSegment:
    """One recognised segment (about a sentence) with its words, times absolute."""

    start_ms: int
    end_ms: int
    text: str
    words: tuple[Timing, ...]


@dataclass(frozen=True, slots=True)
class TranscriptionProgress:
    done_ms: int
    duration_ms: int
    fraction: float
    rtf: float | None  # wall time / audio time recognised so far
    eta_s: float | None


@dataclass(frozen=True, slots=True)
class TranscriptionResult:
    language: str
    duration_ms: int
    segments: int
    seconds: float
    worker_pid: int = 0  # the child process that recognised it
    model_loads: int = 0  # models that child has loaded so far (1 when it was reused)


class Transcriber:
    """One speech model directory (CTranslate2 faster-whisper) and how to run it."""

    def __init__(
        self,
        model_dir: Path,
        *,
        threads: int = 2,
        language: str | None = None,
        vad: bool = True,
        beam_size: int = BEAM_SIZE,
        niceness: int = BACKGROUND_NICENESS,
        keep_alive: bool = False,
    ) -> None:
        self.model_dir = model_dir
        self.keep_alive = keep_alive
        self._child: tuple[BaseProcess, Connection] | None = None  # kept between files
        self.niceness = niceness
        self.threads = max(1, threads)
        self.language = language
        self.vad = vad
        self.beam_size = beam_size

    def transcribe(
        self,
        media: Path,
        *,
        start_ms: int = 0,
        on_segment: Callable[[SpeechSegment], None],
        progress: Callable[[TranscriptionProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> TranscriptionResult:
        """Recognise the speech of ``media`` from ``start_ms`` on; ``on_segment`` gets each
        segment in order, in this thread.

        Raises:
            UnreadableFileError: the audio cannot be decoded.
            Cancelled: ``cancel`` was set (the child is stopped).
            WorkerCrashed: the child died or stopped answering.
        """
        job = _Job(
            str(self.model_dir),
            str(media),
            start_ms,
            self.threads,
            self.language,
            self.vad,
            self.beam_size,
            self.niceness,
        )
        run = _Run(start_ms, self.language or "", time.monotonic())
        child, conn = self._child_for(job)
        pid = child.pid or 0
        kept = False
        try:
            for message in _messages(conn, child, cancel, run):
                segment = run.take(message)
                if segment is not None:
                    on_segment(segment)
                    if progress is not None:
                        progress(run.progress(segment.end_ms))
            kept = self.keep_alive
        finally:
            if not kept:
                self.close(finished=run.finished)
        if progress is not None:
            progress(run.progress(run.duration_ms))
        seconds = time.monotonic() - run.started
        return TranscriptionResult(
            run.language, run.duration_ms, run.count, seconds, pid, run.model_loads
        )

    def _child_for(self, job: _Job) -> tuple[BaseProcess, Connection]:
        """The kept child, given ``job``; else a new child started on it."""
        if self._child is not None:
            child, conn = self._child
            try:
                if child.is_alive():
                    conn.send(job)
                    return child, conn
            except OSError:  # it died while idle: start another
                pass
            self.close(finished=False)
        ctx = multiprocessing.get_context("spawn")
        conn, theirs = ctx.Pipe()
        child = ctx.Process(target=_child_main, args=(theirs, job), daemon=True)
        _start(child)
        theirs.close()
        self._child = (child, conn)
        return child, conn

    def close(self, finished: bool = True) -> None:
        """End the child: a ``finished`` one is told to exit, else it is stopped at once."""
        if self._child is None:
            return
        (child, conn), self._child = self._child, None
        if finished:
            try:
                conn.send(None)
            except OSError:
                finished = False
        _stop(child, wait_s=10.0 if finished else 0.0)
        conn.close()


@dataclass(slots=True)
class _Run:
    """What the child has said so far about one transcription."""

    start_ms: int
    language: str
    started: float
    duration_ms: int = 0
    count: int = 0
    finished: bool = False
    model_loads: int = 0

    def take(self, message: tuple[Any, ...]) -> SpeechSegment | None:
        """Record one message from the child; a recognised segment is returned.

        Raises:
            UnreadableFileError: the child could not decode the audio.
            WorkerCrashed: the child reported a failure.
        """
        tag = message[0]
        if tag == "info":
            self.language, self.duration_ms = str(message[1]), int(message[2])
            self.model_loads = int(message[3])
        elif tag == "segment":
            self.count += 1
            timings = tuple(Timing(a, b, w) for a, b, w in message[4])
            return SpeechSegment(message[1], message[2], message[3], timings)
        elif tag == "done":
            self.finished = True
        elif tag == "unreadable":
            raise UnreadableFileError(str(message[1]))
        else:  # "error"
            raise WorkerCrashed(f"speech recognition failed: {message[1]}")
        return None

    def progress(self, done_ms: int) -> TranscriptionProgress:
        return _progress(done_ms, self.start_ms, self.duration_ms, self.started)


def _messages(
    receiver: Connection, child: BaseProcess, cancel: threading.Event | None, run: _Run
) -> Iterator[tuple[Any, ...]]:
    """The child's messages up to its "done", watching for cancel, a dead child and a child
    that never starts.

    Raises:
        Cancelled: ``cancel`` was set.
        WorkerCrashed: the child died or did not start in time.
    """
    last_message = time.monotonic()
    while not run.finished:
        if cancel is not None and cancel.is_set():
            raise Cancelled("cancelled")
        if not receiver.poll(_POLL_S):
            if not child.is_alive() and not receiver.poll(0):
                raise WorkerCrashed(_died(child.exitcode))
            if run.duration_ms == 0 and time.monotonic() - last_message > _START_TIMEOUT_S:
                raise WorkerCrashed("speech recognition did not start in time")
            continue
        try:
            message = receiver.recv()
        except (EOFError, OSError) as e:
            child.join(5)
            raise WorkerCrashed(_died(child.exitcode)) from e
        last_message = time.monotonic()
        yield message


def _progress(
    done_ms: int, start_ms: int, duration_ms: int, started: float
) -> TranscriptionProgress:
    elapsed = time.monotonic() - started
    heard = max(0, done_ms - start_ms)
    rtf = elapsed / (heard / 1000) if heard > 0 else None
    left = max(0, duration_ms - done_ms)
    eta = rtf * left / 1000 if rtf is not None else None
    fraction = min(1.0, done_ms / duration_ms) if duration_ms > 0 else 0.0
    return TranscriptionProgress(done_ms, duration_ms, fraction, rtf, eta)


def _died(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        return f"speech recognition crashed (signal {-exitcode})"
    return f"speech recognition stopped unexpectedly (exit code {exitcode})"


def _start(child: BaseProcess) -> None:
    """Start the child with the import path as it is outside any import. OpenCV's loader
    puts its own package folder on sys.path while ``import cv2`` runs (opencv issue 18502):
    a child spawned meanwhile (the frames of one video are read while the next one's speech
    is recognised) finds cv2's ``typing`` before the standard library's and dies at start."""
    if "cv2" in sys.modules:
        importlib.import_module("cv2")  # returns once an import in another thread has ended
    saved = sys.path
    sys.path = [p for p in saved if not os.path.isfile(os.path.join(p, "__init__.py"))]
    try:
        child.start()
    finally:
        sys.path = saved


def _stop(child: BaseProcess, wait_s: float) -> None:
    """End the child: let a finished one exit by itself, stop a working one at once, and
    never leave a zombie."""
    if wait_s:
        child.join(wait_s)
    if child.is_alive():
        child.terminate()
        child.join(3)
    if child.is_alive():
        child.kill()
    child.join(3)
    try:
        child.close()
    except ValueError:
        log.warning("speech recognition process %s did not exit", child.pid)


# --- the child process ------------------------------------------------------------------------


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
    """The child's one loaded model, kept for the next job that uses it."""

    def __init__(self) -> None:
        self.key: tuple[str, int] | None = None
        self.model: Any = None
        self.loads = 0

    def get(self, job: _Job) -> Any:
        from faster_whisper import WhisperModel

        key = (job.model_dir, job.threads)
        if key != self.key:
            self.model = None  # one model in memory at a time
            self.model = WhisperModel(
                job.model_dir,
                device="cpu",
                compute_type="int8",
                cpu_threads=job.threads,
                num_workers=1,
            )
            self.key = key
            self.loads += 1
        return self.model


def lower_thread_priority(by: int = BACKGROUND_NICENESS + 5) -> None:
    """Make the calling thread ``by`` nicer: work beside the recognition child (which is
    BACKGROUND_NICENESS nicer) gets what the child leaves. Linux sets niceness per thread;
    elsewhere the call would lower the whole process, so it does nothing."""
    if not sys.platform.startswith("linux"):
        return
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + by))
    except OSError as e:
        log.info("background work runs at normal priority: %s", e)


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


def _recognise(conn: Connection, job: _Job, models: _Models) -> None:
    import av.error
    from faster_whisper import decode_audio

    try:
        decoded = decode_audio(job.media, sampling_rate=SAMPLE_RATE)
    except (av.error.FFmpegError, OSError, ValueError, IndexError) as e:
        conn.send(("unreadable", f"cannot decode the audio: {e}".splitlines()[0][:300]))
        return
    audio = decoded[0] if isinstance(decoded, tuple) else decoded  # tuple only for split_stereo
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
        if len(piece) < SAMPLE_RATE // 10:
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
