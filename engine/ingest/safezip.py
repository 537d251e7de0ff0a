"""Reading zip archives (code archives, .pptx) without trusting them.

Nothing is ever extracted to disk. Before reading, the member list is checked for path
escapes and for declared sizes and compression ratios that mean a zip bomb. While reading,
output is capped, because declared sizes can lie; only stored and deflated members are read
(bzip2/lzma decompress without an output bound in the standard library).
"""

from __future__ import annotations

import stat
import struct
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from engine.config import IngestLimits
from engine.errors import UnreadableFileError
from engine.plain_text import human_size, printable

_READ_CHUNK = 64 * 1024
_NAME_CHARS = 100
# Below this many uncompressed bytes a high ratio is harmless (e.g. a file of spaces).
_RATIO_FLOOR_BYTES = 1024**2
# What zipfile raises for damaged data (NotImplementedError: unknown versions/features).
ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, NotImplementedError, OSError, EOFError, ValueError)
# zipfile reads all four (bz2 and lzma are in the standard library); members are always read
# through read_member's byte budget, so the method does not matter for bombs.
READABLE_COMPRESSION = frozenset(
    {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
)


def open_zip(path: Path | BinaryIO) -> zipfile.ZipFile:
    """Open a zip archive (a file object given stays the caller's to close).

    Raises:
        UnreadableFileError: not a zip file, or the OS refuses to read it.
    """
    try:
        return zipfile.ZipFile(path)
    except (FileNotFoundError, PermissionError) as e:
        raise UnreadableFileError(f"cannot read file: {e.strerror or e}") from e
    except ZIP_ERRORS as e:
        raise UnreadableFileError("not a zip file (corrupt or truncated)") from e


def shown(name: str) -> str:
    """A member's name as a message shows it: on one line (a name may hold a newline or
    escape sequences), and at most ``_NAME_CHARS`` characters of it."""
    text = printable(name)
    return text if len(text) <= _NAME_CHARS else text[: _NAME_CHARS - 1] + "\u2026"


def member_escapes(name: str) -> bool:
    """True for absolute names, drive letters, and ``..`` that climbs out of the archive."""
    normalized = name.replace("\\", "/")
    if normalized.startswith("/") or (len(normalized) > 1 and normalized[1] == ":"):
        return True
    depth = 0
    for part in PurePosixPath(normalized).parts:
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


def is_symlink(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def check_archive(
    zf: zipfile.ZipFile, archive_bytes: int, limits: IngestLimits, total_bytes: int | None = None
) -> None:
    """Refuse archives that escape their folder or would expand into a bomb: more than
    ``total_bytes`` in all (default ``limits.max_archive_total_bytes``: a code archive's; a
    course's, with its recordings, may hold more), or compressed too well.

    Raises:
        UnreadableFileError: with a one-line reason naming the offending member or sizes.
    """
    infos = zf.infolist()
    if len(infos) > limits.max_archive_members:
        raise UnreadableFileError(
            f"too many files in archive ({len(infos)}, limit {limits.max_archive_members})"
        )
    total = 0
    for info in infos:
        if member_escapes(info.filename):
            raise UnreadableFileError(f"zip member escapes its folder: {shown(info.filename)}")
        total += info.file_size
        if (
            info.file_size > _RATIO_FLOOR_BYTES
            and info.file_size > limits.max_compression_ratio * max(1, info.compress_size)
        ):
            raise UnreadableFileError(
                f"zip bomb: {shown(info.filename)} expands {human_size(info.file_size)} "
                f"from {human_size(info.compress_size)}"
            )
    most = limits.max_archive_total_bytes if total_bytes is None else total_bytes
    if total > most or (
        total > _RATIO_FLOOR_BYTES and total > limits.max_compression_ratio * archive_bytes
    ):
        raise UnreadableFileError(
            f"zip bomb: {human_size(total)} uncompressed from {human_size(archive_bytes)}"
        )


def read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int) -> bytes:
    """Read one member fully into memory, never more than ``cap`` bytes.

    Raises:
        UnreadableFileError: the member expands beyond ``cap`` or its declared size, uses an
            unsupported compression, is encrypted, or is corrupt.
    """
    if info.compress_type not in READABLE_COMPRESSION:
        raise UnreadableFileError(f"unsupported zip compression in {shown(info.filename)}")
    if info.flag_bits & 0x1:
        raise UnreadableFileError(f"encrypted zip member: {shown(info.filename)}")
    limit = min(cap, info.file_size)
    chunks: list[bytes] = []
    size = 0
    try:
        with zf.open(info) as f:
            while True:
                chunk = f.read(_READ_CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                if size > limit:
                    raise UnreadableFileError(
                        f"zip bomb: {shown(info.filename)} expands beyond {human_size(limit)}"
                    )
                chunks.append(chunk)
    except ZIP_ERRORS as e:
        raise UnreadableFileError(f"corrupt zip member: {shown(info.filename)}") from e
    return b"".join(chunks)


_EOCD = struct.Struct("<4s4H2LH")  # end of central directory
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_EOCD = struct.Struct("<4sQ2H2L4Q")
_ENTRY = struct.Struct("<4s24x3H12x")  # a central directory entry: name, extra, comment lengths


def _directory(f: BinaryIO, size: int) -> tuple[int, int]:
    """Where the central directory starts and how long it is, from the end records."""
    tail_at = max(0, size - _EOCD.size - 0xFFFF)
    f.seek(tail_at)
    tail = f.read(size - tail_at)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _EOCD.size:
        raise UnreadableFileError("not a zip file (corrupt or truncated)")
    *_, cd_size, cd_offset, _comment = _EOCD.unpack_from(tail, at)
    locator = at - _ZIP64_LOCATOR.size
    if locator >= 0 and tail[locator : locator + 4] == b"PK\x06\x07":
        record = _ZIP64_LOCATOR.unpack_from(tail, locator)[2]
        f.seek(record)
        head = f.read(_ZIP64_EOCD.size)
        if len(head) == _ZIP64_EOCD.size and head[:4] == b"PK\x06\x06":
            *_, cd_size, cd_offset = _ZIP64_EOCD.unpack(head)
    return cd_offset, cd_size


def count_entries(f: BinaryIO, size: int, cap: int) -> int:
    """How many entries the zip's central directory holds, counted in the file before
    :mod:`zipfile` makes an object for each (46 bytes each, a 2 GB file could hold 46
    million); stops counting past ``cap``. A directory that does not parse is left to
    zipfile, which reads only as far as it parses.

    Raises:
        UnreadableFileError: no end record (not a zip file).
    """
    offset, length = _directory(f, size)
    f.seek(offset)
    count = used = 0
    while used < length and count <= cap:
        head = f.read(_ENTRY.size)
        if len(head) < _ENTRY.size or head[:4] != b"PK\x01\x02":
            break
        names, extra, comment = _ENTRY.unpack(head)[1:]
        skip = names + extra + comment
        f.seek(skip, 1)
        used += _ENTRY.size + skip
        count += 1
    f.seek(0)
    return count
