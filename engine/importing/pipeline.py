"""The import pipeline: plan -> queue -> per file: read -> one commit -> link slides.

:func:`~engine.importing.planning.plan` lists the files an import reads; :meth:`Pipeline.queue`
registers each once (its course, and a queued row a later start resumes); then each file is
checked against what the library holds (unchanged, a copy, moved), read
(:mod:`engine.importing.reading`), embedded and committed in one write
(:mod:`engine.index.indexer`); a video's frames are read after its speech is searchable. When
the job ends, the courses it touched get their slides lined up with their lectures
(:mod:`engine.importing.linking`). What is recorded of each file besides its content (its
row queued, being indexed, failed, gone, moved) is :mod:`engine.importing.file_rows`'.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine import ingest
from engine.config import EngineConfig
from engine.errors import Cancelled, CoursedexError, ModelMismatchError, UnreadableFileError
from engine.importing.embedding import Ahead, Embedding, with_context
from engine.importing.estimate import document_plan, expected
from engine.importing.file_rows import FileRows, ImportJob
from engine.importing.files import changed, exists, failure_reason, sha256_of
from engine.importing.linking import link_slides
from engine.importing.planning import BAD_NAME, MEDIA, PlannedFile, storable
from engine.importing.progress import (
    FileResult,
    IngestProgress,
    IngestReport,
    Outcome,
    Stage,
    StageReport,
)
from engine.importing.reading import Reader, TextReaders
from engine.importing.removals import Removals
from engine.importing.texts_ahead import upcoming
from engine.importing.tracking import ProgressTracker
from engine.index.content import SourceContent
from engine.index.indexer import Indexer
from engine.models import Embedder
from engine.models.registry import ModelRegistry
from engine.plain_text import plural
from engine.regular_files import regular_file
from engine.store import Store
from engine.types import ParsedSource, SourceKind, SourceStatus

# Fits the library's embedder to a file's language before it is embedded (the library's
# engine.library.meaning.EmbedderFit); returns what the file's result says of it, or "".
Fit = Callable[[str | None, StageReport, threading.Event | None], str]

log = logging.getLogger(__name__)

_SAVE_EVERY_S = 30.0
CHANGED_WHILE_READ = "it changed while it was read (still being saved?): import it again"
VANISHED_WHILE_READ = "it is gone: it was moved or deleted while it was read"


@dataclass(frozen=True, slots=True)
class _Run:
    """One import run: the settings it started with (settings changed meanwhile apply to the
    next run), and the reader and the embedding made from them."""

    config: EngineConfig
    reader: Reader
    embedding: Embedding


class Pipeline:
    """Runs imports into one library. ``embedder`` is the library's (loaded on first use;
    ``fit`` may switch it for a file's language); ``models`` finds the speech model,
    ``recognizer`` gives the on-screen text readers; thumbnails go to ``thumbs``. Each run
    takes its settings as it starts."""

    def __init__(
        self,
        store: Store,
        indexer: Indexer,
        embedder: Callable[[], Embedder],
        models: ModelRegistry,
        thumbs: Path,
        recognizer: TextReaders,
        fit: Fit = lambda _language, _stage, _cancel: "",
        removals: Removals | None = None,
    ) -> None:
        self.store = store
        self._fit = fit
        self.indexer = indexer
        self._embedder = embedder
        self._models = models
        self._thumbs = thumbs
        self._recognizer = recognizer
        # Files removed from the library during a run (the library's ImportSession fills it).
        self.removals = removals if removals is not None else Removals()
        self.rows = FileRows(store, indexer)  # each file's row in the catalog

    def queue(self, planned: Sequence[PlannedFile]) -> list[ImportJob]:
        """Register each file once: its course, and a queued row unless it is indexed. In one
        transaction: a reader (the window's panel, another process) sees all of them or none,
        never a 300-file folder as a course of 12 files."""
        with self.store.transaction():
            return [self.rows.queued(item) for item in planned]

    def pending(self) -> list[ImportJob]:
        """The files a previous run queued but did not index (after a quit or crash)."""
        return self.rows.pending()

    def run(
        self,
        jobs: Sequence[ImportJob],
        config: EngineConfig,
        progress: Callable[[IngestProgress], None] | None,
        cancel: threading.Event | None,
    ) -> IngestReport:
        """Import the files one by one with the settings ``config``. Bad files end as
        ``error`` with a reason; the rest go on. A cancel stops between files and marks the
        rest cancelled.

        Raises:
            ModelMismatchError: the library was built with another embedder.
        """
        ahead = Ahead(self._embedder, config.embed_batch_size)
        reader = Reader(self.store, config, self._models, self._thumbs, self._recognizer, ahead)
        batch, texts = config.embed_batch_size, reader.texts  # the next files' texts together
        embedding = Embedding(batch, config.embed_context, ahead, texts.vectors)
        try:
            return self._run(jobs, _Run(config, reader, embedding), progress, cancel)
        finally:
            reader.close()  # the recognition child the run's files shared
            self.rows.requeue_unfinished({str(job.file.path) for job in jobs})

    def _run(
        self,
        jobs: Sequence[ImportJob],
        run: _Run,
        progress: Callable[[IngestProgress], None] | None,
        cancel: threading.Event | None,
    ) -> IngestReport:
        report = IngestReport()
        paths = [str(job.file.path) for job in jobs]
        plans = [expected(job.file, run.config) for job in jobs] if progress else []
        tracker = ProgressTracker(paths, plans or [document_plan(0)] * len(jobs), progress)
        last_save = time.monotonic()
        touched: set[str] = set()
        for i, job in enumerate(jobs):
            path = str(job.file.path)
            if path in self.removals:
                report.files.append(tracker.finished(i, self.rows.forget(job)))
                continue
            if cancel is not None and cancel.is_set():
                report.files.append(FileResult(path, Outcome.CANCELLED))
                continue
            tracker.report(i, Stage.READING)
            run.reader.texts.prepare(upcoming(jobs, i), run, self._embedder, cancel)
            result = tracker.finished(i, self._stoppable(job, run, tracker.reporter(i), cancel))
            report.files.append(result)
            if result.outcome in (Outcome.INDEXED, Outcome.MOVED):
                touched.add(job.file.course)
            if time.monotonic() - last_save > _SAVE_EVERY_S:
                self._save()
                last_save = time.monotonic()
        if touched and run.config.media.link_slides:
            try:
                link_slides(self.store, touched)
            except CoursedexError as e:
                log.warning("slides not linked to lectures: %s", e)
        self._save()
        return report

    def _stoppable(
        self, job: ImportJob, run: _Run, stage: StageReport, cancel: threading.Event | None
    ) -> FileResult:
        """One file's import, which a removal stops without stopping the run."""
        path = str(job.file.path)
        with self.removals.reading(path, cancel) as stop:
            result = self._guarded(job, run, stage, stop)
        return self.rows.forget(job) if path in self.removals else result

    def _save(self) -> None:
        """Save the vector index. When it cannot be written (a full disk), nothing is lost:
        the database holds every vector, and the index is rebuilt from it at the next open."""
        self.indexer.save_or_say()

    def _guarded(
        self, job: ImportJob, run: _Run, stage: StageReport, cancel: threading.Event | None
    ) -> FileResult:
        """One file's import; what goes wrong with the file is its result, not the job's."""
        path = str(job.file.path)
        try:
            return self._one(job, run, stage, cancel)
        except Cancelled:
            self.rows.mark_queued(job)
            return FileResult(path, Outcome.CANCELLED)
        except ModelMismatchError:
            raise
        except CoursedexError as e:
            self.rows.mark_error(job, str(e))
            return FileResult(path, Outcome.ERROR, str(e))
        except Exception as e:
            # A library failed in a way we did not foresee (a parser on odd input, a full
            # disk): the file is bad or could not be written, the import is not. Every write
            # is one transaction, so what failed left nothing half done. The log keeps the
            # traceback, but for a full disk (a thumbnail that cannot be written): its reason,
            # in the file's result, says all.
            reason = failure_reason(e)
            if reason.startswith("disk full"):
                log.info("%s: %s", path, reason)
            else:
                log.warning("unexpected failure importing %s", path, exc_info=True)
            self.rows.mark_error(job, reason)
            return FileResult(path, Outcome.ERROR, reason)
        finally:
            run.reader.end_file()  # frames still read, texts embedded ahead

    def _one(
        self, job: ImportJob, run: _Run, stage: StageReport, cancel: threading.Event | None
    ) -> FileResult:
        item = job.file
        path = item.path
        if not storable(path):
            raise UnreadableFileError(BAD_NAME)
        stat = regular_file(path, named=False)  # the report shows the path beside the reason
        sidecar = ingest.find_sidecar(path) if item.kind in MEDIA else None
        known = self.store.catalog.source_by_path(str(path))
        indexed = known if known is not None and known.status == SourceStatus.INDEXED else None
        if (
            indexed is not None
            and sidecar is None
            and indexed.mtime_ns  # 0: not this file's time (a course pack's file not here)
            and (indexed.size, indexed.mtime_ns) == (stat.st_size, stat.st_mtime_ns)
        ):
            # Same size and modification time: unchanged, without reading a large file again.
            return FileResult(str(path), Outcome.UNCHANGED, segments=indexed.segments)
        sha = sha256_of(path, [sidecar] if sidecar else [])
        if indexed is not None and indexed.sha256 == sha:
            return FileResult(str(path), Outcome.UNCHANGED, segments=indexed.segments)
        elsewhere = self.rows.elsewhere(job, known, sha)
        if elsewhere is not None:
            return elsewhere
        source_id = self.rows.start(job, known)
        transcribe = item.kind in MEDIA and sidecar is None
        parsed = self._read(job, run, sha, stat, transcribe, stage, cancel)
        return self._commit(job, run, source_id, parsed, sha, stat, stage, cancel)

    def _read(
        self,
        job: ImportJob,
        run: _Run,
        sha: str,
        stat: os.stat_result,
        transcribe: bool,
        stage: StageReport,
        cancel: threading.Event | None,
    ) -> ParsedSource:
        """Read a file whose row is being indexed: it must still be there, as it was."""
        path = job.file.path
        try:
            parsed = run.reader.read(path, sha, transcribe=transcribe, stage=stage, cancel=cancel)
        except (CoursedexError, OSError) as e:
            # Whatever a reader says of a file that is no longer there ("cannot decode the
            # audio: No such file"), the reason is that it is gone.
            if not isinstance(e, Cancelled) and not exists(path):
                raise UnreadableFileError(VANISHED_WHILE_READ) from e
            raise
        if cancel is not None and cancel.is_set():
            raise Cancelled("cancelled")
        if not exists(path):
            raise UnreadableFileError(VANISHED_WHILE_READ)
        if changed(path, stat):  # its hash and its text may be of two versions
            raise UnreadableFileError(CHANGED_WHILE_READ)
        if parsed.kind is not job.file.kind:  # a .mkv or .mp4 with sound only is audio
            self.store.catalog.upsert_source(
                course_id=job.course_id,
                path=str(path),
                kind=parsed.kind,
                title=path.name,
                status=SourceStatus.INDEXING,
            )
        return parsed

    def _commit(
        self,
        job: ImportJob,
        run: _Run,
        source_id: int,
        parsed: ParsedSource,
        sha: str,
        stat: os.stat_result,
        stage: StageReport,
        cancel: threading.Event | None,
    ) -> FileResult:
        """Embed a file read and write it in one commit (a video's frames after it)."""
        path = job.file.path
        scan = parsed.kind is SourceKind.VIDEO and run.config.media.screen_text
        stage(Stage.EMBEDDING)
        notes = [note for note in [self._fit(parsed.language, stage, cancel)] if note]
        content, embedder = self.content(
            parsed,
            run.embedding,
            sha256=sha,
            size=stat.st_size,
            mtime_ns=stat.st_mtime_ns,
            cancel=cancel,
            finished=not scan,
        )
        n = self.indexer.write_source(source_id, content, embedder)
        notes += parsed.warnings
        if scan:
            # Speech is searchable now; the frames are read after it.
            n += self._frames(run, source_id, path, sha, parsed.title, notes, stage, cancel)
        self.store.recordings.forget_transcript(sha)
        waiting = sum(1 for s in parsed.segments if s.needs_ocr)
        if waiting:
            notes.append(f"{plural(waiting, 'page')} without a text layer wait for OCR")
        return FileResult(str(path), Outcome.INDEXED, "; ".join(notes), n)

    def content(
        self,
        parsed: ParsedSource,
        embedding: Embedding,
        *,
        sha256: str,
        size: int = 0,
        mtime_ns: int = 0,
        cancel: threading.Event | None = None,
        vectors: np.ndarray | None = None,
        finished: bool = True,
    ) -> tuple[SourceContent, Embedder]:
        """A parsed source embedded (the way ``embedding`` says), ready for one commit; with
        the embedder that made it.

        Raises:
            CoursedexError: the source has no text, or ``vectors`` do not fit it.
            Cancelled: ``cancel`` was set while embedding.
        """
        segments = with_context(parsed)
        if not any(s.text.strip() or s.needs_ocr for s in segments):
            raise CoursedexError("no text found in this file")
        embedder = self._embedder()
        with_text = sum(1 for s in segments if s.text.strip())
        if vectors is None:
            vectors = embedding.drafts(embedder, parsed.title, segments, cancel)
        elif vectors.shape != (with_text, embedder.dimension):
            raise CoursedexError(f"{with_text} segments but vectors of shape {vectors.shape}")
        sentences = embedding.sentences(embedder, [s.timings for s in segments], cancel)
        content = SourceContent(
            parsed.title,
            sha256,
            size,
            mtime_ns,
            parsed.duration_ms,
            segments,
            vectors,
            sentences,
            finished,
            parsed.speech_model,
            parsed.language,
        )
        return content, embedder

    def _frames(
        self,
        run: _Run,
        source_id: int,
        path: Path,
        sha: str,
        title: str,
        notes: list[str],
        stage: StageReport,
        cancel: threading.Event | None,
    ) -> int:
        """Scenes, thumbnails and on-screen text of an already searchable video; marks the
        source indexed. A video whose frames cannot be read keeps its speech, with a note."""
        from engine.media.screen import screen_segments

        if self.store.catalog.source_by_path(str(path)) is None:
            raise CoursedexError("the video disappeared from the library while indexing")
        try:
            scanned = run.reader.scan_frames(path, sha, stage, cancel)
        except UnreadableFileError as e:
            notes.append(f"frames not read: {e}")
            self.store.catalog.set_source_status(source_id, SourceStatus.INDEXED, None)
            return 0
        drafts = [d for d, _ in screen_segments(scanned)]
        embedder = self._embedder()
        vectors = run.embedding.drafts(embedder, title, drafts, cancel)
        scenes = [
            (s.scene.start_ms, s.scene.end_ms, s.scene.keyframe_ms, s.scene.thumbnail)
            for s in scanned
        ]
        return self.indexer.append_screen(source_id, scenes, drafts, vectors, embedder)
