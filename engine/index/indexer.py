"""The one writer of a library's segments and their vectors.

SQLite gives a new row the highest free id, so a removed file's segment ids go to the next
file imported. Were rows and vectors written apart, a removal could delete the vectors of the
file that got its ids, or an import index the ids another file just freed. Every change to a
source's rows and vectors therefore happens here, under one lock: rows first (committed in
one transaction), then the vectors, and only then can another write begin.

Lock order, always: this lock, then the store's (held only inside a transaction, which never
calls the vector index), then the vector index's own. Searches take none of the first two:
the vector index serialises its calls, and a dense hit whose rows are gone is dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.importing.embedding import Embedding
from engine.index import reembedding
from engine.index.content import SourceContent, content_language, note_vectors, with_text
from engine.index.vector_files import SPACE, VectorFiles
from engine.index.vectors import VectorIndex
from engine.models import Embedder
from engine.own_folders import remove_files
from engine.store import NoteRow, Store
from engine.types import SegmentDraft, SourceStatus


class Indexer:
    """Writes and removes a source's rows, vectors and thumbnails together."""

    def __init__(self, store: Store, folder: Path) -> None:
        self.store = store
        self.thumbs = folder / "thumbs"
        self._files = VectorFiles(store, folder / "vectors")
        self._lock = threading.RLock()

    @property
    def index(self) -> VectorIndex | None:
        """The vector index (None before the first import); searches read it unlocked."""
        return self._files.index

    def vector_count(self) -> int:
        index = self._files.index
        return len(index) if index is not None else 0

    def open(self, *, quiet: bool = False, reload: bool = True) -> None:
        """Open the vector index (again, when another process saved it since it was read) and
        make it agree with the database; the caller saves it. Segments with no stored vector
        are left for :meth:`repair`, which needs the embedder. ``quiet``: another process is
        importing, so what it committed but has not saved yet is expected, not a repair.
        ``reload=False``: keep the index in memory even when another process saved one since
        (a search following another process's import: reading what it committed from the
        database costs far less than reading the whole index file again)."""
        model_id = self.store.meta.get("embedder_id")
        dimension = self.store.meta.get("dimension")
        if model_id is None or dimension is None:
            return
        with self._lock:
            self._files.open(model_id, int(dimension), quiet=quiet, reload=reload)

    def _ensure(self, embedder: Embedder) -> VectorIndex:
        with self._lock:
            return self._files.ensure(embedder)

    def save(self) -> None:
        """Save the vector index; only while holding the library's write lock.

        Raises:
            LibraryError: it cannot be written (the database still holds every vector).
        """
        with self._lock:
            self._files.save()

    def save_or_say(self) -> None:
        """Save the vector index; when it cannot be written (a full disk), say so once,
        not at each of the saves an import, its end and the close try: nothing is lost, the
        database holds every vector and the index is rebuilt from it at the next open."""
        with self._lock:
            self._files.save_or_say()

    # --- writes -------------------------------------------------------------------------

    def write_source(self, source_id: int, content: SourceContent, embedder: Embedder) -> int:
        """Swap a source's segments and vectors for ``content``'s; returns its segments. The
        user's notes on this content come back with them (engine/store/notes.py)."""
        return self.write_sources([content], lambda: [source_id], embedder)

    def write_sources(
        self,
        contents: Sequence[SourceContent],
        register: Callable[[], Sequence[int]],
        embedder: Embedder,
        after: Callable[[Sequence[int]], None] | None = None,
        new_notes: Sequence[Sequence[NoteRow]] = (),
    ) -> int:
        """Swap several sources' segments and vectors in one transaction: ``register`` makes
        their rows inside it and returns their ids, one per content; ``after`` writes what
        refers to them (scenes, slide links) in it too. All of it commits, or none (a course
        pack is imported whole). The user's notes on each content come back with it, and
        ``new_notes[i]`` (ids ignored) are added to those of ``contents[i]``.
        Returns the segments written (notes aside)."""
        with self._lock:
            index = self._ensure(embedder)
            before = self.store.embeddings.generation()
            adding = list(new_notes) or [() for _ in contents]
            notes = [
                [*self.store.notes.of_content(c.sha256), *more]
                for c, more in zip(contents, adding, strict=True)
            ]
            notes_vectors = [
                note_vectors(embedder, c.title, found)
                for c, found in zip(contents, notes, strict=True)
            ]
            with self.store.transaction():
                source_ids = register()
                old = [self.store.segments.ids_of_source(sid) for sid in source_ids]
                ids: list[list[int]] = []
                note_ids: list[list[int]] = []
                for sid, content, found, vectors in zip(
                    source_ids, contents, notes, notes_vectors, strict=True
                ):
                    ids.append(self._replace(sid, content, embedder))
                    found = [n if n.id else self._insert_note(n) for n in found]
                    note_ids.append([self.store.notes.attach(sid, n) for n in found])
                    self._put_vectors(note_ids[-1], vectors)
                    self.store.notes.seen_in(sid)
                if after is not None:
                    after(source_ids)
            for gone, new, content, attached, vectors in zip(
                old, ids, contents, note_ids, notes_vectors, strict=True
            ):
                index.delete(gone)
                index.add(with_text(new, content.segments), content.vectors)
                index.add(np.asarray(attached, dtype=np.int64), vectors)
            self._files.caught_up(index, before)
        return sum(len(new) for new in ids)

    def _insert_note(self, note: NoteRow) -> NoteRow:
        """A new note stored (inside the caller's transaction), with its id."""
        note_id = self.store.notes.insert(note)
        return replace(note, id=note_id)

    def _replace(self, source_id: int, content: SourceContent, embedder: Embedder) -> list[int]:
        return self.store.replace_source_content(
            source_id,
            title=content.title,
            sha256=content.sha256,
            size=content.size,
            mtime_ns=content.mtime_ns,
            duration_ms=content.duration_ms,
            embedder_id=embedder.model_id,
            segments=content.segments,
            vectors=content.vectors,
            space=SPACE,
            status=SourceStatus.INDEXED if content.finished else SourceStatus.INDEXING,
            sentences=content.sentences,
            speech_model=content.speech_model,
            language=content.language or content_language(content.segments),
        )

    def add_note(self, note: NoteRow, title: str, embedder: Embedder) -> int:
        """Store a new note (``note.id`` is ignored) and make it searchable under every file
        of its content (``title``: the file's, which leads its embedding); returns its id."""
        return self.add_notes([note], title, embedder)[0]

    def add_notes(self, notes: Sequence[NoteRow], title: str, embedder: Embedder) -> list[int]:
        """:meth:`add_note` for many notes on one content, embedded in one call and written
        in one transaction (a pack's notes on a file the user keeps); returns their ids."""
        with self._lock:
            index = self._ensure(embedder)
            before = self.store.embeddings.generation()
            vectors = note_vectors(embedder, title, notes)
            sources = self.store.notes.files_of(notes[0].sha256) if notes else []
            with self.store.transaction():
                stored = [self._insert_note(note) for note in notes]
                ids = [self.store.notes.attach(sid, note) for note in stored for sid in sources]
                vectors = np.repeat(vectors, len(sources), axis=0)
                self._put_vectors(ids, vectors)
            index.add(np.asarray(ids, dtype=np.int64), vectors)
            self._files.caught_up(index, before)
        return [note.id for note in stored]

    def remove_note(self, note_id: int) -> bool:
        """Delete a note and its segments and vectors; False when there is no such note."""
        with self._lock:
            with self.store.transaction():
                found = self.store.notes.get(note_id) is not None
                ids = self.store.notes.delete(note_id)
            self._delete_vectors(ids)
        return found

    def _put_vectors(self, ids: Sequence[int], vectors: np.ndarray) -> None:
        """The stored vectors of just-inserted segments (inside the caller's transaction)."""
        if ids:
            self.store.embeddings.put(ids, vectors, SPACE)

    def append_screen(
        self,
        source_id: int,
        scenes: Sequence[tuple[int, int, int, str]],
        drafts: Sequence[SegmentDraft],
        vectors: np.ndarray,
        embedder: Embedder,
    ) -> int:
        """Add a video's scenes and on-screen text after its speech; marks it indexed."""
        with self._lock:
            index = self._ensure(embedder)
            old = set(self.store.recordings.thumbnails_of_source(source_id))
            before = self.store.embeddings.generation()
            with self.store.transaction():
                self.store.recordings.put_scenes(source_id, scenes)
                ids = self.store.append_segments(source_id, drafts, vectors, SPACE)
                self.store.catalog.set_source_status(source_id, SourceStatus.INDEXED, None)
            index.add(with_text(ids, drafts), vectors)
            self._files.caught_up(index, before)
            self._delete_thumbnails(old - {s[3] for s in scenes})
        return len(ids)

    def clear_segments(self, source_id: int) -> None:
        """Forget a source's segments, vectors, scenes and thumbnails; the source stays."""
        with self._lock:
            thumbnails = self.store.recordings.thumbnails_of_source(source_id)
            if thumbnails:
                with self.store.transaction():
                    self.store.recordings.put_scenes(source_id, [])
                self._delete_thumbnails(thumbnails)
            ids = self.store.segments.ids_of_source(source_id)
            if ids:
                with self.store.transaction():
                    self.store.segments.delete_of_source(source_id)
                self._delete_vectors(ids)

    def remove_source(self, source_id: int) -> None:
        """Delete a source with its segments, vectors and thumbnails."""
        with self._lock:
            self._delete_thumbnails(self.store.recordings.thumbnails_of_source(source_id))
            ids = self.store.segments.ids_of_source(source_id)
            with self.store.transaction():
                self.store.notes.seen_in(source_id)  # its notes stay, saying where it was
                self.store.catalog.delete_source(source_id)
            self._delete_vectors(ids)

    def _delete_vectors(self, ids: Sequence[int]) -> None:
        index = self._files.index
        if index is not None:
            index.delete(ids)

    def _delete_thumbnails(self, names: Iterable[str]) -> None:
        safe = [n for n in names if n and "/" not in n and "\\" not in n and n not in (".", "..")]
        remove_files(self.thumbs, safe)

    # --- repair and re-index ------------------------------------------------------------

    def needs_repair(self) -> bool:
        """Whether :meth:`repair` has something to embed."""
        return bool(self._files.missing) or self.store.segments.any_timed_without_cues()

    def repair(
        self, embedder: Embedder, embedding: Embedding, before_writing: Callable[[], None]
    ) -> None:
        """Embed what lacks vectors: segments whose stored vector was lost (found at open),
        and timed segments stored before cue vectors existed (or whose were lost), the way
        ``embedding`` says. Under the lock, so no id can change hands between reading a text
        and storing its vector. ``before_writing`` runs before the first write, only when
        there is something to write (it may refuse: a damaged database)."""
        with self._lock:
            reembedding.repair(self._files, embedder, embedding, before_writing)

    def rebuild(
        self,
        embedder: Embedder,
        embedding: Embedding,
        switch: Callable[[], None],
        progress: Callable[[int, int], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> int:
        """Re-embed every segment with ``embedder`` (the way ``embedding`` says) and rebuild
        the vector index; returns the segments embedded; ``switch`` runs as the new vectors
        take over. Nothing changes until the new vectors are complete, and no import can
        commit meanwhile (a re-index would miss its segments).

        Raises:
            Cancelled: ``cancel`` was set; the library is unchanged.
        """
        with self._lock:
            return reembedding.rebuild(self._files, embedder, embedding, switch, progress, cancel)
