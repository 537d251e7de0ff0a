"""The part of :class:`~engine.library.facade.Library` that changes what it holds: files
imported (a queue left by a quit resumed, a file's language set again), a source already
parsed indexed, slide decks linked to their lectures, a course or a file removed (also
while an import holds it), a course renamed.

The import running in this process is held by its
:class:`~engine.importing.session.ImportSession` (``session``): the courses and files it
holds, and what was removed during it, removed again as it ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from engine.changes import Changes
from engine.config import EngineConfig
from engine.errors import CoursedexError, LibraryBusyError
from engine.importing import copies, unpacking
from engine.importing.embedding import Embedding
from engine.importing.linking import link_slides
from engine.importing.pipeline import ImportJob, Pipeline
from engine.importing.planning import plan
from engine.importing.progress import FileResult, IngestProgress, IngestReport, Outcome
from engine.importing.session import ImportSession
from engine.index.indexer import Indexer
from engine.languages import parse_language
from engine.library.import_runs import remove_after, run_jobs
from engine.library.meaning import EmbedderFit
from engine.library.outcomes import LanguageSet, Removal
from engine.library.records import Records
from engine.library.relanguage import choose_language
from engine.types import ParsedSource, SourceKind, SourceStatus


class Content:
    """Imports, removals and renames of one library folder, through its ``pipeline`` and
    ``indexer`` under the write access of its ``records``. ``config`` and ``embedding``
    give the library's settings of the moment; ``fit`` switches its embedder for a file in
    another language."""

    def __init__(
        self,
        folder: Path,
        records: Records,
        indexer: Indexer,
        pipeline: Pipeline,
        fit: EmbedderFit,
        config: Callable[[], EngineConfig],
        embedding: Callable[[], Embedding],
        session: ImportSession,
    ) -> None:
        self.folder = folder
        self.store = records.store
        self.access = records.access
        self.indexer = indexer
        self.pipeline = pipeline
        self.fit = fit
        self._settings = config
        self._embedding = embedding
        self._doomed = records.doomed
        self._course = records.course
        self.importing = session  # the import running here, and what it stops

    @property
    def _config(self) -> EngineConfig:
        return self._settings()

    def save(self) -> None:
        self.access.save()

    def _run(
        self,
        jobs: list[ImportJob],
        progress: Callable[[IngestProgress], None] | None,
        cancel: threading.Event | None,
    ) -> IngestReport:
        return run_jobs(
            self.pipeline, self.importing, self._config, jobs, progress, cancel, self._remove
        )

    def ingest(
        self,
        paths: Iterable[Path | str],
        *,
        course: str | None = None,
        progress: Callable[[IngestProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> IngestReport:
        """Index files and folders. Bad files end as ``error`` with a reason; the rest go on.

        Raises:
            Cancelled: never; a cancel stops between files and marks the rest cancelled.
            ModelMismatchError: the library was built with another embedder.
            LibraryError: the library is read-only.
            CoursedexError: ``course`` is only spaces (empty means none given).
        """
        if course and not course.strip():
            raise CoursedexError(f"a course needs a name, not {course!r}")
        started = time.monotonic()
        planned = plan(paths, course)
        with self.importing.asked(), self.access.importing(progress, cancel) as writing:
            if writing:  # zips of course material are taken out member by member first
                storage, limits = self.folder / unpacking.ARCHIVES_FOLDER, self._config.limits
                opened = unpacking.unpack(
                    planned, storage, limits, course=course, progress=progress, cancel=cancel
                )
                copies.forget_gone(opened.gone, self.store.catalog, self.indexer, storage)
                report = self._run(self.pipeline.queue(opened.files), progress, cancel)
                report.files = copies.forget_copies(report.files + opened.results, storage)
                gone = tuple(map(str, opened.gone))  # files its zips no longer hold
                report.changes |= Changes(removed=gone, results=bool(gone))
            else:
                report = IngestReport([FileResult(str(p.path), Outcome.CANCELLED) for p in planned])
        remove_after(self.importing, report, self.remove)  # asked as it waited, if it never ran
        report.seconds = time.monotonic() - started
        return report

    def resume(
        self,
        progress: Callable[[IngestProgress], None] | None = None,
        cancel: threading.Event | None = None,
        *,
        paths: Iterable[Path | str] | None = None,
    ) -> IngestReport:
        """Finish the files a previous run queued but did not index (after a quit or crash);
        ``paths``: only those (the files :meth:`set_language` queued), each in its course."""
        wanted, started = None if paths is None else {str(p) for p in paths}, time.monotonic()
        report = IngestReport()
        with self.importing.asked(), self.access.importing(progress, cancel) as writing:
            if writing:
                jobs = self.pipeline.pending()
                if wanted is not None:
                    jobs = [job for job in jobs if str(job.file.path) in wanted]
                report = self._run(jobs, progress, cancel)
        remove_after(self.importing, report, self.remove)  # asked as it waited, if it never ran
        report.seconds = time.monotonic() - started
        return report

    def set_language(self, target: str, language: str | None) -> LanguageSet:
        """Set the language of a file (a path) or of a course's files (a name); None finds
        it again. Returns the files to import again with ``resume(paths=...)`` (see
        :mod:`engine.library.relanguage`), and the changes (the files' rows).

        Raises:
            NotFoundError: nothing in the library has that name or path.
            CoursedexError: ``language`` names no language Coursedex knows.
            LibraryBusyError: its course is being imported, here or by another process.
            LibraryError: the library is read-only.
        """
        code = None if language is None else parse_language(language)
        _, sources = self._doomed(target)
        with self.access.writing(f"set the language of {target}"):
            again = choose_language(self.store, sources, code, importing=self.importing.courses())
        return LanguageSet(again, Changes(changed=tuple(s.path for s in sources)))

    def index_parsed(
        self,
        path: Path | str,
        parsed: ParsedSource,
        *,
        course: str,
        sha256: str,
        size: int = 0,
        mtime_ns: int = 0,
        cancel: threading.Event | None = None,
        vectors: np.ndarray | None = None,
        finished: bool = True,
    ) -> int:
        """Embed and store an already parsed source in one transaction; returns segments.

        ``vectors``, when given, must be this library's embedder's vectors of
        ``embed_text(parsed.title, segment)`` for every non-empty segment, in order (bulk
        loaders embed many sources at once that way, after ``fit.languages`` of them).

        Raises:
            CoursedexError: the source has no text.
            Cancelled: ``cancel`` was set while embedding (nothing is written).
        """
        if vectors is None:
            self.fit(parsed.language, cancel=cancel)
        content, embedder = self.pipeline.content(
            parsed,
            self._embedding(),
            sha256=sha256,
            size=size,
            mtime_ns=mtime_ns,
            cancel=cancel,
            vectors=vectors,
            finished=finished,
        )
        source_id = self.store.catalog.upsert_source(
            course_id=self.store.catalog.ensure_course(course),
            path=str(path),
            kind=parsed.kind,
            title=parsed.title,
            status=SourceStatus.INDEXING,
        )
        return self.indexer.write_source(source_id, content, embedder)

    def link_slides(self, courses: Iterable[str] | None = None) -> int:
        """Match the slide decks of each course to its lectures; returns lectures linked."""
        return link_slides(self.store, courses)

    def remove(self, target: str) -> Removal:
        """Remove a course (by name) or a source (by path); returns how many sources it
        removed, and the changes.

        Raises:
            NotFoundError: nothing in the library has that name or path.
            LibraryBusyError: its course is being imported, here or by another process.
            CoursedexError: ``target`` is empty or only spaces (a script's unset variable:
                never "everything" nor the current folder).
        """
        if not target.strip():
            raise CoursedexError("give a course name or a file path to remove (not an empty name)")
        with self.access.writing(f"remove {target}"):
            return self._remove(target)

    def remove_during_import(self, target: str) -> list[str]:
        """Remove ``target`` (a course or a file) that the import running in this process
        holds: work on its files stops now (the file being read at its next check, the
        queued ones are skipped; the rest of the import goes on), their rows go, and the
        rest of it is removed before that import returns (its report's changes say so).
        Returns the paths the import stops; [] when it holds none of them: then, if it
        imports their course, ``target`` is removed as it ends
        (``importing.pending_removals()`` names it), else :meth:`remove` does it.

        Raises:
            NotFoundError: nothing in the library has that name or path.
            CoursedexError: ``target`` is empty or only spaces.
        """
        if not target.strip():
            raise CoursedexError("give a course name or a file path to remove (not an empty name)")
        course_id, doomed = self._doomed(target)
        course = self._course(target).name if course_id is not None else doomed[0].course
        return self.importing.stop(target, [s.path for s in doomed], course)

    def _remove(self, target: str) -> Removal:
        course_id, doomed = self._doomed(target)
        if doomed and self.importing.holds(doomed[0].course):
            raise LibraryBusyError(
                f"{doomed[0].course} is being imported: cancel the import or wait until it "
                f"ends, then remove {'it' if course_id is not None else target}"
            )
        name = self._course(target).name if course_id is not None else None
        for source in doomed:
            self.indexer.remove_source(source.id)
        copies.remove_copies([s.path for s in doomed], self.folder / unpacking.ARCHIVES_FOLDER)
        if course_id is not None:
            self.store.catalog.delete_course(course_id)
        elif doomed[0].kind == SourceKind.SLIDES and self._config.media.link_slides:
            self.link_slides([doomed[0].course])  # its lectures may fit another deck
        self.save()
        gone = Changes(
            removed=tuple(s.path for s in doomed),
            courses_removed=(name or target,) if course_id is not None else (),
            notes_moved=True,  # a note on a file gone shows so
            results=True,
        )
        return Removal(len(doomed), gone)

    def rename_course(self, old: str, new: str) -> Changes:
        """Rename a course; returns the changes.

        Raises: NotFoundError (no course ``old``), CoursedexError (``new`` is taken, or
        empty or only spaces: a course must have a name to be found and removed by)."""
        if not new.strip():
            raise CoursedexError(f"a course needs a name: {old!r} cannot be renamed to {new!r}")
        with self.access.writing(f"rename {old}"), self.store.transaction():
            was = self._course(old).name  # as it is written
            self.store.catalog.rename_course(old, new)
            self.store.notes.rename_course(old, new)  # those whose file is gone follow too
        return Changes(courses_renamed=((was, new),), notes_moved=True, results=True)
