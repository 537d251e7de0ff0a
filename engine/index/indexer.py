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

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.errors import Cancelled, LibraryError
from engine.importing.embedding import Embedding
from engine.index.content import SourceContent, content_language, note_vectors, with_text
from engine.index.vectors import HnswSettings, ReconcileReport, VectorIndex
from engine.models import Embedder
from engine.own_folders import remove_files
from engine.store import NoteRow, Store
from engine.types import SegmentDraft, SourceStatus

log = logging.getLogger(__name__)

SPACE = "text"  # one embedding space for now: every segment's text, by the text embedder


class Indexer:
    """Writes and removes a source's rows, vectors and thumbnails together."""

    def __init__(self, store: Store, folder: Path) -> None:
        self.store = store
        self.thumbs = folder / "thumbs"
        self._vectors = folder / "vectors"
        self._index: VectorIndex | None = None
        self._lock = threading.RLock()
        self._missing: set[int] = set()  # segments whose stored vector was lost
        self._seen: tuple[int, int, int] | None = None  # the index files as last read or saved
        self._unsaved = False  # a save failed and said so (a full disk)

    @property
    def index(self) -> VectorIndex | None:
        """The vector index (None before the first import); searches read it unlocked."""
        return self._index

    def vector_count(self) -> int:
        index = self._index
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
            seen = self._stamp()
            index = self._index
            saved_since = seen != self._seen and reload
            if index is None or saved_since or index.model_id != model_id:
                index = self._open_index(int(dimension), model_id)
                self._seen = seen
            now = self.store.embeddings.generation()
            stale = self._written_since(index, now)
            expected = self.store.segments.ids_with_text()
            report = index.reconcile(
                expected, lambda ids: self.store.embeddings.vectors(ids, int(dimension)), stale
            )
            if now is not None:
                index.set_generation(now)
            self._say_repaired(index, report, quiet)
            self._index = index
            self._missing = set(report.missing_vectors)

    def _open_index(self, dimension: int, model_id: str) -> VectorIndex:
        return VectorIndex.open(
            self._vectors,
            SPACE,
            dimension=dimension,
            model_id=model_id,
            library_id=self.store.meta.get("library_id"),
        )

    def _written_since(self, index: VectorIndex, now: int | None) -> set[int]:
        """The ids whose stored vector changed after the index was saved: a row removed and
        its id taken by a new one (SQLite reuses the highest free id) before a kill, or an
        index from an older copy of the library. An index newer than the database (one
        restored from an older copy) cannot say which it holds: it starts again."""
        saved = index.generation
        if now is None or saved is None or saved == now:
            return set()
        if saved > now:
            problem = "it is newer than the library database, restored from an older copy?"
            log.warning(
                "vector index %s was unusable (%s): it is rebuilt from the library database",
                index.index_path,
                problem,
            )
            index.discard(problem)
            return set()
        return self.store.embeddings.written_since(saved)

    @staticmethod
    def _say_repaired(index: VectorIndex, report: ReconcileReport, quiet: bool) -> None:
        """One line when the index was mended (an unusable one said so as it opened)."""
        if not (report.added or report.deleted) or index.problem is not None:
            return
        if quiet:
            log.info(
                "%d vectors another import has not saved yet were read from the database",
                report.added,
            )
            return
        log.warning(
            "vector index repaired from the library database: %d added (%d of them replaced), "
            "%d removed",
            report.added,
            report.replaced,
            report.deleted,
        )

    def _stamp(self) -> tuple[int, int, int] | None:
        """What tells that the index was saved since: its sidecar, replaced on every save."""
        try:
            st = (self._vectors / f"{SPACE}.json").stat()
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _ensure(self, embedder: Embedder) -> VectorIndex:
        with self._lock:
            if self._index is None:
                self.store.meta.set("embedder_id", embedder.model_id)
                self.store.meta.set("dimension", str(embedder.dimension))
                self._index = self._open_index(embedder.dimension, embedder.model_id)
                self._seen = self._stamp()
            return self._index

    def save(self) -> None:
        """Save the vector index; only while holding the library's write lock.

        Raises:
            LibraryError: it cannot be written (the database still holds every vector).
        """
        with self._lock:
            if self._index is not None:
                self._save(self._index)
                self._unsaved = False

    def save_or_say(self) -> None:
        """Save the vector index; when it cannot be written (a full disk), say so once,
        not at each of the saves an import, its end and the close try: nothing is lost, the
        database holds every vector and the index is rebuilt from it at the next open."""
        try:
            self.save()
        except LibraryError as e:
            if not self._unsaved:
                log.warning("%s; it is rebuilt from the library database at the next start", e)
            self._unsaved = True

    def _save(self, index: VectorIndex) -> None:
        """The index holds every stored vector now (the caller holds the write lock)."""
        now = self.store.embeddings.generation()
        if now is not None:
            index.set_generation(now)
        index.save()
        self._seen = self._stamp()

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
            self._caught_up(index, before)
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
            self._caught_up(index, before)
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
            self._caught_up(index, before)
            self._delete_thumbnails(old - {s[3] for s in scenes})
        return len(ids)

    def _caught_up(self, index: VectorIndex, before: int | None) -> None:
        """After this process's own vector write: an index that held every stored vector
        before it holds them all after it, so the write is not taken later for one made by
        another process (which the next open would read again and call a repair)."""
        if before is not None and index.generation == before:
            now = self.store.embeddings.generation()
            if now is not None:
                index.set_generation(now)

    def drop_segments(self, source_id: int) -> None:
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
        if self._index is not None:
            self._index.delete(ids)

    def _delete_thumbnails(self, names: Iterable[str]) -> None:
        safe = [n for n in names if n and "/" not in n and "\\" not in n and n not in (".", "..")]
        remove_files(self.thumbs, safe)

    # --- repair and re-index ------------------------------------------------------------

    def needs_repair(self) -> bool:
        """Whether :meth:`repair` has something to embed."""
        return bool(self._missing) or self.store.segments.any_timed_without_cues()

    def repair(
        self, embedder: Embedder, embedding: Embedding, before_writing: Callable[[], None]
    ) -> None:
        """Embed what lacks vectors: segments whose stored vector was lost (found at open),
        and timed segments stored before cue vectors existed (or whose were lost), the way
        ``embedding`` says. Under the lock, so no id can change hands between reading a text
        and storing its vector. ``before_writing`` runs before the first write, only when
        there is something to write (it may refuse: a damaged database)."""
        with self._lock:
            rows = self.store.segments.texts(sorted(self._missing))
            if rows:
                before_writing()
                vectors = embedding.stored(embedder, rows)
                ids = [sid for sid, _, _, _ in rows]
                index = self._ensure(embedder)
                before = self.store.embeddings.generation()
                self.store.embeddings.put(ids, vectors, SPACE)
                index.add(np.asarray(ids, dtype=np.int64), vectors)
                self._caught_up(index, before)
                log.warning("re-embedded %d segments that had lost their vectors", len(ids))
            self._missing = set()
            done = 0
            for batch in self.store.segments.timed(missing_only=True):
                if not done:
                    before_writing()
                cues = embedding.sentences(embedder, [r.timings for r in batch])
                with self.store.transaction():
                    self.store.embeddings.put_sentences([r.id for r in batch], cues)
                done += len(batch)
            if done:
                log.info("embedded the sentences of %d timed segments", done)

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
            ids, vectors = self._embed_all(embedder, embedding, progress, cancel)
            sentence_ids: list[int] = []
            sentences: list[np.ndarray] = []
            for rows in self.store.segments.timed(missing_only=False):
                timings = [r.timings for r in rows]
                sentences.extend(embedding.sentences(embedder, timings, cancel))
                sentence_ids.extend(r.id for r in rows)
            self.store.embeddings.clear()
            if ids:
                self.store.embeddings.put(ids, vectors, SPACE)
            with self.store.transaction():
                self.store.embeddings.put_sentences(sentence_ids, sentences)
            self.store.meta.set("embedder_id", embedder.model_id)
            self.store.meta.set("dimension", str(embedder.dimension))
            # A new index: the saved one holds the old model's vectors (nothing to read).
            index = VectorIndex(
                self._vectors,
                SPACE,
                embedder.dimension,
                embedder.model_id,
                HnswSettings(),
                2,
                self.store.meta.get("library_id"),
            )
            index.reconcile(
                set(ids), lambda want: self.store.embeddings.vectors(want, embedder.dimension)
            )
            self._save(index)
            self._index = index
            self._missing = set()
            switch()
            self.store.catalog.set_embedder_id(embedder.model_id)
        return len(ids)

    def _embed_all(
        self,
        embedder: Embedder,
        embedding: Embedding,
        progress: Callable[[int, int], None] | None,
        cancel: threading.Event | None,
    ) -> tuple[list[int], np.ndarray]:
        total = len(self.store.segments.ids_with_text())
        ids: list[int] = []
        parts: list[np.ndarray] = []
        for batch in self.store.segments.iter_texts():
            if cancel is not None and cancel.is_set():
                raise Cancelled("re-index cancelled; the library is unchanged")
            try:
                parts.append(embedding.stored(embedder, batch, cancel))
            except Cancelled:
                raise Cancelled("re-index cancelled; the library is unchanged") from None
            ids.extend(sid for sid, _, _, _ in batch)
            if progress is not None:
                progress(len(ids), total)
        vectors = np.vstack(parts) if parts else np.zeros((0, embedder.dimension), np.float32)
        return ids, vectors
