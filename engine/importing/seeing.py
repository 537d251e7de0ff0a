"""The read step's eyes: a video's scenes, thumbnails and on-screen text, read when the
import asks for them or on a worker thread while the speech is recognised (at a lower
priority than the recognition child, so it keeps its cores and the frames take what is
left). The worker's results are handed over only when the import asks, after the speech is
committed, so speech is searchable first. :class:`engine.importing.reading.Reader` holds
one :class:`VideoFrames` for its run."""

from __future__ import annotations

import importlib
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from engine.config import EngineConfig
from engine.importing.embedding import Ahead, embed_text
from engine.importing.progress import Stage, StageReport
from engine.store import Store

if TYPE_CHECKING:
    from engine.media.deck import DeckPictures
    from engine.media.scenes import ScreenScene
    from engine.models.ocr import TextRecognizer

log = logging.getLogger(__name__)

_FRAME_MODULES = (
    "av",
    "cv2",
    "pypdfium2",
    "scenedetect",
    "rapidocr_onnxruntime",
    "engine.media.deck",
    "engine.media.scenes",
)


class TextReaders(Protocol):
    """The library's on-screen text readers, each loaded on first use (see
    :meth:`engine.library.models.LibraryModels.recognizer`)."""

    def __call__(self, threads: int, *, alongside: bool = False) -> TextRecognizer: ...


@dataclass(eq=False)
class VideoFrames:
    """Reads the videos of one import run with its settings (``config``); ``ahead`` embeds
    screen text as it comes."""

    store: Store
    config: EngineConfig
    thumbs: Path
    recognizer: TextReaders
    ahead: Ahead | None
    # The frames being read while the speech is recognised.
    _early: FrameScan | None = field(default=None, init=False)

    def scan(
        self, path: Path, sha: str, stage: StageReport, cancel: threading.Event | None
    ) -> list[ScreenScene]:
        """A video's scenes with their thumbnails and, when screen text is on, their text.

        Raises:
            UnreadableFileError: the frames cannot be read.
            Cancelled.
        """
        early, self._early = self._early, None
        if early is not None and early.video == (path, sha):
            return early.wait(stage)
        if early is not None:
            early.stop()
        screen_text = self.config.media.screen_text
        recognizer = self.recognizer(self.config.threads) if screen_text else None
        deck = self._decks(path, recognizer)
        return self._scan(path, sha, recognizer, deck, _frames_report(stage), cancel)

    def _decks(self, path: Path, recognizer: TextRecognizer | None) -> DeckPictures | None:
        """The course's slide pages a keyframe may show (read here, on the import's thread:
        the frames worker does not use the library's database connection)."""
        from engine.media.deck import course_decks

        return course_decks(self.store, path) if recognizer is not None else None

    def _scan(
        self,
        path: Path,
        sha: str,
        recognizer: TextRecognizer | None,
        deck: DeckPictures | None,
        progress: Callable[[float], None],
        cancel: threading.Event | None,
    ) -> list[ScreenScene]:
        from engine.media.scenes import scan_video

        return scan_video(
            path,
            self.thumbs,
            sha[:16],
            self.config.media,
            recognizer,
            deck=deck,
            progress=progress,
            cancel=cancel,
        )

    def alongside(self, path: Path, sha: str, cancel: threading.Event | None) -> None:
        """Start reading the video's frames on a worker thread; :meth:`scan` takes
        the result. Its text reader has the cores the recognition child leaves (one on two
        cores), loaded once for the library's life."""
        self.stop()
        # Native modules imported on two threads at once can fail half loaded ("numpy._core
        # .multiarray failed to import" from cv2): the worker's are imported here first.
        for name in _FRAME_MODULES:
            importlib.import_module(name)
        recognizer = self.recognizer(spare_threads(self.config.threads), alongside=True)
        deck = self._decks(path, recognizer)

        def work(progress: Callable[[float], None], stop: threading.Event) -> list[ScreenScene]:
            scanned = self._scan(path, sha, recognizer, deck, progress, stop)
            if self.ahead is not None:
                from engine.media.screen import screen_segments

                drafts = [d for d, _ in screen_segments(scanned) if d.text.strip()]
                context = self.config.embed_context
                self.ahead.want(embed_text(path.stem, d, context) for d in drafts)
            return scanned

        self._early = FrameScan((path, sha), work, cancel)

    def stop(self) -> None:
        """Stop reading frames that no import will take (the file failed or was cancelled)."""
        early, self._early = self._early, None
        if early is not None:
            early.stop()


def _frames_report(stage: StageReport) -> Callable[[float], None]:
    """Progress of a frame scan as stages: finding cuts is its first 30%."""

    def report(f: float) -> None:
        stage(Stage.FINDING_SCENES if f < 0.3 else Stage.READING_SCREEN, f)

    return report


def spare_threads(busy: int) -> int:
    """Threads for work alongside the recognition child's ``busy`` ones: the cores it leaves,
    at least one (on two cores the worker takes only what the child does not use)."""
    return max(1, min(busy, (os.cpu_count() or 2) - busy))


class EitherSet(threading.Event):
    """Set when it is set itself or ``outer`` is (a job's cancel)."""

    def __init__(self, outer: threading.Event | None) -> None:
        super().__init__()
        self._outer = outer

    def is_set(self) -> bool:
        return super().is_set() or (self._outer is not None and self._outer.is_set())


class FrameScan:
    """A video's frames read on a worker thread at a lower priority; :meth:`wait` hands over
    the scenes (or the failure) to the import, :meth:`stop` abandons them."""

    def __init__(
        self,
        video: tuple[Path, str],
        work: Callable[[Callable[[float], None], threading.Event], list[ScreenScene]],
        cancel: threading.Event | None,
    ) -> None:
        self.video = video
        self.seconds = 0.0  # the worker's wall time
        self._stop = EitherSet(cancel)
        self._fraction = 0.0
        self._result: list[ScreenScene] = []
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(work,), name="coursedex-frames", daemon=True
        )
        self._thread.start()

    def _run(
        self, work: Callable[[Callable[[float], None], threading.Event], list[ScreenScene]]
    ) -> None:
        from engine.media.transcribe import lower_thread_priority

        lower_thread_priority()
        started = time.monotonic()
        try:
            self._result = work(self._progress, self._stop)
        except BaseException as e:  # the import that waits for the frames raises it
            self._error = e
        self.seconds = time.monotonic() - started
        log.info("%s: frames read alongside speech in %.1f s", self.video[0].name, self.seconds)

    def _progress(self, fraction: float) -> None:
        self._fraction = fraction

    def wait(self, stage: StageReport) -> list[ScreenScene]:
        """The scenes, once read; reports the worker's progress meanwhile.

        Raises:
            UnreadableFileError: the frames cannot be read.
            Cancelled.
        """
        # The stages in their order, however far the worker got alongside the speech.
        stage(Stage.FINDING_SCENES, min(self._fraction, 0.3))
        report = _frames_report(stage)
        shown = -1.0
        while self._thread.is_alive():
            if self._fraction != shown:
                shown = self._fraction
                report(shown)
            self._thread.join(0.2)
        if self._error is not None:
            raise self._error
        stage(Stage.READING_SCREEN, 1.0)
        return self._result

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
