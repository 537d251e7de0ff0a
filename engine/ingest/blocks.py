"""What every document reader gives (:mod:`engine.ingest.documents`, :mod:`~engine.ingest.markup`,
:mod:`~engine.ingest.opendoc`): blocks (a heading with its level, or a paragraph), written
out as Markdown-like text (``# Heading``, paragraphs between blank lines) and cut into NOTE
segments as a Markdown note is; and the checked opening of a zip-based document.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from engine.config import EngineConfig, IngestLimits
from engine.errors import UnreadableFileError
from engine.ingest.notes import markdown_segments
from engine.ingest.safezip import check_archive, open_zip, read_member
from engine.ingest.text import check_file
from engine.types import ParsedSource, SourceKind

MAX_HEADING_CHARS = 120
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200b]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffe\uffff]")
# A body line Markdown would take for a heading, a fence or an underline is indented by
# four spaces: still shown, never structure.
_MARKUP_LINE = re.compile(r"^ {0,3}(#|```|~~~|[=\-]+[ \t]*$)")
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")


@dataclass(frozen=True, slots=True)
class Block:
    """A heading (``level`` 1-6) or a paragraph (``level`` 0) of a document."""

    text: str
    level: int = 0


@dataclass(frozen=True, slots=True)
class Document:
    """What a reader found: the title its properties give ("" when none) and its blocks."""

    title: str
    blocks: tuple[Block, ...]


def clean_line(text: str) -> str:
    return _SPACES.sub(" ", _CONTROL.sub("", text)).strip()


def render(blocks: Iterable[Block]) -> str:
    """The blocks as the text that is indexed and shown: ``#`` headings, blank-line
    separated paragraphs (a paragraph keeps its own line breaks)."""
    out: list[str] = []
    for block in blocks:
        lines = [clean_line(line) for line in block.text.replace("\r", "\n").split("\n")]
        lines = [line for line in lines if line]
        if not lines:
            continue
        if block.level:
            heading = " ".join(lines)[:MAX_HEADING_CHARS]
            out.append("#" * min(6, block.level) + " " + heading)
        else:
            out.extend("    " + ln if _MARKUP_LINE.match(ln) else ln for ln in lines)
        out.append("")
    return "\n".join(out)


def document_source(document: Document, path: Path, config: EngineConfig) -> ParsedSource:
    """NOTE segments of a document's text, at their headings and lines.

    Raises:
        UnreadableFileError: no text in it.
    """
    text = render(document.blocks)
    if len(text.encode("utf-8")) > config.limits.max_notes_bytes:
        raise UnreadableFileError(
            f"more than {config.limits.max_notes_bytes // 1024**2} MB of text: "
            "too much to index from one document"
        )
    segments = markdown_segments(text, config.chunking)
    if not segments:
        raise UnreadableFileError("no text to index in this document")
    first_heading = next((b.text for b in document.blocks if b.level and b.text.strip()), "")
    title = document.title or clean_line(first_heading)[:MAX_HEADING_CHARS] or path.stem
    return ParsedSource(kind=SourceKind.NOTES, title=title, segments=tuple(segments))


# --- zip containers ---------------------------------------------------------------------


def checked_zip(path: Path, limits: IngestLimits, what: str) -> zipfile.ZipFile:
    """A zip-based document opened after the archive checks (bombs, sizes, escapes), so no
    library inflates it first. A password-protected Office file is not a zip but an OLE
    container holding an ``EncryptedPackage``: it is named so.

    Raises:
        UnreadableFileError: not such a file, encrypted, or an unsafe zip.
    """
    size = check_file(path, limits.max_file_bytes)
    try:
        with path.open("rb") as f:
            head = f.read(1024**2)
    except OSError as e:
        raise UnreadableFileError(f"cannot read file: {e.strerror or e}") from e
    if head.startswith(_OLE_MAGIC):
        if _ENCRYPTED_PACKAGE in head:
            raise UnreadableFileError(f"{what} is password-protected: save it without one")
        raise UnreadableFileError(f"not {what} (an older binary format: save it as {what})")
    if not zipfile.is_zipfile(path):
        raise UnreadableFileError(f"not {what} (corrupt or truncated)")
    try:
        zf = open_zip(path)
    except UnreadableFileError as e:
        raise UnreadableFileError(f"not {what} (corrupt or truncated)") from e
    try:
        check_archive(zf, size, limits)
    except UnreadableFileError:
        zf.close()
        raise
    return zf


def member_bytes(zf: zipfile.ZipFile, name: str, limits: IngestLimits, what: str) -> bytes:
    """One member of a zip-based document, read under the member cap.

    Raises:
        UnreadableFileError: no such member (not that kind of file), or unsafe.
    """
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise UnreadableFileError(f"not {what} (it has no {name})") from None
    return read_member(zf, info, limits.max_archive_member_bytes)
