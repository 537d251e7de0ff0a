"""The engine's facade: open a library folder, ingest files, search, remove, re-index.

A library is a folder holding ``library.db`` (SQLite, WAL), ``vectors/<space>.hnsw`` with
its JSON sidecar, and ``thumbs/``. Every source is written in one transaction, so it is
either fully searchable or not visible; the vector index is reconciled with the database
at open, so a crash between the two loses nothing.

The work is done by the parts this class wires together: :mod:`engine.importing.pipeline`
(imports), :mod:`engine.index.indexer` (the one writer of rows and vectors),
:mod:`engine.search`. The settings are the library's alone (:meth:`Library.configure`
changes them): the parts keep no copy, each import, search and re-index is handed the
settings of the moment.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.changes import Changes
from engine.config import EngineConfig, SearchConfig
from engine.errors import (
    CoursedexError,
    LibraryBusyError,
    LibraryError,
    ModelError,
    ModelMismatchError,
)
from engine.importing import copies, unpacking
from engine.importing.embedding import Embedding
from engine.importing.linking import link_slides
from engine.importing.pipeline import ImportJob, Pipeline
from engine.importing.planning import plan
from engine.importing.progress import FileResult, IngestProgress, IngestReport, Outcome
from engine.importing.session import ImportSession
from engine.index.indexer import Indexer
from engine.languages import parse_language
from engine.library.folder import prepare_folder, refuse_lost_database
from engine.library.import_runs import remove_after, run_jobs
from engine.library.meaning import EmbedderFit
from engine.library.models import LibraryModels
from engine.library.notes import NoteTaking
from engine.library.outcomes import LanguageSet, Removal
from engine.library.relanguage import choose_language
from engine.library.write_access import WriteAccess, permission_denied
from engine.models import Embedder, Reranker
from engine.models.registry import ModelRegistry, default_models_dir
from engine.own_folders import check_library_folder
from engine.search import NO_FILTERS, Searcher, SearchFilters, SearchOutcome
from engine.store import Store
from engine.types import LibraryStats, ParsedSource, SourceKind, SourceStatus

log = logging.getLogger(__name__)


class Library(NoteTaking):
    """One library folder. Safe to search from one thread while another ingests.

    Raises:
        LibraryError: the folder cannot be used as a library.
    """

    def __init__(
        self,
        folder: Path,
        config: EngineConfig,
        embedder: Callable[[], Embedder],
        *,
        models: ModelRegistry | None = None,
        reranker: Callable[[], Reranker | None] | None = None,
        own_embedder: bool = False,
    ) -> None:
        self.folder = folder
        self._config = config
        self.models = models or ModelRegistry(default_models_dir())
        self.thumbs = folder / "thumbs"
        db = folder / "library.db"
        check_library_folder(folder)  # no link out of it: nothing written through one
        refuse_lost_database(folder, db, empty=True)
        # Why this process cannot write to the library (None: it can); it is still searched.
        self.read_only: str | None = prepare_folder(folder)
        self.store = Store(db, read_only=self.read_only is not None)
        if self.embedder_id is None:
            try:
                refuse_lost_database(folder, db, empty=False)
            except LibraryError:
                self.store.close()
                raise
        self._models = LibraryModels(
            lambda: self._config, self.models, embedder, lambda: self.embedder_id, reranker
        )
        self._repaired = False  # missing vectors found at open are embedded at its end
        self._repair_lock = threading.Lock()  # then the indexer's, never the other way
        self.indexer = Indexer(self.store, folder)
        self.access = WriteAccess(folder, self.read_only, self.indexer)
        self.importing = ImportSession()  # the import running here, and what it stops
        self._closed = False
        self.access.open_index()
        self.read_only = self.access.read_only  # also when its lock file cannot be made
        self._outside = self.store.db.outside_commits()  # another process's commits seen
        # Before a file in another language is embedded, the library's embedder may switch.
        # (A library given its embedder keeps it.)
        self.fit = EmbedderFit(
            lambda: self._config, self.models, self._embedder_name, self._rebuild, own_embedder
        )
        self.pipeline = Pipeline(
            self.store,
            self.indexer,
            self.embedder,
            self.models,
            self.thumbs,
            self._models.recognizer,
            self.fit,
            self.importing.removals,
        )
        self.searcher = Searcher(
            self.store,
            lambda: self.indexer.index,
            self._embedder_if_any,
            self.thumbs,
            reranker=self._models.reranker,
        )

    @classmethod
    def open(
        cls,
        folder: Path | str,
        config: EngineConfig,
        embedder: Callable[[], Embedder],
        *,
        models: ModelRegistry | None = None,
        reranker: Callable[[], Reranker | None] | None = None,
    ) -> Library:
        """Open (or create) a library. ``models`` finds the speech model and the reranker
        (default: the user's model folder); ``reranker`` replaces the installed one.

        Raises:
            LibraryError: also when this user may not open it (another user's library).
        """
        try:
            library = cls(Path(folder), config, embedder, models=models, reranker=reranker)
        except PermissionError as e:
            raise permission_denied(Path(folder), e) from e
        library.repair_vectors()
        return library

    @classmethod
    def open_own(
        cls,
        folder: Path | str,
        config: EngineConfig,
        models: ModelRegistry,
        *,
        embedder: str | None = None,
        repair: bool = True,
    ) -> Library:
        """Open (or create) a library that loads its own embedder from ``models``: the one
        its vectors came from, else ``config.embedder`` for a library without vectors yet.
        Its embedder follows its languages (engine.library.meaning) unless the user names
        one (``embedder``: a library opened so keeps what it has or is given).
        ``repair=False``: the caller runs :meth:`repair_vectors` (the window, on its pool)."""
        opened: list[Library] = []

        def load() -> Embedder:
            # The library's settings when it loads, not those it opened with: the Settings
            # dialog may have changed the threads since (issue 37, item 4).
            now = opened[0].config if opened else config
            name = embedder or (opened[0]._embedder_name() if opened else config.embedder)
            return models.load_embedder(name, now.threads)

        try:
            library = cls(Path(folder), config, load, models=models, own_embedder=embedder is None)
        except PermissionError as e:
            raise permission_denied(Path(folder), e) from e
        opened.append(library)
        if repair:
            library.repair_vectors()
        return library

    @property
    def config(self) -> EngineConfig:
        """The settings the next import, search and re-index use (see :meth:`configure`)."""
        return self._config

    def configure(self, config: EngineConfig) -> None:
        """Use ``config`` from now on: the next import, search and re-index follow it (the
        Settings dialog's OK). An import already running keeps the settings it started with.
        The embedding model is not among them: switching it is :meth:`reindex`."""
        self._config = config

    def _embedder_name(self) -> str:
        """The embedder the library's vectors come from, else the one it will load first
        (what :meth:`open_own` loads)."""
        recorded = self.embedder_id
        return recorded.split("@", 1)[0] if recorded else self._config.embedder

    def _embedding(self) -> Embedding:
        """How segments are embedded under the current settings."""
        return Embedding(self._config.embed_batch_size, self._config.embed_context)

    def close(self) -> None:
        if self._closed:  # the window closes it, and so may whoever opened it
            return
        self._closed = True
        try:
            self.save()  # a full disk is said once, by the indexer
        finally:
            self.store.close()

    def _run(
        self,
        jobs: list[ImportJob],
        progress: Callable[[IngestProgress], None] | None,
        cancel: threading.Event | None,
    ) -> IngestReport:
        return run_jobs(
            self.pipeline, self.importing, self._config, jobs, progress, cancel, self._remove
        )

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def save(self) -> None:
        """Save the vector index (unless another process is importing: it saves its own)."""
        self.access.save()

    # --- ingest -------------------------------------------------------------------------

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

    # --- search -------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        filters: SearchFilters = NO_FILTERS,
        config: SearchConfig | None = None,
        typing: bool = False,
    ) -> SearchOutcome:
        """Hybrid search. Any text is a valid query; no words means no results.

        When the search model cannot load (damaged, missing), a search that uses words too
        finds by its words alone and says why in its ``notice``: a student still finds the
        page while the model is reinstalled.

        Raises:
            ModelMismatchError: the library's vectors come from another model (a choice the
                user made: ``coursedex reindex`` switches).
            ModelError: the search model cannot load and ``config`` searches by meaning only.
        """
        self._follow_other_writers()
        cfg = config or self._config.search
        try:
            return self.searcher.search(
                query, limit=limit, filters=filters, config=cfg, typing=typing
            )
        except ModelError as e:
            if isinstance(e, ModelMismatchError) or not (cfg.dense and cfg.fulltext):
                raise
            reason = e
        words_only = replace(cfg, dense=False, passage_rank=False)
        outcome = self.searcher.search(
            query, limit=limit, filters=filters, config=words_only, typing=typing
        )
        outcome.notice = f"keyword matches only: {reason}"
        return outcome

    def _follow_other_writers(self) -> None:
        """Read the vector index again when another process committed since it was read (a
        window open while `coursedex ingest` runs in a terminal): what that import committed
        is then found by meaning too, not only by its words. Nothing to do while this process
        writes: no other can."""
        outside = self.store.db.outside_commits()
        if outside != self._outside and not self.access.writing_here:
            self._outside = outside
            self.indexer.open(quiet=True, reload=False)

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
        course = self.course(target).name if course_id is not None else doomed[0].course
        return self.importing.stop(target, [s.path for s in doomed], course)

    def _remove(self, target: str) -> Removal:
        course_id, doomed = self._doomed(target)
        if doomed and self.importing.holds(doomed[0].course):
            raise LibraryBusyError(
                f"{doomed[0].course} is being imported: cancel the import or wait until it "
                f"ends, then remove {'it' if course_id is not None else target}"
            )
        name = self.course(target).name if course_id is not None else None
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
            was = self.course(old).name  # as it is written
            self.store.catalog.rename_course(old, new)
            self.store.notes.rename_course(old, new)  # those whose file is gone follow too
        return Changes(courses_renamed=((was, new),), notes_moved=True, results=True)

    def stats(self) -> LibraryStats:
        db = self.folder / "library.db"
        return LibraryStats(
            **self.store.stats(),
            library=str(self.folder),
            embedder=self.embedder_id,
            vectors=self.indexer.vector_count(),
            database_bytes=db.stat().st_size if db.exists() else 0,
        )
