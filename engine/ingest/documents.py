"""Documents (.docx, .odt, .rtf, saved web pages, .epub): their text as headed sections.

Each format's reader gives blocks (:mod:`engine.ingest.blocks`); the blocks are written out
as Markdown-like text (``# Heading``, paragraphs between blank lines) and that text is cut
into NOTE segments as a Markdown note is: heading path and line numbers. The preview shows
the same text (:func:`document_text`), so a hit's lines are the lines shown. Word and RTF are
read here, web pages and e-books in :mod:`~engine.ingest.markup`, OpenDocument in
:mod:`~engine.ingest.opendoc`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from engine.config import EngineConfig, IngestLimits
from engine.errors import UnreadableFileError
from engine.ingest.blocks import (
    MAX_HEADING_CHARS,
    Block,
    Document,
    checked_zip,
    clean_line,
    document_source,
    render,
)
from engine.ingest.markup import read_epub, read_html
from engine.ingest.opendoc import read_odt
from engine.ingest.text import check_file
from engine.types import ParsedSource

log = logging.getLogger(__name__)

# --- Word .docx -------------------------------------------------------------------------

_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)


def _style_level(style: object) -> int:
    """1-6 for a Title or Heading N paragraph style (by name or id, or its outline level, as
    Word keeps it in other languages; or the style it is based on), else 0."""
    while style is not None:
        for name in (style.name or "", style.style_id or ""):  # type: ignore[attr-defined]
            if name.lower() == "title":
                return 1
            found = _HEADING_STYLE.match(name.replace("_", " "))
            if found:
                return min(6, int(found.group(1)))
        outline = style.element.xpath("./w:pPr/w:outlineLvl/@w:val")  # type: ignore[attr-defined]
        if outline and str(outline[0]).isdigit() and int(outline[0]) < 9:
            return min(6, int(outline[0]) + 1)
        style = style.base_style  # type: ignore[attr-defined]
    return 0


def _levels(doc: object) -> dict[str, int]:
    """Each paragraph style's heading level, by style id, worked out once: python-docx
    looks a paragraph's style up among all styles each time (20,000 paragraphs took 23 s)."""
    from docx.enum.style import WD_STYLE_TYPE

    styles = doc.styles  # type: ignore[attr-defined]
    return {s.style_id: _style_level(s) for s in styles if s.type == WD_STYLE_TYPE.PARAGRAPH}


def _docx_blocks(doc: object) -> Iterator[Block]:
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    levels = _levels(doc)
    comments = {c.comment_id: c for c in doc.comments}  # type: ignore[attr-defined]
    for item in doc.iter_inner_content():  # type: ignore[attr-defined]
        if isinstance(item, Paragraph):
            yield Block(item.text, levels.get(item._p.style or "", 0))
            for cid in item._p.xpath(".//w:commentReference/@w:id"):
                comment = comments.get(int(cid))
                if comment is not None and comment.text.strip():
                    who = comment.author or "comment"
                    yield Block(f"[{who}] {comment.text}")
        elif isinstance(item, Table):
            yield Block("\n".join(_table_rows(item)))


def _table_rows(table: object) -> Iterator[str]:
    for row in table.rows:  # type: ignore[attr-defined]
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            if cell._tc is previous:  # a merged cell comes once for each column it spans
                continue
            previous = cell._tc
            text = " ".join(cell.text.split())
            if text:
                cells.append(text)
        if cells:
            yield " | ".join(cells)


def read_docx(path: Path, limits: IngestLimits) -> Document:
    """A Word document's headings, paragraphs, tables and comments, in document order.

    Raises:
        UnreadableFileError: empty, too large, password-protected, corrupt, or unsafe.
    """
    with checked_zip(path, limits, "a Word document"):
        pass
    try:
        import docx  # imported when a document is read: python-docx pulls lxml parts

        doc = docx.Document(str(path))
        blocks = tuple(_docx_blocks(doc))
        title = clean_line(doc.core_properties.title or "")
    except UnreadableFileError:
        raise
    except Exception as e:
        # python-docx reports a broken package as many types (KeyError, lxml's
        # XMLSyntaxError, PackageNotFoundError, ValueError): all mean "unreadable".
        raise UnreadableFileError("not a Word document (corrupt or truncated)") from e
    return Document(_useful_title(title), blocks)


def _useful_title(title: str) -> str:
    from engine.ingest.slides import meta_title

    return meta_title(title)


# --- .rtf -------------------------------------------------------------------------------


def read_rtf(path: Path, limits: IngestLimits) -> Document:
    """An RTF file's paragraphs (RTF keeps no headings that striprtf can tell).

    Raises:
        UnreadableFileError: empty, too large, or not RTF.
    """
    size = check_file(path, limits.max_file_bytes)
    if size > limits.max_text_file_bytes:
        raise UnreadableFileError(
            f"larger than {limits.max_text_file_bytes // 1024**2} MB: too large for an RTF file"
        )
    try:
        data = path.read_bytes()
    except OSError as e:
        raise UnreadableFileError(f"cannot read file: {e.strerror or e}") from e
    if not data.lstrip().startswith(b"{\\rtf"):
        raise UnreadableFileError("not an RTF file")
    from striprtf.striprtf import rtf_to_text

    try:
        # RTF is 7-bit: other characters are escapes striprtf decodes (\'e9, \u233).
        text = rtf_to_text(data.decode("latin-1"), errors="ignore")
    except (ValueError, LookupError, RecursionError) as e:
        raise UnreadableFileError("not an RTF file (damaged)") from e
    lines = [clean_line(line) for line in text.split("\n")]
    first = next((line for line in lines if line), "")
    return Document(first[:MAX_HEADING_CHARS], tuple(Block(line) for line in lines))


def _readers() -> dict[str, Callable[[Path, IngestLimits], Document]]:
    return {
        ".docx": read_docx,
        ".odt": read_odt,
        ".rtf": read_rtf,
        ".html": read_html,
        ".htm": read_html,
        ".xhtml": read_html,
        ".epub": read_epub,
    }


def read_document(path: Path, limits: IngestLimits) -> Document:
    """A document read by its extension's reader.

    Raises:
        UnreadableFileError: no reader for it, or the reader's reasons.
    """
    reader = _readers().get(path.suffix.lower())
    if reader is None:
        raise UnreadableFileError(f"not a document: {path.suffix or path.name}")
    return reader(path, limits)


def parse_document(path: Path, config: EngineConfig) -> ParsedSource:
    """A document -> NOTE segments at its headings and lines (title: its properties' title,
    else its first heading, else the file's name).

    Raises:
        UnreadableFileError: unreadable, unsafe, or without text.
    """
    return document_source(read_document(path, config.limits), path, config)


def document_text(path: Path, limits: IngestLimits) -> str:
    """The text a document's hits point into (their lines are this text's lines).

    Raises:
        UnreadableFileError: the file is gone or no longer readable.
    """
    return render(read_document(path, limits).blocks)
