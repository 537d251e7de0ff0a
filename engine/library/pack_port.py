"""What course packs (engine/packs) may do with a library, and nothing more: read a course's
stored rows as they were written, for an export; write a pack's files with their notes in
one transaction, and add notes to files the library keeps, for an import; link a file a
pack expected to where it was found. Packs never reach the store or the indexer
themselves: each operation here says what a pack needs of them.

:class:`~engine.library.facade.Library` hands its :class:`PackPort` to engine/packs as
``library.pack_port``; what a pack reads through the library's public methods (courses,
sources, notes, the embedder, the settings) it reads there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager

import numpy as np

from engine.index.content import SourceContent
from engine.index.indexer import Indexer
from engine.library.meaning import EmbedderFit
from engine.library.write_access import WriteAccess
from engine.models import Embedder
from engine.store import NoteRow, Scene, SlideLink, Source
from engine.types import SegmentDraft, SourceKind, SourceStatus

# A slide link as written: (start_ms, end_ms, slides source id, page, score).
LinkRow = tuple[int, int, int, int, float]
# A scene as written: (start_ms, end_ms, keyframe_ms, thumbnail name).
SceneRow = tuple[int, int, int, str]


class PackPort:
    """A library's store and indexer as course packs use them, under its write ``access``;
    ``fit`` switches its embedder before a pack in another language is embedded."""

    def __init__(self, indexer: Indexer, access: WriteAccess, fit: EmbedderFit) -> None:
        self._store = indexer.store
        self._indexer = indexer
        self._access = access
        self._fit = fit

    # --- an export: a course's rows as stored ----------------------------------------------

    def dimension(self) -> int | None:
        """The dimension of the library's vectors (None: it has none yet)."""
        stored = self._store.meta.get("dimension")
        return None if stored is None else int(stored)

    def course_sources(self, course_id: int) -> list[Source]:
        return self._store.catalog.sources(course_id)

    def segment_ids(self, source_id: int) -> list[int]:
        return self._store.segments.ids_of_source(source_id)

    def drafts(self, source_id: int) -> list[tuple[int, SegmentDraft]]:
        """A source's segments as they were written, with their ids, in order."""
        return self._store.segments.drafts_of_source(source_id)

    def vectors(self, ids: Sequence[int], dimension: int) -> tuple[np.ndarray, np.ndarray]:
        """The stored vectors of those segments that have one: (their ids, the matrix)."""
        return self._store.embeddings.vectors(ids, dimension)

    def cue_vectors(self, ids: Sequence[int], dimension: int) -> dict[int, np.ndarray]:
        return self._store.embeddings.sentence_vectors(ids, dimension)

    def scenes(self, source_id: int) -> list[Scene]:
        return self._store.recordings.scenes(source_id)

    def slide_links(self, video_id: int) -> list[SlideLink]:
        return self._store.recordings.slide_links(video_id)

    # --- an import: a pack's files written whole ------------------------------------------

    def refuse_if_read_only(self, what: str) -> None:
        """Raises: LibraryError (the library is read-only)."""
        self._access.refuse_if_read_only(what)

    def writing(self, what: str) -> AbstractContextManager[None]:
        """The library's write lock, held for ``what`` (see WriteAccess.writing)."""
        return self._access.writing(what)

    def fit_languages(
        self, languages: Iterable[str | None], cancel: threading.Event | None = None
    ) -> str:
        """Switch an English-only library to the multilingual embedder first, when one of
        ``languages`` needs it (engine.library.meaning)."""
        return self._fit.languages(languages, cancel)

    def write_sources(
        self,
        contents: Sequence[SourceContent],
        register: Callable[[], Sequence[int]],
        embedder: Embedder,
        after: Callable[[Sequence[int]], None],
        new_notes: Sequence[Sequence[NoteRow]],
    ) -> int:
        """Write ``contents`` in one transaction, in which ``register`` makes their source
        rows (with the catalog operations below) and ``after`` their scenes and slide
        links; ``new_notes[i]`` are added to ``contents[i]``. Returns the segments written
        (see Indexer.write_sources)."""
        return self._indexer.write_sources(contents, register, embedder, after, new_notes)

    def ensure_course(self, name: str, root: str | None) -> int:
        return self._store.catalog.ensure_course(name, root)

    def put_source(self, course_id: int, path: str, kind: SourceKind, title: str) -> int:
        """A source row at ``path``, marked being indexed until its content is written."""
        return self._store.catalog.upsert_source(
            course_id=course_id, path=path, kind=kind, title=title, status=SourceStatus.INDEXING
        )

    def move_source(self, source: Source, path: str, course_id: int) -> None:
        """The library's record of ``source`` follows its file to ``path``."""
        self._store.catalog.move_source(source.id, path, course_id)

    def put_scenes(self, source_id: int, scenes: Sequence[SceneRow]) -> None:
        self._store.recordings.put_scenes(source_id, scenes)

    def put_slide_links(self, video_id: int, links: Sequence[LinkRow]) -> None:
        self._store.recordings.replace_slide_links(video_id, links)

    def notes_of_content(self, sha256: str) -> list[NoteRow]:
        """The notes the library holds on this content (any file, any course)."""
        return self._store.notes.of_content(sha256)

    def add_notes(self, notes: Sequence[NoteRow], title: str, embedder: Embedder) -> list[int]:
        """Notes on one content (a file the library keeps), in one transaction; their ids."""
        return self._indexer.add_notes(notes, title, embedder)

    # --- a file a pack expected, found ----------------------------------------------------

    def relink(self, source: Source, path: str) -> None:
        """Link the library's record of ``source`` to its file at ``path``, under the write
        lock.

        Raises:
            LibraryError: the library is read-only or another process is importing.
        """
        with self._access.writing("link a file"):
            self._store.catalog.move_source(source.id, path, source.course_id)
