"""A course pack read and checked whole before anything of it is written.

The checks, in the order a damaged or hostile pack meets them: its size on disk; a zip at
all (a truncated one has lost its directory); every member's name (no ``..``, absolute
path, drive letter or symbolic link), their count, sizes and compression ratios
(:mod:`engine.ingest.safezip`, as for code archives); the manifest's format and version
(a newer pack is refused by its version); every part listed and no other, each of the size
and sha256 the manifest gives (tampered); then every field of every part, and how many
files, segments and notes (:class:`PackLimits`), counted before they are read; last, each
note and slide link at its place (:mod:`engine.packs.places`).
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

import numpy as np

from engine.config import IngestLimits
from engine.errors import UnreadableFileError
from engine.ingest.safezip import (
    check_archive,
    count_entries,
    is_symlink,
    open_zip,
    read_member,
    shown,
)
from engine.packs.format import (
    COURSE,
    MANIFEST,
    NOTES,
    SENTENCES,
    THUMBNAIL_NAME,
    THUMBS,
    VECTORS,
    Manifest,
    Pack,
    PackError,
    PackLimits,
    PackSource,
)
from engine.packs.parts import course_from, manifest_from
from engine.packs.places import notes_from, placed_links
from engine.plain_text import human_size, printable
from engine.regular_files import open_regular

_MANIFEST_CAP = 16 * 1024**2


def read_pack(path: Path, limits: PackLimits | None = None) -> Pack:
    """Read and check a pack.

    Raises:
        PackError: one line saying what is wrong; nothing was written anywhere.
    """
    limits = limits or PackLimits()
    try:
        file = open_regular(path)  # a device, a pipe or a folder is refused unread
    except UnreadableFileError as e:
        raise PackError(str(e)) from None
    with file:
        size = os.fstat(file.fileno()).st_size
        if size > limits.max_pack_bytes:
            raise PackError(
                f"the pack is {human_size(size)}, more than the limit of "
                f"{human_size(limits.max_pack_bytes)}"
            )
        try:
            if count_entries(file, size, limits.max_parts) > limits.max_parts:
                raise PackError(f"the pack holds more than {limits.max_parts} parts")
            zf = open_zip(file)
        except UnreadableFileError as e:
            raise PackError(f"not a course pack: {e}") from e
        with zf:
            infos = _members(zf, size, limits)
            manifest = manifest_from(read_member(zf, _manifest(infos), _MANIFEST_CAP))
            data = _parts(zf, infos, manifest, limits)
    return _pack(manifest, data, limits)


def _members(zf: zipfile.ZipFile, size: int, limits: PackLimits) -> dict[str, zipfile.ZipInfo]:
    """The members by name, after the archive's own checks."""
    archive = IngestLimits(
        max_archive_members=limits.max_parts,
        max_archive_total_bytes=limits.max_total_bytes,
        max_compression_ratio=limits.max_compression_ratio,
    )
    try:
        check_archive(zf, size, archive)
    except UnreadableFileError as e:
        raise PackError(str(e)) from e
    infos: dict[str, zipfile.ZipInfo] = {}
    for info in zf.infolist():
        if is_symlink(info):
            raise PackError(f"a part is a symbolic link: {shown(info.filename)}")
        if info.filename in infos:
            raise PackError(f"two parts are named {shown(info.filename)}")
        if info.is_dir():
            continue
        infos[info.filename] = info
    return infos


def _manifest(infos: dict[str, zipfile.ZipInfo]) -> zipfile.ZipInfo:
    if MANIFEST not in infos:
        raise PackError("not a Coursedex course pack (it has no manifest.json)")
    return infos[MANIFEST]


def _parts(
    zf: zipfile.ZipFile,
    infos: dict[str, zipfile.ZipInfo],
    manifest: Manifest,
    limits: PackLimits,
) -> dict[str, bytes]:
    """Every part the manifest lists, read within its declared size and checked by sha256."""
    present = set(infos) - {MANIFEST}
    missing = sorted(set(manifest.parts) - present)
    if missing:
        raise PackError(f"the pack is incomplete: {shown(missing[0])} is missing")
    unlisted = sorted(present - set(manifest.parts))
    if unlisted:
        raise PackError(f"the manifest does not list the part {shown(unlisted[0])}")
    for name in (COURSE, VECTORS, SENTENCES):
        if name not in manifest.parts:
            raise PackError(f"the pack has no {name}")
    data: dict[str, bytes] = {}
    for name in sorted(manifest.parts):
        sha, declared = manifest.parts[name]
        info = infos[name]
        if declared > limits.max_part_bytes:
            raise PackError(
                f"part {shown(name)} is {human_size(declared)}, more than the limit of "
                f"{human_size(limits.max_part_bytes)}"
            )
        if info.file_size != declared:
            raise PackError(
                f"part {shown(name)} is {human_size(info.file_size)} in the zip but "
                f"{human_size(declared)} in the manifest: tampered or damaged"
            )
        try:
            body = read_member(zf, info, declared)
        except UnreadableFileError as e:
            raise PackError(str(e)) from e
        if hashlib.sha256(body).hexdigest() != sha:
            raise PackError(
                f"part {shown(name)} is not what the manifest says (its sha256 differs): "
                "tampered or damaged"
            )
        data[name] = body
    return data


def _declared(data: bytes, name: str, dtype: type, dimension: int, rows: int) -> None:
    """The array's header checked before anything is allocated: a header may claim 10^12
    rows over a few bytes; what it declares must be what the course needs, in the bytes
    that follow it."""
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, declared = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, declared = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"NPY version {version[0]}.{version[1]}")
    except (ValueError, OSError, EOFError, SyntaxError) as e:
        raise PackError(f"{name} is not a plain NPY array ({printable(str(e))[:200]})") from None
    if declared.hasobject:
        raise PackError(f"{name} is not a plain NPY array (it holds Python objects)")
    if declared != np.dtype(dtype) or fortran or len(shape) != 2:
        raise PackError(f"{name} is not a 2-D {np.dtype(dtype).name} array")
    if tuple(shape) != (rows, dimension):
        raise PackError(
            f"{name} holds {shape[0]} x {shape[1]} numbers; the course needs {rows} x {dimension}"
        )
    if len(data) - stream.tell() != rows * dimension * declared.itemsize:
        raise PackError(f"{name} is not a plain NPY array (its data is not its header's size)")


def _matrix(data: bytes, name: str, dtype: type, dimension: int, rows: int) -> np.ndarray:
    _declared(data, name, dtype, dimension, rows)
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as e:
        raise PackError(f"{name} is not a plain NPY array ({e})") from None
    if not isinstance(array, np.ndarray) or array.shape != (rows, dimension):
        raise PackError(f"{name} is not a 2-D {np.dtype(dtype).name} array")
    if not np.isfinite(array).all():
        raise PackError(f"{name} holds numbers that are not finite")
    return array


def _with_text(source: PackSource) -> int:
    return sum(1 for s in source.segments if s.text.strip())


def _pack(manifest: Manifest, data: dict[str, bytes], limits: PackLimits) -> Pack:
    sources, raw_links = course_from(data[COURSE], limits)
    links, unlinked = placed_links(raw_links, sources)
    rows = sum(_with_text(s) for s in sources)
    cues = sum(sum(s.cues) for s in sources)
    vectors = _matrix(data[VECTORS], VECTORS, np.float32, manifest.dimension, rows)
    sentences = _matrix(data[SENTENCES], SENTENCES, np.float16, manifest.dimension, cues)
    thumbnails: dict[str, bytes] = {}
    for name, body in data.items():
        if name.startswith(THUMBS):
            if not THUMBNAIL_NAME.fullmatch(name.removeprefix(THUMBS)):
                raise PackError(f"part {shown(name)} is not a thumbnail's name")
            thumbnails[name.removeprefix(THUMBS)] = body
        elif name not in (COURSE, VECTORS, SENTENCES, NOTES):
            raise PackError(f"the pack holds a part Coursedex does not know: {shown(name)}")
    for source in sources:
        for scene in source.scenes:
            if scene.thumbnail and scene.thumbnail not in thumbnails:
                raise PackError(f"the pack is incomplete: thumbnail {scene.thumbnail} is missing")
    notes, unplaced = notes_from(data[NOTES], sources, limits) if NOTES in data else ((), ())
    return Pack(
        manifest, sources, links, vectors, sentences, thumbnails, notes, unlinked + unplaced
    )
