"""``coursedex pack export``: a course as the library knows it, everything but its files.

What is written is what the library stored, row for row (segments with their word times and
full-text extras, vectors and cue vectors as stored, scenes, slide links, thumbnails), so a
library that imports the pack with the same embedder finds exactly what this one finds.
The pack is written to a temporary file beside the target and renamed when complete.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import threading
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

import numpy as np

from engine import __version__
from engine.errors import Cancelled, CoursedexError
from engine.library import Library
from engine.library.pack_port import PackPort
from engine.notes import Note
from engine.outputs import check_output, write_failed, write_output
from engine.packs.format import (
    COURSE,
    MANIFEST,
    NOTES,
    SENTENCES,
    THUMBNAIL_NAME,
    THUMBS,
    VECTORS,
    Manifest,
    PackLink,
    PackNote,
    PackProgress,
    PackScene,
    PackSource,
    Progress,
)
from engine.packs.parts import course_json, manifest_json, notes_json
from engine.store import Course, Source, now_iso
from engine.types import SegmentKind, SourceKind, SourceStatus

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ExportSummary:
    path: Path
    course: str
    files: int
    segments: int
    notes: int
    size: int  # bytes on disk


def export_pack(
    library: Library,
    course: str,
    out: Path,
    *,
    with_notes: bool = False,
    force: bool = False,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> ExportSummary:
    """Write ``course`` to ``out`` as a pack, with the notes on its files (``with_notes``),
    only where :func:`~engine.outputs.check_output` allows (replacing a file: ``force``).
    ``progress`` hears of each file read ("reading") and of the writing; ``cancel`` stops
    it before the pack is written.

    Raises:
        NotFoundError: no such course.
        CoursedexError: ``out`` is refused, the course has no indexed file, its vectors are
            incomplete, or ``out`` cannot be written (nothing is left half-written).
        Cancelled: ``cancel`` was set (nothing was written).
    """
    report = progress or (lambda _p: None)
    found = library.course(course)
    dest, out = out, check_output(out, library, force=force)
    sources, model_id, dimension = _indexed(library, found)
    base = _base(found.root, sources)
    packed, vectors, sentences, thumbnails = [], [], [], {}
    for i, source in enumerate(sources):
        if cancel is not None and cancel.is_set():
            raise Cancelled("pack export cancelled; nothing was written")
        report(PackProgress("reading", i, len(sources)))
        one, v, s, t = _source(library, source, base, dimension)
        packed.append(one)
        vectors.append(v)
        sentences.append(s)
        thumbnails.update(t)
    parts: dict[str, bytes] = {
        COURSE: course_json(packed, _links(library.pack_port, sources)),
        VECTORS: _npy(np.vstack(vectors).astype(np.float32)),
        SENTENCES: _npy(np.vstack(sentences).astype(np.float16)),
    }
    carried = _notes(library.notes(found.name), sources) if with_notes else []
    if with_notes:
        parts[NOTES] = notes_json(carried)
    for name, body in thumbnails.items():
        parts[THUMBS + name] = body
    manifest = Manifest(
        course=found.name,
        model_id=model_id,
        dimension=dimension,
        made_by=f"coursedex {__version__}",
        created=now_iso(),
        parts={n: (hashlib.sha256(b).hexdigest(), len(b)) for n, b in parts.items()},
    )
    if cancel is not None and cancel.is_set():
        raise Cancelled("pack export cancelled; nothing was written")
    _write(library, dest, out, manifest, parts, report, force=force)
    files, segments = len(packed), sum(len(p.segments) for p in packed)
    return ExportSummary(out, found.name, files, segments, len(carried), out.stat().st_size)


def _indexed(library: Library, course: Course) -> tuple[list[Source], str, int]:
    """The course's indexed files, in the order the library indexed them, with the model
    and the dimension of their vectors.

    Raises:
        CoursedexError: the course has no indexed file (or the library no vectors).
    """
    port = library.pack_port
    model_id, dimension = library.embedder_id, port.dimension()
    sources = [
        s for s in port.course_sources(course.id) if s.status == SourceStatus.INDEXED and s.sha256
    ]
    if not sources or model_id is None or dimension is None:
        raise CoursedexError(f"the course {course.name!r} has no indexed file to put in a pack")
    # In the order the library indexed them: an empty library importing the pack gives
    # their segments ids in the same order, so results that tie rank the same there.
    first = {s.id: min(port.segment_ids(s.id), default=0) for s in sources}
    sources.sort(key=lambda s: first[s.id])
    return sources, model_id, dimension


def _write(
    library: Library,
    dest: Path,
    out: Path,
    manifest: Manifest,
    parts: dict[str, bytes],
    report: Progress,
    *,
    force: bool,
) -> None:
    """The pack written to ``out`` (asked for as ``dest``) whole, or not at all."""
    report(PackProgress("writing", 0, 1))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise write_failed(out, e) from e
    write_output(dest, out, lambda tmp: _zip(tmp, manifest, parts), library, force=force)
    report(PackProgress("writing", 1, 1))


def _base(root: str | None, sources: Sequence[Source]) -> str:
    """The folder a source's place in the course is relative to: the course's folder when
    every file is in it, else the nearest folder holding them all."""
    parents = [os.path.dirname(s.path) for s in sources]
    if root and all(os.path.commonpath([root, p]) == root for p in parents):
        return root
    return (
        os.path.commonpath(parents) if len({os.path.splitdrive(p)[0] for p in parents}) == 1 else ""
    )


def _relative(path: str, base: str) -> str:
    relative = os.path.relpath(path, base) if base else os.path.basename(path)
    return PurePath(relative).as_posix()


def _source(
    library: Library, source: Source, base: str, dimension: int
) -> tuple[PackSource, np.ndarray, np.ndarray, dict[str, bytes]]:
    port = library.pack_port
    # A note's segment is the note's, not the file's: notes travel only with_notes, as notes.
    rows = [(sid, d) for sid, d in port.drafts(source.id) if d.kind != SegmentKind.BOOKMARK]
    with_text = [sid for sid, d in rows if d.text.strip()]
    found, matrix = port.vectors(with_text, dimension)
    by_id = {int(sid): i for i, sid in enumerate(found)}
    if len(by_id) != len(with_text):
        raise CoursedexError(
            f"{source.path} lacks some of its vectors: open the library once to repair them "
            "(coursedex search), then export again"
        )
    vectors = matrix[[by_id[sid] for sid in with_text]] if with_text else matrix
    cue_vectors = port.cue_vectors([sid for sid, _ in rows], dimension)
    cues = [cue_vectors.get(sid) for sid, _ in rows]
    sentences = [m for m in cues if m is not None and len(m)]
    scenes, thumbnails = [], {}
    for i, scene in enumerate(port.scenes(source.id)):
        name = f"{source.sha256[:16]}-{i:04d}.jpg" if source.sha256 else ""
        body = _thumbnail(library.thumbs, scene.thumbnail)
        if body is None or not THUMBNAIL_NAME.fullmatch(name):
            name = ""
        else:
            thumbnails[name] = body
        scenes.append(PackScene(scene.start_ms, scene.end_ms, scene.keyframe_ms, name))
    packed = PackSource(
        path=_relative(source.path, base),
        kind=source.kind,
        title=source.title,
        sha256=source.sha256 or "",
        size=source.size or 0,
        duration_ms=source.duration_ms,
        speech_model=source.speech_model,
        language=source.language,
        segments=tuple(d for _, d in rows),
        cues=tuple(0 if m is None else len(m) for m in cues),
        scenes=tuple(scenes),
    )
    stacked = np.vstack(sentences) if sentences else np.zeros((0, dimension), np.float32)
    return packed, vectors.reshape(-1, dimension), stacked, thumbnails


def _thumbnail(folder: Path, name: str) -> bytes | None:
    if not name or "/" in name or "\\" in name:
        return None
    try:
        return (folder / name).read_bytes()
    except OSError as e:  # a thumbnail lost: the scene goes without
        log.info("thumbnail %s is not in the pack: %s", name, e)
        return None


def _links(port: PackPort, sources: Sequence[Source]) -> list[PackLink]:
    """Slide links between the course's own files (a deck of another course stays out)."""
    place = {s.id: i for i, s in enumerate(sources)}
    out: list[PackLink] = []
    for i, source in enumerate(sources):
        if source.kind not in (SourceKind.VIDEO, SourceKind.AUDIO):
            continue
        for link in port.slide_links(source.id):
            if link.slides_id in place:
                out.append(
                    PackLink(
                        i, link.start_ms, link.end_ms, place[link.slides_id], link.page, link.score
                    )
                )
    return out


def _notes(notes: Sequence[Note], sources: Sequence[Source]) -> list[PackNote]:
    """The notes on the pack's files (one whose file left the library stays out)."""
    place = {s.sha256: i for i, s in enumerate(sources)}
    return [
        PackNote(
            place[n.place.sha256],
            n.text,
            n.place.at_ms,
            n.place.page,
            n.place.line,
            n.place.path_in_archive,
        )
        for n in notes
        if n.place.sha256 in place
    ]


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _zip(path: Path, manifest: Manifest, parts: dict[str, bytes]) -> None:
    """The manifest first (a reader checks it before the rest); text deflated, numbers and
    pictures stored (they do not shrink)."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(MANIFEST, manifest_json(manifest), zipfile.ZIP_DEFLATED)
        for name in sorted(parts):
            method = zipfile.ZIP_DEFLATED if name.endswith(".json") else zipfile.ZIP_STORED
            zf.writestr(name, parts[name], method)
