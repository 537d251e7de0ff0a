"""The engine's facade: open a library folder, ingest files, search, remove, re-index.

A library is a folder holding ``library.db`` (SQLite, WAL), ``vectors/<space>.hnsw`` with
its JSON sidecar, and ``thumbs/``. Every source is written in one transaction, so it is
either fully searchable or not visible; the vector index is reconciled with the database
at open, so a crash between the two loses nothing.

The work is done by the parts this class wires together: :mod:`engine.pipeline` (imports),
:mod:`engine.indexer` (the one writer of rows and vectors), :mod:`engine.search`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.config import EngineConfig, SearchConfig
from engine.embedding import Embedding, embed_text
from engine.errors import ModelError, ModelMismatchError, NotFoundError
from engine.indexer import Indexer
from engine.ingest.safezip import open_zip, read_member
from engine.ingest.text import decode_text, read_text
from engine.linking import link_slides
from engine.models import Embedder, Reranker
from engine.models.registry import ModelRegistry, default_models_dir
from engine.pipeline import UNSORTED, Pipeline, PlannedFile, plan
from engine.progress import FileResult, IngestProgress, IngestReport, Outcome, Stage
from engine.reading import Reader
from engine.search import NO_FILTERS, Searcher, SearchFilters, SearchOutcome
from engine.store import Course, Source, Store
from engine.types import ParsedSource, SegmentKind, SourceKind, SourceStatus, Timing

if TYPE_CHECKING:
    from engine.models.ocr import TextRecognizer

log = logging.getLogger(__name__)

__all__ = [
    "UNSORTED",
    "FileResult",
    "IngestProgress",
    "IngestReport",
    "Library",
    "Outcome",
    "PlannedFile",
    "Stage",
    "embed_text",
]


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
    ) -> None:
        self.folder = folder
        self.config = config
        self.models = models or ModelRegistry(default_models_dir())
        self.thumbs = folder / "thumbs"
        self.thumbs.mkdir(parents=True, exist_ok=True)
        self.store = Store(folder / "library.db")
        self._load_embedder = embedder
        self._embedder: Embedder | None = None
        self._embedder_lock = threading.Lock()  # taken alone: loading never repairs
        self._repaired = False
        self._repair_lock = threading.Lock()  # then the indexer's, never the other way
        self._load_reranker = reranker or self._installed_reranker
        self._reranker: Reranker | None = None
        self._reranker_tried = False
        self._reranker_lock = threading.Lock()
        self._recognizer: TextRecognizer | None = None
        embedding = Embedding(config.embed_batch_size, config.embed_context)
        self.indexer = Indexer(self.store, folder, embedding)
        self.indexer.open()  # reconciles the vector index with the database
        reader = Reader(self.store, config, self.models, self.thumbs, self.recognizer)
        self.pipeline = Pipeline(self.store, self.indexer, reader, config, self.embedder)
        self.searcher = Searcher(
            self.store,
            lambda: self.indexer.index,
            self._embedder_if_any,
            config.search,
            self.thumbs,
            reranker=self.reranker,
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
        (default: the user's model folder); ``reranker`` replaces the installed one."""
        return cls(Path(folder), config, embedder, models=models, reranker=reranker)

    def close(self) -> None:
        self.save()
        self.store.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def save(self) -> None:
        self.indexer.save()

    # --- models -------------------------------------------------------------------------

    @property
    def embedder_id(self) -> str | None:
        return self.store.get_meta("embedder_id")

    def embedder(self) -> Embedder:
        """The library's embedder, loaded on first use and checked against the library.
        The first use also repairs what lacks vectors (found when the library opened): the
        one place that happens, as it needs the model.

        Raises:
            ModelMismatchError: the library's vectors come from a different model.
        """
        model = self._loaded_embedder()
        if not self._repaired:
            with self._repair_lock:
                if not self._repaired:
                    self.indexer.repair(model)
                    self._repaired = True
        return model

    def _loaded_embedder(self) -> Embedder:
        with self._embedder_lock:
            if self._embedder is None:
                model = self._load_embedder()
                recorded = self.embedder_id
                if recorded is not None and recorded != model.model_id:
                    raise ModelMismatchError(
                        f"this library was indexed with {recorded}, not {model.model_id}; "
                        f"run `coursedex reindex` to switch models"
                    )
                self._embedder = model
            return self._embedder

    def _embedder_if_any(self) -> Embedder | None:
        return self.embedder() if self.indexer.index is not None else None

    def reranker(self) -> Reranker | None:
        """The cross-encoder, loaded on first use; None when none is installed (or it
        cannot be loaded: search then ranks without it, and says why once in the log)."""
        with self._reranker_lock:
            if not self._reranker_tried:
                self._reranker_tried = True
                try:
                    self._reranker = self._load_reranker()
                except ModelError as e:
                    log.warning("searching without a reranker: %s", e)
            return self._reranker

    def _installed_reranker(self) -> Reranker | None:
        name = self.config.reranker
        if name is None or not any(m.installed for m in self.models.list() if m.name == name):
            return None
        from engine.models.reranker import OnnxReranker

        return OnnxReranker(self.models.path(name), self.config.threads)

    def recognizer(self) -> TextRecognizer:
        """The on-screen text reader, loaded on first use."""
        from engine.models.ocr import RapidTextRecognizer

        if self._recognizer is None:
            self._recognizer = RapidTextRecognizer(threads=self.config.threads)
        return self._recognizer

    # --- ingest -------------------------------------------------------------------------

    def plan(self, paths: Iterable[Path | str], course: str | None = None) -> list[PlannedFile]:
        """The files an ingest of ``paths`` would read (see :func:`engine.pipeline.plan`)."""
        return plan(paths, course)

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
        """
        started = time.monotonic()
        report = self.pipeline.run(self.pipeline.queue(plan(paths, course)), progress, cancel)
        report.seconds = time.monotonic() - started
        return report

    def resume(
        self,
        progress: Callable[[IngestProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> IngestReport:
        """Finish the files a previous run queued but did not index (after a quit or crash)."""
        return self.pipeline.run(self.pipeline.pending(), progress, cancel)

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
        loaders embed many sources at once that way).

        Raises:
            CoursedexError: the source has no text.
            Cancelled: ``cancel`` was set while embedding (nothing is written).
        """
        content, embedder = self.pipeline.content(
            parsed,
            sha256=sha256,
            size=size,
            mtime_ns=mtime_ns,
            cancel=cancel,
            vectors=vectors,
            finished=finished,
        )
        source_id = self.store.upsert_source(
            course_id=self.store.ensure_course(course),
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
        """Hybrid search. Any text is a valid query; no words means no results."""
        return self.searcher.search(
            query, limit=limit, filters=filters, config=config, typing=typing
        )

    # --- management ---------------------------------------------------------------------

    def courses(self) -> list[Course]:
        return self.store.courses()

    def sources(self, course: str | None = None) -> list[Source]:
        return self.store.sources(self.store.course_id(course) if course else None)

    def flag(self, name: str) -> bool:
        """A one-time fact stored with the library, e.g. that the demo course was offered."""
        return self.store.get_meta(f"flag:{name}") == "1"

    def set_flag(self, name: str) -> None:
        self.store.set_meta(f"flag:{name}", "1")

    def source(self, path: str) -> Source | None:
        """The library's record of a file (by the path search results carry)."""
        return self.store.source_by_path(path)

    def transcript(self, path: str) -> list[Timing]:
        """The spoken sentences (or subtitle cues) of a lecture in time order, once each.

        Transcript windows overlap by a sentence or two; the overlap is dropped here.

        Raises:
            NotFoundError: no such file in the library.
        """
        source = self._source_or_raise(path)
        lines: list[Timing] = []
        for row in self.store.segments_of_source(source.id):
            if row.kind != SegmentKind.TRANSCRIPT:
                continue
            units = row.timings or (
                (Timing(row.start_ms or 0, row.end_ms or 0, row.text),) if row.text else ()
            )
            lines += [u for u in units if not lines or u.start_ms >= lines[-1].end_ms]
        return lines

    def source_text(self, path: str, member: str | None = None) -> str:
        """The text of a code or notes file, or of a file inside an imported archive,
        decoded the way the import decoded it (for showing it at the matched line).

        Raises:
            NotFoundError: the file is not in the library, or the archive has no such member.
            UnreadableFileError: the file is gone or changed so it cannot be read as text.
        """
        source = self._source_or_raise(path)
        limits = self.config.limits
        if member is None:
            return read_text(Path(source.path), limits.max_file_bytes, "a text file")
        with open_zip(Path(source.path)) as zf:
            try:
                info = zf.getinfo(member)
            except KeyError:
                raise NotFoundError(f"{member} is not in {Path(path).name}") from None
            data = read_member(zf, info, limits.max_archive_member_bytes)
        return decode_text(data, "a text file")

    def _source_or_raise(self, path: str) -> Source:
        source = self.store.source_by_path(path)
        if source is None:
            raise NotFoundError(f"{path} is not in the library")
        return source

    def remove(self, target: str) -> int:
        """Remove a course (by name) or a source (by path); returns sources removed.

        Raises:
            NotFoundError: nothing in the library has that name or path.
        """
        doomed: list[Source]
        try:
            course_id = self.store.course_id(target)
            doomed = self.store.sources(course_id)
        except NotFoundError:
            course_id = None
            path = str(Path(target).expanduser().resolve())
            found = self.store.source_by_path(path)
            if found is None:
                raise NotFoundError(f"no course or file named {target!r} in the library") from None
            doomed = [found]
        for source in doomed:
            self.indexer.remove_source(source.id)
        if course_id is not None:
            self.store.delete_course(course_id)
        elif doomed[0].kind == SourceKind.SLIDES and self.config.media.link_slides:
            self.link_slides([doomed[0].course])  # its lectures may fit another deck
        self.save()
        return len(doomed)

    def rename_course(self, old: str, new: str) -> None:
        self.store.rename_course(old, new)

    def reindex(
        self,
        embedder: Embedder,
        progress: Callable[[int, int], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> int:
        """Re-embed every segment with ``embedder`` and rebuild the vector index.

        The old vectors stay until the new ones are complete, so a cancelled re-index
        leaves the library as it was.
        """

        def switch() -> None:  # as the new vectors take over, under the indexer's lock
            with self._embedder_lock:
                self._embedder = embedder
            self._repaired = True  # everything was just embedded

        return self.indexer.rebuild(embedder, switch, progress, cancel)

    def stats(self) -> dict[str, object]:
        out = self.store.stats()
        out["library"] = str(self.folder)
        out["embedder"] = self.embedder_id
        out["vectors"] = self.indexer.vector_count()
        db = self.folder / "library.db"
        out["database_bytes"] = db.stat().st_size if db.exists() else 0
        return out
