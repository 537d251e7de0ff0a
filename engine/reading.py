"""The read step of an import: a file's text from its parser, its speech (transcribed in a
child process, kept part by part so a killed import resumes), or OCR of pages without a text
layer; and a video's scenes and on-screen text, read once its speech is searchable."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from engine import ingest
from engine.config import EngineConfig
from engine.errors import UnreadableFileError
from engine.formatting import clock
from engine.media.transcript import SpeechPart, transcript_windows
from engine.models.registry import ModelRegistry
from engine.progress import Stage, StageReport
from engine.store import Store
from engine.types import ParsedSource, SourceKind

if TYPE_CHECKING:
    from engine.media.scenes import ScreenScene
    from engine.media.transcribe import SpeechSegment, TranscriptionProgress
    from engine.models.ocr import TextRecognizer

log = logging.getLogger(__name__)


class Reader:
    """Reads files for an import. ``recognizer`` loads the on-screen text reader on first use."""

    def __init__(
        self,
        store: Store,
        config: EngineConfig,
        models: ModelRegistry,
        thumbs: Path,
        recognizer: Callable[[], TextRecognizer],
    ) -> None:
        self.store = store
        self.config = config
        self.models = models
        self.thumbs = thumbs
        self._recognizer = recognizer

    def read(
        self,
        path: Path,
        sha: str,
        *,
        transcribe: bool,
        stage: StageReport,
        cancel: threading.Event | None,
    ) -> ParsedSource:
        """The file's text: ``transcribe`` (media without subtitles beside them) runs speech
        recognition, else the file is parsed; pages without a text layer are read with OCR
        when screen text is on.

        Raises:
            CoursedexError: the file cannot be read (UnreadableFileError, ModelError, ...).
            Cancelled, WorkerCrashed.
        """
        if transcribe:
            parsed = self._transcribe(path, sha, stage, cancel)
        else:
            parsed = _as_audio_if_no_picture(ingest.parse_file(path, self.config), path)
        if self.config.media.screen_text and any(s.needs_ocr for s in parsed.segments):
            parsed = self._read_pages(path, parsed, stage, cancel)
        return parsed

    def _transcribe(
        self, path: Path, sha: str, stage: StageReport, cancel: threading.Event | None
    ) -> ParsedSource:
        """Speech recognition in a child process, kept part by part in the library so a
        killed or cancelled import resumes where it stopped.

        Raises:
            UnreadableFileError: not media, truncated, or no audio track.
            ModelError: the speech model is not installed.
            Cancelled, WorkerCrashed.
        """
        from engine.media.probe import probe

        info = probe(path)
        if not info.has_audio:
            raise UnreadableFileError("no audio track: nothing to transcribe")
        model = self.config.media.speech_model
        parts = [
            SpeechPart(a, b, text, words)
            for a, b, text, words in self.store.transcript_parts(sha, model)
        ]
        if self.store.transcript_finished(sha, model) is None:
            self._recognise(path, sha, info.duration_ms, parts, stage, cancel)
        if not any(p.text.strip() for p in parts):
            raise UnreadableFileError("no speech found")
        kind = SourceKind.VIDEO if info.has_video else SourceKind.AUDIO
        windows = transcript_windows(parts, self.config.chunking)
        return ParsedSource(kind, path.stem, tuple(windows), duration_ms=info.duration_ms)

    def _recognise(
        self,
        path: Path,
        sha: str,
        duration_ms: int,
        parts: list[SpeechPart],
        stage: StageReport,
        cancel: threading.Event | None,
    ) -> None:
        """Transcribe from the end of ``parts`` on, adding each new part to them and to the
        library as it comes."""
        from engine.media.transcribe import Transcriber

        media = self.config.media
        model = media.speech_model
        resume_ms = parts[-1].end_ms if parts else 0
        if resume_ms:
            log.info("%s: resuming transcription at %s", path.name, clock(resume_ms))
        transcriber = Transcriber(
            self.models.path(model),
            threads=self.config.threads,
            language=media.language,
            beam_size=media.beam_size,
        )

        def keep(seg: SpeechSegment) -> None:
            self.store.add_transcript_part(
                sha, model, seg.start_ms, seg.end_ms, seg.text, seg.words
            )
            parts.append(SpeechPart(seg.start_ms, seg.end_ms, seg.text, seg.words))

        def report(p: TranscriptionProgress) -> None:
            rtf = f"{p.rtf:.2f}x real time" if p.rtf is not None else ""
            stage(Stage.TRANSCRIBING, p.fraction, rtf)

        stage(Stage.TRANSCRIBING, resume_ms / duration_ms if duration_ms else 0.0)
        result = transcriber.transcribe(
            path, start_ms=resume_ms, on_segment=keep, progress=report, cancel=cancel
        )
        self.store.finish_transcript(sha, model, result.language, duration_ms)

    def _read_pages(
        self, path: Path, parsed: ParsedSource, stage: StageReport, cancel: threading.Event | None
    ) -> ParsedSource:
        """Read pages that have no text layer with OCR before the deck is indexed."""
        from engine.models.ocr import ocr_pdf_pages

        if path.suffix.lower() != ".pdf":
            return parsed
        pages = [s.page for s in parsed.segments if s.needs_ocr and s.page is not None]
        stage(Stage.READING_PAGES, 0.0, f"{len(pages)} pages without text")
        texts = ocr_pdf_pages(path, pages, self._recognizer(), cancel=cancel)
        segments = []
        for seg in parsed.segments:
            text = texts.get(seg.page or 0, "").strip() if seg.needs_ocr else ""
            if text:
                heading = seg.heading or text.splitlines()[0][:120]
                seg = replace(seg, text=text, heading=heading, needs_ocr=False)
            segments.append(seg)
        return replace(parsed, segments=tuple(segments))

    def scan_frames(
        self, path: Path, sha: str, stage: StageReport, cancel: threading.Event | None
    ) -> list[ScreenScene]:
        """A video's scenes with their thumbnails and, when screen text is on, their text.

        Raises:
            UnreadableFileError: the frames cannot be read.
            Cancelled.
        """
        from engine.media.deck import course_decks
        from engine.media.scenes import scan_video

        media = self.config.media

        def report(f: float) -> None:
            stage(Stage.FINDING_SCENES if f < 0.3 else Stage.READING_SCREEN, f)

        return scan_video(
            path,
            self.thumbs,
            sha[:16],
            media,
            self._recognizer() if media.screen_text else None,
            deck=course_decks(self.store, path) if media.screen_text else None,
            progress=report,
            cancel=cancel,
        )


def _as_audio_if_no_picture(parsed: ParsedSource, path: Path) -> ParsedSource:
    """A "video" read through its subtitles is audio when the file has no video stream (an
    audio-only .mkv): there are no frames to scan. A file that is not media at all stays a
    video; its frames fail later with a note, and its subtitles stay searchable."""
    if parsed.kind is not SourceKind.VIDEO:
        return parsed
    from engine.media.probe import probe

    try:
        has_video = probe(path).has_video
    except UnreadableFileError:
        return parsed
    return parsed if has_video else replace(parsed, kind=SourceKind.AUDIO)
