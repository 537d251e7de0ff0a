"""The read step of an import: a file's text from its parser, its speech (transcribed in a
child process, kept part by part so a killed import resumes), or OCR of pages without a text
layer; and a video's scenes and on-screen text (engine/importing/seeing.py, read while its
speech is recognised)."""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from engine import ingest
from engine.config import EngineConfig
from engine.errors import ModelError, UnreadableFileError
from engine.importing.embedding import Ahead, embed_text
from engine.importing.hearing import (
    MULTILINGUAL_SPEECH_MODEL,
    SpeechPlan,
    needs_detection,
    plan_speech,
    written_language,
)
from engine.importing.progress import Stage, StageReport
from engine.importing.seeing import TextReaders, VideoFrames
from engine.importing.texts_ahead import TextsAhead
from engine.media.transcript import SpeechPart, transcript_windows
from engine.models.registry import ModelRegistry
from engine.plain_text import clock, plural
from engine.store import Store
from engine.types import ParsedSource, SourceKind

if TYPE_CHECKING:
    from engine.media.scenes import ScreenScene
    from engine.media.transcribe import (
        DetectedLanguage,
        SpeechSegment,
        Transcriber,
        TranscriptionProgress,
    )

log = logging.getLogger(__name__)
_AHEAD_EVERY = 8  # recognised segments between two looks for windows to embed ahead


class Reader:
    """Reads the files of one import run with the settings it started with (``config``).
    ``ahead`` embeds speech and screen text as they come."""

    def __init__(
        self,
        store: Store,
        config: EngineConfig,
        models: ModelRegistry,
        thumbs: Path,
        recognizer: TextReaders,
        ahead: Ahead | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.models = models
        self._recognizer = recognizer
        self.frames = VideoFrames(store, config, thumbs, recognizer, ahead)
        # The speech recognizer and its settings, its child kept across the run's files.
        self._speech: tuple[tuple[object, ...], Transcriber] | None = None
        self.ahead = ahead
        self.texts = TextsAhead()  # the next text files parsed and embedded together

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
            parsed = self.texts.parsed(path) or ingest.parse_file(path, self.config)
            parsed = _as_audio_if_no_picture(parsed, path)
        if self.config.media.screen_text and any(s.needs_ocr for s in parsed.segments):
            parsed = self._read_pages(path, parsed, stage, cancel)
        if not transcribe:
            language = self._given_language(sha) or written_language(parsed)
            parsed = replace(parsed, language=language)
        return parsed

    def _given_language(self, sha: str) -> str | None:
        """The language the user set for this content, else the one this import was told."""
        return self.store.recordings.chosen_language(sha) or self.config.media.language

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
        plan = self._speech_plan(path, sha, cancel)
        kept = self.store.recordings.transcript_parts(sha, plan.model, plan.asked)
        parts = [SpeechPart(a, b, text, words) for a, b, text, words in kept]
        finished = self.store.recordings.transcript_finished(sha, plan.model, plan.asked)
        if finished is None:
            if info.has_video and self.config.media.screen_text:
                self.frames.alongside(path, sha, cancel)
            try:
                heard = self._recognise(path, sha, plan, info.duration_ms, parts, stage, cancel)
            except BaseException:
                self.stop_frames()
                raise
        else:
            heard = finished.language
        if not any(p.text.strip() for p in parts):
            raise UnreadableFileError("no speech found")
        kind = SourceKind.VIDEO if info.has_video else SourceKind.AUDIO
        windows = transcript_windows(parts, self.config.chunking)
        return ParsedSource(
            kind,
            path.stem,
            tuple(windows),
            duration_ms=info.duration_ms,
            warnings=(plan.note,) if plan.note else (),
            speech_model=plan.model,
            language=heard or plan.asked or None,
        )

    def _speech_plan(self, path: Path, sha: str, cancel: threading.Event | None) -> SpeechPlan:
        """The model that hears the lecture and the language it is told (see
        :mod:`engine.importing.hearing`): its start is listened to first when needed."""
        chosen = self.config.media.speech_model
        language = self._given_language(sha)
        detected = None
        if needs_detection(chosen, language):
            detected = self._detect(path, cancel)
        plan = plan_speech(chosen, language, detected)
        if plan.note:
            log.warning("%s: %s", path.name, plan.note)
        return plan

    def _detect(self, path: Path, cancel: threading.Event | None) -> DetectedLanguage | None:
        """The language Whisper base hears at the start of the lecture; None when base is
        not installed (the lecture is then heard as English, and the import says so)."""
        try:
            base = self.models.path(MULTILINGUAL_SPEECH_MODEL)
        except ModelError as e:
            log.warning("%s: its language is not detected: %s", path.name, e)
            return None
        detected = self._transcriber(base).detect_language(path, model_dir=base, cancel=cancel)
        log.info("%s: language heard %r (%.2f)", path.name, detected.language, detected.probability)
        return detected

    def _recognise(
        self,
        path: Path,
        sha: str,
        plan: SpeechPlan,
        duration_ms: int,
        parts: list[SpeechPart],
        stage: StageReport,
        cancel: threading.Event | None,
    ) -> str:
        """Transcribe from the end of ``parts`` on, adding each new part to them and to the
        library as it comes; returns the language heard.

        Raises:
            ModelError: the planned model is not installed.
        """
        resume_ms = parts[-1].end_ms if parts else 0
        if resume_ms:
            log.info("%s: resuming transcription at %s", path.name, clock(resume_ms))
        model_dir = self.models.path(plan.model)
        transcriber = self._transcriber(model_dir)

        def keep(seg: SpeechSegment) -> None:
            self.store.recordings.add_transcript_part(
                sha, plan.model, seg.start_ms, seg.end_ms, seg.text, seg.words, asked=plan.asked
            )
            parts.append(SpeechPart(seg.start_ms, seg.end_ms, seg.text, seg.words))
            if len(parts) % _AHEAD_EVERY == 0:
                self._embed_ahead(path.stem, parts)

        def report(p: TranscriptionProgress) -> None:
            rtf = f"{p.rtf:.2f}x real time" if p.rtf is not None else ""
            stage(Stage.TRANSCRIBING, p.fraction, rtf)

        stage(Stage.TRANSCRIBING, resume_ms / duration_ms if duration_ms else 0.0)
        result = transcriber.transcribe(
            path,
            start_ms=resume_ms,
            on_segment=keep,
            progress=report,
            cancel=cancel,
            model_dir=model_dir,
            language=plan.asked or None,
        )
        recordings = self.store.recordings
        recordings.finish_transcript(
            sha, plan.model, result.language, duration_ms, asked=plan.asked
        )
        return result.language

    def _transcriber(self, model_dir: Path) -> Transcriber:
        """The speech recognizer, kept with its child process (and the models it loaded)
        from one file to the next until :meth:`close`; each call names its model."""
        from engine.media.transcribe import Transcriber

        settings = (self.config.threads, self.config.media.beam_size)
        if self._speech is not None and self._speech[0] == settings:
            return self._speech[1]
        if self._speech is not None:
            self._speech[1].close()
        threads, beam = settings
        transcriber = Transcriber(model_dir, threads=threads, beam_size=beam, keep_alive=True)
        self._speech = (settings, transcriber)
        return transcriber

    def _embed_ahead(self, title: str, parts: list[SpeechPart]) -> None:
        """Have the transcript windows (and their sentences) that later speech cannot change
        embedded while the rest is recognised: all but the last two, which may still grow."""
        if self.ahead is None:
            return
        stable = transcript_windows(parts, self.config.chunking)[:-2]
        context = self.config.embed_context
        self.ahead.want(embed_text(title, w, context) for w in stable if w.text.strip())
        self.ahead.want(t.text for w in stable for t in w.timings)

    def end_file(self) -> None:
        """A file is done (or failed): stop reading its frames, forget what was embedded
        ahead for it."""
        self.stop_frames()
        if self.ahead is not None:
            self.ahead.clear()

    def close(self) -> None:
        """The run ended: stop reading frames and embedding ahead, end the recognition child."""
        self.stop_frames()
        if self.ahead is not None:
            self.ahead.stop()
        speech, self._speech = self._speech, None
        if speech is not None:
            speech[1].close()

    def _read_pages(
        self, path: Path, parsed: ParsedSource, stage: StageReport, cancel: threading.Event | None
    ) -> ParsedSource:
        """Read pages that have no text layer (a PDF's, a photo's) with OCR before the deck
        is indexed."""
        from engine.ingest.photos import PHOTO_EXTENSIONS, picture_rgb
        from engine.models.ocr import lines_to_text, ocr_pdf_pages

        suffix = path.suffix.lower()
        if suffix not in PHOTO_EXTENSIONS and suffix != ".pdf":
            return parsed
        pages = [s.page for s in parsed.segments if s.needs_ocr and s.page is not None]
        photo = suffix in PHOTO_EXTENSIONS
        stage(
            Stage.READING_PAGES,
            0.0,
            "a photo" if photo else f"{plural(len(pages), 'page')} without text",
        )
        recognizer = self._recognizer(self.config.threads)
        if photo:  # a photo or a scan: its one page is the picture
            texts = {1: lines_to_text(recognizer.read(picture_rgb(path)))}
        else:
            texts = ocr_pdf_pages(path, pages, recognizer, cancel=cancel)
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
        """A video's scenes with their thumbnails and, when screen text is on, their text
        (those read alongside its speech, if they were).

        Raises:
            UnreadableFileError: the frames cannot be read.
            Cancelled.
        """
        return self.frames.scan(path, sha, stage, cancel)

    def stop_frames(self) -> None:
        """Stop reading frames that no import will take (the file failed or was cancelled)."""
        self.frames.stop()


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


__all__ = ["Reader", "TextReaders"]  # TextReaders: the pipeline names it from here
