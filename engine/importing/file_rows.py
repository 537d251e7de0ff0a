"""Each imported file's row in the library's catalog, as an import moves it along: queued
(once, in one transaction for the whole import), being indexed, queued again when stopped,
an error with its reason, gone when removed during the import or found to be a copy, moved
when the same content turns up at a new path. The import pipeline
(:mod:`engine.importing.pipeline`) reads and commits the files; this is what it records of
them besides their content."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from engine.errors import CoursedexError
from engine.importing.planning import UNSORTED, PlannedFile, storable
from engine.importing.progress import FileResult, Outcome
from engine.index.indexer import Indexer
from engine.store import Source, Store
from engine.types import SourceStatus

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ImportJob:
    """A planned file registered in the library: its course, and its row when it has one
    waiting (None: the file is indexed, and keeps that row until it proves changed)."""

    file: PlannedFile
    course_id: int
    source_id: int | None
    new: bool = False  # the library had no row of it before the import queued it


class FileRows:
    """The rows of an import's files in ``store``'s catalog (written through ``indexer``
    where a row's segments and vectors go with it)."""

    def __init__(self, store: Store, indexer: Indexer) -> None:
        self.store = store
        self.indexer = indexer

    def queued(self, item: PlannedFile) -> ImportJob:
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
        return ImportJob(item, course_id, source_id, new=known is None)

    def pending(self) -> list[ImportJob]:
        """The files a previous run queued but did not index (after a quit or crash)."""
        return [
            ImportJob(PlannedFile(Path(s.path), s.course, None, s.kind), s.course_id, s.id)
            for s in self.store.catalog.sources()
            if s.status in (SourceStatus.QUEUED, SourceStatus.INDEXING)
        ]

    def requeue_unfinished(self, paths: set[str]) -> None:
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

    def forget(self, job: ImportJob) -> FileResult:
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

    def mark_queued(self, job: ImportJob) -> None:
        """A file stopped while it was read is queued again, not left "indexing" as if a
        process were still at it: the next import or resume takes it up (a recording's
        transcript so far is kept and resumed)."""
        if job.course_id < 0:
            return
        source = self.store.catalog.source_by_path(str(job.file.path))
        if source is not None and source.status == SourceStatus.INDEXING:
            self.store.catalog.set_source_status(source.id, SourceStatus.QUEUED, None)

    def mark_error(self, job: ImportJob, reason: str) -> None:
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

    def elsewhere(self, job: ImportJob, known: Source | None, sha: str) -> FileResult | None:
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

    def start(self, job: ImportJob, known: Source | None) -> int:
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
