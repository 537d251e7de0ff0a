"""Source files, notebooks and zip archives of them -> one CODE source each.

An archive is read in memory, never extracted: every code, notebook and notes file in it
becomes segments with its path inside the archive; unsafe archives are refused whole.
"""

from __future__ import annotations

import logging
from pathlib import Path, PurePosixPath

from engine.config import EngineConfig
from engine.errors import UnreadableFileError
from engine.ingest.code import code_segments
from engine.ingest.grammars import grammar_for
from engine.ingest.kinds import NOTE_EXTENSIONS, NOTEBOOK_EXTENSIONS, classify
from engine.ingest.notebook import notebook_segments
from engine.ingest.notes import note_segments
from engine.ingest.safezip import (
    READABLE_COMPRESSION,
    check_archive,
    is_symlink,
    open_zip,
    read_member,
    shown,
)
from engine.ingest.text import check_file, decode_text, read_text
from engine.plain_text import human_size, plural
from engine.types import ParsedSource, SegmentDraft, SourceKind

log = logging.getLogger(__name__)

_MAX_WARNINGS = 5
SKIPPED_ARCHIVE_DIRS = frozenset(
    {"__MACOSX", ".git", "node_modules", "__pycache__", ".venv", "venv", ".hg", ".svn",
     ".ipynb_checkpoints", ".mypy_cache", ".pytest_cache", ".tox", ".idea"}
)  # fmt: skip


def _member_segments(text: str, name: str, config: EngineConfig) -> list[SegmentDraft]:
    suffix = PurePosixPath(name).suffix.lower()
    if suffix in NOTEBOOK_EXTENSIONS:
        return notebook_segments(text, name, config.chunking)
    if suffix in NOTE_EXTENSIONS and PurePosixPath(name).name.lower() != "cmakelists.txt":
        return note_segments(text, name, config.chunking, path_in_archive=name)[1]
    return code_segments(text, name, config.chunking, grammar_name=grammar_for(name))


def parse_code_file(path: Path, config: EngineConfig) -> ParsedSource:
    """A single source file or notebook; ``path_in_archive`` is the file name.

    Raises:
        UnreadableFileError: empty, too large, binary, or (notebook) not valid JSON.
    """
    limits = config.limits
    is_notebook = path.suffix.lower() in NOTEBOOK_EXTENSIONS
    max_bytes = limits.max_text_file_bytes if is_notebook else limits.max_code_file_bytes
    text = read_text(path, max_bytes, what="a notebook" if is_notebook else "a source file")
    segments = _member_segments(text, path.name, config)
    if not segments:
        raise UnreadableFileError("no code to index (only blank lines or punctuation)")
    return ParsedSource(kind=SourceKind.CODE, title=path.name, segments=tuple(segments))


def skip_reason(name: str) -> str | None:
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if any(part in SKIPPED_ARCHIVE_DIRS for part in parts[:-1]):
        return "ignored folder"
    if parts and parts[-1].startswith("._"):
        return "macOS metadata"
    return None


def parse_archive(path: Path, config: EngineConfig) -> ParsedSource:
    """Every code, notebook and notes file inside a zip, read in memory, never extracted.

    Members that are binary, too big, symlinks, nested archives or of other kinds are
    skipped (named in ``warnings``); unsafe archives are refused as a whole.

    Raises:
        UnreadableFileError: not a zip, a member escapes its folder, a zip bomb, too many
            members, or nothing indexable inside.
    """
    limits = config.limits
    size = check_file(path, limits.max_file_bytes)
    segments: list[SegmentDraft] = []
    warnings: list[str] = []
    budget = limits.max_archive_total_bytes
    locked = 0  # members skipped as encrypted or compressed in a way zipfile cannot read
    with open_zip(path) as zf:
        check_archive(zf, size, limits)
        seen: set[str] = set()
        for info in sorted(zf.infolist(), key=lambda i: i.filename):
            name = info.filename.replace("\\", "/")
            if info.is_dir() or name in seen or skip_reason(name):
                continue
            seen.add(name)
            if is_symlink(info):
                warnings.append(f"{shown(name)}: symbolic link skipped")
                continue
            if PurePosixPath(name).suffix.lower() == ".zip":
                warnings.append(f"{shown(name)}: archive inside an archive skipped")
                continue
            if classify(PurePosixPath(name)) not in (SourceKind.CODE, SourceKind.NOTES):
                continue
            cap = limits.max_archive_member_bytes
            if PurePosixPath(name).suffix.lower() not in NOTEBOOK_EXTENSIONS | NOTE_EXTENSIONS:
                cap = min(cap, limits.max_code_file_bytes)
            if info.file_size > cap:
                warnings.append(f"{shown(name)}: too large ({human_size(info.file_size)}) skipped")
                continue
            if info.file_size == 0:
                continue
            if info.flag_bits & 0x1:
                warnings.append(f"{shown(name)}: encrypted, skipped")
                locked += 1
                continue
            if info.compress_type not in READABLE_COMPRESSION:
                warnings.append(f"{shown(name)}: unsupported compression, skipped")
                locked += 1
                continue
            data = read_member(zf, info, min(cap, budget))
            budget -= len(data)
            try:
                text = decode_text(data, "a text file")
                segments += _member_segments(text, name, config)
            except UnreadableFileError as e:
                warnings.append(f"{shown(name)}: {e}")
                continue
    return _archive_source(path, segments, warnings, locked)


def _archive_source(
    path: Path, segments: list[SegmentDraft], warnings: list[str], locked: int
) -> ParsedSource:
    """What reading the archive's members came to: its source, or why there is none.
    ``locked``: members skipped as encrypted or compressed in a way zipfile cannot read.

    Raises:
        UnreadableFileError: no member gave a segment.
    """
    for warning in warnings:
        log.info("%s: %s", path.name, warning)
    if not segments and locked:
        raise UnreadableFileError(
            f"cannot read the archive's files: {plural(locked, 'file is', 'files are')} "
            "password-protected or compressed in a way Coursedex does not read"
        )
    if not segments:
        raise UnreadableFileError("no code or notes files in the archive")
    if len(warnings) > _MAX_WARNINGS:  # the import's note names a few, then counts
        more = len(warnings) - _MAX_WARNINGS
        warnings = [*warnings[:_MAX_WARNINGS], f"{plural(more, 'more file')} skipped"]
    return ParsedSource(
        kind=SourceKind.CODE, title=path.stem, segments=tuple(segments), warnings=tuple(warnings)
    )
