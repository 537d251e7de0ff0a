"""The import pipeline: plan -> queue -> per file: read -> one commit -> link slides.

:func:`~engine.importing.planning.plan` lists the files an import reads; :meth:`Pipeline.queue`
registers each once (its course, and a queued row a later start resumes); then each file is
checked against what the library holds (unchanged, a copy, moved), read
(:mod:`engine.importing.reading`), embedded and committed in one write
(:mod:`engine.index.indexer`); a video's frames are read after its speech is searchable. When
the job ends, the courses it touched get their slides lined up with their lectures
(:mod:`engine.importing.linking`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine import ingest
from engine.config import EngineConfig
from engine.errors import (
    Cancelled,
    CoursedexError,
    ModelMismatchError,
    UnreadableFileError,
)
from engine.importing.dropping import Drops
from engine.importing.embedding import Ahead, Embedding, with_context
from engine.importing.estimate import document_plan, expected
from engine.importing.files import changed, exists, failure_reason, sha256_of
from engine.importing.linking import link_slides
from engine.importing.planning import BAD_NAME, MEDIA, UNSORTED, PlannedFile, storable
from engine.importing.progress import (
    FileResult,
    IngestProgress,
    IngestReport,
    Outcome,
    Stage,
    StageReport,
)
from engine.importing.reading import Reader, TextReaders
from engine.importing.tracking import ProgressTracker
from engine.index.content import SourceContent
from engine.index.indexer import Indexer
from engine.models import Embedder
from engine.models.registry import ModelRegistry
from engine.plain_text import plural
from engine.regular_files import regular_file
from engine.store import Source, Store
from engine.types import ParsedSource, SourceKind, SourceStatus

# Fits the library's embedder to a file's language before it is embedded (the library's
# engine.library.meaning.EmbedderFit); returns what the file's result says of it, or "".
Fit = Callable[[str | None, StageReport, threading.Event | None], str]

log = logging.getLogger(__name__)

_SAVE_EVERY_S = 30.0
CHANGED_WHILE_READ = "it changed while it was read (still being saved?): import it again"
VANISHED_WHILE_READ = "it is gone: it was moved or deleted while it was read"


@dataclass(frozen=True, slots=True)
class ImportJob:
    """A planned file registered in the library: its course, and its row when it has one
    waiting (None: the file is indexed, and keeps that row until it proves changed)."""

    file: PlannedFile
    course_id: int
    source_id: int | None


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
    ) -> None:
        self.store = store
        self._fit = fit
        self.indexer = indexer
        self._embedder = embedder
        self._models = models
        self._thumbs = thumbs
        self._recognizer = recognizer
        self.drops = Drops()  # files removed from the library during a run

    def queue(self, planned: Sequence[PlannedFile]) -> list[ImportJob]:
        """Register each file once: its course, and a queued row unless it is indexed. In one
        transaction: a reader (the window's panel, another process) sees all of them or none,
        never a 300-file folder as a course of 12 files."""
        with self.store.transaction():
            return [self._queued(item) for item in planned]

    def _queued(self, item: PlannedFile) -> ImportJob:
        if not storable(item.path):  # its import says why; nothing to record
            return ImportJob(item, -1, None)
        course_id = self.store.catalog.ensure_course(item.course, item.course_root)
        known = self.store.catalog.source_by_path(str(item.path))
        source_id = None
        if known is None or known.status != SourceStatus.INDEXED:
            source_id = self.store.catalog.upsert_source(
                course_id=course_id,
                path=str(item.path),
                kind=item.kind,
                title=item.path.name,
                status=SourceStatus.QUEUED,
            )
        return ImportJob(item, course_id, source_id)

    def pending(self) -> list[ImportJob]:
        """The files a previous run queued but did not index (after a quit or crash)."""
        return [
            ImportJob(PlannedFile(Path(s.path), s.course, None, s.kind), s.course_id, s.id)
            for s in self.store.catalog.sources()
            if s.status in (SourceStatus.QUEUED, SourceStatus.INDEXING)
        ]

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
        embedding = Embedding(config.embed_batch_size, config.embed_context, ahead)
        try:
            return self._run(jobs, _Run(config, reader, embedding), progress, cancel)
        finally:
            reader.close()  # the recognition child the run's files shared
            self._requeue_unfinished({str(job.file.path) for job in jobs})

    def _requeue_unfinished(self, paths: set[str]) -> None:
        """No file of the run stays marked as being indexed once it ends, whatever ended
        it: one whose failure could not be recorded (the disk full), or a run stopped at
        once (a second Ctrl+C). It is queued again, and a later import takes it up; when
        even that cannot be written, the next process that writes does it (WriteAccess)."""
        try:
            left = [sid for sid, path in self.store.catalog.indexing().items() if path in paths]
            if left:
                with self.store.transaction():
                    self.store.catalog.requeue(left)
        except CoursedexError as e:
            log.warning("files being indexed are queued again at the next start: %s", e)

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
            if path in self.drops:
                report.files.append(tracker.finished(i, self._forget(job)))
                continue
            if cancel is not None and cancel.is_set():
                report.files.append(FileResult(path, Outcome.CANCELLED))
                continue
            tracker.report(i, Stage.READING)
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
        """One file's import, which a drop stops without stopping the run."""
        path = str(job.file.path)
        with self.drops.reading(path, cancel) as stop:
            result = self._guarded(job, run, stage, stop)
        return self._forget(job) if path in self.drops else result

    def _forget(self, job: ImportJob) -> FileResult:
        """A file removed from the library during the run: its row goes now, so a quit or a
        crash leaves nothing of it to resume. (Speech already recognised stays kept by its
        content, as for any unfinished file: imported again, it is not recognised twice.)"""
        path = str(job.file.path)
        try:
            known = self.store.catalog.source_by_path(path) if job.course_id >= 0 else None
            if known is not None:
                self.indexer.remove_source(known.id)
        except Exception:
            log.warning("could not remove %s from the library", path, exc_info=True)
        return FileResult(path, Outcome.REMOVED, "removed from the library during the import")

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
            self._mark_queued(job)
            return FileResult(path, Outcome.CANCELLED)
        except ModelMismatchError:
            raise
        except CoursedexError as e:
            self._mark_error(job, str(e))
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
            self._mark_error(job, reason)
            return FileResult(path, Outcome.ERROR, reason)
        finally:
            run.reader.end_file()  # frames still read, texts embedded ahead

    def _mark_queued(self, job: ImportJob) -> None:
        """A file stopped while it was read is queued again, not left "indexing" as if a
        process were still at it: the next import or resume takes it up (a recording's
        transcript so far is kept and resumed)."""
        if job.course_id < 0:
            return
        source = self.store.catalog.source_by_path(str(job.file.path))
        if source is not None and source.status == SourceStatus.INDEXING:
            self.store.catalog.set_source_status(source.id, SourceStatus.QUEUED, None)

    def _mark_error(self, job: ImportJob, reason: str) -> None:
        """Record why a file failed. Its earlier index goes: a hit must never open a file
        that no longer holds the text that matched. When even that cannot be written (the
        disk is full), the row stays queued and a later import tries the file again."""
        try:
            source = (
                self.store.catalog.source_by_path(str(job.file.path))
                if job.course_id >= 0
                else None
            )
            if source is not None:
                self.indexer.clear_segments(source.id)
                self.store.catalog.set_source_status(source.id, SourceStatus.ERROR, reason)
        except CoursedexError as e:  # the disk is full: one line, its reason is the file's
            log.warning("could not record the failure of %s: %s", job.file.path, e)
        except Exception:
            log.warning("could not record the failure of %s", job.file.path, exc_info=True)

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
        elsewhere = self._elsewhere(job, known, sha)
        if elsewhere is not None:
            return elsewhere

        source_id = self._start(job, known)
        try:
            parsed = run.reader.read(
                path,
                sha,
                transcribe=item.kind in MEDIA and sidecar is None,
                stage=stage,
                cancel=cancel,
            )
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
        if parsed.kind is not item.kind:  # a .mkv or .mp4 with sound only is audio
            self.store.catalog.upsert_source(
                course_id=job.course_id,
                path=str(path),
                kind=parsed.kind,
                title=path.name,
                status=SourceStatus.INDEXING,
            )
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

    def _elsewhere(self, job: ImportJob, known: Source | None, sha: str) -> FileResult | None:
        """The result when the library holds this content under another path: a copy (a
        duplicate) or the same file moved or renamed (its index follows the new path)."""
        path = str(job.file.path)
        for twin in self.store.catalog.sources_by_sha256(sha):
            if twin.path == path:
                continue
            if Path(twin.path).exists():
                # A copy is not a second source: forget the row queued for it.
                if known is not None:
                    self.indexer.remove_source(known.id)
                return FileResult(
                    path, Outcome.DUPLICATE, f"same content as {twin.path}", kept_in=twin.course
                )
            # A loose file with no course named keeps the course it had.
            if known is not None:
                self.indexer.remove_source(known.id)
            item = job.file
            keep_course = item.course_root is None and item.course == UNSORTED
            self.store.catalog.move_source(
                twin.id, path, twin.course_id if keep_course else job.course_id
            )
            return FileResult(path, Outcome.MOVED, f"was {twin.path}", twin.segments)
        return None

    def _start(self, job: ImportJob, known: Source | None) -> int:
        """Mark the file's row as being indexed (a crash from here on is resumed); the one
        write of its row for a file that was indexed when the job was queued."""
        if known is not None and known.id == job.source_id:
            self.store.catalog.set_source_status(known.id, SourceStatus.INDEXING, None)
            return known.id
        return self.store.catalog.upsert_source(
            course_id=job.course_id,
            path=str(job.file.path),
            kind=job.file.kind,
            title=job.file.path.name,
            status=SourceStatus.INDEXING,
        )

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
