"""A checked pack written into the library, through its :class:`~engine.library.pack_port.
PackPort`: the scenes' thumbnails first (removed again if the commit fails), then every file
to write, with its scenes, slide links and the pack's notes, in one transaction; then the
pack's notes on the files the library keeps as it has them."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from engine.index.content import SourceContent
from engine.library import Library
from engine.library.pack_port import LinkRow, PackPort
from engine.models import Embedder
from engine.own_folders import own_folder, remove_files, write_whole
from engine.packs.format import Pack, PackSource
from engine.packs.media import Place
from engine.packs.ownership import Decision
from engine.store import NoteRow


@dataclass(frozen=True, slots=True)
class Placed:
    """Where each of a pack's files goes, what becomes of it there, and whether the
    library had a record at that path before (in the pack's order)."""

    pack: Pack
    places: list[Place]
    fates: list[Decision]
    taken: list[bool]


@dataclass(frozen=True, slots=True)
class Stored:
    """What :func:`store_pack` wrote."""

    segments: int
    notes: tuple[int, ...]  # the ids of the notes added
    notes_moved: bool  # notes the library had on a file written show with it now


def store_pack(
    library: Library,
    placed: Placed,
    contents: Sequence[SourceContent | None],
    embedder: Embedder,
    media: Path | None,
) -> Stored:
    """Write the pack (``contents``: what each file writes, None for none), under the write
    lock its caller holds; the thumbnails written go again when the commit fails."""
    written = _write_thumbnails(library.thumbs, placed.pack, placed.fates)
    try:
        stored = _write(library, placed, contents, embedder, media)
    except BaseException:
        remove_files(library.thumbs, [t.name for t in written])
        raise
    kept = _notes_on_kept(library.pack_port, placed, embedder)
    library.save()
    return replace(stored, notes=stored.notes + kept)


def _thumbnail_name(source: PackSource, scene_index: int) -> str:
    return f"{source.sha256[:16]}-{scene_index:04d}.jpg"


def _write_thumbnails(thumbs: Path, pack: Pack, fates: Sequence[Decision]) -> list[Path]:
    """The scenes' thumbnails, named by the video's content as an import names them; the
    ones written here, so that a failed commit removes them."""
    written: list[Path] = []
    own_folder(thumbs)
    for source, fate in zip(pack.sources, fates, strict=True):
        if not fate.writes:
            continue
        for i, scene in enumerate(source.scenes):
            if not scene.thumbnail:
                continue
            target = thumbs / _thumbnail_name(source, i)
            if target.exists():
                continue
            write_whole(target, pack.thumbnails[scene.thumbnail])
            written.append(target)
    return written


def _write(
    library: Library,
    placed: Placed,
    contents: Sequence[SourceContent | None],
    embedder: Embedder,
    media: Path | None,
) -> Stored:
    """The files to write, in one transaction."""
    port, pack, places = library.pack_port, placed.pack, placed.places
    course = pack.manifest.course
    ids: dict[int, int] = {}  # the pack's source -> the library's
    written = [i for i, content in enumerate(contents) if content is not None]

    def register() -> list[int]:
        course_id = port.ensure_course(course, str(media.resolve()) if media else None)
        _follow(library, placed)
        for i in written:
            source, place = pack.sources[i], places[i]
            twin = place.twin
            if twin is not None and twin.path != str(place.path):
                port.move_source(twin, str(place.path), course_id)
            ids[i] = port.put_source(course_id, str(place.path), source.kind, source.title)
        return [ids[i] for i in written]

    def after(_written: Sequence[int]) -> None:
        _scenes_and_links(port, pack, ids)

    todo = [content for content in contents if content is not None]
    notes = [_new_notes(port, pack, i, places[i]) for i in written]
    before = _note_ids(port, todo)
    segments = port.write_sources(todo, register, embedder, after, notes)
    added = tuple(sorted(_note_ids(port, todo) - before))
    return Stored(segments, added, notes_moved=bool(before))


def _note_ids(port: PackPort, contents: Sequence[SourceContent]) -> set[int]:
    return {n.id for c in contents for n in port.notes_of_content(c.sha256)}


def _scenes_and_links(port: PackPort, pack: Pack, ids: dict[int, int]) -> None:
    """The scenes and the slide links of the files written (``ids``: the pack's source to
    the library's), inside their transaction."""
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
            port.put_scenes(ids[i], scenes)
    links: dict[int, list[LinkRow]] = {}
    for link in pack.links:
        if link.video in ids and link.slides in ids:
            links.setdefault(ids[link.video], []).append(
                (link.start_ms, link.end_ms, ids[link.slides], link.page, link.score)
            )
    for video, found in links.items():
        port.put_slide_links(video, found)


def _follow(library: Library, placed: Placed) -> None:
    """A kept record whose file was found elsewhere (in the media folder) follows it, as
    ``pack locate`` links it: the content is the same, the record stays as it was."""
    for place, fate in zip(placed.places, placed.fates, strict=True):
        twin, path = place.twin, str(place.path)
        if not fate.keeps or twin is None or not place.here or twin.path == path:
            continue
        if library.source(path) is None:
            library.pack_port.move_source(twin, path, twin.course_id)


def _notes_on_kept(port: PackPort, placed: Placed, embedder: Embedder) -> tuple[int, ...]:
    """The pack's notes on files the library keeps as it has them: added there, in their
    course, after the pack is in (a note a pack imported again finds is not added twice).
    Returns their ids."""
    added: list[int] = []
    for i, (place, fate) in enumerate(zip(placed.places, placed.fates, strict=True)):
        twin = place.twin
        if twin is None or not fate.keeps:
            continue
        path = str(place.path)
        kept = [
            replace(row, course=twin.course, last_path=path, last_title=twin.title)
            for row in _new_notes(port, placed.pack, i, place)
        ]
        added += port.add_notes(kept, twin.title, embedder)  # in one batch
    return tuple(added)


def _new_notes(port: PackPort, pack: Pack, index: int, place: Place) -> list[NoteRow]:
    """The pack's notes on one of its files, but for those the library has already (the
    same text at the same place: a pack imported twice does not double them)."""
    source = pack.sources[index]
    known = {
        (n.path_in_archive, n.at_ms, n.page, n.line, n.text)
        for n in port.notes_of_content(source.sha256)
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
