"""``coursedex pack import``: a course made searchable from a pack, with no transcription.

The pack is read and checked whole first (:mod:`engine.packs.reader`); then each file is
looked for by its content (:mod:`engine.packs.media`); a pack made with another embedding
model is embedded again from its text; and everything is written in one transaction by the
indexer, so a failure leaves the library as it was. A file that is not on this computer is
imported all the same, at the place it is expected: searchable, its hits say it is not
here, and importing or locating the file later links it (the pipeline moves a source whose
file is gone to a new path with the same content). What the library indexed already is
never replaced (:mod:`engine.packs.ownership`): the pack's file is kept as the library has
it, or left out as a conflict that the summary names.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from engine.errors import Cancelled, CoursedexError
from engine.importing.embedding import Embedding
from engine.index.content import SourceContent
from engine.library import Library
from engine.models import Embedder
from engine.own_folders import own_folder, remove_files, write_whole
from engine.packs.format import Pack, PackLimits, PackProgress, PackSource, Progress
from engine.packs.media import MediaFinder, Place, folder_name
from engine.packs.ownership import Decision, decide
from engine.packs.reader import read_pack
from engine.store import NoteRow
from engine.types import SourceStatus

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PackFile:
    title: str
    path: str  # where the library has it
    here: bool  # False: not on this computer (a hit on it says so)
    kept_in: str | None = None  # the same file, indexed in this course of the library: kept
    conflict: str | None = None  # other content where it goes: left out (why, in one line)


@dataclass(frozen=True, slots=True)
class ImportSummary:
    course: str
    files: tuple[PackFile, ...]
    segments: int
    notes: int
    reembedded: bool  # the pack's model was not the library's: embedded again from its text
    seconds: float
    # A line for each note or slide link at a place its file does not have, not imported.
    left_out: tuple[str, ...] = ()

    @property
    def missing(self) -> list[PackFile]:
        return [f for f in self.files if not f.here and f.conflict is None]

    @property
    def conflicts(self) -> list[PackFile]:
        """The pack's files left out: the library's own at their places are kept."""
        return [f for f in self.files if f.conflict is not None]


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
        places, fates = _places(library, pack, finder, report, cancel)
        # A pack in another language switches an English-only library first.
        library.fit.languages((source.language for source in pack.sources), cancel)
        embedder = library.embedder()
        contents, reembedded = _contents(library, pack, places, fates, embedder, report, cancel)
        if cancel is not None and cancel.is_set():  # the last moment nothing is written yet
            raise Cancelled("pack import cancelled; the library is unchanged")
        report(PackProgress("writing", 0, 1))
        written = _write_thumbnails(library, pack, fates)
        try:
            segments, notes = _write(library, pack, places, fates, contents, embedder, media)
        except BaseException:
            remove_files(library.thumbs, [t.name for t in written])
            raise
        notes += _notes_on_kept(library, pack, places, fates, embedder)
        library.save()
    report(PackProgress("writing", 1, 1))
    files = tuple(_file(s, p, f) for s, p, f in zip(pack.sources, places, fates, strict=True))
    for f in files:
        if f.conflict is not None:
            log.warning("a file of the pack left out: %s", f.conflict)
    return ImportSummary(
        course, files, segments, notes, reembedded, time.monotonic() - started, pack.left_out
    )


def _file(source: PackSource, place: Place, fate: Decision) -> PackFile:
    twin = place.twin
    kept_in = twin.course if fate.keeps and twin is not None else None
    return PackFile(source.title, str(place.path), place.here, kept_in, fate.why or None)


def _places(
    library: Library,
    pack: Pack,
    finder: MediaFinder,
    report: Progress,
    cancel: threading.Event | None,
) -> tuple[list[Place], list[Decision]]:
    """Where each source goes, and what becomes of it there (written, kept as the library
    has it, or left out as a conflict)."""
    course = pack.manifest.course
    catalog = library.store.catalog
    places: list[Place] = []
    fates: list[Decision] = []
    for i, source in enumerate(pack.sources):
        if cancel is not None and cancel.is_set():
            raise Cancelled("pack import cancelled; the library is unchanged")
        report(PackProgress("finding files", i, len(pack.sources)))
        # Any kind: the same bytes are one file (an import counts a copy a duplicate), and a
        # course holding one content twice could not be exported again.
        twins = catalog.sources_by_sha256(source.sha256)
        place = finder.place(source, twins, course)
        places.append(place)
        fates.append(decide(source, place, catalog.source_by_path(str(place.path))))
    return places, fates


def _contents(
    library: Library,
    pack: Pack,
    places: Sequence[Place],
    fates: Sequence[Decision],
    embedder: Embedder,
    report: Progress,
    cancel: threading.Event | None,
) -> tuple[list[SourceContent | None], bool]:
    """What each source writes (None: nothing, kept or left out), with the pack's vectors,
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
    for source, place, fate in zip(pack.sources, places, fates, strict=True):
        rows = sum(1 for s in source.segments if s.text.strip())
        cues = sum(source.cues)
        if same:
            vectors = np.asarray(pack.vectors[row : row + rows], dtype=np.float32)
            sentences = _cue_matrices(source, pack.sentences[cue : cue + cues])
        else:
            vectors, sentences = again.source(source)
        row, cue = row + rows, cue + cues
        out.append(_content(source, place, vectors, sentences) if fate.writes else None)
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


def _write_thumbnails(library: Library, pack: Pack, fates: Sequence[Decision]) -> list[Path]:
    """The scenes' thumbnails, named by the video's content as an import names them; the
    ones written here, so that a failed commit removes them."""
    written: list[Path] = []
    own_folder(library.thumbs)
    for source, fate in zip(pack.sources, fates, strict=True):
        if not fate.writes:
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
    fates: Sequence[Decision],
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
        _follow(library, places, fates)
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


def _follow(library: Library, places: Sequence[Place], fates: Sequence[Decision]) -> None:
    """A kept record whose file was found elsewhere (in the media folder) follows it, as
    ``pack locate`` links it: the content is the same, the record stays as it was."""
    catalog = library.store.catalog
    for place, fate in zip(places, fates, strict=True):
        twin, path = place.twin, str(place.path)
        if not fate.keeps or twin is None or not place.here or twin.path == path:
            continue
        if catalog.source_by_path(path) is None:
            catalog.move_source(twin.id, path, twin.course_id)


def _notes_on_kept(
    library: Library,
    pack: Pack,
    places: Sequence[Place],
    fates: Sequence[Decision],
    embedder: Embedder,
) -> int:
    """The pack's notes on files the library keeps as it has them: added there, in their
    course, after the pack is in (a note a pack imported again finds is not added twice)."""
    added = 0
    for i, (place, fate) in enumerate(zip(places, fates, strict=True)):
        twin = place.twin
        if twin is None or not fate.keeps:
            continue
        path = str(place.path)
        kept = [
            replace(row, course=twin.course, last_path=path, last_title=twin.title)
            for row in _new_notes(library, pack, i, place)
        ]
        added += len(library.indexer.add_notes(kept, twin.title, embedder))  # in one batch
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
