"""The engine's facade: open a library folder, ingest files, search, remove, re-index.

A library is a folder holding ``library.db`` (SQLite, WAL), ``vectors/<space>.hnsw`` with
its JSON sidecar, and ``thumbs/``. Every source is written in one transaction, so it is
either fully searchable or not visible; the vector index is reconciled with the database
at open, so a crash between the two loses nothing.

:class:`Library` builds its parts and hands each call to the part of the same method, which
documents it: Records (what it holds), NoteTaking (notes), ModelKeeping (models, repairs,
re-index), Content (imports, removals, renames), Searching. Course packs and integrations
use named ports: ``pack_port`` and ``lectures``. The settings are the library's alone
(:meth:`Library.configure`): the parts keep no copy, each call reads those of the moment.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from engine.changes import Changes
from engine.config import EngineConfig, SearchConfig
from engine.importing.progress import IngestProgress, IngestReport
from engine.importing.session import ImportSession
from engine.index.indexer import Indexer
from engine.integrations.documents import Chapter, SlidePage
from engine.library.folder import open_store
from engine.library.outcomes import AddedNote, LanguageSet, Removal
from engine.library.parts import Opened, build_parts
from engine.library.write_access import WriteAccess, permission_denied
from engine.models import Embedder, Reranker
from engine.models.registry import ModelRegistry, default_models_dir
from engine.notes import Note
from engine.search import NO_FILTERS, SearchFilters, SearchOutcome
from engine.store import Course, LibraryMarks, SegmentRow, Source
from engine.types import LibraryStats, ParsedSource, Timing


class Library:
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
        self.store, read_only = open_store(folder)
        self.indexer = Indexer(self.store, folder)
        self.access = WriteAccess(folder, read_only, self.indexer)
        self._closed = False
        self.importing = ImportSession()  # the import running here, and what it stops
        self.access.open_index()
        opened = Opened(
            folder,
            self.store,
            self.indexer,
            self.access,
            self.models,
            self.importing,
            self._settings,
        )
        parts = build_parts(opened, embedder, lambda: self.embedder_id, reranker, own_embedder)
        self._keeping, self._records, self._notes = parts.keeping, parts.records, parts.notes
        self._content, self._searching = parts.content, parts.searching
        self.pack_port = parts.pack_port  # what engine/packs may do
        self.lectures = parts.lectures  # what integrations read of lectures and decks

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
            name = embedder or (opened[0]._keeping.embedder_name() if opened else config.embedder)
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

    def _settings(self) -> EngineConfig:
        return self._config

    @property
    def read_only(self) -> str | None:
        """Why this process cannot write to the library (None: it can); it is still searched."""
        return self.access.read_only

    def close(self) -> None:
        if self._closed:  # the window closes it, and so may whoever opened it
            return
        self._closed = True
        try:
            self.save()  # a full disk is said once, by the indexer
        finally:
            self.store.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def save(self) -> None:
        """Save the vector index (unless another process is importing: it saves its own)."""
        self.access.save()

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
        return self._searching.search(
            query, limit=limit, filters=filters, config=config, typing=typing
        )

    # --- what it holds (Records) --------------------------------------------------------

    def courses(self) -> list[Course]:
        return self._records.courses()

    def sources(self, course: str | None = None) -> list[Source]:
        return self._records.sources(course)

    def disk_stamp(self) -> tuple[int, ...]:
        return self._records.disk_stamp()

    def outside_commits(self) -> int:
        return self._records.outside_commits()

    def marks(self) -> LibraryMarks:
        return self._records.marks()

    def changes_since(self, marks: LibraryMarks) -> tuple[Changes, LibraryMarks]:
        return self._records.changes_since(marks)

    def flag(self, name: str) -> bool:
        return self._records.flag(name)

    def set_flag(self, name: str) -> None:
        self._records.set_flag(name)

    def source(self, path: str) -> Source | None:
        return self._records.source(path)

    def course(self, name: str) -> Course:
        return self._records.course(name)

    def segment(self, segment_id: int) -> SegmentRow | None:
        return self._records.segment(segment_id)

    def segments_of(self, path: str) -> list[SegmentRow]:
        return self._records.segments_of(path)

    def sources_with_content(self, sha256: str) -> list[Source]:
        return self._records.sources_with_content(sha256)

    def follows(self, course: str) -> bool:
        return self._records.follows(course)

    def follow(self, course: str, on: bool = True) -> Changes:
        return self._records.follow(course, on)

    def origin(self, path: Path | str) -> str | None:
        return self._records.origin(path)

    def set_origin(self, path: Path | str, url: str) -> None:
        self._records.set_origin(path, url)

    def transcript(self, path: str) -> list[Timing]:
        return self._records.transcript(path)

    def chapters(self, path: str) -> list[Chapter]:
        return self._records.chapters(path)

    def slide_pages(self, path: str) -> list[SlidePage]:
        return self._records.slide_pages(path)

    def source_text(self, path: str, member: str | None = None) -> str:
        return self._records.source_text(path, member)

    # --- a user's notes (NoteTaking) -----------------------------------------------------

    def add_note(
        self,
        source: str,
        text: str,
        *,
        at_ms: int | None = None,
        page: int | None = None,
        line: int | None = None,
        path_in_archive: str | None = None,
    ) -> AddedNote:
        return self._notes.add_note(
            source, text, at_ms=at_ms, page=page, line=line, path_in_archive=path_in_archive
        )

    def notes(self, course: str | None = None, *, source: str | None = None) -> list[Note]:
        return self._notes.notes(course, source=source)

    def remove_note(self, note_id: int) -> Changes:
        return self._notes.remove_note(note_id)

    # --- its models (ModelKeeping) -------------------------------------------------------

    @property
    def embedder_id(self) -> str | None:
        return self._keeping.embedder_id

    def embedder(self) -> Embedder:
        return self._keeping.embedder()

    def repair_vectors(self) -> None:
        self._keeping.repair_vectors()

    def reranker(self) -> Reranker | None:
        return self._keeping.reranker()

    def reindex(
        self,
        embedder: Embedder,
        progress: Callable[[int, int], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> int:
        return self._keeping.reindex(embedder, progress, cancel)

    # --- imports, removals, renames (Content) -------------------------------------------

    def ingest(
        self,
        paths: Iterable[Path | str],
        *,
        course: str | None = None,
        progress: Callable[[IngestProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> IngestReport:
        return self._content.ingest(paths, course=course, progress=progress, cancel=cancel)

    def resume(
        self,
        progress: Callable[[IngestProgress], None] | None = None,
        cancel: threading.Event | None = None,
        *,
        paths: Iterable[Path | str] | None = None,
    ) -> IngestReport:
        return self._content.resume(progress, cancel, paths=paths)

    def set_language(self, target: str, language: str | None) -> LanguageSet:
        return self._content.set_language(target, language)

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
        return self._content.index_parsed(
            path,
            parsed,
            course=course,
            sha256=sha256,
            size=size,
            mtime_ns=mtime_ns,
            cancel=cancel,
            vectors=vectors,
            finished=finished,
        )

    def link_slides(self, courses: Iterable[str] | None = None) -> int:
        return self._content.link_slides(courses)

    def remove(self, target: str) -> Removal:
        return self._content.remove(target)

    def remove_during_import(self, target: str) -> list[str]:
        return self._content.remove_during_import(target)

    def rename_course(self, old: str, new: str) -> Changes:
        return self._content.rename_course(old, new)

    def stats(self) -> LibraryStats:
        db = self.folder / "library.db"
        return LibraryStats(
            **self.store.stats(),
            library=str(self.folder),
            embedder=self.embedder_id,
            vectors=self.indexer.vector_count(),
            database_bytes=db.stat().st_size if db.exists() else 0,
        )
