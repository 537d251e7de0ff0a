"""``coursedex pack import``: a course made searchable from a pack, with no transcription.

The pack is read and checked whole first (:mod:`engine.packs.reader`); then each file is
looked for by its content (:mod:`engine.packs.media`); a pack made with another embedding
model is embedded again from its text; and everything is written in one transaction by the
indexer, so a failure leaves the library as it was. A file that is not on this computer is
imported all the same, at the place it is expected: searchable, its hits say it is not
here, and importing or locating the file later links it (the pipeline moves a source whose
file is gone to a new path with the same content).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from engine.errors import Cancelled, CoursedexError
from engine.importing.embedding import Embedding
from engine.index.indexer import SourceContent
from engine.library import Library
from engine.models import Embedder
from engine.own_folders import own_folder, remove_files, write_whole
from engine.packs.format import Pack, PackError, PackLimits, PackSource
from engine.packs.media import MediaFinder, Place, folder_name
from engine.packs.reader import read_pack
from engine.store import NoteRow
from engine.types import SourceStatus

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PackProgress:
    stage: str  # "checking", "finding files", "embedding", "writing"
    done: int
    total: int

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0


@dataclass(frozen=True, slots=True)
class PackFile:
    title: str
    path: str  # where the library has it
    here: bool  # False: not on this computer (a hit on it says so)
    kept_in: str | None = None  # the same file, already in this course of the library


@dataclass(frozen=True, slots=True)
class ImportSummary:
    course: str
    files: tuple[PackFile, ...]
    segments: int
    notes: int
    reembedded: bool  # the pack's model was not the library's: embedded again from its text
    seconds: float

    @property
    def missing(self) -> list[PackFile]:
        return [f for f in self.files if not f.here and f.kept_in is None]


Progress = Callable[[PackProgress], None]


def import_pack(
    library: Library,
    path: Path,
    *,
    media: Path | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    limits: PackLimits | None = None,
) -> ImportSummary:
    """Import the pack at ``path``; ``media`` is a folder holding the course's files.

    Raises:
        PackError: the pack is damaged, tampered, unsafe, too large or too new (nothing
            was written).
        LibraryError: the library is read-only or another process is importing.
        Cancelled: ``cancel`` was set (nothing was written).
    """
    started = time.monotonic()
    report = progress or (lambda _p: None)
    report(PackProgress("checking", 0, 1))
    library.access.refuse_if_read_only("import a course pack")
    if media is not None and not media.is_dir():
        raise CoursedexError(f"the media folder {media} is not a folder")
    pack = read_pack(path, limits)
    course = pack.manifest.course
    fallback = path.resolve().parent / folder_name(course)
    finder = MediaFinder(media.resolve() if media is not None else None, fallback)
    with library.access.writing("import a course pack"):
        places = _places(library, pack, finder, report, cancel)
        # A pack in another language switches an English-only library first.
        library.fit.languages((source.language for source in pack.sources), cancel)
        embedder = library.embedder()
        contents, reembedded = _contents(library, pack, places, embedder, report, cancel)
        if cancel is not None and cancel.is_set():  # the last moment nothing is written yet
            raise Cancelled("pack import cancelled; the library is unchanged")
        report(PackProgress("writing", 0, 1))
        written = _write_thumbnails(library, pack, places)
        try:
            segments, notes = _write(library, pack, places, contents, embedder, media)
        except BaseException:
            remove_files(library.thumbs, [t.name for t in written])
            raise
        notes += _notes_on_kept(library, pack, places, embedder)
        library.save()
    report(PackProgress("writing", 1, 1))
    files = tuple(
        PackFile(
            s.title,
            str(p.path),
            p.here,
            p.twin.course if p.twin is not None and _kept(p, course) else None,
        )
        for s, p in zip(pack.sources, places, strict=True)
    )
    return ImportSummary(course, files, segments, notes, reembedded, time.monotonic() - started)


def _kept(place: Place, course: str) -> bool:
    """The user's own copy is indexed in another course: it stays as it is there."""
    twin = place.twin
    return (
        twin is not None
        and place.here
        and twin.status == SourceStatus.INDEXED
        and twin.course.casefold() != course.casefold()
    )


def _places(
    library: Library,
    pack: Pack,
    finder: MediaFinder,
    report: Progress,
    cancel: threading.Event | None,
) -> list[Place]:
    """Where each source goes. Refuses a place the library gives another course's file of
    other content (two packs that expect files at one path)."""
    course = pack.manifest.course
    catalog = library.store.catalog
    places: list[Place] = []
    for i, source in enumerate(pack.sources):
        if cancel is not None and cancel.is_set():
            raise Cancelled("pack import cancelled; the library is unchanged")
        report(PackProgress("finding files", i, len(pack.sources)))
        twins = [t for t in catalog.sources_by_sha256(source.sha256) if t.kind == source.kind]
        place = finder.place(source, twins, course)
        taken = catalog.source_by_path(str(place.path))
        if (
            taken is not None
            and taken.sha256 != source.sha256
            and taken.course.casefold() != course.casefold()
        ):
            raise PackError(
                f"{place.path} is already a file of the course {taken.course!r}: give the "
                "folder that holds this course's files with --media"
            )
        places.append(place)
    return places


def _contents(
    library: Library,
    pack: Pack,
    places: Sequence[Place],
    embedder: Embedder,
    report: Progress,
    cancel: threading.Event | None,
) -> tuple[list[SourceContent | None], bool]:
    """What each source writes (None: kept as the library has it), with the pack's vectors,
    or embedded again when the pack's model is not the library's."""
    same = (
        embedder.model_id == pack.manifest.model_id
        and embedder.dimension == pack.manifest.dimension
    )
    if not same:
        log.info(
            "the pack was embedded by %s; this library uses %s: embedding its text again",
            pack.manifest.model_id,
            embedder.model_id,
        )
    embedding = Embedding(library.config.embed_batch_size, library.config.embed_context)
    again = _Again(embedding, embedder, pack, report, cancel)
    out: list[SourceContent | None] = []
    row = cue = 0
    for source, place in zip(pack.sources, places, strict=True):
        rows = sum(1 for s in source.segments if s.text.strip())
        cues = sum(source.cues)
        if same:
            vectors = np.asarray(pack.vectors[row : row + rows], dtype=np.float32)
            sentences = _cue_matrices(source, pack.sentences[cue : cue + cues])
        else:
            vectors, sentences = again.source(source)
        row, cue = row + rows, cue + cues
        out.append(
            None
            if _kept(place, pack.manifest.course)
            else _content(source, place, vectors, sentences)
        )
    return out, not same


class _Again:
    """A pack's text embedded again with this library's model, a slice of segments at a
    time, saying how many texts (segments and their sentences) are done of all."""

    SLICE = 64  # segments between two reports (and two looks at the cancel)

    def __init__(
        self,
        embedding: Embedding,
        embedder: Embedder,
        pack: Pack,
        report: Progress,
        cancel: threading.Event | None,
    ) -> None:
        self.embedding, self.embedder, self.report, self.cancel = (
            embedding,
            embedder,
            report,
            cancel,
        )
        self.total = sum(
            len(s.segments) + sum(len(g.timings) for g in s.segments) for s in pack.sources
        )
        self.done = 0

    def source(self, source: PackSource) -> tuple[np.ndarray, list[np.ndarray]]:
        parts: list[np.ndarray] = []
        sentences: list[np.ndarray] = []
        for at in range(0, len(source.segments), self.SLICE):
            if self.cancel is not None and self.cancel.is_set():
                raise Cancelled("pack import cancelled; the library is unchanged")
            self.report(PackProgress("embedding", self.done, self.total))
            part = source.segments[at : at + self.SLICE]
            parts.append(self.embedding.drafts(self.embedder, source.title, part, self.cancel))
            timings = [s.timings for s in part]
            sentences.extend(self.embedding.sentences(self.embedder, timings, self.cancel))
            self.done += len(part) + sum(len(t) for t in timings)
        self.report(PackProgress("embedding", self.done, self.total))
        dimension = self.embedder.dimension
        vectors = np.vstack(parts) if parts else np.zeros((0, dimension), np.float32)
        return vectors.astype(np.float32, copy=False), sentences


def _cue_matrices(source: PackSource, matrix: np.ndarray) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    at = 0
    for n in source.cues:
        out.append(np.asarray(matrix[at : at + n], dtype=np.float32))
        at += n
    return out


def _content(
    source: PackSource, place: Place, vectors: np.ndarray, sentences: Sequence[np.ndarray]
) -> SourceContent:
    size, mtime_ns = source.size, 0
    if place.here:
        try:
            st = place.path.stat()
            size, mtime_ns = st.st_size, st.st_mtime_ns
        except OSError:
            pass
    return SourceContent(
        title=source.title,
        sha256=source.sha256,
        size=size,
        mtime_ns=mtime_ns,  # 0 for a file not here: never taken for the file unchanged
        duration_ms=source.duration_ms,
        segments=source.segments,
        vectors=vectors,
        sentences=sentences,
        speech_model=source.speech_model,
        language=source.language,
    )


def _thumbnail_name(source: PackSource, scene_index: int) -> str:
    return f"{source.sha256[:16]}-{scene_index:04d}.jpg"


def _write_thumbnails(library: Library, pack: Pack, places: Sequence[Place]) -> list[Path]:
    """The scenes' thumbnails, named by the video's content as an import names them; the
    ones written here, so that a failed commit removes them."""
    written: list[Path] = []
    own_folder(library.thumbs)
    for source, place in zip(pack.sources, places, strict=True):
        if _kept(place, pack.manifest.course):
            continue
        for i, scene in enumerate(source.scenes):
            if not scene.thumbnail:
                continue
            target = library.thumbs / _thumbnail_name(source, i)
            if target.exists():
                continue
            write_whole(target, pack.thumbnails[scene.thumbnail])
            written.append(target)
    return written


def _write(
    library: Library,
    pack: Pack,
    places: Sequence[Place],
    contents: Sequence[SourceContent | None],
    embedder: Embedder,
    media: Path | None,
) -> tuple[int, int]:
    """Returns the segments and notes written."""
    store = library.store
    catalog = store.catalog
    course = pack.manifest.course
    ids: dict[int, int] = {}  # the pack's source -> the library's
    written = [i for i, content in enumerate(contents) if content is not None]

    def register() -> list[int]:
        course_id = catalog.ensure_course(course, str(media.resolve()) if media else None)
        for i in written:
            source, place = pack.sources[i], places[i]
            twin = place.twin
            if twin is not None and twin.path != str(place.path):
                catalog.move_source(twin.id, str(place.path), course_id)
            ids[i] = catalog.upsert_source(
                course_id=course_id,
                path=str(place.path),
                kind=source.kind,
                title=source.title,
                status=SourceStatus.INDEXING,
            )
        return [ids[i] for i in written]

    def after(_written: Sequence[int]) -> None:
        for i, source in enumerate(pack.sources):
            if i in ids:
                scenes = [
                    (
                        s.start_ms,
                        s.end_ms,
                        s.keyframe_ms,
                        _thumbnail_name(source, n) if s.thumbnail else "",
                    )
                    for n, s in enumerate(source.scenes)
                ]
                store.recordings.put_scenes(ids[i], scenes)
        links: dict[int, list[tuple[int, int, int, int, float]]] = {}
        for link in pack.links:
            if link.video in ids and link.slides in ids:
                links.setdefault(ids[link.video], []).append(
                    (link.start_ms, link.end_ms, ids[link.slides], link.page, link.score)
                )
        for video, found in links.items():
            store.recordings.replace_slide_links(video, found)

    todo = [content for content in contents if content is not None]
    notes = [_new_notes(library, pack, i, places[i]) for i in written]
    segments = library.indexer.write_sources(todo, register, embedder, after, notes)
    return segments, sum(len(n) for n in notes)


def _notes_on_kept(
    library: Library, pack: Pack, places: Sequence[Place], embedder: Embedder
) -> int:
    """The pack's notes on files the user keeps in another course: added there, after the
    pack is in (a note a pack imported again finds is not added twice)."""
    added = 0
    for i, place in enumerate(places):
        twin = place.twin
        if twin is None or not _kept(place, pack.manifest.course):
            continue
        for row in _new_notes(library, pack, i, place):
            kept = replace(row, course=twin.course, last_path=twin.path, last_title=twin.title)
            library.indexer.add_note(kept, twin.title, embedder)
            added += 1
    return added


def _new_notes(library: Library, pack: Pack, index: int, place: Place) -> list[NoteRow]:
    """The pack's notes on one of its files, but for those the library has already (the
    same text at the same place: a pack imported twice does not double them)."""
    source = pack.sources[index]
    known = {
        (n.path_in_archive, n.at_ms, n.page, n.line, n.text)
        for n in library.store.notes.of_content(source.sha256)
    }
    now = time.time()
    return [
        NoteRow(
            id=0,
            course=pack.manifest.course,
            sha256=source.sha256,
            path_in_archive=n.path_in_archive,
            at_ms=n.at_ms,
            page=n.page,
            line=n.line,
            text=n.text,
            created=now,
            last_path=str(place.path),
            last_title=source.title,
        )
        for n in pack.notes
        if n.source == index and (n.path_in_archive, n.at_ms, n.page, n.line, n.text) not in known
    ]
