"""Speech recognition (faster-whisper) in a child process that streams what it hears.

The child loads the model, decodes the audio from ``start_ms`` on and sends each recognised
segment with its words through a pipe as soon as it has it. The caller keeps what arrives,
so a crash, kill or cancel loses only the segment in progress, and ``start_ms`` resumes.
A native crash in CTranslate2 or a decoder ends the child, never the caller; a cancel
terminates the child. The child exits on its own if its parent dies. A transcriber made with
``keep_alive`` keeps its child (and the models it loaded, two at most: the multilingual one
that tells a lecture's language and the one that hears it) for the next file until
:meth:`Transcriber.close`: an import of many lectures starts one child and loads each model
once. :meth:`Transcriber.detect_language` listens to the start of a file's speech with a
multilingual model; the file's audio stays decoded in the child for its transcription.

The child is a ``multiprocessing`` "spawn" process: it works the same in a PyInstaller build
as long as the program's entry point calls ``multiprocessing.freeze_support()``.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from engine.errors import Cancelled, UnreadableFileError, WorkerCrashed
from engine.media.recognition import PIECE_S, SAMPLE_RATE, SURE, _child_main, _Job
from engine.types import Timing

__all__ = ["PIECE_S", "SAMPLE_RATE", "SURE", "DetectedLanguage", "Transcriber"]

log = logging.getLogger(__name__)

BEAM_SIZE = 1  # greedy decoding; bench/speech_wer.py and bench/video_import.py measure beam 5
_POLL_S = 0.2
_START_TIMEOUT_S = 120.0  # model load + decode before the first message
BACKGROUND_NICENESS = 10  # the recognition process runs at this niceness (POSIX)


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
class DetectedLanguage:
    """The language a multilingual model heard at the start of a file's speech."""

    language: str  # a Whisper code; "" when no speech was found
    probability: float  # the model's, of that language (0.0 when no speech was found)


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
        model_dir: Path | None = None,
        language: str | None = None,
    ) -> TranscriptionResult:
        """Recognise the speech of ``media`` from ``start_ms`` on; ``on_segment`` gets each
        segment in order, in this thread. ``model_dir`` and ``language`` (None: this
        transcriber's) let one child hear each file with its own model and language.

        Raises:
            UnreadableFileError: the audio cannot be decoded.
            Cancelled: ``cancel`` was set (the child is stopped).
            WorkerCrashed: the child died or stopped answering.
        """
        language = language or self.language
        job = self._job(media, start_ms, model_dir, language)
        run = _Run(start_ms, language or "", time.monotonic())
        self._run(job, run, on_segment, progress, cancel)
        if progress is not None:
            progress(run.progress(run.duration_ms))
        seconds = time.monotonic() - run.started
        return TranscriptionResult(
            run.language, run.duration_ms, run.count, seconds, run.pid, run.model_loads
        )

    def detect_language(
        self,
        media: Path,
        *,
        model_dir: Path | None = None,
        cancel: threading.Event | None = None,
    ) -> DetectedLanguage:
        """The language of the start of ``media``'s speech, heard by the multilingual model
        in ``model_dir`` (None: this transcriber's; an English-only model says English).

        Raises:
            UnreadableFileError: the audio cannot be decoded.
            Cancelled, WorkerCrashed.
        """
        job = replace(self._job(media, 0, model_dir, None), detect=True)
        run = _Run(0, "", time.monotonic())
        self._run(job, run, None, None, cancel)
        return DetectedLanguage(run.language, run.probability)

    def _job(
        self, media: Path, start_ms: int, model_dir: Path | None, language: str | None
    ) -> _Job:
        return _Job(
            str(model_dir or self.model_dir),
            str(media),
            start_ms,
            self.threads,
            language,
            self.vad,
            self.beam_size,
            self.niceness,
        )

    def _run(
        self,
        job: _Job,
        run: _Run,
        on_segment: Callable[[SpeechSegment], None] | None,
        progress: Callable[[TranscriptionProgress], None] | None,
        cancel: threading.Event | None,
    ) -> None:
        """Send ``job`` to the child and take its messages until it is done."""
        child, conn = self._child_for(job)
        run.pid = child.pid or 0
        kept = False
        try:
            for message in _messages(conn, child, cancel, run):
                segment = run.take(message)
                if segment is not None and on_segment is not None:
                    on_segment(segment)
                    if progress is not None:
                        progress(run.progress(segment.end_ms))
            kept = self.keep_alive
        finally:
            if not kept:
                self.close(finished=run.finished)

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
    probability: float = 0.0  # of the language a detection heard
    pid: int = 0  # the child that answers

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
        elif tag == "language":
            self.language, self.probability = str(message[1]), float(message[2])
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


LOWEST_NICENESS = 19


def lower_thread_priority() -> None:
    """Put the calling thread at the lowest priority (niceness 19): work beside the
    recognition child (which is BACKGROUND_NICENESS nicer) gets only what the child leaves.
    A core both want gives it 12% of its time (weights 15 / (110 + 15)), not 25% as at 15:
    the frames and embeddings of a lecture were read long before its speech was heard, and
    slowed the speech meanwhile. Linux sets niceness per thread; elsewhere the call would
    lower the whole process, so it does nothing."""
    if not sys.platform.startswith("linux"):
        return
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, LOWEST_NICENESS)
    except OSError as e:
        log.info("background work runs at normal priority: %s", e)
